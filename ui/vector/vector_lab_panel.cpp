// vector_lab_panel.cpp: see vector_lab_panel.h.
#include "ui/vector/vector_lab_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

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

std::vector<TimelineRect> timeline_rects(const vector::Timeline& t, float width, float row_h, float gap,
                                         double span_ms) {
  std::vector<TimelineRect> out;
  const double span = span_ms > 0 ? span_ms : t.total_ms;
  if (!(span > 0) || width <= 0) return out;
  const double px_per_ms = width / span;
  for (const vector::TimelineOp& op : t.ops) {
    TimelineRect r;
    r.x0 = static_cast<float>(std::clamp(op.start_ms, 0.0, span) * px_per_ms);
    r.x1 = static_cast<float>(std::clamp(op.end_ms, 0.0, span) * px_per_ms);
    if (r.x1 - r.x0 < 1.0f) r.x1 = std::min(r.x0 + 1.0f, width), r.x0 = r.x1 - 1.0f;
    r.y0 = static_cast<float>(op.stream) * (row_h + gap);
    r.y1 = r.y0 + row_h;
    r.kind = op.kind;
    r.stream = op.stream;
    r.chunk = op.chunk;
    out.push_back(r);
  }
  return out;
}

std::optional<CrossoverMarker> crossover_marker(const vector::Crossover& c, double y_lo, double y_hi) {
  using K = vector::Crossover::Kind;
  if (c.kind == K::None || !(c.n > 0)) return std::nullopt;
  CrossoverMarker m;
  m.x = {c.n, c.n};
  m.y = {y_lo, y_hi};
  // An exact power-of-two multiple reads "3M"; anything else in the units the crossover text uses ("197.0K",
  // "1.25M"), never a raw count the reader must split into digits.
  const int64_t whole = std::llround(c.n);
  std::string n = vector::format_count(whole);
  if (c.kind == K::InRange && whole >= 1024 && std::isdigit(static_cast<unsigned char>(n.back()))) {
    char buf[32];
    if (c.n >= double(1 << 20))
      std::snprintf(buf, sizeof buf, "%.2fM", c.n / double(1 << 20));
    else
      std::snprintf(buf, sizeof buf, "%.1fK", c.n / 1024.0);
    n = buf;
  }
  m.label = (c.kind == K::InRange ? "from ~" : "already at ") + n;
  return m;
}

StripGeometry strip_geometry(int64_t count, float width, float max_h, float min_cell, float max_cell) {
  StripGeometry g;
  if (count <= 0 || width <= 0) return g;
  // Rows hold a power of two of cells, so that power-of-two blocks and grid-stride passes line up in columns.
  // The largest cell height (whole pixels) for which all rows fit into max_h; never below min_cell.
  auto per_row_for = [&](float cell) {
    int64_t per_row = 1;
    while (static_cast<float>(per_row * 2) * cell <= width)
      per_row *= 2;
    return per_row;
  };
  float cell = std::floor(max_cell);
  for (; cell > min_cell; cell -= 1.0f) {
    const int64_t rows = (count + per_row_for(cell) - 1) / per_row_for(cell);
    if (static_cast<float>(rows) * cell <= max_h) break;
  }
  cell = std::max(cell, min_cell);
  g.cell = cell;
  g.per_row = per_row_for(cell);
  g.cell_w = std::max(1.0f, std::floor(width / static_cast<float>(g.per_row)));
  g.rows = (count + g.per_row - 1) / g.per_row;
  return g;
}

int64_t strip_group(const vector::Touch& t, vector::Indexing ix, bool grid_stride_by_block) {
  if (ix == vector::Indexing::GridStride && !grid_stride_by_block) return t.pass;
  return t.block;
}

uint32_t strip_colour(int64_t group) {
  // Twelve colours that stay apart on a projector; neighbours (block b and b+1) differ strongly in hue.
  static constexpr uint32_t k_palette[k_strip_palette_size] = {
      IM_COL32(230, 85, 75, 255),   IM_COL32(70, 150, 230, 255),  IM_COL32(245, 190, 60, 255),
      IM_COL32(95, 190, 110, 255),  IM_COL32(175, 110, 220, 255), IM_COL32(240, 140, 60, 255),
      IM_COL32(60, 195, 200, 255),  IM_COL32(230, 120, 180, 255), IM_COL32(160, 200, 70, 255),
      IM_COL32(120, 130, 240, 255), IM_COL32(200, 160, 110, 255), IM_COL32(150, 150, 160, 255)};
  const int64_t i = ((group % k_strip_palette_size) + k_strip_palette_size) % k_strip_palette_size;
  return k_palette[i];
}

