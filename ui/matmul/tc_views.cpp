// tc_views.cpp: the tensor-core section of the matmul lab's panel and its two pictures (tc_views.h).
#include "ui/matmul/tc_views.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "gpu/matmul/tc_geometry.h"
#include "gpu/matmul/tc_layout.h"
#include "ui/widgets.h"

namespace bs::ui {

namespace {

namespace tc = matmul::tc;

// 32 lanes, 8 hues x 4 lightnesses: lanes 4g..4g+3 (one row group of the fragment) share a hue.
ImU32 lane_colour(int lane, int alpha = 255) {
  const float h = static_cast<float>(lane / 4) / 8.0f, v = 0.95f - 0.15f * static_cast<float>(lane % 4);
  float r, g, b;
  ImGui::ColorConvertHSVtoRGB(h, 0.55f, v, r, g, b);
  return IM_COL32(static_cast<int>(r * 255), static_cast<int>(g * 255), static_cast<int>(b * 255), alpha);
}

// A stage's colour: hues from yellow to violet, never the red of a bubble.
ImU32 stage_colour(int stage) {
  float r, g, b;
  ImGui::ColorConvertHSVtoRGB(0.12f + 0.7f * static_cast<float>(stage % 8) / 8.0f, 0.5f, 0.95f, r, g, b);
  return IM_COL32(static_cast<int>(r * 255), static_cast<int>(g * 255), static_cast<int>(b * 255), 255);
}

float width_or_avail(float width) {
  return width > 0 ? width : std::max(ImGui::GetContentRegionAvail().x, 120.0f);
}

// One wrapped line per precision (a table's columns do not shrink below their text in presenter mode).
void model_lines(const TcPanelModel& m) {
  if (m.precision_rows.empty()) return;
  dim_text("CPU model at " + m.model_problem + ", against float64:");
  for (const auto& r : m.precision_rows) {
    char line[256];
    std::snprintf(line, sizeof line, "%s: rel error %.2e %s bound %.2e; worst %s", r.precision.c_str(), r.rel_error,
                  r.within ? "<=" : "over", r.bound, r.worst.c_str());
    wrapped_text(line, tone_colour(r.within ? Tone::Pass : Tone::Error));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.title.c_str());
  }
}

// "mma_bf16_pipe (bf16): 1.234 ms, 612.3 TFLOP/s, 97% of cuBLAS; rel error 2.1e-03 <= bound 1.6e-02".
std::string timed_line(const TcTimedRow& r) {
  if (!r.skipped.empty()) return r.name + " (" + r.precision + "): skipped: " + r.skipped;
  char line[256];
  std::snprintf(line, sizeof line, "%s (%s): %.3f ms, %.1f TFLOP/s", r.name.c_str(), r.precision.c_str(), r.ms,
                r.tflops);
  std::string out = line;
  if (r.pct_cublas >= 0) {
    std::snprintf(line, sizeof line, ", %.0f%% of cuBLAS", r.pct_cublas);
    out += line;
  }
  std::snprintf(line, sizeof line, "; rel error %.2e %s bound %.2e", r.rel_error, r.within ? "<=" : "over", r.bound);
  return out + line;
}

}  // namespace

void draw_tc_timing(TcPanelModel& m, TcPanelActions& a) {
  if (m.timing) {
    if (ImGui::SmallButton("cancel##tc_time")) a.cancel_timing = true;
    ImGui::SameLine();
    ImGui::ProgressBar(static_cast<float>(m.timing_progress), ImVec2(-1, 0), "timing the rungs");
  } else {
    ImGui::BeginDisabled(!m.time_unavailable.empty());
    if (ImGui::SmallButton("time the rungs##tc_time")) a.time_rungs = true;
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip("Every rung this GPU runs, at the lab's size, on the lab's A and B: one checked run against "
                        "float64, a warm-up, then the median of timed runs (CUDA events); cuBLAS at each precision "
                        "in the same run. Each rung becomes a point of the Roofline window under its precision's "
                        "roof.");
    if (!m.time_unavailable.empty()) dim_text("Timing needs a GPU: " + m.time_unavailable);
  }
  if (!m.timing_status.empty()) dim_text(m.timing_status);
  if (m.timed.empty()) return;
  dim_text("Timed at " + m.timed_problem + " on " + m.timed_device + ", error against " + m.timed_reference + ":");
  for (const auto& r : m.timed) {
    if (!r.skipped.empty())
      dim_text(timed_line(r));
    else
      wrapped_text(timed_line(r), tone_colour(r.within ? Tone::Pass : Tone::Error));
    if (ImGui::IsItemHovered() && r.skipped.empty())
      ImGui::SetTooltip("%s: median of %d timed runs", r.name.c_str(), r.runs);
  }
}

