// widgets.h: small ImGui building blocks every lab panel uses, so panels read and look the same.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <string>

namespace bs::ui {

// A spaced separator with a dim title: the start of a panel section.
void section_title(const char* title);
// A message next to the control it is about: errors in red, advice in amber. Empty text draws nothing.
void error_text(const std::string& s);
void advice_text(const std::string& s);
// The colormap picker (the built-in colormaps by name); true when the choice changed.
bool colormap_combo(int* index);

// True when the style in force has light window backgrounds (View > Theme > Light): messages and accents
// then use darker colours, readable on white.
bool light_theme();

// The colours of coloured text, one per meaning, chosen per theme so that they read on the window
// background from the back of a room: WCAG contrast >= 4.5:1 on both themes (tests/ui/widgets_test.cpp).
enum class Tone {
  Error,      // a refused value, a failed check
  Warning,    // advice, a caveat, a wide spread
  Pass,       // a check passed, a speedup
  Highlight,  // something to look at in the view (cells without a thread)
};
ImVec4 tone_colour(Tone t, bool light);
ImVec4 tone_colour(Tone t);  // for the theme in force
// The WCAG 2 contrast ratio of two opaque colours (1 .. 21).
double contrast_ratio(const ImVec4& a, const ImVec4& b);

// Wrapped text in any colour (empty text draws nothing).
void wrapped_text(const std::string& s, const ImVec4& colour);
// Wrapped text in the theme's dim colour: notes under a control or a picture.
void dim_text(const std::string& s);

// A figure colour (0xRRGGBBAA, as ui/figure.h) as ImGui's packed colour; `alpha` >= 0 replaces its alpha.
ImU32 rgba_u32(uint32_t rgba, int alpha = -1);

// n integer fields (1..4) that take effect only when the edit is committed: Enter, Tab, a click elsewhere,
// or a step button. While the field is being typed in, the typed values live in ImGui's state storage and
// v keeps the configuration in force, so typing 2048 never puts 2, 20 or 204 in force for a frame.
// True (and v written) at the commit when a value changed. step > 0 adds -/+ buttons (n == 1 only).
bool input_ints_on_commit(const char* label, int* v, int n, int step = 0, int step_fast = 0);
// A text field whose edits count only when committed: buf follows the keys (it is the panel's own
// text), the return value is true once, when the edit is committed.
bool input_text_on_commit(const char* label, char* buf, size_t size);

// Rows of widgets that reflow instead of running off the window's edge. Call between two widgets of a row,
// with the next widget's width: it stays on the same line where it fits before the edge (of the window,
// or of the table column), else it starts the next line.
void same_line_if_fits(float next_width);
// The widths to give same_line_if_fits: a button or small button (the same width), a field of `field_width`
// with its label on the right (the text after "##" is not shown and not counted).
float button_width(const char* label);
float labelled_width(float field_width, const char* label);
// Before a text that follows on the same line: it stays there where it fits, or where at least 8 em are left
// (a longer text wraps at its spaces within them), else it starts the next line. A word is never cut.
void same_line_if_text_fits(const std::string& text);
// `s` shortened with "..." to at most max_w wide in the current font (whole UTF-8 characters only): a label
// drawn on a picture, where it cannot wrap.
std::string fit_text(const std::string& s, float max_w);
// Pushes a text wrap position at the current window's right edge (not a table column's: a column sized to
// its contents would shrink around wrapped numbers, frame after frame). Pop with ImGui::PopTextWrapPos().
void wrap_at_window_edge();
// Text in the current window wraps at its edge until the end of the scope. Every window of the layout
// does this already; a child window (BeginChild) does not inherit it from its parent.
class WrapAtEdge {
 public:
  WrapAtEdge() { wrap_at_window_edge(); }
  ~WrapAtEdge() { ImGui::PopTextWrapPos(); }
  WrapAtEdge(const WrapAtEdge&) = delete;
  WrapAtEdge& operator=(const WrapAtEdge&) = delete;
};

}  // namespace bs::ui
