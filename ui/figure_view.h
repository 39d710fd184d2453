// figure_view.h: a fig::Figure drawn with ImGui draw lists: on screen as a widget with a hover read-out, or
// into any draw list (the PNG export draws the same picture on a light background).
#pragma once

#include <imgui.h>

#include <vector>

#include "ui/figure.h"

namespace bs::ui {

// Which point of a line plot the hover read-out describes.
enum class HoverPick {
  Near,     // a point within two text heights of the mouse (none elsewhere)
  Nearest,  // the point nearest the mouse anywhere over the plot area (the live plots: always a read-out)
};

// What draw_figure laid out: the region, the painter's layout and its hover targets, and the target the
// read-out showed (-1: none). Tests compare it with what the painter gives an export.
struct FigureDrawn {
  ImVec2 origin, size;
  fig::Layout layout;
  std::vector<fig::Hit> hits;
  int hovered_hit = -1;
};

// Draws the figure in a region of `size` (0 width/height: fill what is available) in the UI's theme (dark,
// or light under View > Theme > Light), or light when `light` (the paper/slide look of the SVG and PNG). Hover: a point (lines, see HoverPick), cell
// (heat map), bar with p10/p90 (bars). Returns true while hovered. `drawn`, when given, receives the layout
// and every hover target whether hovered or not.
bool draw_figure(const char* id, ImVec2 size, const fig::Figure& f, bool light = false,
                 HoverPick pick = HoverPick::Near, FigureDrawn* drawn = nullptr);

// The hover target under `mouse` (index into hits, -1 for none): for points as `pick` says (Nearest: only
// over `layout`'s plot area), else the rectangle holding it. `near` is the Near pick's distance.
int pick_hit(const std::vector<fig::Hit>& hits, const fig::Layout& layout, ImVec2 mouse, HoverPick pick,
             float near);

// Fonts for the three text styles; null: the current font, scaled. `body_size` is in draw-list units.
struct FigureFonts {
  ImFont* body = nullptr;
  ImFont* small = nullptr;
  ImFont* title = nullptr;
  float body_size = 0;  // 0: ImGui::GetFontSize()
};

// The shared drawing behind draw_figure and export_png: `f` laid out in (origin, size) of `dl`.
void paint_figure(ImDrawList* dl, ImVec2 origin, ImVec2 size, const fig::Figure& f, const fig::Theme& theme,
                  const FigureFonts& fonts = {}, std::vector<fig::Hit>* hits = nullptr,
                  fig::Layout* layout = nullptr);

}  // namespace bs::ui
