// vector_lab_panel.cpp: see vector_lab_panel.h. The controls (problem, GPU runs, rates, CPU baselines); the
// pictures (index strip, stream timeline, size sweep) are in vector_views.cpp.
#include "ui/vector/vector_lab_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "core/readout.h"
#include "ui/plot.h"
#include "ui/vector/vector_schema.h"
#include "ui/plot_export.h"
#include "ui/widgets.h"

namespace bs::ui {

VectorPanelModel::VectorPanelModel() {
  const params::Schema& s = vector_schema();
  std::snprintf(n_text, sizeof n_text, "%s", s.at("n").default_value.get<std::string>().c_str());
  op = s.at("op").default_choice();
  kernel = s.at("kernel").default_choice();
  indexing = s.at("indexing").default_choice();
  width = s.at("width").default_choice();
  block = static_cast<int>(s.at("block").default_int());
  pinned = s.at("pinned").default_bool();
  streams = static_cast<int>(s.at("streams").default_int());
  std::snprintf(sweep_max_text, sizeof sweep_max_text, "%s",
                s.at("sweep_max").default_value.get<std::string>().c_str());
  strip_count = static_cast<int>(s.at("strip_count").default_int());
  strip_grid = static_cast<int>(s.at("strip_grid").default_int());
  strip_grid_like_gpu = s.at("strip_grid_like_gpu").default_bool();
  grid_stride_by_block = s.at("grid_stride_by_block").default_bool();
}

// --- Layout helpers
// -----------------------------------------------------------------------------------------

std::vector<BarSegment> stacked_bar(std::span<const double> values, float width, float min_px) {
  std::vector<BarSegment> out;
  int positive = 0;
  for (double v : values)
    if (v > 0) ++positive;
  if (positive == 0 || width <= 0) return out;
  min_px = std::min(min_px, width / static_cast<float>(positive));
  // Values whose share is below min_px are raised to it; the rest share what is left in proportion. Raising
  // one can push another below the minimum, so repeat until stable (at most `positive` rounds).
  std::vector<bool> raised(values.size(), false);
  double free_sum = 0;  // the values still sharing in proportion
  float fixed_px = 0;   // the pixels the raised ones take
  auto split = [&] {
    free_sum = 0;
    fixed_px = 0;
    for (size_t i = 0; i < values.size(); ++i) {
      if (!(values[i] > 0)) continue;
      if (raised[i])
        fixed_px += min_px;
      else
        free_sum += values[i];
    }
  };
  for (int round = 0; round < positive; ++round) {
    split();
    bool changed = false;
    for (size_t i = 0; i < values.size(); ++i) {
      if (!(values[i] > 0) || raised[i]) continue;
      const double w = (width - fixed_px) * values[i] / free_sum;
      if (w < min_px) raised[i] = changed = true;
    }
    if (!changed) break;
  }
  split();
  float x = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    if (!(values[i] > 0)) continue;
    const float w = raised[i]
                        ? min_px
                        : static_cast<float>((width - fixed_px) * (free_sum > 0 ? values[i] / free_sum : 0));
    out.push_back({x, x + w, static_cast<int>(i)});
    x += w;
  }
  out.back().x1 = width;  // no gap from rounding
  return out;
}

// --- Drawing
// ------------------------------------------------------------------------------------------------

