// anatomy_panel.cpp: see anatomy_panel.h.
#include "ui/anatomy/anatomy_panel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/error.h"
#include "ui/figure_export.h"
#include "ui/plot.h"
#include "ui/widgets.h"

namespace bs::ui {

namespace {

// Waves alternate through four colours (as in the SVG), so the rounds of residency on each SM stand out.
constexpr ImU32 k_wave_colours[4] = {IM_COL32(78, 121, 167, 255), IM_COL32(242, 142, 43, 255),
                                     IM_COL32(89, 161, 79, 255), IM_COL32(225, 87, 89, 255)};

ImU32 block_colour(const anatomy::Timeline& t, const anatomy::TimelineBlock& b, TimelineColour c) {
  if (c == TimelineColour::Wave) return k_wave_colours[b.wave % 4];
  // blockIdx colouring: the block's linear index in launch order, through the categorical palette.
  static const uint32_t pal[12] = {0xffa7794e, 0xff2b8ef2, 0xff5957e1, 0xffb2b776, 0xff4fa159, 0xff48c9ed,
                                   0xffa17ab0, 0xffa79dff, 0xff5f759c, 0xffacb0ba, 0xff8c3c1f, 0xff00c8ff};
  (void)t;
  return pal[(b.block_x + b.block_y * 7u) % 12u];
}

std::string fmt_us(double ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", ns * 1e-3);
  return buf;
}

}  // namespace

std::string waves_text(int64_t blocks, int sm_count, int blocks_per_sm) {
  // ceil(blocks / (SMs x resident)), as anatomy::predicted_waves (kept here so bs_ui needs no bs_anatomy).
  const int64_t slots = static_cast<int64_t>(sm_count) * blocks_per_sm;
  const int64_t waves = slots > 0 ? (blocks + slots - 1) / slots : 0;
  char buf[200];
  std::snprintf(buf, sizeof buf, "%lld wave%s = ceil(%lld blocks / (%d SMs x %d resident per SM))",
                static_cast<long long>(waves), waves == 1 ? "" : "s", static_cast<long long>(blocks),
                sm_count, blocks_per_sm);
  return buf;
}

void draw_overlay_legend(const OverlayLegend& l) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float s = ImGui::GetFontSize();
  if (l.categorical) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    for (int i = 0; i < l.period && i < 12; ++i) {
      const ImVec2 a(p.x + static_cast<float>(i) * s * 1.6f, p.y);
      dl->AddRectFilled(a, ImVec2(a.x + s * 1.4f, a.y + s), l.palette[static_cast<size_t>(i)]);
      char num[8];
      std::snprintf(num, sizeof num, "%d", i);
      dl->AddText(ImVec2(a.x + 2, a.y), IM_COL32(255, 255, 255, 255), num);
    }
    ImGui::Dummy(ImVec2(s * 1.6f * static_cast<float>(std::min(l.period, 12)), s));
  } else {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float w = std::min(ImGui::GetContentRegionAvail().x, s * 20);
    for (int i = 0; i < 64; ++i) {
      const float x0 = p.x + w * static_cast<float>(i) / 64, x1 = p.x + w * static_cast<float>(i + 1) / 64;
      dl->AddRectFilled(ImVec2(x0, p.y), ImVec2(x1 + 0.5f, p.y + s),
                        l.ramp[static_cast<size_t>(i * 255 / 63)]);
    }
    dl->AddRect(p, ImVec2(p.x + w, p.y + s), ImGui::GetColorU32(ImGuiCol_Border));
    ImGui::Dummy(ImVec2(w, s));
    ImGui::Text("%.2f us", l.lo);
    char hi[32];
    std::snprintf(hi, sizeof hi, "%.2f us", l.hi);
    ImGui::SameLine(std::max(w - ImGui::CalcTextSize(hi).x, s * 5));
    ImGui::TextUnformatted(hi);
  }
  if (!l.text.empty()) ImGui::TextWrapped("%s", l.text.c_str());
  if (!l.source.empty()) ImGui::TextDisabled("%s", l.source.c_str());
}

