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

void model_table(const TcPanelModel& m) {
  if (m.precision_rows.empty()) return;
  ImGui::TextDisabled("CPU model at %s: inputs rounded, FP32 accumulation, vs float64", m.model_problem.c_str());
  if (!ImGui::BeginTable("tc_model", 5, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) return;
  for (const char* h : {"precision", "rel error", "bound", "within", "worst |C-ref|"})
    ImGui::TableSetupColumn(h);
  ImGui::TableHeadersRow();
  for (const auto& r : m.precision_rows) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.precision.c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.title.c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%.2e", r.rel_error);
    ImGui::TableNextColumn();
    ImGui::Text("%.2e", r.bound);
    ImGui::TableNextColumn();
    ImGui::TextColored(tone_colour(r.within ? Tone::Pass : Tone::Error), "%s", r.within ? "yes" : "NO");
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.worst.c_str());
  }
  ImGui::EndTable();
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
  if (ImGui::BeginTable("tc_rungs", 3, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) {
    for (const char* h : {"rung", "precision", "on this device"})
      ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    for (const auto& r : m.rungs) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.name.c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\n%s", r.title.c_str(), r.description.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.precision.c_str());
      ImGui::TableNextColumn();
      if (r.unavailable.empty())
        ImGui::TextColored(tone_colour(Tone::Pass), "runs");
      else
        ImGui::TextDisabled("skipped: %s", r.unavailable.c_str());
    }
    ImGui::EndTable();
  }
  if (m.running) {
    if (ImGui::SmallButton("cancel##tc")) a.cancel_model = true;
    ImGui::SameLine();
    ImGui::ProgressBar(static_cast<float>(m.progress), ImVec2(-1, 0), "precision model");
  } else {
    if (ImGui::SmallButton("run the precision model (CPU)")) a.run_model = true;
    ImGui::SameLine();
    ImGui::Checkbox("wide inputs", &m.wide);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("values times 2^e, e in [-30, 17]: FP16 overflows (infinity) and underflows, BF16 does not");
  }
  if (!m.status.empty()) dim_text(m.status);
  model_table(m);
  if (ImGui::TreeNode("MMA fragment (mma.sync m16n8k16): which lane holds what")) {
    ImGui::RadioButton("A 16x16", &m.operand, 0);
    ImGui::SameLine();
    ImGui::RadioButton("B 16x8", &m.operand, 1);
    ImGui::SameLine();
    ImGui::RadioButton("C 16x8", &m.operand, 2);
    draw_fragment_view(m.operand, m.hovered_lane, 0);
    dim_text("Each number is the lane holding that element; hover for the register. Lanes 4g..4g+3 share a colour: "
             "one row group.");
    ImGui::TreePop();
  }
  if (ImGui::TreeNode("Shared-memory swizzle: 16-byte chunks -> banks")) {
    ImGui::Checkbox("B tile (256-byte rows)", &m.b_tile);
    draw_swizzle_view(m.b_tile, 0);
    ImGui::TreePop();
  }
}

}  // namespace bs::ui
