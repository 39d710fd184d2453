// presenter.h: presenter mode, UI scale and theme: fonts re-rasterized at the chosen scale (not stretched),
// style sizes scaled from a saved base style, a dark or light (projector) theme, a big-readouts strip with
// numbers readable from the back of a room, the keyboard shortcut overlay (F1) and short "toast" messages (a
// saved screenshot, a loaded session) drawn above every window.
#pragma once

#include <imgui.h>

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/enum_names.h"

namespace bs::ui {

// One big number for the readouts window: "GPU speedup" "41.7" "x" "vs CPU, all 16 threads (OpenMP)".
struct Readout {
  std::string label;
  std::string value;
  std::string unit;
  std::string hint;
};

// `text` in lines no wider than `width` (as `measure` says), broken at spaces only: a read-out's hint never
// splits a number ("4.5-63.4") across lines, as ImGui's wrapping does after '.', ',' and ';'. A word wider
// than `width` keeps a line of its own.
std::vector<std::string> wrap_at_spaces(std::string_view text, float width,
                                        const std::function<float(std::string_view)>& measure);

struct Shortcut {
  std::string keys;
  std::string what;
};

constexpr float k_min_ui_scale = 0.75f;
constexpr float k_max_ui_scale = 3.0f;
constexpr float k_presenter_scale = 1.75f;
constexpr float k_base_font_px = 15.0f;
constexpr float k_big_font_factor = 3.5f;    // readout numbers, relative to the text font
constexpr float k_max_big_font_px = 180.0f;  // keeps the atlas texture reasonable at large scales

enum class Theme { Dark, Light };

// How the presenter's windows are begun: ImGui::Begin unless the caller passes its own (the app passes its
// layout's, which keeps the window inside and records where it is). End() follows whatever it returns.
using BeginWindow = std::function<bool(const char* name, bool* open, ImGuiWindowFlags flags)>;
inline constexpr auto k_theme_names = enum_names<Theme>({{Theme::Dark, "dark"}, {Theme::Light, "light"}});
const char* to_string(Theme t);  // k_theme_names (sessions)

// Clamps a requested scale into [k_min_ui_scale, k_max_ui_scale]; NaN gives 1.
float clamp_ui_scale(float s);
// Text font size in pixels for a UI scale and the monitor's content scale.
float font_px(float ui_scale, float content_scale);
float big_font_px(float ui_scale, float content_scale);
// Whether `path` is a regular file of 1 KB to 64 MB that starts the way a TrueType or OpenType font (or a
// collection) does; else false and why not. Nothing else is read, so a FIFO or a directory never blocks.
bool looks_like_font_file(const std::string& path, std::string* why);
// The TrueType file the UI's fonts come from: $BLOCKSCOPE_FONT (`env`, may be null) where it names a usable
// font file, "" for ImGui's built-in font ("builtin"); otherwise DejaVu Sans where installed, else "". `note`
// says why a $BLOCKSCOPE_FONT was not used (empty when it was, or was not set).
std::string ui_font_file(const char* env, std::string* note);

class Presenter {
 public:
  // Once, after ImGui::CreateContext and the style colours are set, before the first frame: saves the base
  // style and builds the fonts (the GL font texture is then made by the backend's first NewFrame).
  void init(float content_scale, float ui_scale);

  float scale() const { return m_scale; }
  // The scale without presenter mode's boost (what a session saves).
  float base_scale() const { return m_presenter ? m_scale_before_presenter : m_scale; }
  // The next apply_pending() re-rasterizes the fonts at this scale (clamped).
  void set_scale(float s);
  bool presenter() const { return m_presenter; }
  // Presenter mode on: scale at least k_presenter_scale and the readouts window shown; off: back to the scale
  // in force before.
  void set_presenter(bool on);
  Theme theme() const { return m_theme; }
  // Takes effect at the next apply_pending() (the style is rebuilt from the base of the new theme).
  void set_theme(Theme t);

  // Between frames (never inside one): rebuilds the font atlas, its GL texture and the style when the scale
  // changed. True when something was rebuilt.
  bool apply_pending();

  ImFont* big_font() const { return m_big; }
  bool has_big_font() const { return m_big != nullptr; }

  // The height the readouts strip needs at this width (inside a frame: it measures with the current fonts).
  // Numbers are laid out in columns; columns that do not fit wrap to a second row; when the strip would be
  // taller than max_height the numbers are drawn smaller. draw_readouts uses the size chosen here.
  float fit_readouts(std::span<const Readout> readouts, float width, float max_height);
  // Windows, drawn inside a frame. The readouts fill the strip (x, y, w, h) the layout reserved for them.
  void draw_readouts(std::span<const Readout> readouts, const ImVec4& strip,
                     const BeginWindow& begin = {}) const;
  static void draw_shortcuts(std::span<const Shortcut> shortcuts, bool* open, const BeginWindow& begin = {});
  // Above every window (the foreground draw list), its bottom edge centred on `anchor`, wrapped at max_width.
  static void draw_toast(const std::string& text, bool error, ImVec2 anchor, float max_width);

 private:
  void build_fonts();
  void apply_style();
  struct ReadoutGrid {
    int cols = 1;
    std::vector<float> widths;  // per column (stretch weights)
    float px = 0;               // the numbers' size
    float height = 0;
  };
  std::vector<float> readout_widths(std::span<const Readout> readouts, float px) const;
  ReadoutGrid readout_grid(std::span<const Readout> readouts, float width, float px) const;

  float m_content = 1.0f;
  float m_scale = 1.0f;
  float m_built_scale = 0.0f;  // the scale the atlas and style were built for
  float m_scale_before_presenter = 1.0f;
  bool m_presenter = false;
  Theme m_theme = Theme::Dark;
  bool m_style_dirty = false;
  ReadoutGrid m_grid;  // chosen by fit_readouts for this frame
  ImFont* m_big = nullptr;
  std::string m_font_note;  // why the font file was refused, said once
  ImGuiStyle m_base;        // unscaled, dark colours: every rebuild scales from it, so scales never compound
};

}  // namespace bs::ui
