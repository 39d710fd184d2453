// widgets.cpp: see widgets.h.
#include "ui/widgets.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "ui/colormap.h"
#include "ui/text_fit.h"

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

void dim_text(const std::string& s) {
  wrapped_text(s, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
}

ImU32 rgba_u32(uint32_t rgba, int alpha) {
  return IM_COL32((rgba >> 24) & 0xff, (rgba >> 16) & 0xff, (rgba >> 8) & 0xff,
                  alpha < 0 ? (rgba & 0xff) : static_cast<uint32_t>(alpha));
}

bool input_ints_on_commit(const char* label, int* v, int n, int step, int step_fast) {
  IM_ASSERT(n >= 1 && n <= 4 && (step == 0 || n == 1));
  ImGuiStorage* store = ImGui::GetStateStorage();
  ImGui::PushID(label);
  const ImGuiID pending_id = ImGui::GetID("##pending");
  ImGuiID value_id[4];
  const char* const component[4] = {"##0", "##1", "##2", "##3"};
  for (int i = 0; i < n; ++i)
    value_id[i] = ImGui::GetID(component[i]);
  ImGui::PopID();
  const bool pending = store->GetBool(pending_id, false);
  int typed[4];
  for (int i = 0; i < n; ++i)
    typed[i] = pending ? store->GetInt(value_id[i], v[i]) : v[i];
  const bool edited = n == 1 ? ImGui::InputInt(label, typed, step, step_fast)
                             : ImGui::InputScalarN(label, ImGuiDataType_S32, typed, n);
  // Enter, Tab and a click elsewhere end the edit (deactivation); a step button edits without a text edit.
  const bool commit = ImGui::IsItemDeactivatedAfterEdit() || (edited && !ImGui::IsItemActive());
  if (commit || !ImGui::IsItemActive()) {
    store->SetBool(pending_id, false);
  } else {
    store->SetBool(pending_id, true);
    for (int i = 0; i < n; ++i)
      store->SetInt(value_id[i], typed[i]);
  }
  if (!commit) return false;
  bool changed = false;
  for (int i = 0; i < n; ++i) {
    changed |= v[i] != typed[i];
    v[i] = typed[i];
  }
  return changed;
}

bool input_text_on_commit(const char* label, char* buf, size_t size) {
  ImGui::InputText(label, buf, size);
  return ImGui::IsItemDeactivatedAfterEdit();
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

ImVec4 tone_colour(Tone t, bool light) {
  switch (t) {
    case Tone::Error:
      return light ? ImVec4(0.72f, 0.08f, 0.04f, 1.0f) : ImVec4(1.0f, 0.45f, 0.4f, 1.0f);
    case Tone::Warning:
      return light ? ImVec4(0.55f, 0.31f, 0.0f, 1.0f) : ImVec4(1.0f, 0.8f, 0.3f, 1.0f);
    case Tone::Pass:
      return light ? ImVec4(0.0f, 0.42f, 0.1f, 1.0f) : ImVec4(0.45f, 0.9f, 0.45f, 1.0f);
    case Tone::Highlight:
      return light ? ImVec4(0.62f, 0.0f, 0.45f, 1.0f) : ImVec4(1.0f, 0.45f, 0.8f, 1.0f);
  }
  return ImGui::GetStyleColorVec4(ImGuiCol_Text);
}

ImVec4 tone_colour(Tone t) { return tone_colour(t, light_theme()); }

namespace {
double relative_luminance(const ImVec4& c) {
  const auto lin = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * lin(c.x) + 0.7152 * lin(c.y) + 0.0722 * lin(c.z);
}
}  // namespace

double contrast_ratio(const ImVec4& a, const ImVec4& b) {
  const double la = relative_luminance(a), lb = relative_luminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

void error_text(const std::string& s) { wrapped_text(s, tone_colour(Tone::Error)); }

void advice_text(const std::string& s) { wrapped_text(s, tone_colour(Tone::Warning)); }

void same_line_if_fits(float next_width) {
  const float right = ImGui::GetWindowPos().x + ImGui::GetContentRegionMax().x;
  if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + next_width <= right + 0.5f)
    ImGui::SameLine();
}

void wrap_at_window_edge() {
  ImGui::PushTextWrapPos(std::max(ImGui::GetWindowContentRegionMax().x, 1.0f));
}

void same_line_if_text_fits(const std::string& text) {
  same_line_if_fits(std::min(ImGui::CalcTextSize(text.c_str()).x, ImGui::GetFontSize() * 8));
}

std::string fit_text(const std::string& s, float max_w) {
  return fit_text_with(s, max_w, [](const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x; });
}

float button_width(const char* label) {
  return ImGui::CalcTextSize(label, nullptr, true).x + 2 * ImGui::GetStyle().FramePadding.x;
}

float labelled_width(float field_width, const char* label) {
  const float text = ImGui::CalcTextSize(label, nullptr, true).x;
  return text > 0 ? field_width + ImGui::GetStyle().ItemInnerSpacing.x + text : field_width;
}

}  // namespace bs::ui