TimelineLayout layout_timeline(ImVec2 origin, ImVec2 size, int lanes, double t_lo_ns, double t_hi_ns,
                               float font_size) {
  TimelineLayout l;
  l.lanes = std::max(lanes, 1);
  const float left = font_size * 4.0f, bottom = font_size * 2.6f, top = font_size * 0.5f, right = font_size;
  l.plot_x0 = origin.x + left;
  l.plot_y0 = origin.y + top;
  l.plot_w = std::max(size.x - left - right, 10.0f);
  l.plot_h = std::max(size.y - top - bottom, static_cast<float>(l.lanes));
  l.row_h = l.plot_h / static_cast<float>(l.lanes);
  l.t_lo_ns = t_lo_ns;
  l.t_hi_ns = t_hi_ns > t_lo_ns ? t_hi_ns : t_lo_ns + 1;
  return l;
}

std::pair<float, float> lane_rows(const TimelineLayout& l, int lane) {
  const float y0 = l.plot_y0 + l.row_h * static_cast<float>(lane);
  return {y0, y0 + l.row_h};
}

std::optional<std::pair<float, float>> bar_span(const TimelineLayout& l, int64_t start_ns, int64_t end_ns) {
  const double a = static_cast<double>(start_ns), b = static_cast<double>(std::max(end_ns, start_ns));
  if (b < l.t_lo_ns || a > l.t_hi_ns) return std::nullopt;
  const double span = l.t_hi_ns - l.t_lo_ns;
  const auto to_x = [&](double t) {
    return l.plot_x0 +
           static_cast<float>((std::clamp(t, l.t_lo_ns, l.t_hi_ns) - l.t_lo_ns) / span) * l.plot_w;
  };
  float x0 = to_x(a), x1 = to_x(b);
  if (x1 - x0 < 1.0f) x1 = std::min(x0 + 1.0f, l.plot_x0 + l.plot_w), x0 = std::min(x0, x1 - 1.0f);
  return std::pair<float, float>{x0, x1};
}

TimelineHover draw_timeline_chart(ImDrawList* dl, ImVec2 origin, ImVec2 size, const anatomy::Timeline& t,
                                  TimelineColour colour, double t_lo_ns, double t_hi_ns,
                                  std::optional<ImVec2> mouse, bool light) {
  TimelineHover hover;
  const float fs = ImGui::GetFontSize();
  if (t_hi_ns <= t_lo_ns) t_lo_ns = 0, t_hi_ns = static_cast<double>(std::max<int64_t>(t.span_ns, 1));
  const int lanes = static_cast<int>(t.lanes.size());
  const TimelineLayout l = layout_timeline(origin, size, lanes, t_lo_ns, t_hi_ns, fs);
  const ImU32 bg = light ? IM_COL32(255, 255, 255, 255) : IM_COL32(24, 24, 28, 255);
  const ImU32 fg = light ? IM_COL32(30, 30, 30, 255) : IM_COL32(220, 220, 220, 255);
  const ImU32 grid = light ? IM_COL32(220, 220, 220, 255) : IM_COL32(60, 60, 66, 255);
  const ImU32 idle = light ? IM_COL32(240, 240, 240, 255) : IM_COL32(44, 40, 40, 255);
  dl->AddRectFilled(origin, ImVec2(origin.x + size.x, origin.y + size.y), bg);

  // Time axis (us) with "nice" ticks.
  const double span_us = (l.t_hi_ns - l.t_lo_ns) * 1e-3;
  for (double us : nice_ticks(l.t_lo_ns * 1e-3, l.t_hi_ns * 1e-3, 8, false)) {
    const float x = l.plot_x0 + static_cast<float>((us - l.t_lo_ns * 1e-3) / span_us) * l.plot_w;
    dl->AddLine(ImVec2(x, l.plot_y0), ImVec2(x, l.plot_y0 + l.plot_h), grid);
    const std::string s = format_tick(us);
    dl->AddText(ImVec2(x - ImGui::CalcTextSize(s.c_str()).x * 0.5f, l.plot_y0 + l.plot_h + 2), fg, s.c_str());
  }
  const char* axis = "time since the first block started (us)";
  dl->AddText(ImVec2(l.plot_x0 + l.plot_w * 0.5f - ImGui::CalcTextSize(axis).x * 0.5f,
                     l.plot_y0 + l.plot_h + fs * 1.3f),
              fg, axis);

  const int label_every = std::max(1, static_cast<int>(std::ceil(fs * 1.1f / std::max(l.row_h, 0.1f))));
  for (int i = 0; i < lanes; ++i) {
    const auto [y0, y1] = lane_rows(l, i);
    const auto& lane = t.lanes[static_cast<size_t>(i)];
    if (i % label_every == 0) {
      char lab[24];
      std::snprintf(lab, sizeof lab, "SM %u", lane.sm);
      dl->AddText(ImVec2(origin.x + 2, y0 + (y1 - y0) * 0.5f - fs * 0.5f), fg, lab);
    }
    if (lane.blocks.empty() && i < t.sm_count)
      dl->AddRectFilled(ImVec2(l.plot_x0, y0), ImVec2(l.plot_x0 + l.plot_w, y1), idle);
    for (const auto& b : lane.blocks) {
      const auto x = bar_span(l, b.start_ns, b.end_ns);
      if (!x) continue;
      // Blocks resident at the same time share the lane in sub-rows (slots).
      const float sub = (y1 - y0) / static_cast<float>(std::max(lane.slots, 1));
      const float by0 = y0 + sub * static_cast<float>(b.slot), by1 = by0 + sub;
      const float pad = sub >= 4 ? 0.5f : 0.0f;
      dl->AddRectFilled(ImVec2(x->first, by0 + pad), ImVec2(x->second, std::max(by1 - pad, by0 + 1)),
                        block_colour(t, b, colour));
      if (mouse && mouse->y >= by0 && mouse->y < by1 && mouse->x >= x->first && mouse->x <= x->second) {
        hover.valid = true;
        hover.lane = i;
        hover.block = b;
        hover.sm = lane.sm;
      }
    }
  }
  dl->AddRect(ImVec2(l.plot_x0, l.plot_y0), ImVec2(l.plot_x0 + l.plot_w, l.plot_y0 + l.plot_h), grid);
  if (hover.valid) {
    const auto x = bar_span(l, hover.block.start_ns, hover.block.end_ns);
    const auto [y0, y1] = lane_rows(l, hover.lane);
    if (x)
      dl->AddRect(ImVec2(x->first - 1, y0 - 1), ImVec2(x->second + 1, y1 + 1), IM_COL32(255, 255, 0, 255));
  }
  return hover;
}

