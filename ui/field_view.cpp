// field_view.cpp: see field_view.h.
#include "ui/field_view.h"

#include <imgui.h>

#include <algorithm>
#include <cstdint>

#include "ui/colormap.h"

namespace bs::ui {

void draw_colorbar(int colormap, float lo, float hi, float width) {
  const auto& maps = builtin_colormaps();
  if (maps.empty()) return;
  const Colormap& cm = maps[static_cast<size_t>(std::clamp(colormap, 0, static_cast<int>(maps.size()) - 1))];
  const float h = ImGui::GetFontSize() * 0.9f;
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const int steps = 64;
  for (int i = 0; i < steps; ++i) {
    const float x0 = p.x + width * i / steps, x1 = p.x + width * (i + 1) / steps;
    const ImU32 c0 = cm.rgba[static_cast<size_t>(i * 255 / (steps - 1))];
    dl->AddRectFilled(ImVec2(x0, p.y), ImVec2(x1 + 0.5f, p.y + h), c0);
  }
  dl->AddRect(p, ImVec2(p.x + width, p.y + h), ImGui::GetColorU32(ImGuiCol_Border));
  ImGui::Dummy(ImVec2(width, h));
  ImGui::Text("%.3g", lo);
  char mid[32], hi_s[32];
  std::snprintf(mid, sizeof mid, "%.3g", 0.5 * (lo + hi));
  std::snprintf(hi_s, sizeof hi_s, "%.3g", hi);
  ImGui::SameLine(width * 0.5f - ImGui::CalcTextSize(mid).x * 0.5f);
  ImGui::TextUnformatted(mid);
  ImGui::SameLine(std::max(width - ImGui::CalcTextSize(hi_s).x, 0.0f));
  ImGui::TextUnformatted(hi_s);
}

FieldViewResult draw_field_view(const FieldViewInput& in) {
  FieldViewResult r;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float reserve = ImGui::GetFontSize() * 3.6f;  // colour bar and caption
  const float aw = std::max(avail.x, 16.0f), ah = std::max(avail.y - reserve, 16.0f);
  const float aspect = in.ny > 0 ? static_cast<float>(in.nx) / static_cast<float>(in.ny) : 1.0f;
  float w = aw, h = aw / aspect;
  if (h > ah) h = ah, w = ah * aspect;
  r.image_w = std::max(1, static_cast<int>(w));
  r.image_h = std::max(1, static_cast<int>(h));
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  // An invisible button under the image: pressing on it makes it the active item, so ImGui treats a drag as
  // this item's (painting), not as a move of the window (ImGui::Image has no id and cannot own a drag).
  ImGui::InvisibleButton("##field_image", ImVec2(w, h),
                         ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
  const bool active = ImGui::IsItemActive();
  r.hovered = ImGui::IsItemHovered();
  // The output texture is rendered with row 0 at the top of the image already; GL textures start at the
  // bottom, hence the flipped v coordinates.
  ImGui::GetWindowDrawList()->AddImage(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(in.texture)),
                                       origin, ImVec2(origin.x + w, origin.y + h), ImVec2(0, 1),
                                       ImVec2(1, 0));
  if (r.hovered || active) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    r.cell_x = (m.x - origin.x) / w * in.nx;
    r.cell_y = (m.y - origin.y) / h * in.ny;
    r.paint_hot = active && ImGui::IsMouseDown(ImGuiMouseButton_Left);
    r.paint_cold = active && ImGui::IsMouseDown(ImGuiMouseButton_Right);
  }
  if (r.hovered && in.cell_tooltip)
    ImGui::SetTooltip("cell (%d, %d)", static_cast<int>(*r.cell_x), static_cast<int>(*r.cell_y));
  draw_colorbar(in.colormap, in.range_min, in.range_max, std::min(w, ImGui::GetFontSize() * 24));
  if (!in.caption.empty()) ImGui::TextDisabled("%s", in.caption.c_str());
  return r;
}

}  // namespace bs::ui
