// plot_export.h: every live line plot in the app can be saved (right-click it): as PNG of a chosen pixel size
// and text scale, SVG, and its data as CSV and JSON. The plot widget queues the request inside the ImGui
// frame; the app runs the queue after rendering (PNG export renders through its own ImGui context) and writes
// a record (machine, versions, the lab's parameters) next to the files.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "ui/figure.h"
#include "ui/plot.h"

namespace bs::ui {

// The figure's data: one row per point (series, x, y, y_lo, y_hi), or the same as JSON.
std::string figure_csv(const fig::Figure& f);
std::string figure_json(const fig::Figure& f);

struct PlotExportJob {
  fig::Figure figure;
  std::string name;  // file stem, e.g. "heat-timing"
  bool png = true, svg = true, data = true;
  int width = 1200, height = 675;  // PNG pixels (the SVG's size in user units)
  float png_scale = 1.0f;
};

// The right-click menu of the last item (a plot or chart): queues the chosen export of the figure `make`
// builds (called only when an export is chosen, not every frame).
void figure_export_menu(const char* name, const std::function<fig::Figure()>& make);
// The same for a line plot of ui/plot.h.
void plot_export_menu(const char* name, const PlotAxes& axes, std::span<const PlotSeries> series);
void queue_plot_export(PlotExportJob job);
bool plot_exports_pending();

// Writes the queued jobs into `dir` (created) with `record_json` as <stem>.record.json beside each; needs a
// current GL context and no ImGui frame in progress. Returns one line: what was written, or the first error.
std::string run_plot_exports(const std::string& dir, const std::string& record_json);

}  // namespace bs::ui
