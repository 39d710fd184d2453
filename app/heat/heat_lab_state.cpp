// heat_lab_state.cpp: the heat lab's sessions (save, load and the check without a lab, against its schema
// ui/heat/heat_schema.h) and its presenter-mode read-outs (see heat_lab.h).
#include <algorithm>
#include <string>

#include "app/heat/heat_lab.h"
#include "app/session.h"
#include "core/text.h"
#include "ui/heat/heat_schema.h"

namespace bs {

namespace {

constexpr auto k_heat_patterns = heat::k_pattern_names.names();

// Reads `state` over `m` (members left out keep their values): first the schema's checks of every member
// (types, ranges, names; ui/heat/heat_schema.h), then the rules across members, as the panel applies them.
std::optional<std::string> read_heat_state(const nlohmann::json& state, ui::HeatPanelModel& m) {
  if (auto err = params::check_state(ui::heat_schema(), state, "labs.heat", {"anatomy_overlay"})) return err;
  StateReader r(state, "labs.heat");
  AnatomyWindow::check_state(r, "anatomy_overlay");
  if (!r.ok()) return r.error();
  const auto has = [&](const char* key) { return state.contains(key); };
  const auto pair = [&](const char* key, int(&out)[2]) {
    out[0] = state[key][0].get<int>();
    out[1] = state[key][1].get<int>();
  };
  if (has("size")) {
    pair("size", m.size);
    if (m.size[0] < heat::k_ui_min_size || m.size[1] < heat::k_ui_min_size)
      return "labs.heat.size: " + state["size"].dump() + " is outside " +
             std::to_string(heat::k_ui_min_size) + ".." + std::to_string(heat::k_max_size) +
             " (the smallest field the app shows is 64x64)";
  }
  const params::Schema& schema = ui::heat_schema();
  if (has("pattern")) m.pattern = schema.at("pattern").index_of(state["pattern"]);
  if (has("alpha")) m.params.alpha = state["alpha"].get<float>();
  if (has("dx")) m.params.dx = state["dx"].get<float>();
  if (has("dt")) m.params.dt = state["dt"].get<float>();
  if (has("boundary"))
    m.params.boundary = schema.at("boundary").index_of(state["boundary"]) == 0 ? heat::Boundary::Fixed
                                                                               : heat::Boundary::Insulated;
  if (has("boundary_temp")) m.params.boundary_temp = state["boundary_temp"].get<float>();
  if (has("steps_per_frame")) m.steps_per_frame = state["steps_per_frame"].get<int>();
  if (has("paused")) m.paused = state["paused"].get<bool>();
  if (has("block")) pair("block", m.block);
  if (has("cells_per_thread")) m.cells_per_thread = state["cells_per_thread"].get<int>();
  if (has("kernel")) m.kernel = schema.at("kernel").index_of(state["kernel"]);
  if (has("fused_steps")) {
    m.fused_steps = state["fused_steps"].get<int>();
    if (m.fused_steps < 1 || m.fused_steps > heat::k_max_fused_steps)
      return "labs.heat.fused_steps: " + state["fused_steps"].dump() + " is outside 1.." +
             std::to_string(heat::k_max_fused_steps);
  }
  if (has("grid")) {
    m.manual_grid = state["grid"].is_array();
    if (m.manual_grid) pair("grid", m.grid);
  }
  if (has("colormap")) m.colormap = schema.at("colormap").index_of(state["colormap"]);
  if (has("range")) {
    m.auto_range = !state["range"].is_array();
    if (!m.auto_range) {
      m.range[0] = state["range"][0].get<float>();
      m.range[1] = state["range"][1].get<float>();
    }
  }
  if (has("block_lines")) m.block_lines = state["block_lines"].get<bool>();
  if (has("brush_radius")) m.brush_radius = state["brush_radius"].get<float>();
  if (has("brush_hot")) m.brush_hot = state["brush_hot"].get<float>();
  if (has("brush_cold")) m.brush_cold = state["brush_cold"].get<float>();
  if (has("cpu_steps")) m.cpu_steps = state["cpu_steps"].get<int>();
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

nlohmann::json HeatLab::save_state() const {
  nlohmann::json j;
  j["size"] = {m_params.nx, m_params.ny};
  j["pattern"] = k_heat_patterns[static_cast<size_t>(std::clamp(m_model.pattern, 0, 2))];
  // Floats as typed (float_for_json): 0.2, not 0.20000000298023224.
  j["alpha"] = float_for_json(m_params.alpha);
  j["dx"] = float_for_json(m_params.dx);
  j["dt"] = float_for_json(m_params.dt);
  j["boundary"] = heat::k_boundary_names.name_of(m_params.boundary);
  j["boundary_temp"] = float_for_json(m_params.boundary_temp);
  j["steps_per_frame"] = m_model.steps_per_frame;
  j["paused"] = m_model.paused;
  j["block"] = {m_model.block[0], m_model.block[1]};
  j["cells_per_thread"] = m_model.cells_per_thread;
  j["fused_steps"] = m_model.fused_steps;
  j["kernel"] = ui::heat_schema().at("kernel").names[static_cast<size_t>(m_model.kernel == 1 ? 1 : 0)];
  j["grid"] = m_model.manual_grid ? nlohmann::json{m_model.grid[0], m_model.grid[1]} : nlohmann::json("auto");
  j["colormap"] = colormap_name(m_model.colormap);
  j["range"] = m_model.auto_range
                   ? nlohmann::json("auto")
                   : nlohmann::json{float_for_json(m_model.range[0]), float_for_json(m_model.range[1])};
  j["block_lines"] = m_model.block_lines;
  j["brush_radius"] = float_for_json(m_model.brush_radius);
  j["brush_hot"] = float_for_json(m_model.brush_hot);
  j["brush_cold"] = float_for_json(m_model.brush_cold);
  j["cpu_steps"] = m_model.cpu_steps;
  m_anatomy.save_state(j, "anatomy_overlay");
  return j;
}

std::optional<std::string> HeatLab::load_state(const nlohmann::json& state) {
  ui::HeatPanelModel m = m_model;
  m.size[0] = static_cast<int>(m_params.nx);
  m.size[1] = static_cast<int>(m_params.ny);
  m.params = m_params;
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
