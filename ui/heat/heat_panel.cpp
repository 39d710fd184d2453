// heat_panel.cpp: see heat_panel.h.
#include "ui/heat/heat_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "core/param_binding.h"
#include "ui/heat/heat_schema.h"
#include "ui/plot.h"
#include "ui/widgets.h"

namespace bs::ui {

HeatPanelModel::HeatPanelModel() {
  bs::params::load_bound(heat_schema(), *this, heat_schema().defaults());  // the schema's bindings
  params.nx = nx = size[0];
  params.ny = ny = size[1];
  launch.block = {block[0], block[1]};
  launch.cells_per_thread = cells_per_thread;
}

FloorLesson floor_lesson(int64_t nx, int64_t ny, Dim2 cells) {
  cells.x = std::max<int64_t>(1, cells.x), cells.y = std::max<int64_t>(1, cells.y);
  FloorLesson l;
  l.grid = {std::max<int64_t>(1, nx / cells.x), std::max<int64_t>(1, ny / cells.y)};
  if (nx % cells.x == 0 && ny % cells.y == 0) {
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "%s divides into blocks of %s cells exactly: floor and ceil give the same grid here, every "
                  "cell has a thread. The mistake shows on a field the block does not divide:",
                  size_label(nx, ny).c_str(), size_label(cells.x, cells.y).c_str());
    l.note = buf;
  }
  return l;
}

void set_manual_grid(HeatPanelModel& m, bool on) {
  m.manual_grid = on;
  m.floor_note.clear();
  if (on) {
    m.grid[0] = static_cast<int>(m.launch.grid.x);
    m.grid[1] = static_cast<int>(m.launch.grid.y);
  }
}

namespace {

// One formatted line, for the read-outs that wrap at the panel's edge (wrapped_text) instead of running off it.
template <typename... Args>
std::string fmt_line(const char* format, Args... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, format, args...);
  return buf;
}

void physics_section(HeatPanelModel& m, HeatPanelActions& a) {
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
  ImGui::InputInt2("grid nx, ny", m.size);
  same_line_if_fits(ImGui::GetFontSize() * 7);
  const char* patterns[] = {"hot spots", "gaussian", "noise"};
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
  ImGui::Combo("##pattern", &m.pattern, patterns, 3);
  same_line_if_fits(button_width("Apply"));
  if (ImGui::Button("Apply")) a.apply_size = true;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Rebuild the grid at this size (64..8192 each side, any size)");
  for (int v : {256, 1000, 2048, 4096, 8192}) {
    char label[16];
    std::snprintf(label, sizeof label, "%d", v);
    if (v != 256) same_line_if_fits(button_width(label));
    if (ImGui::SmallButton(label)) {
      m.size[0] = m.size[1] = v;
      a.apply_size = true;
    }
  }
  same_line_if_fits(button_width("1000x777"));
  if (ImGui::SmallButton("1000x777")) {
    m.size[0] = 1000, m.size[1] = 777;
    a.apply_size = true;
  }

  const float limit = heat::max_stable_dt(m.params.alpha, m.params.dx);
  bool changed = false;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  changed |= ImGui::InputFloat("alpha", &m.params.alpha, 0.0f, 0.0f, "%.4g");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  changed |= ImGui::InputFloat("dx", &m.params.dx, 0.0f, 0.0f, "%.4g");
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  changed |= ImGui::InputFloat("dt", &m.params.dt, 0.0f, 0.0f, "%.4g");
  same_line_if_fits(button_width("dt = limit"));
  if (ImGui::SmallButton("dt = limit")) {
    m.params.dt = limit;
    changed = true;
  }
  wrapped_text(fmt_line("stability: dt <= dx^2/(4 alpha) = %.4g   (r = %.3f of max 0.25)", limit, m.params.r()),
               ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  int boundary = m.params.boundary == heat::Boundary::Fixed ? 0 : 1;
  changed |= ImGui::RadioButton("fixed temperature", &boundary, 0);
  same_line_if_fits(labelled_width(ImGui::GetFrameHeight(), "insulated"));
  changed |= ImGui::RadioButton("insulated", &boundary, 1);
  m.params.boundary = boundary == 0 ? heat::Boundary::Fixed : heat::Boundary::Insulated;
  if (boundary == 0) {
    same_line_if_fits(labelled_width(ImGui::GetFontSize() * 5, "T edge"));
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5);
    changed |= ImGui::InputFloat("T edge", &m.params.boundary_temp, 0.0f, 0.0f, "%.3g");
  }
  if (changed) a.physics_changed = true;
  error_text(m.param_error);
}

