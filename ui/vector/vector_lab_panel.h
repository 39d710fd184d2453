// vector_lab_panel.h: the vector lab's ImGui panels: the controls and per-run read-outs (stacked copy/kernel
// bars, copy rates against the nominal link, CPU rows), and the views (the strip of elements coloured by the
// block or grid-stride pass that touched them, the stream timeline, the size sweep on log-log axes). The
// panels edit a model and report actions; app/vector/vector_lab.cpp acts on them. The layout helpers below
// are pure arithmetic so that tests can check the geometry without a GL context.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/stats.h"
#include "gpu/vector/vector.h"
#include "ui/kernel/simulated_run.h"

namespace bs::ui {

// --- Layout helpers (pure)
// ----------------------------------------------------------------------------------

// One segment of a stacked horizontal bar, in pixels from the bar's left end.
struct BarSegment {
  float x0 = 0, x1 = 0;
  int part = 0;  // index into the values given
};
// Splits `width` pixels among the non-negative values in proportion to them, but gives every positive value
// at least min_px (so a 5 us kernel next to 40 ms of copies stays visible); the others shrink to make room.
// Zero values get no segment. Segments are contiguous and end at width (unless all values are zero).
std::vector<BarSegment> stacked_bar(std::span<const double> values, float width, float min_px);

// One operation of a stream timeline as a rectangle: row = stream, x = time from the first event.
struct TimelineRect {
  float x0 = 0, x1 = 0, y0 = 0, y1 = 0;
  vector::OpKind kind = vector::OpKind::Kernel;
  int stream = 0;
  int chunk = 0;
};
// x: 0..width over [0, span_ms] (span_ms <= 0: the timeline's own total); y: row `stream` at stream *
// (row_h + gap). Every op gets at least 1 px so that microsecond kernels still show.
std::vector<TimelineRect> timeline_rects(const vector::Timeline& t, float width, float row_h, float gap,
                                         double span_ms = 0);

// A vertical marker line on the sweep plot, as a two-point series (plot_lines draws it like any other line).
struct CrossoverMarker {
  std::array<double, 2> x{};
  std::array<double, 2> y{};
  std::string label;  // legend text: "GPU (with copies) wins from ~3.2M"
};
// nullopt unless c is InRange or GpuAlwaysWins; y spans [y_lo, y_hi] (the data range of the plot).
std::optional<CrossoverMarker> crossover_marker(const vector::Crossover& c, double y_lo, double y_hi);

// How a strip of `count` cells wraps into rows inside `width` x `max_h` pixels: per_row is a power of two (so
// power-of-two blocks line up in columns), cells `cell` px high (in [min_cell, max_cell], as large as fits)
// and cell_w wide (filling the row).
struct StripGeometry {
  float cell = 0;    // height (and at least the width) of a cell
  float cell_w = 0;  // width: width / per_row, whole pixels
  int64_t per_row = 0;
  int64_t rows = 0;
};
StripGeometry strip_geometry(int64_t count, float width, float max_h, float min_cell, float max_cell);

// The colour group of an element: its block (one per element, or grid-stride with by_block) or its pass.
int64_t strip_group(const vector::Touch& t, vector::Indexing ix, bool grid_stride_by_block);

// Categorical colour number `i` (cycles through k_strip_palette_size distinct colours).
constexpr int k_strip_palette_size = 12;
uint32_t strip_colour(int64_t group);

// The colour of an operation wherever the lab draws one (an ImU32, as strip_colour): H2D copies blue, kernels
// green, D2H copies orange.
uint32_t kind_colour(vector::OpKind k);

// --- Model and actions -------------------------------------------------------------------------------------

struct GpuRunView {
  std::string variant;  // "GPU add, float4, grid-stride, pinned, 4 streams"
  int64_t n = 0;
  bool pinned = false;
  int streams = 1;
  double h2d_ms = 0, kernel_ms = 0, d2h_ms = 0;  // medians (streamed runs: sums over chunks)
  Summary total;                                 // wall time of a run
  double h2d_gbs = 0, d2h_gbs = 0, kernel_gbs = 0;
  std::string check;
  bool check_passed = true;
  std::string
      resources;         // the user's kernel: "23 regs, 0 B smem, 8 blocks/SM ... occupancy"; empty otherwise
  std::string note;      // e.g. "kernel only: inputs already on the GPU"
  double launch_us = 0;  // one empty kernel between events (0: not measured)
  double round_trip_us = 0;  // launch + synchronize, host clock
  vector::Timeline timeline;
};

struct CpuRowView {
  std::string label;
  std::optional<Summary> ms;
  int64_t n = 0;
};

struct VectorPanelModel {
  // Every edited field from the vector schema's defaults (ui/vector/vector_schema.h).
  VectorPanelModel();
  // Edited by the panel.
  int op = 0;            // vector::Op
  int kernel = 0;        // 0: the built-in kernels, 1: the user's vector_op (kernel lab), checked against op
  char n_text[32] = "";  // parsed with vector::parse_count
  int indexing = 0;      // vector::Indexing
  int width = 0;         // vector::LoadWidth
  int block = 0;
  bool pinned = false;
  int streams = 0;
  char sweep_max_text[32] = "";
  int strip_count = 0;  // elements shown in the strip
  int strip_grid = 0;   // grid-stride blocks used by the strip (a small grid so that passes fit on screen)
  bool strip_grid_like_gpu = false;
  bool grid_stride_by_block = false;

  // Shown by the panel.
  bool gpu = false;  // a CUDA device runs the GPU rows
  std::string compute_label;
  std::string gpu_missing;  // why GPU rows are not available
  vector::Params params;    // the parameters in force (last valid)
  std::string n_error, param_error, memory_note;
  int64_t gpu_stride_grid = 0;  // the real grid-stride grid on this GPU (0: no GPU)
  std::string link_text;        // nominal link, marked as assumed
  double link_gbs = 0;

  // The user's vector_op (kernel = 1): what runs, or why not; its compiled figures at the lab's block.
  std::string user_status;
  bool user_ready = false;  // a compiled vector_op is loaded and "Run on GPU" runs it
  std::string user_figures;
  // Without a GPU: the user's vector_op in the PTX simulator (app/kernel/lab_sim.h), checked against op.
  bool user_can_simulate = false;
  SimulatedRunView user_sim;

  bool gpu_running = false;
  std::string gpu_status;        // error text of the last GPU run
  std::vector<GpuRunView> runs;  // newest last (a few, to compare pinned/pageable, streams)
  std::optional<vector::CopyRates> rates;

  bool cpu_running = false;
  double cpu_progress = 0;
  std::string cpu_stage, cpu_status;
  CpuRowView cpu[2];

  bool sweep_running = false;
  double sweep_progress = 0;
  std::string sweep_status;
  std::optional<vector::SweepResult> sweep;
};

struct VectorPanelActions {
  bool params_changed = false;
  bool run_gpu = false;
  bool run_cpu = false;
  bool cancel_cpu = false;
  bool run_sweep = false;
  bool cancel_sweep = false;
  bool clear_runs = false;
  bool simulate_user = false;  // the user's vector_op in the simulator (no GPU)
  SimulatedRunActions user_sim;
};

// The controls and per-run read-outs.
void draw_vector_panel(VectorPanelModel& m, VectorPanelActions& a);
// The strip view, the stream timeline and the size sweep.
void draw_vector_views(VectorPanelModel& m, VectorPanelActions& a);

}  // namespace bs::ui
