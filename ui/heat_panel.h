// heat_panel.h: the heat lab's ImGui panel: physics, launch configuration, run control, timing read-outs, CPU
// baselines and the live timing plot. It edits a model and reports actions; the lab (app/) acts on them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpu/common/launch.h"
#include "gpu/common/stats.h"
#include "gpu/heat/heat.h"

namespace bs::ui {

struct CpuBaselineView {
  std::string label;
  bool running = false;
  double progress = 0;
  std::optional<double> ms_per_step;  // median of the last finished run
  int64_t measured_cells = 0;         // grid size it was measured at
  std::string status;                 // "cancelled", error text
};

struct HeatPanelModel {
  // Edited by the panel.
  heat::Params params;
  int size[2] = {1024, 1024};
  int pattern = 0;  // heat::InitialPattern
  int steps_per_frame = 10;
  bool paused = false;
  int block[2] = {64, 4};
  int cells_per_thread = heat::k_default_cells_per_thread;
  bool manual_grid = false;
  int grid[2] = {32, 128};
  int colormap = 0;
  bool auto_range = true;
  float range[2] = {0.0f, 1.0f};
  bool block_lines = false;
  float brush_radius = 12.0f;
  float brush_hot = 1.0f;
  float brush_cold = -0.5f;
  int cpu_steps = 20;

  // Shown by the panel.
  bool gpu = true;  // compute runs on the GPU (false: CPU fallback path)
  std::string compute_label;
  std::string param_error;
  std::string launch_error;
  std::string launch_advice;
  std::string runtime_error;
  Dim2 default_grid;
  Coverage coverage;
  Summary step_ms;           // GPU (or CPU fallback) per-step time over the window
  double first_step_ms = 0;  // the first (warm-up) batch, shown apart
  size_t warmup_discarded = 0;
  std::vector<double> history_x, history_ms, history_lo, history_hi;
  double copy_gb_per_s = 0;  // bandwidth ceiling from the copy kernel, if measured
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
};

void draw_heat_panel(HeatPanelModel& m, HeatPanelActions& a);

}  // namespace bs::ui
