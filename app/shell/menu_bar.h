// menu_bar.h: the main menu bar: the app's menus, then the lab bar (one entry per lab, the open one checked),
// and the render path's status at the right end. The bar shortens itself to fit (presenter mode, 720p):
// level 0 has everything, level 1 drops the brand and uses short lab names, level 2 gathers the labs into
// one "Lab" menu named by the open lab, level 3 names it by the lab's short name (a narrow window, or the
// wider built-in font where DejaVu is missing). The path status always stays; left of it, the active lab's
// roofline read-out (its newest run's % of the nearer ceiling, app/shell/ceiling_readout.h) where there is
// room.
#pragma once

#include <functional>
#include <string>

#include "app/shell/ceiling_readout.h"
#include "ui/device_panel.h"

namespace bs {

class MenuBar {
 public:
  // Inside a frame. `draw_menus` draws the app's menus (Session, Edit, View, Sweep); returns the id of the
  // lab picked in the lab bar this frame, or an empty string.
  std::string draw(const ui::PathView& pv, const std::string& active_lab,
                   const std::function<void()>& draw_menus,
                   const std::optional<CeilingReadout>& roofline = {});
  // Whether the roofline read-out fitted and was drawn in the last frame.
  bool roofline_shown() const { return m_roofline_shown; }
  // The form drawn (long, or short where the long one does not fit); empty when none fitted.
  const std::string& roofline_text() const { return m_roofline_text; }
  // How much the bar is shortened (0: not at all), and the pixels its items ran past its right end (0: they
  // fit), in the last frame.
  int level() const { return m_level; }
  float overflow() const { return m_overflow; }

 private:
  int m_level = 0;
  float m_overflow = 0;
  bool m_roofline_shown = false;
  std::string m_roofline_text;
};

}  // namespace bs