namespace {

bool mouse_in(ImVec2 a, ImVec2 b) {
  const ImVec2 p = ImGui::GetIO().MousePos;
  return p.x >= a.x && p.x < b.x && p.y >= a.y && p.y < b.y;
}

ImU32 text_colour() {
  return ImGui::GetColorU32(ImGuiCol_Text);
}
const ImU32 kZeroFill = IM_COL32(225, 80, 70, 150);   // what TMA reads past the matrix, and the bubbles
const ImU32 kTileBoxes = IM_COL32(255, 150, 20, 255);  // one CTA tile's boxes of one k-tile

// One matrix's boxes at `o`, `scale` pixels per element, the first `highlight` boxes of row 0 outlined; fills
// `hover` with the box under the mouse.
void draw_box_grid(ImDrawList* dl, const tc::BoxGrid& g, ImVec2 o, float scale, int highlight, int matrix,
                   TmaHover& hover) {
  const float bw = static_cast<float>(g.box_cols) * scale, bh = static_cast<float>(g.box_rows) * scale;
  const ImVec2 end(o.x + bw * static_cast<float>(g.across), o.y + bh * static_cast<float>(g.down));
  dl->AddRectFilled(o, end, kZeroFill);  // the boxes' whole extent, then the matrix over it
  dl->AddRectFilled(o, ImVec2(o.x + static_cast<float>(g.cols) * scale, o.y + static_cast<float>(g.rows) * scale),
                    IM_COL32(120, 160, 215, 255));
  const bool lines = bw >= 3 && bh >= 3 && g.count() <= 16384;
  for (int64_t i = 0; i < g.down; ++i)
    for (int64_t j = 0; j < g.across; ++j) {
      const ImVec2 a(o.x + bw * static_cast<float>(j), o.y + bh * static_cast<float>(i));
      const ImVec2 b(a.x + bw, a.y + bh);
      if (lines) dl->AddRect(a, b, IM_COL32(30, 40, 60, 200));
      if (mouse_in(a, b)) hover = {matrix, i, j};
    }
  for (int j = 0; j < highlight && j < g.across; ++j)
    dl->AddRect(ImVec2(o.x + bw * static_cast<float>(j), o.y), ImVec2(o.x + bw * static_cast<float>(j + 1), o.y + bh),
                kTileBoxes, 0, 0, 3.0f);
  if (hover.matrix == matrix) {
    const ImVec2 a(o.x + bw * static_cast<float>(hover.j), o.y + bh * static_cast<float>(hover.i));
    dl->AddRect(a, ImVec2(a.x + bw, a.y + bh), text_colour(), 0, 0, 2.0f);
  }
}

void tma_tooltip(const TmaHover& h, const tc::BoxGrid& g, int bn) {
  const int64_t r0 = h.i * g.box_rows, c0 = h.j * g.box_cols;
  const int64_t zeros = tc::box_zero_filled(g, h.i, h.j);
  const char* rows = h.matrix == 0 ? "rows" : "k";
  const char* cols = h.matrix == 0 ? "k" : "columns";
  std::string extra;
  if (h.matrix == 1) extra = "\nTile column " + std::to_string(h.j / (bn / tc::kTmaChunkCols)) + " of C loads it";
  ImGui::SetTooltip("%s box (%lld, %lld): %s %lld..%lld, %s %lld..%lld\n%lld of %lld elements lie past the matrix: "
                    "TMA writes zeros there\nOne TMA instruction copies it (%lld KiB of bf16, 128B-swizzled)%s",
                    h.matrix == 0 ? "A" : "B", static_cast<long long>(h.i), static_cast<long long>(h.j), rows,
                    static_cast<long long>(r0), static_cast<long long>(r0 + g.box_rows - 1), cols,
                    static_cast<long long>(c0), static_cast<long long>(c0 + g.box_cols - 1),
                    static_cast<long long>(zeros), static_cast<long long>(g.box_elements()),
                    static_cast<long long>(g.box_elements() * 2 / 1024), extra.c_str());
}

}  // namespace

