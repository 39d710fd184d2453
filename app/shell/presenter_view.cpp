// presenter_view.cpp: see presenter_view.h.
#include "app/shell/presenter_view.h"

#include <imgui.h>

#include <cstdio>
#include <iterator>
#include <vector>

#include "app/labs.h"

namespace bs {

void PresenterView::set_presenter(bool on) {
  m_presenter.set_presenter(on);
  m_show_readouts = on;
}

float PresenterView::readouts_height(std::span<const ui::Readout> readouts, float width, float max_height) {
  return m_show_readouts ? m_presenter.fit_readouts(readouts, width, max_height) : 0.0f;
}

void PresenterView::draw_menu_items() {
  if (!m_scale_editing) m_scale_edit = m_presenter.scale();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
  ImGui::SliderFloat("UI scale", &m_scale_edit, ui::k_min_ui_scale, ui::k_max_ui_scale, "%.2f");
  m_scale_editing = ImGui::IsItemActive();
  // Fonts are re-rasterized when the slider is let go (rebuilding the atlas on every drag step is slow).
  if (ImGui::IsItemDeactivatedAfterEdit()) m_presenter.set_scale(m_scale_edit);
  for (float preset : {1.0f, 1.25f, 1.5f, 2.0f}) {
    char label[16];
    std::snprintf(label, sizeof label, "%.2gx", static_cast<double>(preset));
    ImGui::SameLine();
    if (ImGui::SmallButton(label)) m_presenter.set_scale(preset);
  }
  if (ImGui::MenuItem("Presenter mode", "P", m_presenter.presenter()))
    set_presenter(!m_presenter.presenter());
  ImGui::MenuItem("Big readouts", nullptr, &m_show_readouts);
  if (ImGui::BeginMenu("Theme")) {
    if (ImGui::MenuItem("Dark", nullptr, m_presenter.theme() == ui::Theme::Dark)) set_theme(ui::Theme::Dark);
    if (ImGui::MenuItem("Light (projectors)", nullptr, m_presenter.theme() == ui::Theme::Light))
      set_theme(ui::Theme::Light);
    ImGui::EndMenu();
  }
}

void PresenterView::draw_windows(Layout& layout, std::span<const ui::Readout> readouts) {
  if (m_show_readouts) {
    const Rect strip = layout.slot(Slot::Readouts);
    m_presenter.draw_readouts(readouts, ImVec4(strip.x, strip.y, strip.w, strip.h),
                              [&](const char* name, bool* open, ImGuiWindowFlags flags) {
                                return layout.begin_observed(name, open, flags);
                              });
  }
  if (m_show_shortcuts) {
    // The shell's keys, then each lab's (its descriptor's shortcuts).
    static const ui::Shortcut k_shell_shortcuts[] = {
        {"F1", "show / hide this list"},
        {"F11", "full screen"},
        {"P", "presenter mode: larger UI and big read-outs"},
        {"F5", "sweep window: time any lab over one or two parameters"},
        {"F9", "kernel editor: write your own CUDA kernel (Ctrl+Z / Ctrl+Y undo and redo in it)"},
        {"F12", "screenshot of the window (~/blockscope-captures/)"},
        {"Shift+F12", "screenshot of the lab's view only"},
        {"Ctrl+S", "save the session (labs, parameters, UI scale)"},
        {"Ctrl+O", "load a session"},
        {"Ctrl+Z", "undo a parameter change (Ctrl+Shift+Z or Ctrl+Y: redo)"},
        {"O", "anatomy: next overlay or array-map mode (labs with an anatomy view)"},
        {"A", "anatomy window: show / hide"},
    };
    std::vector<ui::Shortcut> shortcuts(std::begin(k_shell_shortcuts), std::end(k_shell_shortcuts));
    for (const LabDescriptor& d : lab_entries())
      shortcuts.insert(shortcuts.end(), d.shortcuts.begin(), d.shortcuts.end());
    ui::Presenter::draw_shortcuts(shortcuts, &m_show_shortcuts,
                                  [&](const char* name, bool* open, ImGuiWindowFlags flags) {
                                    return layout.begin_free(name, open, flags);
                                  });
  }
}

}  // namespace bs
