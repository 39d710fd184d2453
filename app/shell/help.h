// help.h: the Help menu (the keyboard shortcuts, the labs in a few lines each, where the documentation is, the
// version) and the hint a first start shows. The lab overview is the README's "What is in it" list, embedded
// at build time, so the window and the README never disagree.
#pragma once

#include <imgui.h>

#include <string>
#include <string_view>
#include <vector>

#include "app/layout.h"

namespace bs {

// One bullet of the README's "What is in it": "- **Heat lab.** Explicit 5-point ..." -> {"Heat lab", "..."},
// markdown emphasis and code marks removed, the bullet's lines joined.
struct HelpTopic {
  std::string title;
  std::string text;
};
std::vector<HelpTopic> lab_overview(std::string_view readme);

// Where README.md and docs/ are: the installed documentation folder and the source tree the binary was built
// from, each with whether it is there on this machine.
struct DocPlace {
  std::string path;
  std::string what;
  bool present = false;
};
std::vector<DocPlace> doc_places();

// Shown once, on the first start (no saved layout yet): where help is.
constexpr const char* k_first_start_hint =
    "First start: the Help menu explains each lab and where the docs are; F1 lists the keys. "
    "Change a launch in the panel on the right, press Enter, and watch the field.";

class HelpMenu {
 public:
  // In the main menu bar. `shortcuts` is the F1 list's open flag.
  void draw_menu(bool* shortcuts);
  // The windows the menu opens (the lab overview, the docs and version).
  void draw_windows(Layout& layout);
  bool overview_open() const { return m_overview; }
  // Where the menu and its "The labs" item were drawn last frame (centres; the item only while the menu is
  // open, else {-1, -1}): the window tests click them.
  ImVec2 menu_at() const { return m_menu_at; }
  ImVec2 labs_item_at() const { return m_labs_item_at; }

 private:
  ImVec2 m_menu_at{-1, -1}, m_labs_item_at{-1, -1};
  bool m_overview = false;
  bool m_about = false;
  std::vector<HelpTopic> m_topics;  // read from the embedded README when the overview first opens
};

}  // namespace bs