void draw_fragment_view(int operand, int& hovered_lane, float width) {
  const tc::Operand op = operand == 0 ? tc::Operand::A : operand == 1 ? tc::Operand::B : tc::Operand::C;
  const int rows = 16, cols = op == tc::Operand::A ? 16 : 8;
  const float w = width_or_avail(width);
  const float cell = std::clamp(w / static_cast<float>(cols + 2), 10.0f, 34.0f);
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  int hover_lane = -1, hover_r = -1, hover_c = -1;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const tc::FragSlot s = tc::fragment_slot(op, r, c);
      const ImVec2 a(o.x + static_cast<float>(c) * cell, o.y + static_cast<float>(r) * cell);
      const ImVec2 b(a.x + cell - 1, a.y + cell - 1);
      const bool dim = hovered_lane >= 0 && s.lane != hovered_lane;
      dl->AddRectFilled(a, b, lane_colour(s.lane, dim ? 60 : 255));
      char label[24];  // room for any int: GCC checks snprintf's worst case
      std::snprintf(label, sizeof label, "%d", s.lane);
      if (cell >= 16) dl->AddText(ImVec2(a.x + 2, a.y + 1), IM_COL32(20, 20, 20, 255), label);
      if (mouse.x >= a.x && mouse.x < b.x && mouse.y >= a.y && mouse.y < b.y) {
        hover_lane = s.lane;
        hover_r = r;
        hover_c = c;
      }
    }
  ImGui::Dummy(ImVec2(cell * static_cast<float>(cols), cell * static_cast<float>(rows)));
  hovered_lane = hover_lane;
  if (hover_lane >= 0) {
    const tc::FragSlot s = tc::fragment_slot(op, hover_r, hover_c);
    const char* name = op == tc::Operand::A ? "a" : op == tc::Operand::B ? "b" : "c";
    if (op == tc::Operand::C)
      ImGui::SetTooltip("C(%d, %d): lane %d, register %s%d (one float)", hover_r, hover_c, s.lane, name, s.reg);
    else
      ImGui::SetTooltip("%s(%d, %d): lane %d, register %s%d, %s 16 bits", op == tc::Operand::A ? "A" : "B", hover_r,
                        hover_c, s.lane, name, s.reg, s.half ? "high" : "low");
  }
}

