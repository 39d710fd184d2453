// vector_views.cpp: see vector_lab_panel.h. The pictures beside the controls: which block or pass touches
// each element (the index strip), the streams' timeline of copies and kernels, and the size sweep.
#include "ui/vector/vector_lab_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "core/readout.h"
#include "ui/plot.h"
#include "ui/plot_export.h"
#include "ui/widgets.h"

namespace bs::ui {

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

uint32_t kind_colour(vector::OpKind k) {
  constexpr uint32_t k_kind_colour[3] = {IM_COL32(80, 150, 255, 255), IM_COL32(90, 200, 110, 255),
                                         IM_COL32(250, 160, 60, 255)};
  return k_kind_colour[static_cast<int>(k)];
}

namespace {

void swatch(ImU32 c, const char* label) {
  const float s = ImGui::GetTextLineHeight();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::GetWindowDrawList()->AddRectFilled(p, ImVec2(p.x + s, p.y + s), c);
  ImGui::Dummy(ImVec2(s, s));
  ImGui::SameLine();
  ImGui::TextUnformatted(label);
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
                      op.stream, op.start_ms, op.end_ms, format_ms(op.ms()).c_str());
  }
  swatch(kind_colour(vector::OpKind::H2D), "H2D copy");
  ImGui::SameLine();
  swatch(kind_colour(vector::OpKind::Kernel), "kernel");
  ImGui::SameLine();
  swatch(kind_colour(vector::OpKind::D2H), "D2H copy");
  ImGui::SameLine();
  ImGui::TextDisabled("x: ms from the first event");
  ImGui::Text("total %s vs serial sum %s: %s saved; %.0f%% of kernel time hidden behind copies",
              format_ms(t.total_ms).c_str(), format_ms(t.serial_sum_ms).c_str(),
              format_ms(t.saved_ms()).c_str(), 100.0 * t.kernel_hidden_fraction);
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
    dim_text("GPU kernel alone vs all CPU threads: " + s.kernel_vs_cpu_all.text() + " (" + s.gpu_name + ")");
  } else {
    advice_text("CPU rows only: the GPU rows and the crossover need a CUDA device (" +
                (s.gpu_skipped_reason.empty() ? m.gpu_missing : s.gpu_skipped_reason) + ")");
  }
}

}  // namespace

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
