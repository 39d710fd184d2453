// montecarlo_lab_panel.h: the Monte Carlo lab's ImGui side: the parameter/price/launch/CPU panel, the view
// (sample paths image, terminal-price histogram with the lognormal density, convergence plot), and the pure
// bookkeeping behind them (batch schedule, convergence points, density overlay) that the tests check. It
// edits a model and reports actions; the lab (app/montecarlo/montecarlo_lab.cpp) acts on them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpu/montecarlo/montecarlo.h"

namespace bs::ui::mc {

// --- Pure helpers ------------------------------------------------------------------------------------------

// Consecutive sample ranges covering [0, samples) whose cumulative ends grow by `ratio` (>= 1.1) from
// `first`: evenly spaced points on a log axis, more of them than doubling gives (a convergence plot that
// fills in).
std::vector<montecarlo::SampleRange> growing_batches(int64_t samples, int64_t first, double ratio);

struct ConvergencePoint {
  int64_t paths = 0;      // simulated paths so far
  double price = 0;       // cumulative estimate
  double half_width = 0;  // of the 95% confidence interval
  double abs_error = 0;   // |price - Black-Scholes|; NaN without a closed form (Asian)
  double std_error = 0;
};

// The points of one run, in order of paths. What the plot shows: |error| when there is a closed form, else
// the CI half-width; the guide is the 1/sqrt(N) curve through the newest point's standard error.
class ConvergenceTrack {
 public:
  void clear() { m_points.clear(); }
  // Ignores an estimate whose path count does not grow (a stale or repeated batch) or has no standard error.
  bool add(const montecarlo::Estimate& e, std::optional<double> reference);
  const std::vector<ConvergencePoint>& points() const { return m_points; }
  bool empty() const { return m_points.empty(); }
  std::vector<double> xs() const;
  std::vector<double> ys(bool has_reference) const;
  // The 1/sqrt(N) curve through the newest point's standard error (with a closed form: where a typical
  // |error| sits for N paths) or through its CI half-width (without one: what ys(false) plots).
  std::vector<double> guide(const std::vector<double>& x, bool has_reference = true) const;

 private:
  std::vector<ConvergencePoint> m_points;
};

// The lognormal density of S_T scaled to histogram counts (count per bin = total * pdf(s) * bin width),
// sampled `per_bin` times per bin across [h.lo, h.hi]. Empty for an empty histogram or sigma = 0.
struct DensityCurve {
  std::vector<double> x, y;
};
DensityCurve density_in_counts(const montecarlo::Histogram& h, const montecarlo::Params& p, int per_bin = 3);

// --- Panel model -------------------------------------------------------------------------------------------

struct LaunchRow {
  std::string variant;
  montecarlo::LaunchShape shape;
  double ms = 0, p10 = 0, p90 = 0;
  double gpath_steps_per_s = 0;
};

struct CpuRunView {
  std::string label;
  bool running = false;
  double progress = 0;
  std::optional<montecarlo::Result> result;
  std::string status;  // "cancelled", error text
};

struct PanelModel {
  // Every edited field from the Monte Carlo schema's defaults (ui/montecarlo/montecarlo_schema.h).
  PanelModel();
  // Edited by the panel.
  montecarlo::Params params;
  int option = 0;     // montecarlo::OptionType
  int generator = 0;  // montecarlo::Generator
  int sample_paths = 0;
  int bins = 0;
  int block = 0;
  int layout = 0;  // montecarlo::Layout
  int waves = 0;
  bool paused = false;

  // Shown by the panel.
  bool gpu = true;
  std::string compute_label;   // who computes the live run
  std::string paths_label;     // how the sample paths reached GL
  montecarlo::Params running;  // the parameters of the run on screen (the last valid ones)
  std::optional<montecarlo::ParamError> param_error;
  std::string options_error;
  std::string launch_error;
  std::string runtime_error;
  montecarlo::Estimate estimate;
  std::optional<double> reference;
  int64_t target_paths = 0;
  int batches_done = 0, batches_total = 0;
  double live_ms = 0;  // GPU kernel time of the live batches so far (CUDA events) or CPU wall time
  ConvergenceTrack convergence;
  montecarlo::Histogram histogram;
  DensityCurve density;
  std::optional<montecarlo::LaunchShape> shape;
  std::vector<LaunchRow> launch_rows;
  std::string launch_note;
  CpuRunView cpu[2];
  // The paths image (a GL texture rendered by the lab) and its price axis.
  unsigned paths_texture = 0;
  int paths_count = 0;
  double price_lo = 0, price_hi = 1;
};

struct PanelActions {
  bool params_changed = false;  // validate and restart the live run
  bool restart = false;
  bool launch_changed = false;
  bool time_launch = false;
  bool run_cpu[2] = {false, false};
  bool cancel_cpu[2] = {false, false};
  // The size the paths image should have (pixels); set by draw_montecarlo_view.
  int paths_w = 0, paths_h = 0;
};

// The right-hand panel: parameters, price vs Black-Scholes, launch configuration, CPU runs.
void draw_montecarlo_panel(PanelModel& m, PanelActions& a);
// The left-hand view: sample paths image, histogram with the density, convergence plot.
void draw_montecarlo_view(PanelModel& m, PanelActions& a);

}  // namespace bs::ui::mc