void draw_swizzle_view(bool b_tile, float width) {
  // 8 consecutive rows, the 8 chunks of 16 bytes that cover the 32 banks once; left plain, right swizzled. Each
  // row's logical chunk 0 (what one ldmatrix phase reads from every row) is outlined.
  const int chunks_per_row = b_tile ? 16 : 4;
  const float w = width_or_avail(width);
  const float cell = std::clamp((w - 30.0f) / 16.0f, 8.0f, 30.0f);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (int side = 0; side < 2; ++side) {
    const bool sw = side == 1;
    ImGui::TextUnformatted(sw ? "swizzled" : "plain");
    const ImVec2 o = ImGui::GetCursorScreenPos();
    for (int r = 0; r < 8; ++r)
      for (int c = 0; c < std::min(chunks_per_row, 8); ++c) {
        const int phys = b_tile ? tc::smem_chunk_b(r, c, sw) : tc::smem_chunk_a(r, c, sw);
        const int group = phys % 8;  // which 4 banks: 4 * group .. 4 * group + 3
        const ImVec2 a(o.x + static_cast<float>(group) * cell * 2, o.y + static_cast<float>(r) * cell);
        const ImVec2 b(a.x + cell * 2 - 1, a.y + cell - 1);
        dl->AddRectFilled(a, b, lane_colour(c * 4, c == 0 ? 255 : 110));
        char label[24];  // room for any int: GCC checks snprintf's worst case
        std::snprintf(label, sizeof label, "%d", c);
        if (cell >= 12) dl->AddText(ImVec2(a.x + 3, a.y), IM_COL32(20, 20, 20, 255), label);
        if (c == 0) dl->AddRect(a, b, IM_COL32(220, 30, 30, 255), 0, 0, 2.0f);
      }
    ImGui::Dummy(ImVec2(cell * 16, cell * 8));
    dim_text(std::string("banks 0..31 left to right; row r, chunk c; ldmatrix of chunk 0 from 8 rows: ") +
             std::to_string(tc::ldmatrix_phase_ways(b_tile, sw, 0, 0)) + "-way");
  }
}

TmaHover draw_tma_view(int64_t m, int64_t n, int64_t k, int bn, float width) {
  TmaHover hover;
  const tc::BoxGrid ga = tc::tma_boxes_a(m, k), gb = tc::tma_boxes_b(k, n, bn);
  if (ga.count() == 0 || gb.count() == 0) {
    dim_text("No boxes to draw: M, N and K must be at least 1.");
    return hover;
  }
  const float w = width_or_avail(width), gap = 28.0f, line = ImGui::GetTextLineHeightWithSpacing();
  const double a_w = static_cast<double>(ga.across * ga.box_cols), a_h = static_cast<double>(ga.down * ga.box_rows);
  const double b_w = static_cast<double>(gb.across * gb.box_cols), b_h = static_cast<double>(gb.down * gb.box_rows);
  const float max_h = std::max(160.0f, ImGui::GetTextLineHeight() * 10);  // fits a presenter-mode panel
  const float scale = static_cast<float>(std::min((w - gap) / (a_w + b_w), max_h / std::max(a_h, b_h)));
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 oa(o.x, o.y + line), ob(o.x + static_cast<float>(a_w) * scale + gap, o.y + line);
  dl->AddText(o, text_colour(), "A (M x K)");
  dl->AddText(ImVec2(ob.x, o.y), text_colour(), "B (K x N)");
  draw_box_grid(dl, ga, oa, scale, 1, 0, hover);
  draw_box_grid(dl, gb, ob, scale, bn / tc::kTmaChunkCols, 1, hover);
  ImGui::Dummy(ImVec2(w, line + static_cast<float>(std::max(a_h, b_h)) * scale + 4));
  if (hover.matrix == 0) tma_tooltip(hover, ga, bn);
  if (hover.matrix == 1) tma_tooltip(hover, gb, bn);
  char text[420];
  std::snprintf(text, sizeof text,
                "A: %lld boxes of 128 x 64, B: %lld boxes of 64 x 64. Blue: the matrix. Orange: one k-step of C "
                "tile (0, 0): 1 A box + %d B boxes = %d TMA instructions, one full barrier. Red: past the matrix, "
                "zero-filled (%lld of A's, %lld of B's elements). The whole product issues %lld TMA loads.",
                static_cast<long long>(ga.count()), static_cast<long long>(gb.count()), bn / tc::kTmaChunkCols,
                1 + bn / tc::kTmaChunkCols, static_cast<long long>(tc::zero_filled(ga)),
                static_cast<long long>(tc::zero_filled(gb)), static_cast<long long>(tc::tma_loads(m, n, k, bn)));
  dim_text(text);
  return hover;
}

