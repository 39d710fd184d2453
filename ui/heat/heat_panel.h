// heat_panel.h: the heat lab's ImGui panel: physics, launch configuration, run control, timing read-outs, CPU
// baselines and the live timing plot. It edits a model and reports actions; the lab (app/) acts on them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/launch.h"
#include "core/stats.h"
#include "gpu/heat/heat.h"
#include "ui/kernel/simulated_run.h"

namespace bs::ui {

struct CpuBaselineView {
  std::string label;
  bool running = false;
  double progress = 0;
  std::optional<double> ms_per_step;         // median of the last finished run
  int64_t measured_nx = 0, measured_ny = 0;  // the grid it was measured on
  std::string status;                        // "cancelled", error text
};

// The launch the heat kernel runs now: the last configuration the lab accepted (a rejected block in the panel
// is never drawn, measured or mapped).
struct HeatLaunch {
  Dim2 block = heat::k_default_block;
  Dim2 grid{1, 1};
  int cells_per_thread = heat::k_default_cells_per_thread;
};

// Every edited field starts at the heat schema's default (ui/heat/heat_schema.h): the constructor reads them.
struct HeatPanelModel {
  HeatPanelModel();

  // Edited by the panel.
  heat::Params params;
  int size[2] = {0, 0};
  int pattern = 0;  // heat::InitialPattern
  int steps_per_frame = 0;
  bool paused = false;
  int block[2] = {0, 0};
  int cells_per_thread = 0;
  int kernel = 0;       // 0: the built-in step, 1: the user's heat_step (the kernel lab)
  int fused_steps = 1;  // temporal blocking: steps per pass over memory (1: the one-step kernel)
  bool manual_grid = false;
  int grid[2] = {32, 128};  // shown when the user switches to a grid by hand
  int colormap = 0;
  bool auto_range = true;
  float range[2] = {0.0f, 1.0f};
  bool block_lines = false;
  float brush_radius = 0;
  float brush_hot = 0;
  float brush_cold = 0;
  int cpu_steps = 0;

  // Shown by the panel.
  std::string floor_note;  // after "floor division" on a field the block divides: why nothing is hatched
  bool gpu = true;               // compute runs on the GPU (false: CPU fallback path)
  int64_t nx = 1024, ny = 1024;  // the field in force (size may hold a typed size not applied yet)
  HeatLaunch launch;             // the launch in force
  // Temporal blocking in force (fused > 1 only on the GPU with the built-in step): the tile and what a pass
  // costs over the field in force (computed / useful cell updates, DRAM bytes per useful update).
  struct Temporal {
    int fused = 1;
    std::string tile;
    double computed_per_useful = 1;
    double bytes_per_update = 8;
  } temporal;
  // The user's kernel (kernel = 1): "" while it runs; otherwise why the built-in step runs instead ("write
  // one in the Kernel editor", "needs a GPU", a load error). Figures: registers, shared memory, occupancy.
  std::string user_kernel_status;
  std::string user_kernel_figures;
  bool user_kernel_running = false;
  // Without a GPU the user's heat_step runs in the PTX simulator, a step at a time, each step checked against
  // the CPU step of the same field (app/kernel/lab_sim.h); the field marks the cells its diagnostics concern.
  SimulatedRunView user_sim;
  std::string compute_label;
  std::string param_error;
  std::string launch_error;
  std::string launch_advice;
  std::string runtime_error;
  Coverage coverage;
  Summary step_ms;                       // GPU (or CPU fallback) per-step time over the window
  int64_t timing_nx = 0, timing_ny = 0;  // the field step_ms was measured on
  double first_step_ms = 0;              // the first (warm-up) batch, shown apart
  size_t warmup_discarded = 0;
  std::vector<double> history_x, history_ms, history_lo, history_hi;
  double copy_gb_per_s = 0;          // bandwidth ceiling from the copy kernel, if measured
  int64_t copy_nx = 0, copy_ny = 0;  // the footprint it was measured over
  bool paused_for_baseline = false;  // a CPU baseline runs: the live simulation waits
  double simulated_time = 0;
  int64_t steps_done = 0;
  CpuBaselineView cpu[2];
};

struct HeatPanelActions {
  bool apply_size = false;  // size or pattern changed: rebuild
  bool reset = false;
  bool step_once = false;
  bool launch_changed = false;
  bool physics_changed = false;
  bool run_cpu[2] = {false, false};
  bool cancel_cpu[2] = {false, false};
  bool measure_copy = false;
  SimulatedRunActions user_sim;
};

void draw_heat_panel(HeatPanelModel& m, HeatPanelActions& a);

// "floor division (the tutorial mistake)": grid = n / cells per block, rounded down (at least 1). When the
// block divides the field exactly, floor and ceil agree and nothing is hatched: the note says so and why,
// so the lesson shows on any field size (empty when the floor grid leaves cells without a thread).
struct FloorLesson {
  Dim2 grid{1, 1};
  std::string note;
};
FloorLesson floor_lesson(int64_t nx, int64_t ny, Dim2 cells_per_block);
// "set grid by hand" ticked (on) or cleared: ticked, the grid boxes start from the covering grid in force, so
// the first edit changes one thing, not the whole launch; the floor-division note of an earlier choice goes.
void set_manual_grid(HeatPanelModel& m, bool on);

// --- The rules behind the timing read-outs (pure; the panel and the presenter's read-outs use them) ---
// Cell updates and effective bandwidth (8 bytes per cell per step: one read, one write) of a step of
// `ms_per_step` on an nx x ny field.
struct HeatRates {
  double mcells_per_s = 0;
  double gb_per_s = 0;
};
HeatRates heat_rates(double ms_per_step, int64_t nx, int64_t ny);
// The temporal-blocking lines of the Timing section: steps fused, the halo work, and the effective rate
// against the copy-bound limit of a one-step kernel (`copy_gb_per_s` 0: not measured). Empty when one step
// per pass.
std::vector<std::string> temporal_lines(const HeatPanelModel::Temporal& t, const HeatRates& rates,
                                        double copy_gb_per_s);
// The rates the Timing section shows: the live median over the field it was measured on.
HeatRates live_rates(const HeatPanelModel& m);
// A measurement belongs to the field in force only when it was taken on that very size; otherwise it is
// stale and is shown labelled with its own size, never compared with the live run.
bool measured_on(int64_t measured_nx, int64_t measured_ny, int64_t nx, int64_t ny);
// "1000x777"
std::string size_label(int64_t nx, int64_t ny);
// The live spread is wide when p90 > k_wide_spread_ratio * p10: then one in ten batches took three times as
// long as another one in ten, which steady-state kernel (or stencil) timings never do by themselves; the
// median is then not a property of the code but of what else ran (another program, the UI, a CPU baseline).
// 3 is loose enough that the ordinary jitter of a busy desktop (p90/p10 around 1.1-1.5) never triggers it.
constexpr double k_wide_spread_ratio = 3.0;
bool spread_is_wide(const Summary& s);
constexpr const char* k_wide_spread_warning =
    "spread is wide: the numbers are noisy (another program, or the UI, competes)";

}  // namespace bs::ui
