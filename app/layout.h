// layout.h: where the app's windows go, relative to the main window. Every lab window has a slot (the lab's
// view on the left, its panel on the right, the Device bar under the panel, the readouts strip along the
// bottom, ...) computed from the main viewport's work area and the font size. A window stays in its slot,
// refitted every frame (window resize, F11, presenter mode, UI scale, the readouts strip shown or hidden),
// until the user moves or resizes it; from then on it keeps its place as a fraction of the work area and is
// clamped fully inside the window. View > Reset layout puts every window back in its slot.
//
// Windows are begun through the layout (begin_window, begin_free_window, begin_modal): it places them before
// ImGui::Begin and reads back where they are right after it (GetWindowPos / GetWindowSize /
// IsWindowCollapsed), all through ImGui's public API. The user's places are kept in their own small JSON file
// (layout.json next to imgui.ini) as fractions, so a layout saved on another screen size never restores a
// window off-screen.
#pragma once

#include <imgui.h>
#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>

namespace bs {

struct Rect {
  float x = 0, y = 0, w = 0, h = 0;
};

enum class Slot {
  View,      // the lab's field or view: the left part of the work area
  Panel,     // the lab's controls: a column on the right
  Device,    // the Device window: collapsed, under the panel
  Anatomy,   // floating, over the lower part of the view
  Sweep,     // floating, most of the work area
  Readouts,  // the big readouts: a strip along the bottom (reserved only while shown)
  Editor,    // the kernel editor: over the lab's view, so the lab's panel stays in sight beside it
};

// What a layout is computed from (all in ImGui's pixels).
struct LayoutMetrics {
  Rect work;                // the main viewport's work area (below the menu bar)
  float font = 15.0f;       // ImGui::GetFontSize()
  float frame_h = 19.0f;    // ImGui::GetFrameHeight(): a collapsed window's title bar
  float readouts_h = 0.0f;  // the readouts strip's height; 0 when the readouts are hidden
};

// The slot's rectangle (pure geometry, testable without ImGui).
Rect slot_rect(Slot slot, const LayoutMetrics& m);
// `r` shrunk to fit `area`, then moved fully inside it.
Rect clamp_into(Rect r, const Rect& area);
// `r` as fractions of `area`, and back.
Rect to_fraction(const Rect& r, const Rect& area);
Rect from_fraction(const Rect& f, const Rect& area);
bool inside(const Rect& r, const Rect& area, float tolerance = 0.5f);

class Layout {
 public:
  // Makes this layout the one begin_window() uses in the current ImGui context (call after CreateContext).
  void install();

  // The saved places (layout.json): {"blockscope_layout": 1, "windows": {"NAME": [x, y, w, h], ...}}, each
  // rectangle as fractions of the work area. load() replaces the saved places only when the whole text is a
  // layout; otherwise it changes nothing and returns why (a hand-edited fraction out of range is made sane,
  // not refused). to_json() is what save writes.
  std::optional<std::string> load(const std::string& text, const std::string& source);
  nlohmann::json to_json() const;
  // A user's place changed (or Reset layout) since the last take_dirty(); true at most once per change.
  bool take_dirty();
  bool dirty() const { return m_dirty; }

  // After NewFrame, before any window is built: updates the metrics (work area, font, readouts strip).
  void begin_frame(float readouts_h);
  // Every window back to its slot (and the Device window collapsed), from the next frame on.
  void reset();

  // ImGui::Begin(name, open, flags) for a window in `slot` (or in the place the user gave it). Call
  // ImGui::End() after it whatever it returns, as after ImGui::Begin.
  bool begin(const char* name, Slot slot, bool* open = nullptr, ImGuiWindowFlags flags = 0);
  // ImGui::Begin for a window with no slot (a dialog, the shortcut list): wherever ImGui or the caller puts
  // it, but brought back fully inside the work area (a display that shrank, a place restored from imgui.ini).
  bool begin_free(const char* name, bool* open = nullptr, ImGuiWindowFlags flags = 0);
  // ImGui::BeginPopupModal, kept inside the same way. Call ImGui::EndPopup() only when it returns true.
  bool begin_modal(const char* name, bool* open = nullptr, ImGuiWindowFlags flags = 0);
  // ImGui::Begin for a window its caller places itself (the readouts strip): only observed, for snapshot().
  bool begin_observed(const char* name, bool* open = nullptr, ImGuiWindowFlags flags = 0);

  const LayoutMetrics& metrics() const { return m_metrics; }
  Rect slot(Slot s) const { return slot_rect(s, m_metrics); }
  // Window `name` as it is on screen this frame (begun through the layout, not collapsed), else nothing.
  std::optional<Rect> visible(const std::string& name) const;
  // The windows begun through the layout this frame (name, rectangle, collapsed, moved) and the display and
  // work area, for tests and the BLOCKSCOPE_LAYOUT_DUMP file.
  // It also lists, under "overflow", every window of theirs (child windows included) whose contents are wider
  // than it: [{"window": ImGui's name, "px": how much wider, "scrolls": it has a horizontal scrollbar}].
  nlohmann::json snapshot() const;
  nlohmann::json overflow() const;
  // Windows the user moved out of their slot (by name), for tests.
  bool moved(const std::string& name) const;

 private:
  enum class Kind { Slotted, Free, Observed };
  struct Window {
    Kind kind = Kind::Slotted;
    Slot slot = Slot::View;
    bool moved = false;     // the user moved or resized it: it keeps `frac`, clamped
    Rect frac;              // its rectangle as fractions of the work area (when moved)
    Rect expected;          // where it should be after this frame's Begin (its full, expanded rectangle)
    bool held = false;      // this frame it was left where the user's mouse puts it (no placement)
    bool collapse = false;  // reset: collapse it (the Device window) next time it is placed
    // What Begin left: the rectangle on screen, the full (expanded) one, collapsed, and in which frame.
    Rect shown, full;
    bool collapsed = false;
    long frame = -1;
    float over_px = 0;     // how far its contents reach past its width (ImGui::GetScrollMaxX after Begin)
    bool hscroll = false;  // it scrolls sideways by design (ImGuiWindowFlags_HorizontalScrollbar)
    bool press_began_here = false;  // the left button went down over this window and is still down
  };
  Window& prepare(const char* name, Kind kind, Slot slot, ImGuiWindowFlags flags);
  void observe(Window& w);

  LayoutMetrics m_metrics;
  std::map<std::string, Window> m_windows;
  long m_frame = 0;
  bool m_dirty = false;
};

// The layout in force (null when none is installed in the current ImGui context).
Layout* current_layout();
// Layout::begin through the app's layout; plain ImGui::Begin without one (a test that builds a lab's UI
// alone). Call ImGui::End() after it whatever it returns.
bool begin_window(const char* name, Slot slot, bool* open = nullptr, ImGuiWindowFlags flags = 0);

}  // namespace bs