void draw_tma_swizzle_view(float width) {
  // Left: the box's rows as TMA reads them from global memory (chunk c at c); right: where each chunk lands in
  // shared memory. Colour and number: the logical chunk; the 8 rows' chunk 0 is outlined (8 bank groups).
  const float w = width_or_avail(width), gap = 24.0f;
  const float cell = std::clamp((w - gap) / 16.0f, 14.0f, 40.0f);
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  int hover_r = -1, hover_c = -1;
  for (int side = 0; side < 2; ++side) {
    const ImVec2 os(o.x + static_cast<float>(side) * (cell * 8 + gap), o.y + line);
    dl->AddText(ImVec2(os.x, o.y), text_colour(), side ? "in shared memory" : "in global memory");
    for (int r = 0; r < 8; ++r)
      for (int c = 0; c < 8; ++c) {
        const int p = side ? tc::tma_swizzle_chunk(r, c) : c;
        const ImVec2 a(os.x + static_cast<float>(p) * cell, os.y + static_cast<float>(r) * cell);
        const ImVec2 b(a.x + cell - 1, a.y + cell - 1);
        dl->AddRectFilled(a, b, lane_colour(c * 4));  // opaque: the dark numbers stay readable
        char label[24];  // room for any int: GCC checks snprintf's worst case
        std::snprintf(label, sizeof label, "%d", c);
        dl->AddText(ImVec2(a.x + 3, a.y + 1), IM_COL32(20, 20, 20, 255), label);
        if (c == 0) dl->AddRect(a, b, IM_COL32(220, 30, 30, 255), 0, 0, 2.0f);
        if (mouse_in(a, b)) hover_r = r, hover_c = c;
      }
  }
  ImGui::Dummy(ImVec2(cell * 16 + gap, line + cell * 8));
  if (hover_r >= 0) {
    const int p = tc::tma_swizzle_chunk(hover_r, hover_c);
    ImGui::SetTooltip("row %d, chunk %d (k %d..%d of the row, bytes %d..%d)\nlands at chunk %d ^ (%d %% 8) = %d: banks "
                      "%d..%d",
                      hover_r, hover_c, hover_c * 8, hover_c * 8 + 7, hover_c * 16, hover_c * 16 + 15, hover_c, hover_r,
                      p, p * 4, p * 4 + 3);
  }
  dim_text("Each row is 128 bytes = 8 chunks of 16 bytes = all 32 banks. Chunk c of row r lands at c ^ (r % 8); the "
           "pattern repeats every 8 rows (1024 bytes). Outlined: chunk 0 of 8 rows, what one read of a column needs, "
           "now in 8 different bank groups.");
}

