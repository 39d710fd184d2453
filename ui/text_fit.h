// text_fit.h: a text shortened with "..." to fit a width, whatever measures it (ImGui's font in a panel, a
// figure canvas's text styles).
#pragma once

#include <string>

namespace bs::ui {

// `s` itself where width(s) <= max_w; else its longest head of whole UTF-8 characters that fits with "..."
// after it; "..." where no head does. `width` maps a std::string to its width (float).
template <class Width>
std::string fit_text_with(const std::string& s, float max_w, Width&& width) {
  if (width(s) <= max_w) return s;
  std::string cut = s;
  while (!cut.empty()) {
    // Drop one character: its UTF-8 continuation bytes, then its first byte.
    while (!cut.empty() && (static_cast<unsigned char>(cut.back()) & 0xc0) == 0x80)
      cut.pop_back();
    if (!cut.empty()) cut.pop_back();
    if (width(cut + "...") <= max_w) return cut + "...";
  }
  return "...";
}

}  // namespace bs::ui