bool export_timeline_png(const anatomy::Timeline& t, const std::string& title, const std::string& path,
                         std::string* error) {
  PngOptions opt;
  opt.width = 1600;
  opt.height = std::clamp(120 + 8 * static_cast<int>(t.lanes.size()), 500, 1600);
  const std::string header = title + "  |  waves predicted " + std::to_string(t.predicted_waves) +
                             ", observed " + std::to_string(t.observed_waves) + ", idle SMs " +
                             std::to_string(t.idle_sms) + "  (instrumented run: not a timing)";
  return render_png(
      [&](ImDrawList* dl, ImVec2 origin, ImVec2 size) {
        const float fs = ImGui::GetFontSize();
        dl->AddRectFilled(origin, ImVec2(origin.x + size.x, origin.y + size.y), IM_COL32(255, 255, 255, 255));
        dl->AddText(ImVec2(origin.x + fs, origin.y + fs * 0.5f), IM_COL32(20, 20, 20, 255), header.c_str());
        const ImVec2 chart(origin.x, origin.y + fs * 2.2f);
        draw_timeline_chart(dl, chart, ImVec2(size.x, size.y - fs * 2.2f), t, TimelineColour::Wave, 0,
                            static_cast<double>(std::max<int64_t>(t.span_ns, 1)), std::nullopt, true);
      },
      opt, path, error);
}

