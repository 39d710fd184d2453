// counters_window.cpp: see counters_window.h.
#include "app/counters_window.h"

#include <imgui.h>

#include <cstdio>

#include "core/text.h"
#include "core/work_model.h"

namespace bs {

namespace {

std::string mb(double bytes) {
  return fmt_fixed(bytes / 1e6, 2) + " MB";
}

std::string measured_or(const counters::Result* r, const std::optional<double>& v, int decimals,
                        const char* unit = "") {
  if (!r || !r->ok()) return "-";
  if (!v) return "not offered by this GPU";
  return fmt_fixed(*v, decimals) + unit;
}

std::string model_or(const std::optional<double>& v, int decimals, const std::string& source,
                     bool bytes = false) {
  if (!v) return "no model";
  return (bytes ? mb(*v) : fmt_fixed(*v, decimals)) + " (" + source + ")";
}

}  // namespace

bool has_model_values(const CounterTarget& t) {
  return t.model_dram_read || t.model_dram_write || t.model_ld_sectors_per_request ||
         t.model_st_sectors_per_request || t.model_shared_conflicts;
}

std::vector<ui::CounterRow> counter_rows(const CounterTarget& t, const counters::Result* r,
                                         const SimulatedCounterValues* sim) {
  const counters::Values* v = r && r->ok() ? &r->values : nullptr;
  const std::string wm = "work model";
  const std::string am = t.access_model.empty() ? std::string("access model") : t.access_model;
  std::vector<ui::CounterRow> rows;
  rows.push_back({"DRAM bytes read",
                  v && v->dram_read_bytes ? mb(*v->dram_read_bytes) : measured_or(r, std::nullopt, 0),
                  model_or(t.model_dram_read, 0, wm, true)});
  rows.push_back({"DRAM bytes written",
                  v && v->dram_write_bytes ? mb(*v->dram_write_bytes) : measured_or(r, std::nullopt, 0),
                  model_or(t.model_dram_write, 0, wm, true)});
  rows.push_back({"global load sectors / request",
                  measured_or(r, v ? v->ld_sectors_per_request() : std::nullopt, 2),
                  model_or(t.model_ld_sectors_per_request, 2, am)});
  rows.push_back({"global store sectors / request",
                  measured_or(r, v ? v->st_sectors_per_request() : std::nullopt, 2),
                  model_or(t.model_st_sectors_per_request, 2, am)});
  std::optional<double> conflicts;
  if (v && (v->shared_ld_conflicts || v->shared_st_conflicts))
    conflicts = v->shared_ld_conflicts.value_or(0) + v->shared_st_conflicts.value_or(0);
  rows.push_back({"shared-memory bank conflicts (L1TEX counter)", measured_or(r, conflicts, 0),
                  model_or(t.model_shared_conflicts, 0, am)});
  rows.push_back({"achieved occupancy", measured_or(r, v ? v->achieved_occupancy_pct : std::nullopt, 1, " %"),
                  "no model"});
  rows.push_back({"warp execution efficiency",
                  measured_or(r, v ? v->warp_efficiency_pct : std::nullopt, 1, " %"), "no model"});
  // The exact definition: per shared warp instruction, the wavefronts beyond the one it needs. L1TEX's own
  // conflict counter (the row above) also counts collisions with global traffic in flight on Hopper.
  rows.push_back({"bank conflicts = shared wavefronts - instructions",
                  measured_or(r, v ? v->shared_wavefront_conflicts() : std::nullopt, 0),
                  model_or(t.model_shared_conflicts, 0, am)});
  for (ui::CounterRow& row : rows) row.simulated.assign(1, '-');  // (not = "-": GCC 12 -Wrestrict false alarm)
  if (sim) {
    const auto text = [&](const std::optional<double>& v, int decimals) -> std::string {
      if (v) return fmt_fixed(*v, decimals);
      if (sim->note.empty()) return "-";
      return sim->note;
    };
    rows[2].simulated = text(sim->ld_sectors_per_request, 2);
    rows[3].simulated = text(sim->st_sectors_per_request, 2);
    rows[4].simulated = text(sim->shared_conflicts, 0);
    rows[7].simulated = text(sim->shared_conflicts, 0);  // the simulator counts wavefronts - instructions
  }
  return rows;
}

CountersWindow::~CountersWindow() {
  if (m_future.valid()) m_future.wait();
}

bool CountersWindow::start(Lab& active) {
  if (busy()) return false;
  m_result.reset();
  m_simulated.reset();
  m_model.info.clear();
  m_model.stalls.clear();
  m_target = active.counter_target();
  m_result_lab = &active;
  if (!m_env.device.available) {
    m_model.status = counters::no_device_message(m_env.device.reason, m_target && has_model_values(*m_target));
    return false;
  }
  if (!m_target) {
    m_model.status =
        std::string("the ") + active.title() +
        " lab offers no kernel to measure for its current choice (counters come with the memory, matmul and "
        "vector labs' GPU variants)";
    return false;
  }
  if (!m_target->collect) {
    m_model.status = "the app runs on the CPU path (" + m_env.path.reason + "): counters need the GPU path" +
                     (has_model_values(*m_target) ? "; the model values stay, labelled" : "");
    return false;
  }
  m_model.status.clear();
  m_started = std::chrono::steady_clock::now();
  m_sim_pending = std::make_shared<std::optional<SimulatedCounterValues>>();
  m_future = std::async(std::launch::async,
                        [collect = m_target->collect, simulate = m_target->simulate, sim = m_sim_pending] {
                          if (simulate) *sim = simulate();
                          return collect();
                        });
  return true;
}

void CountersWindow::poll(bool block) {
  if (!m_future.valid()) return;
  if (!block && m_future.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
  try {
    m_simulated = m_sim_pending;
    m_result = m_future.get();
  } catch (const std::exception& e) {
    counters::Result r;
    r.status = counters::Status::Failed;
    r.message = std::string("the run failed while counters were collected: ") + e.what();
    m_result = r;
  }
  if (!m_result->ok()) {
    m_model.status = std::string(counters::to_string(m_result->status)) + ": " + m_result->message;
    return;
  }
  m_model.status.clear();
  m_model.info = std::to_string(m_result->values.kernels) + " kernel(s), " +
                 std::to_string(m_result->passes) + " passes, " + fmt_fixed(m_result->seconds, 2) + " s, " +
                 m_result->chip + (m_result->note.empty() ? "" : "; " + m_result->note);
  for (const auto& s : m_result->values.top_stalls)
    m_model.stalls.push_back(s.reason + ": " + fmt_fixed(s.cycles_per_issue, 1));
  if (m_target && m_target->on_result) m_target->on_result(*m_result);
  // The roofline's measured point: the run log's records of this lab and variant on the GPU.
  if (m_target && m_env.runs && m_result->values.dram_bytes()) {
    for (work::RunRecord rec : m_env.runs->snapshot()) {
      if (rec.lab != m_target->lab || rec.variant != m_target->variant || rec.where != work::Where::Gpu)
        continue;
      rec.work.measured_dram_bytes = *m_result->values.dram_bytes();
      m_env.runs->add(rec);
    }
  }
}

void CountersWindow::wait(Lab& active) {
  poll(true);
  refresh(active);
}

void CountersWindow::refresh(Lab& active) {
  // Between collections the panel follows the active lab's current choice (model values only until measured).
  if (!busy()) {
    auto t = active.counter_target();
    const bool same = t && m_target && t->what == m_target->what && m_result_lab == &active;
    if (!same) {
      if (m_result && m_result->ok()) m_result.reset();
      m_simulated.reset();
      m_model.info.clear();
      m_model.stalls.clear();
      m_model.status.clear();  // it was about the previous run (and its table)
      m_result_lab = &active;
    }
    m_target = std::move(t);  // the same run keeps its result; its model values may have arrived since
  }
  // Said for the table shown now: "the model values stay" only where there are some.
  if (!m_env.device.available && (m_model.status.empty() || m_model.status.starts_with("no CUDA device")))
    m_model.status = counters::no_device_message(m_env.device.reason, m_target && has_model_values(*m_target));
  m_model.running = busy();
  m_model.can_collect = m_target.has_value() && m_target->collect != nullptr;
  m_model.target = m_target ? m_target->what
                            : std::string(active.title()) + ": no kernel to measure for the current choice";
  m_model.elapsed_s =
      busy() ? std::chrono::duration<double>(std::chrono::steady_clock::now() - m_started).count() : 0.0;
  if (m_target)
    m_model.rows = counter_rows(*m_target, m_result ? &*m_result : nullptr,
                               m_result && m_simulated && *m_simulated ? &**m_simulated : nullptr);
  else
    m_model.rows.clear();
}

void CountersWindow::draw(Lab& active) {
  poll(false);
  if (!m_open) return;
  refresh(active);
  ImGui::SetNextWindowSize(ImVec2(520, 420), ImGuiCond_FirstUseEver);
  if (ImGui::Begin("Hardware counters", &m_open)) {
    ui::CountersPanelActions a;
    ui::draw_counters_panel(m_model, a);
    if (a.collect) start(active);
  }
  ImGui::End();
}

}  // namespace bs
