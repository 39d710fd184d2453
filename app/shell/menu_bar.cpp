// menu_bar.cpp: see menu_bar.h.
#include "app/shell/menu_bar.h"

#include <imgui.h>

#include <algorithm>

#include "app/labs.h"

namespace bs {

std::string MenuBar::draw(const ui::PathView& pv, const std::string& active,
                          const std::function<void()>& draw_menus,
                          const std::optional<CeilingReadout>& roofline) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const auto item_w = [&](const char* label) { return ImGui::CalcTextSize(label).x + st.ItemSpacing.x * 2; };
  const float bar_w = ImGui::GetMainViewport()->Size.x;
  // Level 2 and 3 name only the active lab in one menu: its title, or (3) its short title.
  std::string lab_title = active, lab_short = active;
  for (const LabEntry& e : lab_entries())
    if (active == e.id) lab_title = e.title, lab_short = e.short_title;
  const std::string lab_label[2] = {"Lab: " + lab_title, "Lab: " + lab_short};
  const auto needed = [&](int level) {
    float w = st.WindowPadding.x * 2 + item_w("Session") + item_w("Edit") + item_w("View") + item_w("Sweep") + item_w("Help") +
              ui::path_status_min_width(pv);
    if (level == 0) w += item_w("blockscope");
    if (level < 2) {
      for (const LabEntry& e : lab_entries())
        if (e.make) w += item_w(level == 0 ? e.title : e.short_title);
    } else {
      w += item_w(lab_label[level - 2].c_str());
    }
    return w;
  };
  m_level = needed(0) <= bar_w ? 0 : needed(1) <= bar_w ? 1 : needed(2) <= bar_w ? 2 : 3;
  m_overflow = 0;
  std::string picked;
  if (!ImGui::BeginMainMenuBar()) return picked;
  if (m_level == 0) ImGui::TextDisabled("blockscope");
  draw_menus();
  if (m_level < 2) {
    for (const LabEntry& e : lab_entries())  // a lab without a window (bench or sweep only) has no entry
      if (e.make && ImGui::MenuItem(m_level == 0 ? e.title : e.short_title, nullptr, active == e.id))
        picked = e.id;
  } else {
    const std::string label = lab_label[m_level - 2] + "###labmenu";
    if (ImGui::BeginMenu(label.c_str())) {
      for (const LabEntry& e : lab_entries())
        if (e.make && ImGui::MenuItem(e.title, nullptr, active == e.id)) picked = e.id;
      ImGui::EndMenu();
    }
  }
  const float items_end = ImGui::GetItemRectMax().x;
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowWidth() - st.WindowPadding.x;
  const float path_w = ui::draw_path_status(pv, right);
  m_overflow = std::max(0.0f, items_end - right) + (path_w > 0 ? 0.0f : ui::path_status_min_width(pv));
  // The roofline read-out just left of the path status, only where it fits (it never pushes the menus).
  m_roofline_shown = false;
  m_roofline_text.clear();
  // The long form names the run; the short one at least says when it ran (the tooltip has the rest).
  if (roofline && path_w > 0) {
    for (const std::string* text : {&roofline->text, &roofline->short_text}) {
      const float w = ImGui::CalcTextSize(text->c_str()).x + st.ItemSpacing.x * 2;
      const float x = right - path_w - w;
      if (x <= items_end + st.ItemSpacing.x) continue;
      ImGui::SetCursorScreenPos(ImVec2(x, ImGui::GetWindowPos().y));
      ImGui::TextUnformatted(text->c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", roofline->tooltip.c_str());
      m_roofline_shown = true;
      m_roofline_text = *text;
      break;
    }
  }
  ImGui::EndMainMenuBar();
  return picked;
}

}  // namespace bs
