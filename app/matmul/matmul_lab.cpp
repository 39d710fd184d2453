// matmul_lab.cpp: the matmul lab: C = A x B computed by a ladder of GPU kernels (or the CPU baselines), C
// shown as a heat map with the selected variant's block grid drawn over it, the k-loop of the hovered tile in
// an A/B diagram, and a ladder of measured variants (GFLOP/s, % cuBLAS, % peak, correctness) built up run by
// run. The class is in matmul_lab.h; the user's kernel in matmul_lab_user.cpp, sessions in
// matmul_lab_state.cpp.
#include "app/matmul/matmul_lab.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "app/labs.h"
#include "app/layout.h"
#include "app/matmul/matmul_anatomy.h"
#include "app/matmul/matmul_sweep_target.h"
#include "app/session.h"
#include "app/roofline/roofline_report.h"
#include "core/error.h"
#include "core/text.h"
#include "gpu/matmul/matmul_work.h"
#include "gpu/matmul/precision.h"
#include "app/matmul/matmul_tc_timing.h"
#include "gpu/matmul/tc.h"
#include "ui/field_view.h"
#include "ui/matmul/matmul_schema.h"

namespace bs::matmul_lab {

namespace {

// Inputs are fixed per size, so every variant multiplies the same A and B.
constexpr uint32_t k_seed_a = 1, k_seed_b = 2;
// Up to this many multiply-adds the CPU path computes C right away in the frame (well under a millisecond of
// OpenBLAS); larger problems run on a CpuJob.
constexpr double k_cpu_inline_fmas = 4.0e6;
// GPU timing: about this much time of timed launches per variant, at least 3 and at most 30 of them, and at
// most this much GPU work enqueued per frame so a slow kernel never stalls the UI.
constexpr double k_gpu_budget_ms = 600.0;
constexpr double k_gpu_frame_ms = 20.0;
// CPU timing: repeat a run while it is short, within about this budget.
constexpr double k_cpu_budget_s = 1.0;

// Ladder order: GPU variants as listed, the user's kernel, then the CPU baselines.
int order_of(const std::string& name) {
  if (name == k_user_row) return 50;
  const auto g = mm::gpu_variants();
  for (size_t i = 0; i < g.size(); ++i)
    if (name == g[i].name) return static_cast<int>(i);
  const auto c = mm::cpu_variants();
  for (size_t i = 0; i < c.size(); ++i)
    if (name == c[i].name) return 100 + static_cast<int>(i);
  return 1000;
}

}  // namespace

double fmas(const mm::Problem& p) {
  return p.flops() * 0.5;
}

float abs_max(const std::vector<float>& c) {
  float hi = 0;
  for (float v : c)
    if (std::isfinite(v)) hi = std::max(hi, std::fabs(v));
  return hi > 0 ? hi : 1.0f;
}

void MatmulLab::make_inputs() {
  m_a = std::make_shared<const std::vector<float>>(mm::make_matrix(m_problem.m, m_problem.k, k_seed_a));
  m_b = std::make_shared<const std::vector<float>>(mm::make_matrix(m_problem.k, m_problem.n, k_seed_b));
  m_ref = std::make_shared<mm::Reference>();
  m_model.rows.clear();
}

void MatmulLab::rebuild() {
  m_user_job.wait();
  list_tc_rungs();  // the path may have changed (a GPU failure steps down to the CPU)
  m_gpu.reset();
  m_task.reset();
  m_queue.clear();
  const bool gpu = m_env.path.path != RenderPath::Cpu;
  m_model.gpu = gpu;
  m_model.problem = m_problem;
  m_model.device_name = m_env.device.name;
  m_model.peak_gflops = gpu ? peak_fp32_gflops(m_env.device) : 0.0;
  if (gpu) {
    m_gpu = std::make_unique<mm::GpuRunner>(m_problem);
    m_gpu->set_inputs(*m_a, *m_b);
    m_model.compute_label = "GPU: " + m_env.device.name + " (" + to_string(m_env.path.path) +
                            "); CPU baselines on a worker thread";
  } else {
    m_model.compute_label = "CPU only (" + m_env.path.reason +
                            "): C is computed by the CPU baselines; the overlay "
                            "shows how each GPU variant would tile it";
  }
  m_presenter.resize(static_cast<int>(m_problem.n), static_cast<int>(m_problem.m), gpu);
  m_host_c.clear();
  m_model.c_source = "C: not computed yet";
  if (gpu)
    queue_run(mm::gpu_variants()[static_cast<size_t>(m_model.variant)].id);
  else
    compute_cpu_inline();
}

bool MatmulLab::apply_size() {
  const mm::Problem p{m_model.mnk[0], m_model.mnk[1], m_model.mnk[2]};
  if (auto err = mm::validate(p)) {
    m_model.param_error = *err + " - the lab keeps " + mm::to_string(m_problem);
    return false;
  }
  if (p == m_problem) {
    m_model.param_error.clear();
    return true;
  }
  for (auto& j : m_cpu_job)
    j.cancel();
  drain_gpu();
  const mm::Problem old = m_problem;
  m_problem = p;
  try {
    make_inputs();
    rebuild();
  } catch (const InvalidRequest& e) {
    m_model.param_error = std::string(e.what()) + " - the lab keeps " + mm::to_string(old);
    m_problem = old;
    make_inputs();
    rebuild();
    return false;
  }
  m_model.param_error.clear();
  return true;
}

// Waits for launches already enqueued (user-initiated: a size change or a stop), so stale event times never
// reach the next task.
void MatmulLab::drain_gpu() {
  if (!m_gpu) return;
  m_gpu->sync();
  m_gpu->poll_ms();
  m_task.reset();
}

void MatmulLab::ensure_reference_gpu() {
  if (!m_ref->values.empty() || !m_gpu) return;
  // A new object: CPU jobs may still hold (and read) the old one.
  auto ref = std::make_shared<mm::Reference>();
  // cuBLAS DGEMM: tens of milliseconds even at 8192^3, where the CPU's dgemm would stall the frame for
  // seconds. If the double copies do not fit, a CPU baseline run computes the reference on its worker
  // instead.
  try {
    ref->values = m_gpu->reference_f64();
    ref->label = "float64 GPU (cuBLAS DGEMM)";
  } catch (const InvalidRequest& e) {
    ref->label = std::string("none: ") + e.what();
  }
  m_ref = std::move(ref);
}

// Queues `v`, and cuBLAS after it while this size has no cuBLAS row yet, so % of cuBLAS is always measured in
// this session, on the same A and B.
void MatmulLab::queue_run(mm::Variant v) {
  m_queue.push_back(v);
  const bool have =
      std::any_of(m_model.rows.begin(), m_model.rows.end(), [](const auto& r) { return r.cublas; });
  const bool queued = std::find(m_queue.begin(), m_queue.end(), mm::Variant::Cublas) != m_queue.end() ||
                      (m_task && m_task->v == mm::Variant::Cublas);
  if (!have && !queued) m_queue.push_back(mm::Variant::Cublas);
}

void MatmulLab::start_gpu_task() {
  if (m_task || m_queue.empty() || !m_gpu) return;
  m_task = GpuTask{.v = m_queue.front()};
  m_queue.pop_front();
}

void MatmulLab::step_gpu_task() {
  if (!m_task) start_gpu_task();
  if (!m_task) return;
  GpuTask& t = *m_task;
  if (t.phase == 0) {
    ensure_reference_gpu();
    m_gpu->poison_c();
    m_gpu->enqueue(t.v);  // correctness run; its time is the warm-up, kept apart
    t.phase = 1;
    return;
  }
  if (t.phase == 1) {
    const std::vector<double> done = m_gpu->poll_ms();
    if (done.empty()) return;
    t.first_ms = done.front();
    std::vector<float> c = m_gpu->download_c();
    if (!m_ref->values.empty()) t.check = mm::check_result(c, m_ref->values, m_problem.k, m_ref->label);
    m_range = abs_max(c);
    m_present_device = true;
    m_dirty = true;
    m_model.c_source = std::string("C below: ") + mm::info(t.v).name +
                       " on the GPU (magenta cells: never written, still NaN)";
    t.want = std::clamp(static_cast<int>(k_gpu_budget_ms / std::max(t.first_ms, 1e-3)), 3, 30);
    t.phase = 2;
    return;  // C goes into GL this frame, before timed launches queue behind the copy
  }
  // Phase 2: collect finished launches, then top up within the per-frame budget.
  for (double ms : m_gpu->poll_ms())
    t.ms.push_back(ms);
  const int in_flight = t.enqueued - static_cast<int>(t.ms.size());
  if (t.stop) {
    if (in_flight == 0) m_task.reset();
    return;
  }
  if (static_cast<int>(t.ms.size()) >= t.want) {
    finish_gpu_task();
    return;
  }
  if (in_flight == 0) {
    const int batch =
        std::clamp(static_cast<int>(k_gpu_frame_ms / std::max(t.first_ms, 1e-3)), 1, t.want - t.enqueued);
    for (int i = 0; i < batch; ++i)
      m_gpu->enqueue(t.v);
    t.enqueued += batch;
  }
}

void MatmulLab::finish_gpu_task() {
  GpuTask& t = *m_task;
  ui::LadderRow row;
  const mm::VariantInfo& vi = mm::info(t.v);
  row.name = vi.name;
  row.title = vi.title;
  row.gpu = true;
  row.cublas = t.v == mm::Variant::Cublas;
  row.ms = summarize(t.ms);
  row.gflops = m_problem.flops() / (row.ms.median * 1e-3) * 1e-9;
  row.attr = m_gpu->attributes(t.v);
  row.check = t.check;
  if (row.cublas) row.note = mm::GpuRunner::cublas_mode();
  // The auto rung shows what it chose for this problem on this device.
  if (t.v == mm::Variant::Auto) {
    row.title = "auto: " + mm::to_string(m_gpu->auto_choice(), true);
    row.note = "auto chose " + mm::to_string(m_gpu->auto_choice());
  }
  upsert_row(std::move(row));
  m_task.reset();
}

void MatmulLab::upsert_row(ui::LadderRow row) {
  report_run(m_env, "matmul", row.name, row.gpu, row.ms.median, mm::run_work(m_problem),
             mm::to_string(m_problem));
  auto& rows = m_model.rows;
  std::erase_if(rows, [&](const ui::LadderRow& r) { return r.name == row.name; });
  rows.push_back(std::move(row));
  std::stable_sort(rows.begin(), rows.end(), [](const ui::LadderRow& a, const ui::LadderRow& b) {
    return order_of(a.name) < order_of(b.name);
  });
}

void MatmulLab::show_host_c(std::vector<float> c, const std::string& source) {
  m_host_c = std::move(c);
  m_range = abs_max(m_host_c);
  m_present_device = false;
  m_dirty = true;
  m_model.c_source = source;
}

// CPU path at a small size: C (OpenBLAS) and its check right away, so the view is never empty.
void MatmulLab::compute_cpu_inline() {
  if (fmas(m_problem) > k_cpu_inline_fmas) {
    // OpenBLAS on the worker: the quickest way to a picture (still cancellable between row panels).
    const auto cpus = mm::cpu_variants();
    for (size_t i = 0; i < cpus.size() && i < 3; ++i)
      if (cpus[i].id == mm::CpuVariant::OpenBlas) start_cpu_job(i);
    return;
  }
  if (m_ref->values.empty()) {
    auto ref = std::make_shared<mm::Reference>();
    ref->values = mm::reference_cpu(*m_a, *m_b, m_problem);
    ref->label = "float64 CPU (OpenBLAS dgemm)";
    m_ref = std::move(ref);
  }
  std::vector<float> c(m_problem.c_count(), std::nanf(""));
  const auto t0 = std::chrono::steady_clock::now();
  mm::run_cpu(mm::CpuVariant::Blocked, *m_a, *m_b, c, m_problem);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  ui::LadderRow row;
  row.name = mm::info(mm::CpuVariant::Blocked).name;
  row.title = mm::cpu_label(mm::CpuVariant::Blocked);
  row.gpu = false;
  row.ms = summarize(std::vector<double>{ms});
  row.gflops = m_problem.flops() / (ms * 1e-3) * 1e-9;
  row.check = mm::check_result(c, m_ref->values, m_problem.k, m_ref->label);
  row.note = "one run, computed in the frame (tiny size)";
  upsert_row(std::move(row));
  show_host_c(std::move(c), "C below: cpu_blocked on the CPU");
}

void MatmulLab::start_cpu_job(size_t i) {
  const mm::CpuVariant v = mm::cpu_variants()[i].id;
  auto result = std::make_shared<CpuResult>();
  result->p = m_problem;
  m_cpu_result[i] = result;
  m_model.cpu[i].status.clear();
  const auto a = m_a, b = m_b;
  const auto ref = m_ref;  // read-only in the job: the frame replaces m_ref rather than writing into it
  const bool need_ref = ref->values.empty() && fmas(m_problem) <= mm::k_cpu_reference_max_fmas;
  const mm::Problem p = m_problem;
  const auto take = [this, result] {
    CpuResult& r = *result;
    if (!(r.p == m_problem)) return;  // finished for an older size
    if (m_ref->values.empty() && !r.ref.values.empty()) m_ref = std::make_shared<mm::Reference>(std::move(r.ref));
    upsert_row(r.row);
    // On the CPU path the picture shows the latest CPU result; on the GPU path it keeps the GPU's C.
    if (!m_gpu) show_host_c(std::move(r.c), std::string("C below: ") + r.row.name + " on the CPU");
  };
  m_cpu_job[i].start(mm::cpu_label(v), [v, p, a, b, ref, need_ref, result](JobControl& ctl) {
    const mm::Reference* use = ref.get();
    if (need_ref) {
      result->ref.values = mm::reference_cpu(*a, *b, p, &ctl);
      result->ref.label = "float64 CPU (OpenBLAS dgemm)";
      use = &result->ref;
      ctl.set_progress(0);
    }
    std::vector<double> times;
    std::vector<float> c(p.c_count());
    const auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < 3; ++r) {
      std::fill(c.begin(), c.end(), std::nanf(""));  // poisoned like the GPU's C
      const auto t0 = std::chrono::steady_clock::now();
      mm::run_cpu(v, *a, *b, c, p, &ctl);
      const auto t1 = std::chrono::steady_clock::now();
      times.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      if (std::chrono::duration<double>(t1 - start).count() > k_cpu_budget_s) break;
    }
    ui::LadderRow& row = result->row;
    row.name = mm::info(v).name;
    row.title = mm::cpu_label(v);
    row.gpu = false;
    row.ms = summarize(times);
    row.gflops = p.flops() / (row.ms.median * 1e-3) * 1e-9;
    if (!use->values.empty()) row.check = mm::check_result(c, use->values, p.k, use->label);
    row.note = std::to_string(times.size()) + " run(s)";
    result->c = std::move(c);
  }, take);
}

