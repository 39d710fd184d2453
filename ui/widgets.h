// widgets.h: small ImGui building blocks every lab panel uses, so panels read and look the same.
#pragma once

#include <imgui.h>

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

// Wrapped text in any colour (empty text draws nothing).
void wrapped_text(const std::string& s, const ImVec4& colour);

}  // namespace bs::ui