// --- Drawing
// ------------------------------------------------------------------------------------------------

namespace {

constexpr ImU32 k_kind_colour[3] = {IM_COL32(80, 150, 255, 255), IM_COL32(90, 200, 110, 255),
                                    IM_COL32(250, 160, 60, 255)};
ImU32 kind_colour(vector::OpKind k) {
  return k_kind_colour[static_cast<int>(k)];
}

void swatch(ImU32 c, const char* label) {
  const float s = ImGui::GetTextLineHeight();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::GetWindowDrawList()->AddRectFilled(p, ImVec2(p.x + s, p.y + s), c);
  ImGui::Dummy(ImVec2(s, s));
  ImGui::SameLine();
  ImGui::TextUnformatted(label);
}
std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
std::string fmt_ms(double ms) {
  if (ms < 0.1) return fmt("%.1f us", ms * 1000.0);
  if (ms < 10) return fmt("%.3f ms", ms);
  return fmt("%.1f ms", ms);
}
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
    if (m.user_ready && !m.user_figures.empty())
      wrapped_text(m.user_figures, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    if (m.user_can_simulate) {
      ImGui::BeginDisabled(m.user_sim.running);
      if (ImGui::Button("Simulate your vector_op")) a.simulate_user = true;
      ImGui::EndDisabled();
      if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("runs it thread by thread in the PTX simulator on this CPU (no GPU, never timed),\n"
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
      dl->AddRectFilled(q0, q1, k_kind_colour[s.part]);
      dl->AddRect(q0, q1, IM_COL32(20, 20, 25, 255));
      std::string text = std::string(names[s.part]) + " " + fmt_ms(parts[s.part]);
      if (ImGui::CalcTextSize(text.c_str()).x + 4 > s.x1 - s.x0) text = fmt_ms(parts[s.part]);
      label_in(dl, q0.x, q1.x, p0.y + 0.2f * ImGui::GetTextLineHeight(), text, IM_COL32(15, 15, 20, 255));
      if (ImGui::IsMouseHoveringRect(q0, q1))
        ImGui::SetTooltip("%s: %s (median)", names[s.part], fmt_ms(parts[s.part]).c_str());
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
                  fmt_ms(r.total.median).c_str(), fmt_ms(r.total.p10).c_str(), fmt_ms(r.total.p90).c_str(),
                  r.h2d_gbs, r.d2h_gbs, r.kernel_gbs, r.check.c_str());
    wrapped_text(line, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    if (!r.check_passed) error_text("result check FAILED: " + r.check);
    if (!r.resources.empty())
      wrapped_text("resources: " + r.resources, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    if (!r.note.empty()) ImGui::TextDisabled("%s", r.note.c_str());
    if (r.launch_us > 0 && r.kernel_ms * 1000.0 < 3.0 * r.launch_us)
      advice_text(
          fmt("kernel %.1f us is mostly launch overhead: an empty kernel takes ", r.kernel_ms * 1000.0) +
          fmt("%.1f us between events, ", r.launch_us) +
          fmt("%.1f us launch + synchronize", r.round_trip_us));
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
    ImGui::ProgressBar(static_cast<float>(gbs / scale), ImVec2(-1, 0), fmt("%.1f GB/s", gbs).c_str());
    ImGui::PopStyleColor();
  };
  ImGui::TextDisabled("%s per copy", vector::format_count(r.bytes).c_str());
  row("pinned H2D", r.pinned_h2d_gbs, k_kind_colour[0]);
  row("pageable H2D", r.pageable_h2d_gbs, IM_COL32(60, 100, 170, 255));
  row("pinned D2H", r.pinned_d2h_gbs, k_kind_colour[2]);
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
    ImGui::Text("%s: %s", c.label.c_str(), fmt_ms(c.ms->median).c_str());
    ImGui::Indent();
    ImGui::TextDisabled("p10 %s, p90 %s, %.1f GB/s, N = %s", fmt_ms(c.ms->p10).c_str(),
                        fmt_ms(c.ms->p90).c_str(), gbs, vector::format_count(c.n).c_str());
    ImGui::Unindent();
  }
  if (!m.runs.empty() && m.cpu[1].ms && m.runs.back().n == m.cpu[1].n) {
    const GpuRunView& g = m.runs.back();
    wrapped_text("GPU at the same N: kernel " + fmt_ms(g.kernel_ms) + ", with copies " +
                     fmt_ms(g.total.median) + " (" +
                     (g.total.median < m.cpu[1].ms->median ? "faster" : "slower") + " than all CPU threads)",
                 ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  }
}

// --- Views
// --------------------------------------------------------------------------------------------------

void draw_strip(const char* title, const VectorPanelModel& m, vector::Indexing ix, int64_t stride_grid,
                float max_h, bool selected) {
  vector::Params p = m.params;
  p.indexing = ix;
  const int64_t count = std::min<int64_t>(m.strip_count, p.n);
  const vector::LaunchShape shape = vector::make_shape(p.n, ix, p.width, p.block, stride_grid);
  if (ix == vector::Indexing::OnePerElement)
    ImGui::Text("%s%s: %lld blocks of %d threads, one element%s each", title, selected ? " (selected)" : "",
                static_cast<long long>(shape.grid), p.block,
                p.width == vector::LoadWidth::Float4 ? " group of 4" : "");
  else
    ImGui::Text("%s%s: %lld blocks x %d threads walk the array %lld items at a time, %lld pass%s", title,
                selected ? " (selected)" : "", static_cast<long long>(shape.grid), p.block,
                static_cast<long long>(shape.threads()), static_cast<long long>(shape.passes),
                shape.passes == 1 ? "" : "es");
  const float width = ImGui::GetContentRegionAvail().x;
  const StripGeometry g = strip_geometry(count, width, max_h, 2.0f, 24.0f);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float gap = g.cell >= 6 ? 1.0f : 0.0f;
  const bool by_block = m.grid_stride_by_block;
  int prev_chunk = 0;
  std::optional<int64_t> hovered;
  for (int64_t i = 0; i < count; ++i) {
    const vector::Touch t = vector::touched_by(i, p, stride_grid);
    const float x = p0.x + static_cast<float>(i % g.per_row) * g.cell_w;
    const float y = p0.y + static_cast<float>(i / g.per_row) * g.cell;
    dl->AddRectFilled(ImVec2(x, y), ImVec2(x + g.cell_w - gap, y + g.cell - gap),
                      strip_colour(strip_group(t, ix, by_block)));
    if (t.chunk != prev_chunk)  // a new chunk (stream): its own launch, block numbers restart
      dl->AddLine(ImVec2(x - 0.5f, y - 1), ImVec2(x - 0.5f, y + g.cell + 1), IM_COL32(255, 255, 255, 255),
                  2.0f);
    prev_chunk = t.chunk;
    if (ImGui::IsMouseHoveringRect(ImVec2(x, y), ImVec2(x + g.cell_w, y + g.cell))) hovered = i;
  }
  ImGui::Dummy(ImVec2(width, static_cast<float>(g.rows) * g.cell));
  if (hovered) {
    const vector::Touch t = vector::touched_by(*hovered, p, stride_grid);
    ImGui::SetTooltip(
        "element %lld: chunk %d (stream %d), block %lld, thread %lld, pass %lld%s%s",
        static_cast<long long>(*hovered), t.chunk, t.stream, static_cast<long long>(t.block),
        static_cast<long long>(t.thread), static_cast<long long>(t.pass),
        p.width == vector::LoadWidth::Float4 ? (", lane " + std::to_string(t.lane)).c_str() : "",
        t.tail ? " (tail: element by element)" : "");
  }
}

void strip_view(VectorPanelModel& m) {
  const WrapAtEdge wrap;
  const vector::Params& p = m.params;
  const int64_t stride_grid =
      m.strip_grid_like_gpu && m.gpu_stride_grid > 0 ? m.gpu_stride_grid : m.strip_grid;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9);
  ImGui::SliderInt("elements shown", &m.strip_count, 64, 8192, "%d", ImGuiSliderFlags_Logarithmic);
  same_line_if_fits(labelled_width(ImGui::GetFontSize() * 6, "grid-stride blocks"));
  ImGui::BeginDisabled(m.strip_grid_like_gpu && m.gpu_stride_grid > 0);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
  ImGui::SliderInt("grid-stride blocks", &m.strip_grid, 1, 16);
  ImGui::EndDisabled();
  const float box = ImGui::GetFrameHeight();
  if (m.gpu_stride_grid > 0) {
    same_line_if_fits(labelled_width(box, "as on this GPU"));
    ImGui::Checkbox("as on this GPU", &m.strip_grid_like_gpu);
  }
  same_line_if_fits(labelled_width(box, "colour grid-stride by block"));
  ImGui::Checkbox("colour grid-stride by block", &m.grid_stride_by_block);
  if (!(m.strip_grid_like_gpu && m.gpu_stride_grid > 0))
    ImGui::TextDisabled(
        "The strip uses a %d-block grid for grid-stride so its passes fit on screen; the GPU run "
        "uses %s.",
        m.strip_grid,
        m.gpu_stride_grid > 0 ? (std::to_string(m.gpu_stride_grid) + " blocks").c_str()
                              : "SMs x resident blocks x waves");

  const float h = std::max(
      40.0f, (ImGui::GetContentRegionAvail().y - 3.5f * ImGui::GetTextLineHeightWithSpacing()) * 0.5f);
  const bool gs = p.indexing == vector::Indexing::GridStride;
  draw_strip("one thread per element", m, vector::Indexing::OnePerElement, stride_grid, h, !gs);
  draw_strip("grid-stride loop", m, vector::Indexing::GridStride, stride_grid, h, gs);

  // Legend: which colour is which block / pass (the palette repeats).
  const vector::LaunchShape one = vector::make_shape(
      std::min<int64_t>(m.strip_count, p.n), vector::Indexing::OnePerElement, p.width, p.block, stride_grid);
  const int64_t groups = std::min<int64_t>(std::max<int64_t>(one.grid, 1), k_strip_palette_size);
  for (int64_t gi = 0; gi < groups; ++gi) {
    char label[32];
    std::snprintf(label, sizeof label, "%lld", static_cast<long long>(gi));
    if (gi > 0) same_line_if_fits(labelled_width(ImGui::GetTextLineHeight(), label));
    swatch(strip_colour(gi), label);
  }
  ImGui::SameLine();
  ImGui::TextDisabled(
      "= block number (top%s), pass number (bottom%s); colours repeat every %d; white line: next "
      "chunk/stream",
      m.grid_stride_by_block ? ", bottom" : "", m.grid_stride_by_block ? ": by block" : "",
      k_strip_palette_size);
}

void timeline_view(const VectorPanelModel& m) {
  const WrapAtEdge wrap;
  if (!m.gpu) {
    advice_text("Stream timeline: GPU rows need a CUDA device (" + m.gpu_missing + ").");
    return;
  }
  if (m.runs.empty()) {
    ImGui::TextDisabled("Stream timeline: press 'Run on GPU' (try pinned memory and K = 4 streams).");
    return;
  }
  const GpuRunView& r = m.runs.back();
  const vector::Timeline& t = r.timeline;
  ImGui::Text("Stream timeline of the median run: %s", r.variant.c_str());
  const float label_w = ImGui::CalcTextSize("stream 00 ").x;
  const float width = ImGui::GetContentRegionAvail().x - label_w - 8;
  const float row_h = std::clamp(ImGui::GetContentRegionAvail().y * 0.5f / std::max(1, t.streams) - 3.0f,
                                 5.0f, ImGui::GetTextLineHeight() * 1.3f);
  const float gap = 3.0f;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float x0 = p0.x + label_w;
  for (int s = 0; s < t.streams; ++s) {
    const float y = p0.y + static_cast<float>(s) * (row_h + gap);
    dl->AddRectFilled(ImVec2(x0, y), ImVec2(x0 + width, y + row_h), IM_COL32(40, 40, 48, 255));
    if (row_h >= ImGui::GetTextLineHeight() * 0.8f)
      dl->AddText(ImVec2(p0.x, y), IM_COL32(200, 200, 200, 255), ("stream " + std::to_string(s)).c_str());
  }
  std::optional<size_t> hovered;
  const std::vector<TimelineRect> rects = timeline_rects(t, width, row_h, gap);
  for (size_t i = 0; i < rects.size(); ++i) {
    const TimelineRect& q = rects[i];
    const ImVec2 a(x0 + q.x0, p0.y + q.y0), b(x0 + q.x1, p0.y + q.y1);
    dl->AddRectFilled(a, b, kind_colour(q.kind));
    if (b.x - a.x > 3) dl->AddRect(a, b, IM_COL32(20, 20, 25, 255));
    if (ImGui::IsMouseHoveringRect(a, b)) hovered = i;
  }
  const float rows_h = static_cast<float>(t.streams) * (row_h + gap);
  // x axis: ms from the first event.
  const float ay = p0.y + rows_h + 2;
  dl->AddLine(ImVec2(x0, ay), ImVec2(x0 + width, ay), IM_COL32(150, 150, 150, 255));
  for (double v : nice_ticks(0, t.total_ms, 6, false)) {
    const float x = x0 + static_cast<float>(v / t.total_ms) * width;
    if (x > x0 + width + 0.5f) continue;
    dl->AddLine(ImVec2(x, ay), ImVec2(x, ay + 4), IM_COL32(150, 150, 150, 255));
    const std::string s = format_tick(v);
    dl->AddText(ImVec2(x - ImGui::CalcTextSize(s.c_str()).x * 0.5f, ay + 4), IM_COL32(180, 180, 180, 255),
                s.c_str());
  }
  ImGui::Dummy(ImVec2(label_w + width, rows_h + ImGui::GetTextLineHeight() + 8));
  if (hovered) {
    const vector::TimelineOp& op = t.ops[*hovered];
    ImGui::SetTooltip("%s, chunk %d on stream %d: %.3f .. %.3f ms (%s)", vector::to_string(op.kind), op.chunk,
                      op.stream, op.start_ms, op.end_ms, fmt_ms(op.ms()).c_str());
  }
  swatch(kind_colour(vector::OpKind::H2D), "H2D copy");
  ImGui::SameLine();
  swatch(kind_colour(vector::OpKind::Kernel), "kernel");
  ImGui::SameLine();
  swatch(kind_colour(vector::OpKind::D2H), "D2H copy");
  ImGui::SameLine();
  ImGui::TextDisabled("x: ms from the first event");
  ImGui::Text("total %s vs serial sum %s: %s saved; %.0f%% of kernel time hidden behind copies",
              fmt_ms(t.total_ms).c_str(), fmt_ms(t.serial_sum_ms).c_str(), fmt_ms(t.saved_ms()).c_str(),
              100.0 * t.kernel_hidden_fraction);
  if (t.streams > 1 && !r.pinned)
    advice_text("pageable memory: copies cannot run asynchronously, so streams barely overlap; try pinned");
}

void sweep_view(VectorPanelModel& m, VectorPanelActions& a) {
  const WrapAtEdge wrap;
  ImGui::TextUnformatted("Size sweep");
  same_line_if_fits(labelled_width(ImGui::GetFontSize() * 5, "largest N"));
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5);
  ImGui::InputText("largest N", m.sweep_max_text, sizeof m.sweep_max_text);
  same_line_if_fits(button_width(m.sweep_running ? "cancel" : "Run sweep"));
  if (m.sweep_running) {
    if (ImGui::SmallButton("cancel##sweep")) a.cancel_sweep = true;
    ImGui::SameLine();
    ImGui::ProgressBar(static_cast<float>(m.sweep_progress), ImVec2(-1, 0), "sweeping...");
  } else {
    ImGui::BeginDisabled(m.gpu_running || m.cpu_running);
    if (ImGui::Button("Run sweep")) a.run_sweep = true;
    ImGui::EndDisabled();
    if (m.gpu_running || m.cpu_running) {
      ImGui::SameLine();
      ImGui::TextDisabled("(after the running measurement)");
    }
  }
  error_text(m.sweep_status);
  if (!m.sweep) {
    ImGui::TextDisabled(
        "1K .. largest N in powers of two: GPU kernel only, GPU with copies, CPU 1 thread, all threads");
    return;
  }
  const vector::SweepResult& s = *m.sweep;
  std::vector<double> x, gk, gt, c1, ca;
  for (const vector::SweepPoint& pt : s.points) {
    x.push_back(static_cast<double>(pt.n));
    gk.push_back(pt.gpu_kernel_ms);
    gt.push_back(pt.gpu_total_ms);
    c1.push_back(pt.cpu1_ms);
    ca.push_back(pt.cpu_all_ms);
  }
  double y_lo = 0, y_hi = 0;
  for (const auto* v : {&gk, &gt, &c1, &ca})
    for (double y : *v)
      if (y > 0) y_lo = y_lo > 0 ? std::min(y_lo, y) : y, y_hi = std::max(y_hi, y);
  std::vector<PlotSeries> series;
  if (s.gpu_ran) {
    series.push_back({"GPU kernel only", x, gk, IM_COL32(90, 200, 110, 255), {}, {}});
    series.push_back({"GPU incl. copies", x, gt, IM_COL32(80, 150, 255, 255), {}, {}});
  }
  if (s.options.cpu) {
    series.push_back({"CPU, 1 thread", x, c1, IM_COL32(250, 160, 60, 255), {}, {}});
    series.push_back({s.cpu_all_label, x, ca, IM_COL32(230, 85, 75, 255), {}, {}});
  }
  // The crossovers as vertical lines: where the GPU (copies included) starts to beat each CPU baseline.
  const std::optional<CrossoverMarker> mk_all = crossover_marker(s.total_vs_cpu_all, y_lo, y_hi);
  const std::optional<CrossoverMarker> mk_one = crossover_marker(s.total_vs_cpu1, y_lo, y_hi);
  if (mk_all)
    series.push_back({"GPU+copies beats all CPU threads " + mk_all->label,
                      mk_all->x,
                      mk_all->y,
                      IM_COL32(255, 255, 255, 255),
                      {},
                      {}});
  if (mk_one)
    series.push_back({"GPU+copies beats 1 CPU thread " + mk_one->label,
                      mk_one->x,
                      mk_one->y,
                      IM_COL32(150, 150, 160, 255),
                      {},
                      {}});
  PlotAxes axes;
  axes.x_label = "N elements";
  axes.y_label = "ms per run";
  axes.log_x = axes.log_y = true;
  const float plot_h =
      std::max(120.0f, ImGui::GetContentRegionAvail().y - 3 * ImGui::GetTextLineHeightWithSpacing());
  plot_lines("##sweep", ImVec2(0, plot_h), axes, series);
  if (s.gpu_ran) {
    wrapped_text("GPU with copies vs all CPU threads: " + s.total_vs_cpu_all.text() +
                     ";  vs 1 CPU thread: " + s.total_vs_cpu1.text(),
                 ImGui::GetStyleColorVec4(ImGuiCol_Text));
    wrapped_text(
        "GPU kernel alone vs all CPU threads: " + s.kernel_vs_cpu_all.text() + " (" + s.gpu_name + ")",
        ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  } else {
    advice_text("CPU rows only: the GPU rows and the crossover need a CUDA device (" +
                (s.gpu_skipped_reason.empty() ? m.gpu_missing : s.gpu_skipped_reason) + ")");
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

void draw_vector_views(VectorPanelModel& m, VectorPanelActions& a) {
  // The path overlay (device_panel.cpp) sits at a fixed spot in the top-left corner: start below it.
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float overlay_bottom = vp->Pos.y + 2 * ImGui::GetFrameHeight() + 8 +
                               2 * ImGui::GetStyle().WindowPadding.y +
                               2 * ImGui::GetTextLineHeightWithSpacing();
  const float y = ImGui::GetCursorScreenPos().y;
  if (ImGui::GetWindowPos().x < vp->Pos.x + 16 && y < overlay_bottom)
    ImGui::Dummy(ImVec2(1, overlay_bottom - y));
  const float total_h = ImGui::GetContentRegionAvail().y;
  if (ImGui::BeginChild("##strip", ImVec2(0, total_h * (m.gpu ? 0.36f : 0.38f)), false)) strip_view(m);
  ImGui::EndChild();
  ImGui::Separator();
  // Without GPU rows the timeline is one line of text: give its space to the sweep.
  const float timeline_h = m.gpu ? total_h * 0.24f : ImGui::GetTextLineHeightWithSpacing() * 2.4f;
  if (ImGui::BeginChild("##timeline", ImVec2(0, timeline_h), false)) timeline_view(m);
  ImGui::EndChild();
  ImGui::Separator();
  if (ImGui::BeginChild("##sweep", ImVec2(0, 0), false)) sweep_view(m, a);
  ImGui::EndChild();
}

}  // namespace bs::ui