void draw_timeline_panel(const anatomy::Timeline& t, const std::string& title, TimelineViewState& s) {
  ImGui::TextUnformatted(title.c_str());
  ImGui::TextDisabled("instrumented run: not used for timing (its barriers and atomics change the kernel)");
  ImGui::Text("waves predicted: %s", waves_text(t.block_count, t.sm_count, t.blocks_per_sm).c_str());
  ImGui::Text(
      "waves observed:  %lld = max over SMs of ceil(blocks run on that SM / %d); blocks per SM %d..%d",
      static_cast<long long>(t.observed_waves), t.blocks_per_sm, t.min_blocks_on_sm, t.max_blocks_on_sm);
  if (t.observed_waves == t.predicted_waves)
    ImGui::TextColored(tone_colour(Tone::Pass), "the chart agrees with the occupancy arithmetic");
  else
    ImGui::TextColored(tone_colour(Tone::Warning),
                       "the chart differs from the arithmetic: the scheduler did not spread blocks evenly");
  // The tail: the last wave's blocks keep only some SMs busy.
  const int64_t per_wave = static_cast<int64_t>(t.sm_count) * t.blocks_per_sm;
  const int64_t tail = per_wave > 0 ? t.block_count % per_wave : 0;
  if (tail > 0)
    ImGui::Text("tail: the last wave has %lld of %lld slots filled (%.0f%%); idle SMs: %d of %d",
                static_cast<long long>(tail), static_cast<long long>(per_wave),
                100.0 * static_cast<double>(tail) / static_cast<double>(per_wave), t.idle_sms, t.sm_count);
  else
    ImGui::Text("no partial last wave; idle SMs: %d of %d", t.idle_sms, t.sm_count);
  ImGui::Text("span %s us, median block %s us, timer step about %lld ns",
              fmt_us(static_cast<double>(t.span_ns)).c_str(),
              fmt_us(static_cast<double>(t.median_block_ns)).c_str(),
              static_cast<long long>(t.timer_tick_ns));

  int c = static_cast<int>(s.colour);
  ImGui::RadioButton("colour by wave", &c, 0);
  same_line_if_fits(labelled_width(ImGui::GetFrameHeight(), "colour by blockIdx"));
  ImGui::RadioButton("colour by blockIdx", &c, 1);
  s.colour = static_cast<TimelineColour>(c);
  same_line_if_fits(button_width("reset zoom"));
  if (ImGui::Button("reset zoom")) s.t_lo_ns = s.t_hi_ns = 0;
  ImGui::SameLine();
  ImGui::TextDisabled("(wheel: zoom, drag: pan)");

  const double full = static_cast<double>(std::max<int64_t>(t.span_ns, 1));
  if (s.t_hi_ns <= s.t_lo_ns) s.t_lo_ns = 0, s.t_hi_ns = full;
  ImVec2 size = ImGui::GetContentRegionAvail();
  size.y = std::max(size.y - ImGui::GetTextLineHeightWithSpacing() * 1.2f, ImGui::GetFontSize() * 10);
  size.x = std::max(size.x, ImGui::GetFontSize() * 20);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("timeline_chart", size);
  const bool hovered = ImGui::IsItemHovered();
  const ImVec2 mp = ImGui::GetIO().MousePos;
  const TimelineLayout l = layout_timeline(origin, size, static_cast<int>(t.lanes.size()), s.t_lo_ns,
                                           s.t_hi_ns, ImGui::GetFontSize());
  if (hovered) {
    const double at = s.t_lo_ns + (mp.x - l.plot_x0) / l.plot_w * (s.t_hi_ns - s.t_lo_ns);
    const float wheel = ImGui::GetIO().MouseWheel;
    if (wheel != 0) {
      const double f = wheel > 0 ? 0.8 : 1.25;
      s.t_lo_ns = at - (at - s.t_lo_ns) * f;
      s.t_hi_ns = at + (s.t_hi_ns - at) * f;
    }
    if (ImGui::IsMouseDragging(ImGuiMouseButton_Left)) {
      const double d = -ImGui::GetIO().MouseDelta.x / l.plot_w * (s.t_hi_ns - s.t_lo_ns);
      s.t_lo_ns += d;
      s.t_hi_ns += d;
    }
    // Keep the window inside the recorded span and at least 10 ns wide.
    const double w = std::clamp(s.t_hi_ns - s.t_lo_ns, 10.0, full);
    s.t_lo_ns = std::clamp(s.t_lo_ns, 0.0, full - w);
    s.t_hi_ns = s.t_lo_ns + w;
  }
  const TimelineHover h =
      draw_timeline_chart(ImGui::GetWindowDrawList(), origin, size, t, s.colour, s.t_lo_ns, s.t_hi_ns,
                          hovered ? std::optional<ImVec2>(mp) : std::nullopt);
  if (h.valid)
    ImGui::SetTooltip("block (%u, %u) on SM %u\nstart %s us, end %s us (%s us)\nwave %d on this SM",
                      h.block.block_x, h.block.block_y, h.sm,
                      fmt_us(static_cast<double>(h.block.start_ns)).c_str(),
                      fmt_us(static_cast<double>(h.block.end_ns)).c_str(),
                      fmt_us(static_cast<double>(h.block.end_ns - h.block.start_ns)).c_str(), h.block.wave);
}