int draw_pipeline_view(int stages, float load_ratio, bool hopper, float width) {
  constexpr int kTiles = 10;
  const auto s = tc::pipeline_schedule(stages, kTiles, load_ratio, 1.0);
  if (s.empty()) {
    dim_text("No schedule: the ring needs at least one stage and a load time above zero.");
    return -1;
  }
  const tc::PipeSummary sum = tc::summarize(s);
  const float w = width_or_avail(width);
  const float label_w = ImGui::CalcTextSize("cp.async ").x + 4;
  const float lane_h = std::max(22.0f, ImGui::GetTextLineHeight() * 1.6f);
  const float gap = lane_h * 0.9f, px = (w - label_w - 4) / static_cast<float>(sum.total);
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float y_load = o.y, y_comp = o.y + lane_h + gap, x0 = o.x + label_w;
  dl->AddText(ImVec2(o.x, y_load + 3), text_colour(), hopper ? "TMA" : "cp.async");
  dl->AddText(ImVec2(o.x, y_comp + 3), text_colour(), hopper ? "wgmma" : "mma.sync");
  auto x_at = [&](double t) { return x0 + static_cast<float>(t) * px; };
  int hovered = -1;
  for (size_t t = 0; t < s.size(); ++t) {
    const tc::PipeTile& p = s[t];
    const ImU32 col = stage_colour(p.stage);
    char label[24];  // room for any int: GCC checks snprintf's worst case
    std::snprintf(label, sizeof label, "k%zu", t);
    const float tw = ImGui::CalcTextSize(label).x;
    for (int lane = 0; lane < 2; ++lane) {
      const float y = lane ? y_comp : y_load;
      const ImVec2 a(x_at(lane ? p.compute_start : p.load_start), y);
      const ImVec2 b(x_at(lane ? p.compute_end : p.load_end) - 1, y + lane_h);
      dl->AddRectFilled(a, b, col);
      if (b.x - a.x > tw + 4) dl->AddText(ImVec2(a.x + 3, y + 3), IM_COL32(20, 20, 20, 255), label);
      if (mouse_in(a, b)) hovered = static_cast<int>(t);
    }
    if (p.wait > 1e-9) {  // the tensor cores idle: the prologue, or a bubble
      const ImVec2 a(x_at(p.compute_start - p.wait), y_comp), b(x_at(p.compute_start) - 1, y_comp + lane_h);
      dl->AddRectFilled(a, b, t == 0 ? IM_COL32(150, 150, 150, 120) : IM_COL32(235, 45, 35, 255));
    }
    // The full barrier: loaded -> may multiply; the empty barrier: stage released -> may load again.
    dl->AddLine(ImVec2(x_at(p.load_end) - 1, y_load + lane_h), ImVec2(x_at(p.compute_start), y_comp),
                IM_COL32(40, 170, 60, 255), 2.0f);
    if (static_cast<int>(t) >= stages) {
      const tc::PipeTile& freed = s[t - static_cast<size_t>(stages)];
      dl->AddLine(ImVec2(x_at(freed.compute_end) - 1, y_comp), ImVec2(x_at(p.load_start), y_load + lane_h),
                  IM_COL32(170, 170, 170, 220), 1.5f);
    }
  }
  ImGui::Dummy(ImVec2(w, lane_h * 2 + gap + 2));
  if (hovered >= 0) {
    const tc::PipeTile& p = s[static_cast<size_t>(hovered)];
    ImGui::SetTooltip("k-tile %d in stage %d (= %d %% %d)\nloaded %.2f .. %.2f, multiplied %.2f .. %.2f (one multiply "
                      "= 1.00)\n%s waited %.2f before it",
                      hovered, p.stage, hovered, stages, p.load_start, p.load_end, p.compute_start, p.compute_end,
                      hopper ? "wgmma" : "mma.sync", p.wait);
  }
  char text[200];
  std::snprintf(text, sizeof text, "Tensor cores busy %.0f%% of the time; %d bubbles after the first load (%.1f "
                "multiplies' worth of waiting).", 100 * sum.busy_fraction, sum.bubbles, sum.bubble_time);
  wrapped_text(text, tone_colour(sum.bubbles == 0 ? Tone::Pass : Tone::Warning));
  dim_text("Colour: the stage (k-tile t uses stage t % stages). Green: the full barrier (loaded, may multiply); gray: "
           "the empty barrier (stage released, may load the next tile into it). Red: the tensor cores wait.");
  return hovered;
}

