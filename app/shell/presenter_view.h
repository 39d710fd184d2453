// presenter_view.h: how the app looks on a projector: UI scale, presenter mode (larger UI and the big
// readouts strip), the theme, the View menu's items for them, and the keyboard shortcut list (F1).
#pragma once

#include <span>
#include <vector>

#include "app/layout.h"
#include "ui/presenter.h"

namespace bs {

class PresenterView {
 public:
  // After ImGui::CreateContext and the style colours, before the first frame (ui/presenter.h).
  void init(float content_scale, float ui_scale) { m_presenter.init(content_scale, ui_scale); }
  // Between frames: fonts re-rasterized for a new scale, the style rebuilt for a new theme.
  void apply_pending() { m_presenter.apply_pending(); }

  float scale() const { return m_presenter.scale(); }
  float base_scale() const { return m_presenter.base_scale(); }
  void set_scale(float s) { m_presenter.set_scale(s); }
  bool presenter() const { return m_presenter.presenter(); }
  // Presenter mode on shows the big readouts; off hides them.
  void set_presenter(bool on);
  ui::Theme theme() const { return m_presenter.theme(); }
  void set_theme(ui::Theme t) { m_presenter.set_theme(t); }
  bool readouts_shown() const { return m_show_readouts; }
  void show_readouts(bool on) { m_show_readouts = on; }
  bool shortcuts_shown() const { return m_show_shortcuts; }
  void show_shortcuts(bool on) { m_show_shortcuts = on; }
  bool* shortcuts_flag() { return &m_show_shortcuts; }

  // Inside a frame, before the windows: the readouts strip's height for these numbers (0 when hidden).
  float readouts_height(std::span<const ui::Readout> readouts, float width, float max_height);
  // The View menu's scale slider and presets, presenter mode, big readouts and theme.
  void draw_menu_items();
  // The readouts strip (in the layout's Readouts slot) and the shortcut list, through the layout.
  void draw_windows(Layout& layout, std::span<const ui::Readout> readouts);

 private:
  ui::Presenter m_presenter;
  bool m_show_readouts = false;
  bool m_show_shortcuts = false;
  float m_scale_edit = 1.0f;  // the View menu's slider while it is dragged
  bool m_scale_editing = false;
};

}  // namespace bs