void MatmulLab::list_tc_rungs() {
  m_model.tc.time_unavailable = tc_timing_unavailable(m_env);
  m_model.tc.rungs.clear();
  for (const auto& r : mm::tc::rungs()) {
    ui::TcRungView v{r.name, r.title, mm::info(r.precision).name, r.description, ""};
    // The device the lab runs on; on the CPU path the reason it is not used.
    if (m_env.path.path == RenderPath::Cpu)
      v.unavailable = "CPU path: " + m_env.path.reason;
    else if (auto why = mm::tc::unavailable_reason(r, m_env.device))
      v.unavailable = *why;
    m_model.tc.rungs.push_back(std::move(v));
  }
}

// Every precision of the CPU model on the lab's A and B (or wide inputs of the same size), against float64.
void MatmulLab::start_tc_model() {
  const mm::Problem p = m_problem;
  const bool wide = m_model.tc.wide;
  const auto a = m_a, b = m_b;
  auto rows = std::make_shared<std::vector<ui::TcPrecisionRow>>();
  m_model.tc.status.clear();
  const auto take = [this, rows, p] {
    if (!(p == m_problem)) return;  // finished for an older size
    m_model.tc.precision_rows = std::move(*rows);
    m_model.tc.model_problem = mm::to_string(p);
  };
  m_tc_job.start("precision model", [p, wide, a, b, rows](JobControl& ctl) {
    std::vector<float> wa, wb;
    if (wide) {
      wa = mm::make_input(p.m, p.k, 1, {1.0, true});
      wb = mm::make_input(p.k, p.n, 2, {1.0, true});
    }
    const std::vector<float>& ua = wide ? wa : *a;
    const std::vector<float>& ub = wide ? wb : *b;
    for (const mm::PrecisionReport& r : mm::precision_model(ua, ub, p, &ctl)) {
      const mm::PrecisionInfo& pi = mm::info(r.precision);
      rows->push_back({pi.name, pi.title, r.ms, r.error.rel_frobenius, r.error.bound, r.error.within_bound,
                       mm::worst_text(r.error)});
    }
  }, take);
}

