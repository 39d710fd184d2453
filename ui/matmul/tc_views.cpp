// tc_views.cpp: the tensor-core section of the matmul lab's panel and its two pictures (tc_views.h).
#include "ui/matmul/tc_views.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

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
      char label[8];
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
        char label[8];
        std::snprintf(label, sizeof label, "%d", c);
        if (cell >= 12) dl->AddText(ImVec2(a.x + 3, a.y), IM_COL32(20, 20, 20, 255), label);
        if (c == 0) dl->AddRect(a, b, IM_COL32(220, 30, 30, 255), 0, 0, 2.0f);
      }
    ImGui::Dummy(ImVec2(cell * 16, cell * 8));
    dim_text(std::string("banks 0..31 left to right; row r, chunk c; ldmatrix of chunk 0 from 8 rows: ") +
             std::to_string(tc::ldmatrix_phase_ways(b_tile, sw, 0, 0)) + "-way");
  }
}

void draw_tc_section(TcPanelModel& m, TcPanelActions& a) {
  dim_text("After the FP32 ladder: tensor cores. Time them with `blockscope bench matmul --tensor-cores`; here: "
           "which rungs this device runs, what each precision does to C, and how the data sits in the warp.");
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
}

}  // namespace bs::ui
