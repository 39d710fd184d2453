// figure.h: the figure a sweep's result draws as (lines, bars or a heat map, chosen from the swept
// parameters; or the roofline, app/sweep/roofline.h), and the GPU-beats-CPU crossover it marks. The one
// figure is painted on screen, to SVG and to PNG by ui/figure*. Pure C++ (no CUDA, no ImGui).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/enum_names.h"
#include "app/sweep/export.h"
#include "gpu/roofline/ceilings.h"
#include "ui/figure.h"

namespace bs::sweep {

// What the figure shows: time or throughput against the swept parameters, or the roofline (every series at
// every point under the ceilings; needs the lab's work model).
enum class Metric { Time, Throughput, Roofline };
inline constexpr auto k_metric_names = enum_names<Metric>({{Metric::Time, "time"},
                                                           {Metric::Throughput, "throughput"},
                                                           {Metric::Roofline, "roofline"}});  // --metric
struct FigureOptions {
  Metric metric = Metric::Time;
  std::optional<bool> log_x;  // nullopt: log when the values span 16x or more
  std::optional<bool> log_y;  // nullopt: log when the medians span 16x or more
  std::string subtitle;       // e.g. the GPU and CUDA version; "" -> built from the result
  // Metric::Roofline: the ceilings measured on this machine (the per-device cache); absent ones are named
  // missing in the subtitle, never made up.
  std::optional<roofline::Ceilings> gpu_ceilings, cpu_ceilings;
};
// One numeric parameter -> Lines (one series per series name, band p10-p90, a Marker where a GPU series first
// becomes faster than the best CPU series); one categorical parameter -> Bars; a numeric and a categorical
// parameter -> Lines with one series per (category, series); two numeric parameters -> Heatmap of the GPU
// series (or the first series when no GPU ran) with the best cell marked. Metric::Roofline: the roofline of
// the lab's target (roofline_figure, app/sweep/roofline.h).
fig::Figure figure_for(const Result& r, const FigureOptions& opt = {});

// Where series `gpu` first becomes faster than the lower of the CPU curves after having been slower,
// interpolated in (x, log ratio) (x in log space when log_x). x ascending; NaN means no value.
std::optional<double> find_crossover(const std::vector<double>& x, const std::vector<double>& gpu_ms,
                                     const std::vector<double>& best_cpu_ms, bool log_x);

}  // namespace bs::sweep