void MatmulLab::start_tc_timing() {
  if (!m_model.tc.time_unavailable.empty()) return;
  const mm::Problem p = m_problem;
  const auto a = m_a, b = m_b;
  const mm::Reference ref = m_ref->values.size() == p.c_count() ? *m_ref : mm::Reference{};
  auto out = std::make_shared<TcTiming>();
  m_model.tc.timing_status.clear();
  // The ladder's launches already queued finish first (the ladder then waits for the job): the rungs are timed
  // on a GPU doing nothing else.
  if (m_gpu) m_gpu->sync();
  m_tc_time_job.start(
      "timing the tensor-core rungs",
      [p, a, b, ref, out](JobControl& ctl) { *out = time_tc_rungs(p, *a, *b, ref, ctl); },
      [this, out] { take_tc_timing(m_env, *out, m_model.tc); });
}

// After the jobs' poll: what a running baseline does first, and a warning before a long naive run.
void MatmulLab::show_cpu_jobs() {
  const auto cpus = mm::cpu_variants();
  for (size_t i = 0; i < 3 && i < cpus.size(); ++i) {
    const std::shared_ptr<CpuResult>& r = m_cpu_result[i];
    ui::CpuRunView& v = m_model.cpu[i];
    v.warning.clear();
    if (cpus[i].id == mm::CpuVariant::Naive && fmas(m_problem) > 2e9)
      v.warning = "naive at this size: about " +
                  std::to_string(static_cast<long long>(fmas(m_problem) / 1e9)) +
                  " s or more on one thread (cancel any time)";
    if (v.running)
      v.status = (r && r->ref.values.empty() && m_ref->values.empty() &&
                  fmas(m_problem) <= mm::k_cpu_reference_max_fmas)
                     ? "first the float64 reference (OpenBLAS dgemm), then the timed runs"
                     : "";
  }
}

