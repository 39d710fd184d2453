// layout.h: where the app's windows go, relative to the main window. Every lab window has a slot (the lab's
// view on the left, its panel on the right, the Device bar under the panel, the readouts strip along the
// bottom, ...) computed from the main viewport's work area and the font size. A window stays in its slot,
// refitted every frame (window resize, F11, presenter mode, UI scale, the readouts strip shown or hidden),
// until the user moves or resizes it; from then on it keeps its place as a fraction of the work area and is
// clamped fully inside the window. View > Reset layout puts every window back in its slot. The layout is
// saved in imgui.ini as fractions ([BlockscopeLayout] entries), so a layout saved on another screen size
// never restores a window off-screen.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>

struct ImGuiContext;
struct ImGuiSettingsHandler;
struct ImGuiTextBuffer;

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
  // Registers the [BlockscopeLayout] ini handler; call once right after ImGui::CreateContext, before the
  // first NewFrame (ImGui reads the ini file there). Makes this layout the one place_window() uses.
  void install(ImGuiContext* ctx);
  // After NewFrame, before any window is built: updates the metrics and clamps every visible window (those
  // without a slot too: the sweep's dialogs, popups, the shortcut list) fully into the work area.
  void begin_frame(float readouts_h);
  // Before ImGui::Render: notes windows the user moved or resized (they leave their slot).
  void end_frame();
  // Every window back to its slot (and the Device window collapsed), from the next frame on.
  void reset();

  // Before ImGui::Begin(name): SetNextWindowPos/Size for the window's slot (or its user-chosen place).
  void place(const char* name, Slot slot);

  const LayoutMetrics& metrics() const { return m_metrics; }
  Rect slot(Slot s) const { return slot_rect(s, m_metrics); }
  // The visible windows (name, rectangle, collapsed) and the display and work area, for tests and the
  // BLOCKSCOPE_LAYOUT_DUMP file.
  nlohmann::json snapshot() const;
  // Windows the user moved out of their slot (by name), for tests.
  bool moved(const std::string& name) const;

 private:
  struct Placed {
    Slot slot = Slot::View;
    bool moved = false;  // the user moved or resized it: it keeps `frac`, clamped
    Rect frac;           // its rectangle as fractions of the work area (when moved)
    Rect placed;         // where place() put it this frame
    bool placed_this_frame = false;
    bool collapse = false;  // reset: collapse it (the Device window) next time it is placed
  };
  static void* ini_open(ImGuiContext*, ImGuiSettingsHandler*, const char* name);
  static void ini_line(ImGuiContext*, ImGuiSettingsHandler*, void* entry, const char* line);
  static void ini_write(ImGuiContext*, ImGuiSettingsHandler*, ImGuiTextBuffer* out);

  LayoutMetrics m_metrics;
  std::map<std::string, Placed> m_windows;
};

// Places window `name` in `slot` through the app's layout (a no-op without one, e.g. in a test that builds a
// lab's UI alone).
void place_window(const char* name, Slot slot);
// The layout in force (null when none is installed in the current ImGui context).
Layout* current_layout();

}  // namespace bs