namespace {

// Text centred in [x0, x1] at y when it fits.
void label_in(ImDrawList* dl, float x0, float x1, float y, const std::string& s, ImU32 col) {
  const ImVec2 sz = ImGui::CalcTextSize(s.c_str());
  if (sz.x + 4 > x1 - x0) return;
  dl->AddText(ImVec2(0.5f * (x0 + x1 - sz.x), y), col, s.c_str());
}

void controls_section(VectorPanelModel& m, VectorPanelActions& a) {
  bool changed = false;
  const char* ops[] = {vector::to_string(vector::Op::Add), vector::to_string(vector::Op::Formula)};
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
  changed |= ImGui::Combo(m.kernel == 1 ? "op (the check)" : "op", &m.op, ops, 2);
  ImGui::SameLine();
  ImGui::TextDisabled("%s", vector::formula_text(static_cast<vector::Op>(m.op)));
  const char* kernels[] = {"built-in kernels", "user kernel (vector_op)"};
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12);
  changed |= ImGui::Combo("GPU kernel", &m.kernel, kernels, 2);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "user kernel: your vector_op from the Kernel editor (F9) runs on the GPU with this block size\n"
        "over N elements (the grid covers them), timed with CUDA events, its c checked against op.");
  if (m.kernel == 1) {
    if (!m.user_status.empty()) advice_text(m.user_status);
    if (m.user_ready && !m.user_figures.empty()) dim_text(m.user_figures);
    if (m.user_can_simulate) {
      ImGui::BeginDisabled(m.user_sim.running);
      if (ImGui::Button("Simulate your vector_op")) a.simulate_user = true;
      ImGui::EndDisabled();
      if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip(
            "runs it thread by thread in the PTX simulator on this CPU (no GPU, never timed),\n"
            "its c checked against op, with what the simulator found");
    }
    draw_simulated_run(m.user_sim, a.user_sim);
    ImGui::TextDisabled(
        "indexing, loads and streams below are the built-in kernels' (yours chooses its own)");
  }

  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
  changed |= input_text_on_commit("N elements", m.n_text, sizeof m.n_text);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("1 .. 512M; K, M, G = 1024, 1024^2, 1024^3 (e.g. 10M, 256M)");
  for (const char* s : {"1K", "64K", "1M", "16M", "256M", "512M"}) {
    same_line_if_fits(button_width(s));
    if (ImGui::SmallButton(s)) {
      std::snprintf(m.n_text, sizeof m.n_text, "%s", s);
      changed = true;
    }
  }
  error_text(m.n_error);
  advice_text(m.memory_note);

  const float box = ImGui::GetFrameHeight();
  ImGui::TextUnformatted("indexing");
  same_line_if_fits(labelled_width(box, "one thread per element"));
  changed |= ImGui::RadioButton("one thread per element", &m.indexing, 0);
  same_line_if_fits(labelled_width(box, "grid-stride loop"));
  changed |= ImGui::RadioButton("grid-stride loop", &m.indexing, 1);
  ImGui::TextUnformatted("loads   ");
  same_line_if_fits(labelled_width(ImGui::GetFrameHeight(), "float"));
  changed |= ImGui::RadioButton("float", &m.width, 0);
  same_line_if_fits(labelled_width(ImGui::GetFrameHeight(), "float4"));
  changed |= ImGui::RadioButton("float4", &m.width, 1);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
  changed |= input_ints_on_commit("block size", &m.block, 1, 32, 128);
  same_line_if_fits(labelled_width(box, "pinned host memory"));
  changed |= ImGui::Checkbox("pinned host memory", &m.pinned);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "Page-locked host arrays: the copy engine reads them directly, and copies can overlap kernels.\n"
        "Pageable (malloc) arrays are staged through a driver buffer first.");
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
  changed |= ImGui::SliderInt("streams K", &m.streams, 1, vector::k_max_streams);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "The arrays are cut into K chunks; chunk k copies and computes on stream k, so one chunk's\n"
        "copies can run while another chunk's kernel does.");
  if (changed) a.params_changed = true;
  error_text(m.param_error);
}