std::vector<std::string> occupancy_arch_choices(const std::string& gpu_name) {
  std::vector<std::string> c;
  if (!gpu_name.empty()) c.push_back("this GPU (" + gpu_name + ")");
  for (const anatomy::ArchSpec& a : anatomy::arch_table())
    c.push_back(a.name + " (" + a.family + ")");
  return c;
}

std::optional<anatomy::ArchSpec> occupancy_arch(int choice, bool has_gpu_entry) {
  const int i = choice - (has_gpu_entry ? 1 : 0);
  const auto& table = anatomy::arch_table();
  if (i < 0 || i >= static_cast<int>(table.size())) return std::nullopt;
  return table[static_cast<size_t>(i)];
}

void compute_occupancy_model(OccupancyPanelModel& o, const anatomy::ArchSpec& arch) {
  o.arch_name = arch.name;
  o.max_warps_per_sm = arch.max_warps_per_sm;
  anatomy::KernelUsage u;
  u.threads_per_block = std::clamp(o.threads, 1, arch.max_threads_per_block);
  u.regs_per_thread = std::clamp(o.regs_per_thread, 0, arch.max_regs_per_thread);
  u.static_smem = std::min<int64_t>(o.static_smem, arch.smem_per_block_default);
  u.dynamic_smem =
      std::max<int64_t>(o.dynamic_smem, 0);  // the launch's third parameter (0 unless the lab sets it)
  o.curve_threads.clear();
  o.curve_occupancy.clear();
  try {
    o.model = anatomy::compute_occupancy(arch, u);
    o.limiter = anatomy::limiter_label(o.model.limiter);
    for (const auto& p : anatomy::occupancy_curve(arch, u)) {
      o.curve_threads.push_back(p.threads);
      o.curve_occupancy.push_back(100.0 * p.occ.occupancy);
    }
  } catch (const InvalidRequest& e) {
    o.model = {};
    o.model.reason = e.what();
  }
}

