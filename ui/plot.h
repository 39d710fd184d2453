// plot.h: the live line plots of the lab panels (several series, linear or log axes, legend, hover read-out,
// optional 10th-90th percentile bands). A live plot is a fig::Figure drawn by the one figure painter
// (figure.h, through figure_view.h), in the compact dark look: its ranges, ticks, legend and hover targets
// are those of the PNG and SVG that its right-click menu saves.
#pragma once

#include <imgui.h>

#include <span>
#include <string>
#include <vector>

#include "ui/figure.h"
#include "ui/figure_view.h"

namespace bs::ui {

struct PlotSeries {
  std::string label;
  std::span<const double> x;
  std::span<const double> y;
  ImU32 color = 0;  // 0: the palette colour of the series' position (fig::palette), distinct from the others
  std::span<const double> y_lo;  // optional band (same length as y)
  std::span<const double> y_hi;
};

struct PlotAxes {
  std::string x_label;
  std::string y_label;
  bool log_x = false;
  bool log_y = false;
  bool y_from_zero = true;  // linear y axes start at 0 unless data go below
};

// The plot as a figure (Lines): its series (colours as given), bands and axes, and a title from the axis
// labels. What the export menu saves.
fig::Figure figure_from_plot(const PlotAxes& axes, std::span<const PlotSeries> series);
// The same figure in the compact on-screen look (no title: the panel names the plot). What plot_lines draws.
fig::Figure live_figure(const PlotAxes& axes, std::span<const PlotSeries> series);

// Draws the plot in a region of `size` (0 width/height: fill available) with the export menu on right-click.
// Returns true while hovered. `drawn` (tests): the layout and hover targets of what was drawn.
bool plot_lines(const char* id, ImVec2 size, const PlotAxes& axes, std::span<const PlotSeries> series,
                FigureDrawn* drawn = nullptr);

// The one tick code (figure.h), also for the labs' own charts (timelines, histograms).
using fig::format_tick;
using fig::nice_ticks;

}  // namespace bs::ui
