// sim_panel.h: the kernel editor's Simulator tab (pure ImGui, no CUDA): the launch to simulate (size, block),
// Simulate / Cancel with progress, the check against the lab's reference, the simulator's diagnostics (a
// click jumps to the line), the access maps of a picked thread, warp, block or the whole launch (click a
// cell: who read and who wrote it), the memory instruction picture of the student's kernel (lanes ->
// sectors / banks, drawn by the memory lab's code), per-thread scores and per-instruction divergence, and
// "Check on the GPU" (compute-sanitizer) beside the simulator's report. The controller
// (app/kernel/kernel_simulator.h) fills the model and acts on the actions.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ui/kernel/access_map.h"

namespace bs::ui {

struct SimPanelModel {
  // What can be simulated now.
  bool can_simulate = false;
  std::string cannot_reason;  // "compile the kernel first", ...
  std::string target_name;    // "heat"
  std::string size_label;     // "nx, ny" / "n" / "M, N, K"
  int size_fields = 2;        // 1..3
  int64_t size[3] = {0, 0, 0};
  int block[2] = {0, 0};
  bool block_2d = true;
  std::string settings_text;  // "heat 67 x 45, block 32 x 8, grid 3 x 6"
  std::string settings_error;

  // The run.
  bool running = false;
  double progress = 0;
  std::string status;  // "simulating ...", "cancelled", an error
  bool status_error = false;
  std::shared_ptr<const SimTrace> trace;  // the last finished run (null: none)
  std::string failure, check, summary;
  bool passed = false;
  bool stale = false;  // the source changed since this run

  // Views (the panel edits them).
  Selection selection;
  int scope = 0;  // Scope as int
  int picked_buffer = -1;
  uint64_t picked_element = 0;
  std::optional<ElementTouches> touches;
  int mem_instr = 0, mem_occurrence = 0;
  int view_tab = 0;

  // Cached maps for (trace, selection).
  AccessMaps maps;
  const SimTrace* maps_trace = nullptr;
  Selection maps_for;
  bool maps_valid = false;

  // Check on the GPU.
  bool gpu_check_enabled = false;
  std::string gpu_check_reason;  // why it is disabled
  bool gpu_check_running = false;
  std::string gpu_report;
  std::string export_message;
};

struct SimPanelActions {
  bool simulate = false, cancel = false, gpu_check = false, export_maps = false;
  bool settings_changed = false;
  int jump_line = 0;  // jump to this line in the editor
};

void draw_sim_panel(SimPanelModel& m, SimPanelActions& a);

// The current selection's maps, recomputed only when the trace or the selection changed.
const AccessMaps& current_maps(SimPanelModel& m);

}  // namespace bs::ui