void gpu_runs_section(VectorPanelModel& m, VectorPanelActions& a) {
  section_title("GPU runs: host-to-device copy, kernel, device-to-host copy (CUDA events, median of 5)");
  if (!m.gpu) {
    advice_text("GPU rows need a CUDA device: " + m.gpu_missing);
    return;
  }
  ImGui::BeginDisabled(m.gpu_running || m.sweep_running);
  if (ImGui::Button("Run on GPU")) a.run_gpu = true;
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (m.gpu_running)
    ImGui::TextDisabled("running...");
  else if (m.sweep_running)
    ImGui::TextDisabled("(the sweep is using the GPU)");
  else if (!m.runs.empty() && ImGui::SmallButton("clear"))
    a.clear_runs = true;
  error_text(m.gpu_status);
  if (m.runs.empty()) return;

  // One bar per run on a common ms scale: the parts add up to the serial sum; a white tick marks the wall
  // time (shorter than the sum when streams overlapped copies with kernels).
  double max_ms = 0;
  for (const GpuRunView& r : m.runs)
    max_ms = std::max({max_ms, r.h2d_ms + r.kernel_ms + r.d2h_ms, r.total.median});
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float bar_h = ImGui::GetTextLineHeight() * 1.4f;
  for (size_t ri = m.runs.size(); ri-- > 0;) {
    const GpuRunView& r = m.runs[ri];
    ImGui::TextUnformatted(r.variant.c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("N = %s", vector::format_count(r.n).c_str());
    const float full_w = ImGui::GetContentRegionAvail().x;
    const double parts[3] = {r.h2d_ms, r.kernel_ms, r.d2h_ms};
    const double sum = parts[0] + parts[1] + parts[2];
    const float w = max_ms > 0 ? static_cast<float>(full_w * sum / max_ms) : 0.0f;
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    const char* names[3] = {"H2D", "kernel", "D2H"};
    for (const BarSegment& s : stacked_bar(parts, w, 6.0f)) {
      const ImVec2 q0(p0.x + s.x0, p0.y), q1(p0.x + s.x1, p0.y + bar_h);
      dl->AddRectFilled(q0, q1, kind_colour(static_cast<vector::OpKind>(s.part)));
      dl->AddRect(q0, q1, IM_COL32(20, 20, 25, 255));
      std::string text = std::string(names[s.part]) + " " + format_ms(parts[s.part]);
      if (ImGui::CalcTextSize(text.c_str()).x + 4 > s.x1 - s.x0) text = format_ms(parts[s.part]);
      label_in(dl, q0.x, q1.x, p0.y + 0.2f * ImGui::GetTextLineHeight(), text, IM_COL32(15, 15, 20, 255));
      if (ImGui::IsMouseHoveringRect(q0, q1))
        ImGui::SetTooltip("%s: %s (median)", names[s.part], format_ms(parts[s.part]).c_str());
    }
    if (r.streams > 1 && max_ms > 0) {
      const float x = p0.x + static_cast<float>(full_w * r.total.median / max_ms);
      dl->AddLine(ImVec2(x, p0.y - 2), ImVec2(x, p0.y + bar_h + 2), IM_COL32(255, 255, 255, 255), 2.0f);
    }
    ImGui::Dummy(ImVec2(full_w, bar_h));
    figure_export_menu("vector-runs", [&] {
      // Every run's parts and wall time as bars (the chart's stacked bars, one bar per part).
      fig::Figure f;
      f.kind = fig::Kind::Bars;
      f.title = "where the time goes: copies, kernel, wall time";
      f.subtitle = "medians; whisker on the wall time: p10-p90";
      f.y_label = "ms";
      for (const GpuRunView& run : m.runs) {
        const std::string who = run.variant + ", N = " + vector::format_count(run.n) + ": ";
        f.bars.push_back({who + "H2D", run.h2d_ms, run.h2d_ms, run.h2d_ms, fig::palette(0)});
        f.bars.push_back({who + "kernel", run.kernel_ms, run.kernel_ms, run.kernel_ms, fig::palette(1)});
        f.bars.push_back({who + "D2H", run.d2h_ms, run.d2h_ms, run.d2h_ms, fig::palette(2)});
        f.bars.push_back({who + "wall", run.total.median, run.total.p10, run.total.p90, fig::palette(3)});
      }
      return f;
    });
    char line[256];
    std::snprintf(line, sizeof line,
                  "wall %s (p10 %s, p90 %s)   copies %.1f / %.1f GB/s   kernel %.0f GB/s   check: %s",
                  format_ms(r.total.median).c_str(), format_ms(r.total.p10).c_str(),
                  format_ms(r.total.p90).c_str(), r.h2d_gbs, r.d2h_gbs, r.kernel_gbs, r.check.c_str());
    dim_text(line);
    if (!r.check_passed) error_text("result check FAILED: " + r.check);
    if (!r.resources.empty()) dim_text("resources: " + r.resources);
    if (!r.note.empty()) ImGui::TextDisabled("%s", r.note.c_str());
    if (r.launch_us > 0 && r.kernel_ms * 1000.0 < 3.0 * r.launch_us)
      advice_text(fmt_double("kernel %.1f us is mostly launch overhead: an empty kernel takes ",
                             r.kernel_ms * 1000.0) +
                  fmt_double("%.1f us between events, ", r.launch_us) +
                  fmt_double("%.1f us launch + synchronize", r.round_trip_us));
  }
  if (m.runs.back().streams > 1)
    ImGui::TextDisabled("white tick: wall time of a streamed run (the bar is the serial sum)");
}

void rates_section(const VectorPanelModel& m) {
  if (!m.gpu) return;
  section_title("Copy rates at this size: pinned vs pageable, against the link's nominal rate");
  ImGui::TextWrapped("nominal: %s", m.link_text.c_str());
  if (!m.rates) {
    ImGui::TextDisabled("(measured with each GPU run)");
    return;
  }
  const vector::CopyRates& r = *m.rates;
  const double scale = std::max(
      {m.link_gbs, r.pinned_h2d_gbs, r.pinned_d2h_gbs, r.pageable_h2d_gbs, r.pageable_d2h_gbs, 1e-9});
  auto row = [&](const char* label, double gbs, ImU32 col) {
    ImGui::TextUnformatted(label);
    ImGui::SameLine(ImGui::GetFontSize() * 10);
    ImGui::PushStyleColor(ImGuiCol_PlotHistogram, col);
    ImGui::ProgressBar(static_cast<float>(gbs / scale), ImVec2(-1, 0), fmt_double("%.1f GB/s", gbs).c_str());
    ImGui::PopStyleColor();
  };
  ImGui::TextDisabled("%s per copy", vector::format_count(r.bytes).c_str());
  row("pinned H2D", r.pinned_h2d_gbs, kind_colour(vector::OpKind::H2D));
  row("pageable H2D", r.pageable_h2d_gbs, IM_COL32(60, 100, 170, 255));
  row("pinned D2H", r.pinned_d2h_gbs, kind_colour(vector::OpKind::D2H));
  row("pageable D2H", r.pageable_d2h_gbs, IM_COL32(170, 110, 50, 255));
  if (m.link_gbs > 0) row("nominal (assumed)", m.link_gbs, IM_COL32(150, 150, 160, 255));
}

void cpu_section(VectorPanelModel& m, VectorPanelActions& a) {
  section_title("CPU runs of the same formula (this machine)");
  if (m.cpu_running) {
    if (ImGui::SmallButton("cancel")) a.cancel_cpu = true;
    ImGui::SameLine();
    ImGui::ProgressBar(static_cast<float>(m.cpu_progress), ImVec2(-1, 0), m.cpu_stage.c_str());
  } else {
    // The sweep times the CPU too: running both at once would have them share the cores and spoil both.
    ImGui::BeginDisabled(m.sweep_running);
    if (ImGui::Button("Run on CPU (1 thread, then all threads)")) a.run_cpu = true;
    ImGui::EndDisabled();
    if (m.sweep_running) {
      ImGui::SameLine();
      ImGui::TextDisabled("(after the sweep)");
    }
  }
  error_text(m.cpu_status);
  for (const CpuRowView& c : m.cpu) {
    if (!c.ms) {
      ImGui::TextDisabled("%s: not run yet", c.label.c_str());
      continue;
    }
    const double gbs = static_cast<double>(c.n) * vector::k_bytes_per_element / (c.ms->median * 1e6);
    ImGui::Text("%s: %s", c.label.c_str(), format_ms(c.ms->median).c_str());
    ImGui::Indent();
    ImGui::TextDisabled("p10 %s, p90 %s, %.1f GB/s, N = %s", format_ms(c.ms->p10).c_str(),
                        format_ms(c.ms->p90).c_str(), gbs, vector::format_count(c.n).c_str());
    ImGui::Unindent();
  }
  if (!m.runs.empty() && m.cpu[1].ms && m.runs.back().n == m.cpu[1].n) {
    const GpuRunView& g = m.runs.back();
    dim_text("GPU at the same N: kernel " + format_ms(g.kernel_ms) + ", with copies " +
             format_ms(g.total.median) + " (" + (g.total.median < m.cpu[1].ms->median ? "faster" : "slower") +
             " than all CPU threads)");
  }
}

}  // namespace

void draw_vector_panel(VectorPanelModel& m, VectorPanelActions& a) {
  ImGui::TextWrapped("%s", m.compute_label.c_str());
  controls_section(m, a);
  gpu_runs_section(m, a);
  rates_section(m);
  cpu_section(m, a);
}

}  // namespace bs::ui
