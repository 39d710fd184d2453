// matmul_lab_state.cpp: the matmul lab's sessions (save, load and the check without a lab, through the
// schema's bindings, ui/matmul/matmul_schema.cpp) and its presenter-mode read-outs (see matmul_lab.h).
#include <algorithm>
#include <string>

#include "app/matmul/matmul_lab.h"
#include "app/session.h"
#include "core/param_binding.h"
#include "core/text.h"
#include "ui/matmul/matmul_schema.h"

namespace bs::matmul_lab {

namespace {

// Reads `state` over `m` (members left out keep their values): first the schema's checks of every member
// (types, ranges, names; ui/matmul/matmul_schema.h), then the rules across members (the problem must fit).
std::optional<std::string> read_matmul_state(const nlohmann::json& state, ui::MatmulPanelModel& m) {
  const params::Schema& schema = ui::matmul_schema();
  if (auto err = params::check_state(schema, state, "labs.matmul", {"anatomy_overlay"})) return err;
  StateReader r(state, "labs.matmul");
  AnatomyWindow::check_state(r, "anatomy_overlay");
  if (!r.ok()) return r.error();
  params::load_bound(schema, m, state);  // every parameter through its binding (size first, then m, n, k)
  if (auto err = mm::validate(mm::Problem{m.mnk[0], m.mnk[1], m.mnk[2]})) return "labs.matmul: " + *err;
  return std::nullopt;
}

}  // namespace

// The parameters in force: the size the lab runs (the panel may hold one that did not apply).
ui::MatmulPanelModel MatmulLab::in_force() const {
  ui::MatmulPanelModel m = m_model;
  m.mnk[0] = static_cast<int>(m_problem.m);
  m.mnk[1] = static_cast<int>(m_problem.n);
  m.mnk[2] = static_cast<int>(m_problem.k);
  m.variant = std::clamp(m.variant, 0, static_cast<int>(mm::gpu_variants().size()) - 1);
  return m;
}

nlohmann::json MatmulLab::save_state() const {
  nlohmann::json j = params::save_bound(ui::matmul_schema(), in_force());
  m_anatomy.save_state(j, "anatomy_overlay");
  return j;
}

std::optional<std::string> MatmulLab::load_state(const nlohmann::json& state) {
  ui::MatmulPanelModel m = in_force();
  if (auto err = read_matmul_state(state, m)) return err;
  m_anatomy.load_state(state, "anatomy_overlay");
  const bool variant_changed = m.variant != m_model.variant;
  m_model = m;
  const mm::Problem before = m_problem;
  if (!apply_size()) return m_model.param_error;  // valid, but not runnable here (device memory)
  // A new size re-runs the selected variant (rebuild); a new variant alone is run here.
  if (variant_changed && m_problem == before && m_gpu)
    queue_run(mm::gpu_variants()[static_cast<size_t>(m_model.variant)].id);
  return std::nullopt;
}

std::vector<ui::Readout> MatmulLab::readouts() const {
  std::vector<ui::Readout> out;
  const auto vars = mm::gpu_variants();
  const std::string selected =
      vars[static_cast<size_t>(std::clamp(m_model.variant, 0, static_cast<int>(vars.size()) - 1))].name;
  const ui::LadderRow* row = nullptr;
  const ui::LadderRow* cublas = nullptr;
  const ui::LadderRow* best_cpu = nullptr;
  for (const ui::LadderRow& r : m_model.rows) {
    if (r.name == selected) row = &r;
    if (r.cublas) cublas = &r;
    if (!r.gpu && (!best_cpu || r.gflops > best_cpu->gflops)) best_cpu = &r;
  }
  if (!row)  // the fastest measured row instead
    for (const ui::LadderRow& r : m_model.rows)
      if (!row || r.gflops > row->gflops) row = &r;
  // No GPU: the simulated check of the user's matmul (a verdict, never a time).
  if (!m_gpu)
    if (auto r = m_sim.readout()) out.push_back(std::move(*r));
  if (!row || row->gflops <= 0) return out;
  out.push_back({"throughput", fmt_fixed(row->gflops, row->gflops < 100 ? 1 : 0), "GFLOP/s", row->title});
  out.push_back({"time", fmt_fixed(row->ms.median, row->ms.median < 1 ? 3 : 2), "ms",
                 mm::to_string(m_problem) + ", median"});
  if (cublas && cublas != row && cublas->gflops > 0)
    out.push_back({"of cuBLAS", fmt_fixed(100.0 * row->gflops / cublas->gflops, 0), "%",
                   "cuBLAS: " + fmt_fixed(cublas->gflops, 0) + " GFLOP/s"});
  if (row->gpu && best_cpu && best_cpu->gflops > 0)
    out.push_back({"speedup vs CPU", fmt_fixed(row->gflops / best_cpu->gflops, 1), "x", best_cpu->title});
  // The user's rung (kernel lab), beside the selected variant: its speed, check and % of cuBLAS.
  for (const ui::LadderRow& r : m_model.rows)
    if (r.name == k_user_row && &r != row)
      out.push_back({"your kernel", fmt_fixed(r.gflops, r.gflops < 100 ? 1 : 0), "GFLOP/s",
                     r.title + ": " + (r.check ? r.check->summary() : std::string("not checked")) +
                         (cublas && cublas->gflops > 0
                              ? "; " + fmt_fixed(100.0 * r.gflops / cublas->gflops, 0) + "% of cuBLAS"
                              : std::string())});
  return out;
}

}  // namespace bs::matmul_lab

namespace bs {

std::optional<std::string> check_matmul_state(const nlohmann::json& state) {
  ui::MatmulPanelModel m;
  return matmul_lab::read_matmul_state(state, m);
}

}  // namespace bs
