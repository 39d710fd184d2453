// figure_view.h: a fig::Figure drawn with ImGui draw lists: on screen as a widget with a hover read-out, or
// into any draw list (the PNG export draws the same picture on a light background).
#pragma once

#include <imgui.h>

#include <vector>

#include "ui/figure.h"

namespace bs::ui {

// Draws the figure in a region of `size` (0 width/height: fill what is available), dark like the rest of the
// UI unless `light` (the paper/slide look of the SVG and PNG). Hover: nearest point (lines), cell (heat map),
// bar with p10/p90 (bars). Returns true while hovered.
bool draw_figure(const char* id, ImVec2 size, const fig::Figure& f, bool light = false);

// Fonts for the three text styles; null: the current font, scaled. `body_size` is in draw-list units.
struct FigureFonts {
  ImFont* body = nullptr;
  ImFont* small = nullptr;
  ImFont* title = nullptr;
  float body_size = 0;  // 0: ImGui::GetFontSize()
};

// The shared drawing behind draw_figure and export_png: `f` laid out in (origin, size) of `dl`.
void paint_figure(ImDrawList* dl, ImVec2 origin, ImVec2 size, const fig::Figure& f, const fig::Theme& theme,
                  const FigureFonts& fonts = {}, std::vector<fig::Hit>* hits = nullptr);

}  // namespace bs::ui