void run_section(HeatPanelModel& m, HeatPanelActions& a) {
  if (ImGui::Button(m.paused ? "Run" : "Pause")) m.paused = !m.paused;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Space: pause / run, R: reset the field");
  same_line_if_fits(button_width("Step"));
  if (ImGui::Button("Step")) a.step_once = true;
  same_line_if_fits(button_width("Reset"));
  if (ImGui::Button("Reset")) a.reset = true;
  same_line_if_fits(labelled_width(ImGui::GetFontSize() * 8, "steps/frame"));
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  ImGui::SliderInt("steps/frame", &m.steps_per_frame, 1, 500, "%d", ImGuiSliderFlags_Logarithmic);
  ImGui::Text("t = %.4g   steps = %lld", m.simulated_time, static_cast<long long>(m.steps_done));
  if (m.paused_for_baseline)
    ImGui::TextColored(tone_colour(Tone::Warning), "live run paused while the CPU baseline runs");
}

void launch_section(HeatPanelModel& m, HeatPanelActions& a) {
  bool changed = false;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
  changed |= input_ints_on_commit("blockDim x, y", m.block, 2);
  for (auto [bx, by] : {std::pair{32, 8}, std::pair{16, 16}, std::pair{32, 32}, std::pair{64, 4},
                        std::pair{8, 8}, std::pair{256, 1}}) {
    char label[16];
    std::snprintf(label, sizeof label, "%dx%d", bx, by);
    if (bx != 32 || by != 8) same_line_if_fits(button_width(label));
    if (ImGui::SmallButton(label)) {
      m.block[0] = bx, m.block[1] = by;
      changed = true;
    }
  }
  {
    const char* kernels[] = {"built-in step", "user kernel (heat_step)"};
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 11);
    changed |= ImGui::Combo("step kernel", &m.kernel, kernels, 2);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "Your heat_step from the Kernel editor replaces the lab's step: same field, timing and\n"
          "drawing; one thread per cell with the block and grid below.");
    if (m.kernel == 1 && !m.user_kernel_status.empty())
      ImGui::TextColored(tone_colour(Tone::Warning), "%s", m.user_kernel_status.c_str());
    if (m.kernel == 1 && m.user_kernel_running) ImGui::TextDisabled("%s", m.user_kernel_figures.c_str());
    if (m.kernel == 1) draw_simulated_run(m.user_sim, a.user_sim);
  }
  if (m.kernel != 1) {
    const char* choices[] = {"1 (one thread per cell)", "2", "4", "8"};
    int idx = m.cells_per_thread == 1 ? 0 : m.cells_per_thread == 2 ? 1 : m.cells_per_thread == 4 ? 2 : 3;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 11);
    if (ImGui::Combo("cells per thread (down y)", &idx, choices, 4)) {
      m.cells_per_thread = heat::k_cells_per_thread_choices[idx];
      changed = true;
    }
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "Thread (x, y) computes cells (x, y*C) .. (x, y*C + C-1).\nMore cells per thread keep more loads "
          "in "
          "flight: the\nstencil gets closer to the memory system's real ceiling.");
  }
  if (m.kernel != 1) {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 11);
    changed |= ImGui::SliderInt("steps fused per pass", &m.fused_steps, 1, heat::k_max_fused_steps, "%d",
                                ImGuiSliderFlags_AlwaysClamp);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "Temporal blocking: each block loads a tile with a halo into shared memory and takes\n"
          "this many steps there before writing back, so DRAM traffic per step falls about that\n"
          "many times. The halo cells are computed twice (by neighbouring tiles). 1: one step per\n"
          "pass, the kernel of block and cells per thread above.");
    if (m.temporal.fused > 1)
      ImGui::TextDisabled("%s; block, grid and cells per thread wait", m.temporal.tile.c_str());
    else if (m.fused_steps > 1 && !m.gpu)
      ImGui::TextDisabled("temporal blocking runs on the GPU only");
  }
  if (ImGui::Checkbox("set grid by hand", &m.manual_grid)) {
    changed = true;
    set_manual_grid(m, m.manual_grid);
  }
  if (m.manual_grid) {
    same_line_if_fits(labelled_width(ImGui::GetFontSize() * 10, "gridDim x, y"));
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
    if (input_ints_on_commit("gridDim x, y", m.grid, 2)) changed = true, m.floor_note.clear();
    if (ImGui::SmallButton("floor division (the tutorial mistake)")) {
      // Of the field and the block in force (the boxes may hold values not applied yet).
      const Dim2 cells = heat::cells_of(m.launch.block, m.launch.cells_per_thread);
      const FloorLesson l = floor_lesson(m.nx, m.ny, cells);
      m.grid[0] = static_cast<int>(l.grid.x), m.grid[1] = static_cast<int>(l.grid.y);
      m.floor_note = l.note;
      changed = true;
    }
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("grid = n / (block x cells), rounded down: the last partial block gets no thread");
    if (!m.floor_note.empty() && m.coverage.full()) {
      wrapped_text(m.floor_note, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      if (ImGui::SmallButton("floor division on 1000x777")) {
        m.size[0] = 1000, m.size[1] = 777;
        const FloorLesson l =
            floor_lesson(1000, 777, heat::cells_of(m.launch.block, m.launch.cells_per_thread));
        m.grid[0] = static_cast<int>(l.grid.x), m.grid[1] = static_cast<int>(l.grid.y);
        m.floor_note = l.note;
        a.apply_size = true;
        changed = true;
      }
    }
  } else if (m.launch_error.empty()) {
    ImGui::SameLine();
    ImGui::TextDisabled("grid = ceil(n / (block x cells)) = %lldx%lld",
                        static_cast<long long>(m.launch.grid.x), static_cast<long long>(m.launch.grid.y));
  }
  if (changed) a.launch_changed = true;
  error_text(m.launch_error);
  // Always: what the kernel really runs (a rejected or not yet committed value is only in the boxes).
  wrapped_text(fmt_line("in force: block %s, grid %s, %d cell%s/thread", to_string(m.launch.block).c_str(),
                        to_string(m.launch.grid).c_str(), m.launch.cells_per_thread,
                        m.launch.cells_per_thread == 1 ? "" : "s"),
               ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  advice_text(m.launch_advice);
  // The coverage of the launch in force: the hatching, the CPU fallback and the GPU all follow it.
  if (m.coverage.full()) {
    ImGui::TextDisabled("every cell has a thread");
  } else {
    wrapped_text(fmt_line("%lld cells have no thread (hatched): the grid covers %lldx%lld",
                          static_cast<long long>(m.coverage.uncovered_cells),
                          static_cast<long long>(m.coverage.covered_x),
                          static_cast<long long>(m.coverage.covered_y)),
                 tone_colour(Tone::Highlight));
    if (!m.gpu)
      ImGui::TextDisabled("the CPU fallback computes only the covered cells, as the GPU kernel would");
  }
}

void view_section(HeatPanelModel& m) {
  colormap_combo(&m.colormap);
  same_line_if_fits(labelled_width(ImGui::GetFrameHeight(), "auto range"));
  ImGui::Checkbox("auto range", &m.auto_range);
  if (!m.auto_range) {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
    ImGui::InputFloat2("range", m.range);
  }
  ImGui::Checkbox("show block boundaries", &m.block_lines);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  ImGui::SliderFloat("brush radius", &m.brush_radius, 1.0f, 200.0f, "%.0f cells",
                     ImGuiSliderFlags_Logarithmic);
  wrapped_text(fmt_line("paint: left drag = heat (%.2g), right drag = cold (%.2g)", m.brush_hot, m.brush_cold),
               ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
}

void timing_section(HeatPanelModel& m, HeatPanelActions& a) {
  ImGui::TextWrapped("%s", m.compute_label.c_str());
  if (m.step_ms.count > 0) {
    // Rates from the size the samples were measured on; the lab clears them when the size changes, so a
    // different size here would be a bug, and it is said rather than hidden.
    const HeatRates rates = live_rates(m);
    const bool current = measured_on(m.timing_nx, m.timing_ny, m.nx, m.ny);
    ImGui::Text("per step: median %.4f ms  (p10 %.4f, p90 %.4f, n=%zu)", m.step_ms.median, m.step_ms.p10,
                m.step_ms.p90, m.step_ms.count);
    if (spread_is_wide(m.step_ms)) {
      same_line_if_text_fits("(!)");  // the line above ends where its numbers end: anywhere
      ImGui::TextColored(tone_colour(Tone::Warning), "(!)");
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("p90 / p10 = %.1f > %.0f", m.step_ms.p90 / std::max(m.step_ms.p10, 1e-12),
                          k_wide_spread_ratio);
      ImGui::TextColored(tone_colour(Tone::Warning), "%s", k_wide_spread_warning);
    }
    ImGui::Text("%.0f Mcell/s   %.1f GB/s effective (8 B/cell/step) on %s%s", rates.mcells_per_s,
                rates.gb_per_s, size_label(m.timing_nx, m.timing_ny).c_str(),
                current ? "" : " (not the field in force)");
    if (m.copy_gb_per_s > 0 && measured_on(m.copy_nx, m.copy_ny, m.timing_nx, m.timing_ny))
      ImGui::Text("= %.0f%% of the copy kernel's %.0f GB/s on this GPU",
                  100.0 * rates.gb_per_s / m.copy_gb_per_s, m.copy_gb_per_s);
    const bool copy_here = m.copy_gb_per_s > 0 && measured_on(m.copy_nx, m.copy_ny, m.timing_nx, m.timing_ny);
    for (const std::string& line : temporal_lines(m.temporal, rates, copy_here ? m.copy_gb_per_s : 0))
      ImGui::TextUnformatted(line.c_str());
    ImGui::TextDisabled("first batch %.3f ms/step and %zu warm-up batches excluded", m.first_step_ms,
                        m.warmup_discarded);
  } else {
    ImGui::TextDisabled(m.paused_for_baseline ? "no timings yet (live run paused while the CPU baseline runs)"
                                              : "no timings yet (run the simulation)");
  }
  if (m.gpu && ImGui::SmallButton("measure copy-kernel bandwidth")) a.measure_copy = true;

  section_title("CPU baselines (same stencil, same grid)");
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
  ImGui::InputInt("CPU steps", &m.cpu_steps);
  m.cpu_steps = std::clamp(m.cpu_steps, 1, 10000);
  if (m.paused_for_baseline)
    ImGui::TextColored(tone_colour(Tone::Warning), "live run paused while the CPU baseline runs");
  for (int i = 0; i < 2; ++i) {
    CpuBaselineView& c = m.cpu[i];
    ImGui::PushID(i);
    if (c.running) {
      if (ImGui::SmallButton("cancel")) a.cancel_cpu[i] = true;
      ImGui::SameLine();
      char overlay[64];
      std::snprintf(overlay, sizeof overlay, "%s %.0f%%", c.label.c_str(), c.progress * 100.0);
      ImGui::ProgressBar(static_cast<float>(c.progress), ImVec2(-1, 0), overlay);
    } else {
      if (ImGui::SmallButton("run")) a.run_cpu[i] = true;
      same_line_if_text_fits(c.label);
      ImGui::TextUnformatted(c.label.c_str());
      if (c.ms_per_step) {
        const bool current = measured_on(c.measured_nx, c.measured_ny, m.nx, m.ny);
        const std::string ms =
            current ? fmt_line(": %.3f ms/step", *c.ms_per_step)
                    : fmt_line(": %.3f ms/step on %s (another size: run it again)", *c.ms_per_step,
                               size_label(c.measured_nx, c.measured_ny).c_str());
        same_line_if_text_fits(ms);
        if (current)
          ImGui::TextUnformatted(ms.c_str());
        else
          wrapped_text(ms, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        if (current && m.step_ms.count > 0 && m.gpu && measured_on(m.timing_nx, m.timing_ny, m.nx, m.ny)) {
          const std::string speedup = fmt_line("GPU speedup x%.1f", *c.ms_per_step / m.step_ms.median);
          same_line_if_text_fits(speedup);
          ImGui::TextColored(tone_colour(Tone::Pass), "%s", speedup.c_str());
        }
      }
      if (!c.status.empty()) {
        const std::string status = "(" + c.status + ")";
        same_line_if_text_fits(status);
        wrapped_text(status, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      }
    }
    ImGui::PopID();
  }

  section_title("recent per-step times");
  const PlotSeries s{.label = "ms/step (median of 15 batches, p10-p90 band)",
                     .x = m.history_x,
                     .y = m.history_ms,
                     .color = IM_COL32(255, 170, 60, 255),
                     .y_lo = m.history_lo,
                     .y_hi = m.history_hi};
  PlotAxes axes{.x_label = "batch", .y_label = "ms per step"};
  plot_lines("heat_timing", ImVec2(0, ImGui::GetFontSize() * 9), axes, std::span(&s, 1));
}

}  // namespace

HeatRates heat_rates(double ms_per_step, int64_t nx, int64_t ny) {
  HeatRates r;
  if (!(ms_per_step > 0) || nx <= 0 || ny <= 0) return r;
  const double cells = static_cast<double>(nx) * static_cast<double>(ny);
  const double per_s = cells / (ms_per_step * 1e-3);
  r.mcells_per_s = per_s / 1e6;
  r.gb_per_s = 8.0 * per_s / 1e9;
  return r;
}

std::vector<std::string> temporal_lines(const HeatPanelModel::Temporal& t, const HeatRates& rates,
                                        double copy_gb_per_s) {
  std::vector<std::string> out;
  if (t.fused <= 1) return out;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "temporal blocking: %d steps per pass; computed / useful cells %.3f (halo +%.1f%%)", t.fused,
                t.computed_per_useful, 100.0 * (t.computed_per_useful - 1.0));
  out.emplace_back(buf);
  std::snprintf(buf, sizeof buf,
                "DRAM: about %.2f B per cell update instead of 8: GB/s above is the one-step equivalent",
                t.bytes_per_update);
  out.emplace_back(buf);
  if (copy_gb_per_s > 0) {
    // The most a one-step kernel can do: the copy kernel's bandwidth over 8 bytes per cell update.
    const double limit = copy_gb_per_s * 1e3 / 8.0;
    std::snprintf(buf, sizeof buf,
                  "one-step copy-bound limit %.0f Mcell/s; this run x%.2f of it (data reused on chip: the "
                  "roofline moves)",
                  limit, rates.mcells_per_s / limit);
  } else {
    std::snprintf(buf, sizeof buf, "measure the copy kernel to compare with the one-step copy-bound limit");
  }
  out.emplace_back(buf);
  return out;
}

HeatRates live_rates(const HeatPanelModel& m) {
  return m.step_ms.count > 0 ? heat_rates(m.step_ms.median, m.timing_nx, m.timing_ny) : HeatRates{};
}

bool measured_on(int64_t measured_nx, int64_t measured_ny, int64_t nx, int64_t ny) {
  return measured_nx > 0 && measured_ny > 0 && measured_nx == nx && measured_ny == ny;
}

std::string size_label(int64_t nx, int64_t ny) {
  return std::to_string(nx) + "x" + std::to_string(ny);
}

bool spread_is_wide(const Summary& s) {
  return s.count >= 2 && s.p90 > k_wide_spread_ratio * s.p10;
}

void draw_heat_panel(HeatPanelModel& m, HeatPanelActions& a) {
  if (ImGui::CollapsingHeader("Grid and physics", ImGuiTreeNodeFlags_DefaultOpen)) physics_section(m, a);
  if (ImGui::CollapsingHeader("Run", ImGuiTreeNodeFlags_DefaultOpen)) run_section(m, a);
  if (ImGui::CollapsingHeader("Launch configuration", ImGuiTreeNodeFlags_DefaultOpen)) launch_section(m, a);
  if (ImGui::CollapsingHeader("View", ImGuiTreeNodeFlags_DefaultOpen)) view_section(m);
  if (ImGui::CollapsingHeader("Timing", ImGuiTreeNodeFlags_DefaultOpen)) timing_section(m, a);
  error_text(m.runtime_error);
}

}  // namespace bs::ui