void draw_occupancy_panel(OccupancyPanelModel& m, OccupancyPanelActions& a) {
  ImGui::Text("kernel: %s", m.kernel.c_str());
  if (!m.arch_choices.empty()) {
    const int n = static_cast<int>(m.arch_choices.size());
    m.arch_choice = std::clamp(m.arch_choice, 0, n - 1);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
    if (ImGui::BeginCombo("architecture", m.arch_choices[static_cast<size_t>(m.arch_choice)].c_str())) {
      for (int i = 0; i < n; ++i)
        if (ImGui::Selectable(m.arch_choices[static_cast<size_t>(i)].c_str(), i == m.arch_choice) &&
            i != m.arch_choice) {
          m.arch_choice = i;
          a.arch_changed = true;
        }
      ImGui::EndCombo();
    }
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("The occupancy model for another architecture's limits (a model, not a measurement)");
  }
  ImGui::TextDisabled("%s", m.source.c_str());
  if (m.measured_regs) {
    ImGui::Text("registers/thread: %d (cudaFuncGetAttributes)", m.regs_per_thread);
  } else {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
    if (ImGui::SliderInt("registers/thread (assumed: no GPU to ask)", &m.regs_per_thread, 16, 255))
      a.regs_changed = true;
  }
  ImGui::Text("shared memory/block: %lld B static, %lld B dynamic", static_cast<long long>(m.static_smem),
              static_cast<long long>(m.dynamic_smem));
  ImGui::Text("block: %d threads = %d warps", m.threads, m.model.warps_per_block);
  const anatomy::Occupancy& o = m.model;
  if (o.blocks_per_sm == 0) {
    error_text("no block fits on an SM: " + o.reason);
  } else {
    ImGui::Text("resident per SM: %d blocks = %d warps of %d (model, %s)", o.blocks_per_sm, o.warps_per_sm,
                m.max_warps_per_sm, m.arch_name.c_str());
    ImGui::Text("theoretical occupancy: %.1f%%, limited by %s", 100.0 * o.occupancy, m.limiter.c_str());
  }
  ImGui::Text("per-resource limit (blocks/SM): warps %s, registers %s, shared memory %s, blocks %s",
              o.limit_warps >= anatomy::k_no_limit ? "-" : std::to_string(o.limit_warps).c_str(),
              o.limit_regs >= anatomy::k_no_limit ? "-" : std::to_string(o.limit_regs).c_str(),
              o.limit_smem >= anatomy::k_no_limit ? "-" : std::to_string(o.limit_smem).c_str(),
              std::to_string(o.limit_blocks).c_str());
  if (m.runtime_blocks_per_sm) {
    const bool same = *m.runtime_blocks_per_sm == o.blocks_per_sm;
    ImGui::TextColored(same ? tone_colour(Tone::Pass) : tone_colour(Tone::Error),
                       "cudaOccupancyMaxActiveBlocksPerMultiprocessor: %d blocks/SM (%s)",
                       *m.runtime_blocks_per_sm, same ? "the model agrees" : "THE MODEL DIFFERS");
  } else {
    advice_text("model, not a measurement: no GPU to ask cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  }
  for (const auto& n : o.notes)
    ImGui::TextDisabled("- %s", n.c_str());

  section_title("Occupancy vs block size (threads 32..1024)");
  const float w = ImGui::GetContentRegionAvail().x;
  const float h = std::max(ImGui::GetFontSize() * 9, 120.0f);
  std::vector<PlotSeries> occ;
  occ.push_back(
      {"model occupancy (%)", m.curve_threads, m.curve_occupancy, IM_COL32(90, 170, 255, 255), {}, {}});
  if (!m.runtime_threads.empty())
    occ.push_back(
        {"CUDA API (%)", m.runtime_threads, m.runtime_occupancy, IM_COL32(120, 220, 120, 255), {}, {}});
  PlotAxes ax;
  ax.x_label = "threads per block";
  ax.y_label = "occupancy %";
  plot_lines("occ_curve", ImVec2(w, h), ax, occ);

  if (m.sweep_running) {
    ImGui::ProgressBar(static_cast<float>(m.sweep_progress), ImVec2(w * 0.6f, 0));
    same_line_if_fits(button_width("Cancel##sweep"));
    if (ImGui::Button("Cancel##sweep")) a.cancel_sweep = true;
  } else if (m.can_sweep) {
    if (ImGui::Button("Measure kernel time vs block size")) a.run_sweep = true;
  } else {
    ImGui::BeginDisabled();
    ImGui::Button("Measure kernel time vs block size");
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::TextDisabled("%s", m.sweep_unavailable.c_str());
  }
  if (!m.sweep_status.empty()) ImGui::TextDisabled("%s", m.sweep_status.c_str());
  if (!m.measured_ms.empty()) {
    std::vector<PlotSeries> ms;
    ms.push_back({m.measured_label, m.measured_threads, m.measured_ms, IM_COL32(255, 170, 60, 255), {}, {}});
    PlotAxes mx;
    mx.x_label = "threads per block";
    mx.y_label = "ms (median)";
    plot_lines("occ_measured", ImVec2(w, h), mx, ms);
    // The point of the plot: where is it fastest, and how occupied was that?
    size_t best = 0;
    for (size_t i = 1; i < m.measured_ms.size(); ++i)
      if (m.measured_ms[i] < m.measured_ms[best]) best = i;
    double occ_best = 0, occ_max = 0;
    for (size_t i = 0; i < m.curve_threads.size(); ++i) {
      occ_max = std::max(occ_max, m.curve_occupancy[i]);
      if (m.curve_threads[i] == m.measured_threads[best]) occ_best = m.curve_occupancy[i];
    }
    ImGui::TextWrapped(
        "fastest: %.0f threads (%.4f ms) at %.0f%% theoretical occupancy; the highest occupancy on "
        "the curve is %.0f%%. Higher occupancy is not always faster.",
        m.measured_threads[best], m.measured_ms[best], occ_best, occ_max);
  }
}

}  // namespace bs::ui
