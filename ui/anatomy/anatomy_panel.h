// anatomy_panel.h: the kernel-anatomy views (pure ImGui, no CUDA): the overlay legend, the block scheduling
// timeline (one row per SM, one bar per block over time; drawn by one function into any ImDrawList, so the
// window and the PNG export show the same chart), and the occupancy panel with its occupancy-vs-block-size
// curve and measured kernel times.
#pragma once

#include <imgui.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpu/anatomy/anatomy.h"

namespace bs::ui {

// --- Overlay legend
// -------------------------------------------------------------------------------------------
struct OverlayLegend {
  bool categorical = true;
  int period = 12;                     // categorical: colours 0 .. period-1 of the palette
  std::array<uint32_t, 12> palette{};  // 0xAABBGGRR
  std::array<uint32_t, 256> ramp{};    // continuous: the colour bar
  double lo = 0, hi = 0;               // continuous: range (microseconds)
  std::string text;                    // "colour = (blockIdx.x + blockIdx.y * gridDim.x) mod 12"
  std::string source;                  // where the colours came from ("instrumented run: not used ...")
};
void draw_overlay_legend(const OverlayLegend& l);

// --- Timeline
// ---------------------------------------------------------------------------------------------------
enum class TimelineColour { Wave, BlockIdx };

// Where lanes and bars go inside a chart rectangle; pure arithmetic, tested without a GL context.
struct TimelineLayout {
  float plot_x0 = 0, plot_y0 = 0, plot_w = 0, plot_h = 0;  // the bar area
  float row_h = 0;
  int lanes = 0;
  double t_lo_ns = 0, t_hi_ns = 1;  // the visible time window
};
// `size` is the whole chart (axis labels included); rows share the height evenly (at least 1 px each).
TimelineLayout layout_timeline(ImVec2 origin, ImVec2 size, int lanes, double t_lo_ns, double t_hi_ns,
                               float font_size);
// The row rectangle of lane i: (y0, y1).
std::pair<float, float> lane_rows(const TimelineLayout& l, int lane);
// The x extent of a bar [start, end] clipped to the visible window; nullopt when it lies outside. Bars are at
// least 1 px wide so that blocks shorter than the timer's step still show.
std::optional<std::pair<float, float>> bar_span(const TimelineLayout& l, int64_t start_ns, int64_t end_ns);

struct TimelineHover {
  bool valid = false;
  int lane = 0;
  anatomy::TimelineBlock block;
  uint32_t sm = 0;
};
// Draws the chart (background, time axis in us, SM labels, bars, idle lanes shaded) into `dl`. Returns the
// block under `mouse` when given.
TimelineHover draw_timeline_chart(ImDrawList* dl, ImVec2 origin, ImVec2 size, const anatomy::Timeline& t,
                                  TimelineColour colour, double t_lo_ns, double t_hi_ns,
                                  std::optional<ImVec2> mouse = std::nullopt, bool light = false);

// The chart as a PNG (1600 px wide, a title line with the wave counts above it), through ui::render_png:
// needs a current GL context. False with `error` filled when it cannot be written.
bool export_timeline_png(const anatomy::Timeline& t, const std::string& title, const std::string& path,
                         std::string* error);

// The interactive panel: header (waves predicted vs observed, idle SMs, tail), colour choice, zoom (mouse
// wheel over the chart, drag to pan, "reset zoom"), hover read-out.
struct TimelineViewState {
  TimelineColour colour = TimelineColour::Wave;
  double t_lo_ns = 0, t_hi_ns = 0;  // 0, 0: whole span
};
void draw_timeline_panel(const anatomy::Timeline& t, const std::string& title, TimelineViewState& s);

// --- Occupancy
// ----------------------------------------------------------------------------------------------------
struct OccupancyPanelModel {
  std::string kernel;  // "heat stencil, 8 cells/thread"
  std::string source;  // "GPU: NVIDIA H100 (cudaOccupancyMaxActiveBlocksPerMultiprocessor)" or "model..."
  bool measured_regs = false;  // registers from cudaFuncGetAttributes (else assumed, editable)
  int regs_per_thread = 32;
  int64_t static_smem = 0, dynamic_smem = 0;
  int threads = 256;
  anatomy::Occupancy model;
  std::string limiter;                       // anatomy::limiter_label(model.limiter)
  std::optional<int> runtime_blocks_per_sm;  // the CUDA API, on a GPU
  std::string arch_name;
  int max_warps_per_sm = 64;
  // The architecture picker: "this GPU (name)" first where a GPU exists, then the table (sm_75 .. sm_90).
  // arch_choice indexes it; the model recomputes for the chosen architecture.
  std::vector<std::string> arch_choices;
  int arch_choice = 0;
  // The curve: occupancy (model) for 32..1024 threads, and measured kernel times where swept.
  std::vector<double> curve_threads, curve_occupancy;
  std::vector<double> runtime_threads, runtime_occupancy;  // the CUDA API's answer, on a GPU
  std::vector<double> measured_threads, measured_ms;
  std::string measured_label;  // what the sweep timed
  bool can_sweep = false;
  std::string sweep_unavailable;  // why not ("needs a GPU")
  bool sweep_running = false;
  double sweep_progress = 0;
  std::string sweep_status;
};
struct OccupancyPanelActions {
  bool regs_changed = false;
  bool arch_changed = false;
  bool run_sweep = false;
  bool cancel_sweep = false;
};
void draw_occupancy_panel(OccupancyPanelModel& m, OccupancyPanelActions& a);

// The picker's entries: "this GPU (<gpu_name>)" first when `gpu_name` is not empty, then every table
// architecture as "sm_80 (Ampere)".
std::vector<std::string> occupancy_arch_choices(const std::string& gpu_name);
// The table architecture of entry `choice` (nullopt: the "this GPU" entry, or out of range).
std::optional<anatomy::ArchSpec> occupancy_arch(int choice, bool has_gpu_entry);
// The model part of the panel for `arch` (pure, no ImGui): occupancy of the current block (threads,
// registers, static shared memory clamped to the architecture's limits), its limiter and the curve over block
// sizes. The picker recomputes through it.
void compute_occupancy_model(OccupancyPanelModel& m, const anatomy::ArchSpec& arch);

// Wave arithmetic shown in the panels: "4 waves = ceil(1024 blocks / (132 SMs x 2 resident))".
std::string waves_text(int64_t blocks, int sm_count, int blocks_per_sm);

}  // namespace bs::ui