void draw_tc_section(TcPanelModel& m, TcPanelActions& a) {
  dim_text("After the FP32 ladder: tensor cores: which rungs this device runs (time them below, or with "
           "`blockscope bench matmul --tensor-cores`), what each precision does to C, and how the data sits in the "
           "warp.");
  // One wrapped line per rung (hover: what it is and what changed). A reason every rung shares (no GPU, the CPU
  // path) is said once, above the list.
  bool shared = !m.rungs.empty() && !m.rungs.front().unavailable.empty();
  for (const auto& r : m.rungs)
    shared = shared && r.unavailable == m.rungs.front().unavailable;
  if (shared) dim_text("Listed, not run: " + m.rungs.front().unavailable);
  for (const auto& r : m.rungs) {
    std::string line = r.name + " (" + r.precision + "): ";
    if (shared)
      line += r.title;
    else
      line += r.unavailable.empty() ? std::string("runs here") : "skipped: " + r.unavailable;
    if (r.unavailable.empty())
      wrapped_text(line, tone_colour(Tone::Pass));
    else
      dim_text(line);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\n%s", r.title.c_str(), r.description.c_str());
  }
  draw_tc_timing(m, a);
  if (m.running) {
    if (ImGui::SmallButton("cancel##tc")) a.cancel_model = true;
    ImGui::SameLine();
    ImGui::ProgressBar(static_cast<float>(m.progress), ImVec2(-1, 0), "model");
  } else {
    // Short labels, one control a line: the panel is narrow in presenter mode at 1280x720.
    dim_text("Precision model (CPU): A and B rounded to each precision, FP32 accumulation, against float64.");
    if (ImGui::SmallButton("run##tc_model")) a.run_model = true;
    ImGui::Checkbox("wide inputs", &m.wide);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("values times 2^e, e in [-30, 17]: FP16 overflows (infinity) and underflows, BF16 does not");
  }
  if (!m.status.empty()) dim_text(m.status);
  model_lines(m);
  // Short tree labels: they do not wrap (the panel is narrow in presenter mode).
  if (ImGui::TreeNode("MMA fragment")) {
    dim_text("mma.sync m16n8k16: which lane holds each element.");
    ImGui::RadioButton("A 16x16", &m.operand, 0);
    ImGui::RadioButton("B 16x8", &m.operand, 1);
    ImGui::RadioButton("C 16x8", &m.operand, 2);
    draw_fragment_view(m.operand, m.hovered_lane, 0);
    dim_text("Each number is the lane holding that element; hover for the register. Lanes 4g..4g+3 share a colour: "
             "one row group.");
    ImGui::TreePop();
  }
  if (ImGui::TreeNode("Swizzle")) {
    dim_text("Shared memory: 16-byte chunks -> banks.");
    ImGui::Checkbox("B tile (256-byte rows)", &m.b_tile);
    draw_swizzle_view(m.b_tile, 0);
    ImGui::TreePop();
  }
  if (ImGui::TreeNode("TMA box")) {
    const int64_t pm = m.lab_m > 0 ? m.lab_m : 200, pn = m.lab_n > 0 ? m.lab_n : 155, pk = m.lab_k > 0 ? m.lab_k : 67;
    dim_text("Hopper rungs: one TMA instruction copies a 2D box of global memory into shared memory (the lab's " +
             std::to_string(pm) + " x " + std::to_string(pn) + " x " + std::to_string(pk) + "; hover a box).");
    ImGui::RadioButton("BN 128 (wgmma_tma)", &m.tma_bn, tc::kTmaWgmmaBN);
    ImGui::RadioButton("BN 256 (warp-specialized)", &m.tma_bn, tc::kWarpSpecializedBN);
    draw_tma_view(pm, pn, pk, m.tma_bn, 0);
    if (ImGui::TreeNode("128B swizzle of a box")) {
      draw_tma_swizzle_view(0);
      ImGui::TreePop();
    }
    ImGui::TreePop();
  }
  if (ImGui::TreeNode("Pipeline stages")) {
    dim_text("A ring of shared-memory stages: the producer loads k-tile t into stage t % stages while the tensor "
             "cores multiply earlier tiles. The rungs use 4 stages.");
    if (ImGui::RadioButton("TMA + wgmma", m.pipe_hopper)) m.pipe_hopper = true;
    if (ImGui::RadioButton("cp.async + mma.sync", !m.pipe_hopper)) m.pipe_hopper = false;
    ImGui::SliderInt("stages", &m.pipe_stages, 1, 8);
    ImGui::SliderFloat("load / multiply", &m.pipe_ratio, 0.25f, 3.0f, "%.2f");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("time to load one k-tile over the time to multiply it; above 1 no ring hides the loads");
    draw_pipeline_view(m.pipe_stages, m.pipe_ratio, m.pipe_hopper, 0);
    ImGui::TreePop();
  }
}

}  // namespace bs::ui