void MatmulLab::draw_ui() {
  m_actions = {};
  m_jobs.poll();
  show_cpu_jobs();
  m_model.problem = m_problem;
  m_model.reference_label = m_ref->label;
  m_model.gpu_busy = m_task.has_value();
  m_model.queue_left = static_cast<int>(m_queue.size());
  m_model.gpu_status.clear();
  if (m_task) {
    const GpuTask& t = *m_task;
    m_model.gpu_status = std::string("running ") + mm::info(t.v).name +
                         (t.phase < 2 ? ": correctness run (C poisoned first)"
                                      : ": " + std::to_string(t.ms.size()) + " of " + std::to_string(t.want) +
                                            " timed launches");
    if (!m_queue.empty()) m_model.gpu_status += ", " + std::to_string(m_queue.size()) + " more queued";
  }

  const auto vars = mm::gpu_variants();
  m_model.variant = std::clamp(m_model.variant, 0, static_cast<int>(vars.size()) - 1);
  const mm::Variant selected = vars[static_cast<size_t>(m_model.variant)].id;
  m_anatomy.set_target(MatmulAnatomyTarget{m_problem, selected}, m_problem.n, m_problem.m);
  m_anatomy.handle_keys();
  if (begin_window("Matmul: C = A x B", Slot::View)) {
    const float avail = ImGui::GetContentRegionAvail().x;
    const float diagram_w = std::max(avail * 0.33f, ImGui::GetFontSize() * 10);
    ImGui::BeginChild("c_view", ImVec2(avail - diagram_w - ImGui::GetStyle().ItemSpacing.x, 0), false,
                      ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    ui::FieldViewInput in;
    in.texture = m_view_texture;
    in.nx = static_cast<int>(m_problem.n);
    in.ny = static_cast<int>(m_problem.m);
    in.colormap = m_model.colormap;
    in.range_min = -m_range;
    in.range_max = m_range;
    const mm::TileGeometry g = mm::tile_geometry(selected, m_problem);
    // C in matrix notation (M x N, labelled); the grid of blocks x first, as every grid in the app.
    in.caption = "C " + std::to_string(m_problem.m) + "x" + std::to_string(m_problem.n) + " (M x N, " +
                 to_string(m_env.path.path) + ")";
    if (g.known && g.bm > 0) {
      const ui::TileCover cover{m_problem.m, m_problem.n, g.bm, g.bn};
      in.caption += ": grid " + std::to_string(cover.tile_cols()) + "x" + std::to_string(cover.tile_rows()) +
                    " blocks, each a " + std::to_string(g.bm) + "x" + std::to_string(g.bn) + " tile of C";
      if (cover.edge_rows() != g.bm || cover.edge_cols() != g.bn) in.caption += ", edge tiles hatched";
    }
    ImGui::PushTextWrapPos(0.0f);  // the caption wraps at the child's edge, as text does in every window
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ui::FieldViewResult r = ui::draw_field_view(in);
    m_view_w = r.image_w;
    m_view_h = r.image_h;
    ui::OverlayInput ov;
    ov.p = m_problem;
    ov.variant = selected;
    ov.image_min = origin;
    ov.image_max = ImVec2(origin.x + static_cast<float>(r.image_w), origin.y + static_cast<float>(r.image_h));
    ov.cell_x = r.cell_x;
    ov.cell_y = r.cell_y;
    ov.clicked = r.cell_x && ImGui::IsMouseClicked(ImGuiMouseButton_Left);
    ov.draw_grid = m_model.overlay;
    ui::draw_block_overlay(ov, m_overlay);
    m_anatomy.draw_on_field(origin, ImVec2(static_cast<float>(r.image_w), static_cast<float>(r.image_h)),
                            r.cell_x, r.cell_y);
    ImGui::PopTextWrapPos();
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("ab_view", ImVec2(diagram_w, 0));
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("which parts of A and B a block reads");
    ui::draw_ab_diagram(m_problem, selected, m_overlay, m_model.k_step, m_model.animate_k,
                        ImGui::GetContentRegionAvail());
    ImGui::PopTextWrapPos();
    ImGui::EndChild();
  }
  ImGui::End();

  if (begin_window("Matmul lab", Slot::Panel)) {
    ui::draw_matmul_panel(m_model, m_actions);
    m_anatomy.draw_controls();
  }
  ImGui::End();
  m_anatomy.draw_window();
}

void MatmulLab::update() {
  try {
    if (m_actions.apply_size) apply_size();
    if (m_actions.clear) m_model.rows.clear();
    if (m_actions.stop) {
      m_queue.clear();
      if (m_task) m_task->stop = true;
    }
    const auto vars = mm::gpu_variants();
    if (m_gpu && m_actions.run) queue_run(vars[static_cast<size_t>(m_model.variant)].id);
    if (m_gpu && m_actions.run_all) {
      // cuBLAS first: every later row then shows its % of cuBLAS as soon as it lands.
      m_queue.push_back(mm::Variant::Cublas);
      for (const auto& v : vars)
        if (v.id != mm::Variant::Cublas) m_queue.push_back(v.id);
    }
    for (size_t i = 0; i < 3; ++i) {
      if (m_actions.run_cpu[i]) start_cpu_job(i);
      if (m_actions.cancel_cpu[i]) m_cpu_job[i].cancel();
    }
    if (m_actions.tc.run_model) start_tc_model();
    if (m_actions.tc.cancel_model) m_tc_job.cancel();
    if (m_actions.tc.time_rungs) start_tc_timing();
    if (m_actions.tc.cancel_timing) m_tc_time_job.cancel();
    sync_user_kernel();
    if (m_actions.simulate_user) start_user_sim();
    if (m_actions.user_sim.cancel) m_sim.cancel();
    m_sim.poll();
    m_model.user_sim = m_sim.view();
    if (m_actions.run_user || (m_user_autorun && !m_task && m_queue.empty())) {
      m_user_autorun = false;
      start_user_run();
    }
    // The anatomy sweep, the user's kernel and the tensor-core timing time the GPU meanwhile.
    if (m_gpu && !m_anatomy.sweeping() && !m_user_job.running() && !m_tc_time_job.running()) step_gpu_task();
    if (m_dirty) {
      if (m_present_device && m_gpu)
        m_presenter.present_device(m_gpu->device_c(), m_gpu->stream_handle());
      else if (!m_host_c.empty())
        m_presenter.present_host(m_host_c.data());
      m_dirty = false;
    }
    m_anatomy.update();
    m_jobs.rethrow_gpu_error();
    m_model.runtime_error.clear();
  } catch (const InvalidRequest& e) {
    m_model.runtime_error = e.what();
    m_task.reset();
  }
  gl::FieldStyle style;
  style.range_min = -m_range;
  style.range_max = m_range;
  style.colormap = m_model.colormap;
  m_view_texture = m_presenter.render(m_view_w, m_view_h, style);
}

}  // namespace bs::matmul_lab

namespace bs {

// The lab's factory (its descriptor, app/matmul/matmul_descriptor.cpp, builds it through this).
std::unique_ptr<Lab> make_matmul_lab(LabEnv& env) {
  return std::make_unique<matmul_lab::MatmulLab>(env);
}

}  // namespace bs
