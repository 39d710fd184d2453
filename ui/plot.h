// plot.h: a small line-plot widget drawn with ImGui's draw lists (ImPlot is not packaged here): several
// series, linear or log axes, a legend, a hover read-out, optional 10th-90th percentile bands.
#pragma once

#include <imgui.h>

#include <span>
#include <string>
#include <vector>

namespace bs::ui {

struct PlotSeries {
  std::string label;
  std::span<const double> x;
  std::span<const double> y;
  ImU32 color = IM_COL32(255, 200, 80, 255);
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

// Draws the plot in a child region of `size` (0 width/height: fill available). Returns true while hovered.
bool plot_lines(const char* id, ImVec2 size, const PlotAxes& axes, std::span<const PlotSeries> series);

// "Nice" tick values between lo and hi (linear), or powers of ten (log).
std::vector<double> nice_ticks(double lo, double hi, int target_count, bool log_scale);
// Compact number formatting for ticks: 1.5k, 2M, 0.25, 1e-3.
std::string format_tick(double v);

}  // namespace bs::ui
