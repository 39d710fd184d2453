// widgets.cpp: see widgets.h.
#include "ui/widgets.h"

#include <imgui.h>

#include <vector>

#include "ui/colormap.h"

namespace bs::ui {

void section_title(const char* title) {
  ImGui::Spacing();
  ImGui::Separator();
  ImGui::TextDisabled("%s", title);
}

// Messages wrap at the panel's edge: a long explanation stays readable in a narrow panel.
void wrapped_text(const std::string& s, const ImVec4& colour) {
  if (s.empty()) return;
  ImGui::PushStyleColor(ImGuiCol_Text, colour);
  ImGui::TextWrapped("%s", s.c_str());
  ImGui::PopStyleColor();
}

bool colormap_combo(int* index) {
  const auto& maps = builtin_colormaps();
  std::vector<const char*> names;
  for (const auto& c : maps)
    names.push_back(c.name.c_str());
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  return ImGui::Combo("colormap", index, names.data(), static_cast<int>(names.size()));
}

bool light_theme() {
  const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  return 0.2126f * bg.x + 0.7152f * bg.y + 0.0722f * bg.z > 0.5f;
}

void error_text(const std::string& s) {
  wrapped_text(s, light_theme() ? ImVec4(0.75f, 0.1f, 0.05f, 1.0f) : ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
}

void advice_text(const std::string& s) {
  wrapped_text(s, light_theme() ? ImVec4(0.6f, 0.35f, 0.0f, 1.0f) : ImVec4(1.0f, 0.8f, 0.3f, 1.0f));
}

}  // namespace bs::ui
