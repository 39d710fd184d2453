// heat_lab_state.cpp: the heat lab's sessions (save, load and the check without a lab, against its schema
// ui/heat/heat_schema.h) and its presenter-mode read-outs (see heat_lab.h).
#include <algorithm>
#include <string>

#include "app/heat/heat_lab.h"
#include "app/session.h"
#include "core/param_binding.h"
#include "core/text.h"
#include "ui/heat/heat_schema.h"

namespace bs {

namespace {

// Reads `state` over `m` (members left out keep their values): first the schema's checks of every member
// (types, ranges, names; ui/heat/heat_schema.h), then the rules across members, as the panel applies them.
std::optional<std::string> read_heat_state(const nlohmann::json& state, ui::HeatPanelModel& m) {
  if (auto err = params::check_state(ui::heat_schema(), state, "labs.heat", {"anatomy_overlay"})) return err;
  StateReader r(state, "labs.heat");
  AnatomyWindow::check_state(r, "anatomy_overlay");
  if (!r.ok()) return r.error();
  params::load_bound(ui::heat_schema(), m, state);  // every parameter through its binding (the schema's)
  // The lab's own rules, beyond the schema's ranges.
  if (state.contains("size") && (m.size[0] < heat::k_ui_min_size || m.size[1] < heat::k_ui_min_size))
    return "labs.heat.size: " + state["size"].dump() + " is outside " + std::to_string(heat::k_ui_min_size) +
           ".." + std::to_string(heat::k_max_size) + " (the smallest field the app shows is 64x64)";
  if (state.contains("fused_steps") && (m.fused_steps < 1 || m.fused_steps > heat::k_max_fused_steps))
    return "labs.heat.fused_steps: " + state["fused_steps"].dump() + " is outside 1.." +
           std::to_string(heat::k_max_fused_steps);
  heat::Params p = m.params;
  p.nx = m.size[0];
  p.ny = m.size[1];
  if (auto err = heat::validate(p)) return "labs.heat: " + *err;
  if (auto err = heat::validate_cells_per_thread(m.cells_per_thread))
    return "labs.heat.cells_per_thread: " + *err;
  if (auto err = validate_block(Dim2{m.block[0], m.block[1]}, DeviceLimits{}))
    return "labs.heat.block: " + *err;
  if (m.manual_grid)
    if (auto err = validate_grid(Dim2{m.grid[0], m.grid[1]}, DeviceLimits{}))
      return "labs.heat.grid: " + *err;
  return std::nullopt;
}

}  // namespace

std::optional<std::string> check_heat_state(const nlohmann::json& state) {
  ui::HeatPanelModel m;
  return read_heat_state(state, m);
}

// The parameters in force: the field's size and physics the lab runs (the panel may hold an edit that did
// not apply).
ui::HeatPanelModel HeatLab::in_force() const {
  ui::HeatPanelModel m = m_model;
  m.size[0] = static_cast<int>(m_params.nx);
  m.size[1] = static_cast<int>(m_params.ny);
  m.params = m_params;
  return m;
}

nlohmann::json HeatLab::save_state() const {
  nlohmann::json j = params::save_bound(ui::heat_schema(), in_force());
  m_anatomy.save_state(j, "anatomy_overlay");
  return j;
}

std::optional<std::string> HeatLab::load_state(const nlohmann::json& state) {
  ui::HeatPanelModel m = in_force();
  if (auto err = read_heat_state(state, m)) return err;
  m_anatomy.load_state(state, "anatomy_overlay");
  const bool rebuild_field =
      m.size[0] != m_params.nx || m.size[1] != m_params.ny || m.pattern != m_model.pattern;
  m_model = m;
  apply_physics();
  if (rebuild_field)
    apply_size();  // rebuilds, with the launch applied
  else
    apply_launch();
  // Valid, but the device could not take it (memory): the lab kept its previous grid and says why.
  if (!m_model.param_error.empty()) return "labs.heat: " + m_model.param_error;
  return std::nullopt;
}

std::vector<ui::Readout> HeatLab::readouts() const {
  std::vector<ui::Readout> out;
  // No GPU, the user's heat_step in the simulator: its check, never a time (no step timings are kept).
  if (m_sim_mode)
    if (auto r = m_sim.readout()) out.push_back(std::move(*r));
  const Summary& s = m_model.step_ms;
  if (s.count == 0 || s.median <= 0) return out;
  // Every number from the field the samples were measured on (the lab clears them when the size changes).
  const int64_t nx = m_model.timing_nx, ny = m_model.timing_ny;
  const ui::HeatRates rates = ui::heat_rates(s.median, nx, ny);
  const std::string who = m_gpu ? "GPU" : "CPU fallback";
  out.push_back({"time per step", fmt_fixed(s.median, s.median < 1 ? 3 : 2), "ms",
                 who + ", median; p10-p90 " + fmt_fixed(s.p10, s.p10 < 1 ? 3 : 1) + "-" +
                     fmt_fixed(s.p90, s.p90 < 1 ? 3 : 1) +
                     (ui::spread_is_wide(s) ? std::string("; ") + ui::k_wide_spread_warning : "")});
  out.push_back({"cell updates", fmt_fixed(rates.mcells_per_s / 1e3, 2), "G/s",
                 ui::size_label(nx, ny) + " cells" +
                     (ui::measured_on(nx, ny, m_params.nx, m_params.ny) ? "" : " (not the field in force)")});
  // One float read and one written per cell and step: the traffic a perfect cache would leave.
  out.push_back(
      {"memory", fmt_fixed(rates.gb_per_s, 1), "GB/s",
       m_model.temporal.fused > 1 ? "one-step equivalent, 8 B per cell update" : "effective, 8 B per cell"});
  if (m_model.temporal.fused > 1)
    out.push_back(
        {"steps per pass", std::to_string(m_model.temporal.fused), "",
         "temporal blocking; computed / useful cells " + fmt_fixed(m_model.temporal.computed_per_useful, 3)});
  // Against the fastest CPU baseline measured on this very field: the honest comparison.
  const ui::CpuBaselineView* best = nullptr;
  for (const ui::CpuBaselineView& c : m_model.cpu)
    if (c.ms_per_step && ui::measured_on(c.measured_nx, c.measured_ny, nx, ny) &&
        ui::measured_on(nx, ny, m_params.nx, m_params.ny) && (!best || *c.ms_per_step < *best->ms_per_step))
      best = &c;
  if (m_gpu && best)
    out.push_back({"speedup vs CPU", fmt_fixed(*best->ms_per_step / s.median, 1), "x", best->label});
  return out;
}

}  // namespace bs
