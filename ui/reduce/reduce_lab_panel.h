// reduce_lab_panel.h: the reduction and scan lab's ImGui panels: the controls (op, type, n, block, the
// variant ladder with each rung's one-line description), runs (GPU: this variant or the whole ladder; CPU:
// one thread and all threads, with progress and cancel) and the results table (time, GB/s, % of the copy
// kernel, % of CUB, error against the reference, pass/fail); and the views: the reduction tree of one block
// (active lanes of every warp at every step, idle lanes and idle warps, divergence, bank conflicts), the
// scan's steps animated on a small array with a step slider, and the ladder's timing chart (right-click:
// export). The panels edit a model and report actions; app/reduce/reduce_lab.cpp acts on them. The helpers
// below are pure so that tests can check them without a GL context.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpu/reduce/reduce.h"
#include "ui/figure.h"
#include "ui/reduce/reduce_model.h"

namespace bs::ui {

// --- Pure helpers ------------------------------------------------------------------------------------------

// The in-block tree a reduction variant runs (nullopt: cub, whose inside is not drawn) and its load phase.
std::optional<reduce_model::Tree> tree_of(reduce::ReduceVariant v);
reduce_model::LoadPhase load_of(reduce::ReduceVariant v);
// The scan the animation shows for a scan variant: Blelloch for blelloch-block, else Hillis-Steele (the tile
// scans' warp-shuffle scan, __shfl_up_sync with offsets 1..16, is Hillis-Steele on 32 lanes), and what the
// variant does around it ("" for the single-block scans, which are exactly the steps drawn).
reduce_model::ScanAlgo scan_algo_of(reduce::ScanVariant v);
const char* scan_view_note(reduce::ScanVariant v);

// The small array the scan animation runs on: n values 0..9 (never all zero), the textbook 3 1 7 0 4 1 6 3
// first.
std::vector<double> scan_demo_values(int n);

// Adds `fresh` to `rows`: a row with the same name (variant or CPU mode) is replaced in place, new ones go in
// ladder order (GPU rows by rung, then CPU rows).
void merge_rows(std::vector<reduce::Row>& rows, const std::vector<reduce::Row>& fresh);

// The ladder's timing chart as a figure (bars of GB/s with p10-p90 whiskers; orange GPU kernels, blue CUB,
// grey CPU), for the export. `problem`: "reduce float 16M".
fig::Figure ladder_figure(const std::vector<reduce::Row>& rows, const std::optional<reduce::CopyKernel>& copy,
                          const std::string& problem, const std::string& gpu_name);

// The colour (0xRRGGBBAA) of a row in the results, the ladder chart and its figure: orange GPU kernels, blue
// CUB, grey CPU.
uint32_t row_rgba(const reduce::Row& r);

// --- Model and actions -------------------------------------------------------------------------------------

struct ReducePanelModel {
  // Every edited field from the reduce schema's defaults (ui/reduce/reduce_schema.h).
  ReducePanelModel();
  // Edited by the panel.
  int op = 0;              // reduce::Op
  int type = 0;            // reduce::ElemType
  int reduce_variant = 0;  // reduce::ReduceVariant
  int scan_variant = 0;    // reduce::ScanVariant
  int scan_kind = 0;       // reduce::ScanKind
  int block = 256;
  int device = 0;        // reduce::Device (what "Run the ladder" times)
  char n_text[32] = "";  // parsed with reduce::parse_count

  // The views (not parameters: a session keeps them as extras).
  int scan_n = 16;          // the animated array: 8, 16 or 32
  int scan_step = 0;        // steps applied (0: the input)
  bool scan_play = false;   // advance one step every k_scan_step_s
  double scan_clock = 0;    // seconds since the last step (the lab advances it)
  int view_tab = -1;        // the view's tab to select this frame (0 tree, 1 scan); -1: leave it
  bool show_useful = true;  // the tree marks lanes whose result counts apart from lanes that only execute

  // Shown by the panel.
  bool gpu = false;
  std::string compute_label;
  std::string gpu_missing;
  reduce::Params params;  // the parameters in force (last valid)
  std::string n_error, param_error, memory_note;
  std::string occupancy_text;  // the model's occupancy for this launch

  bool running = false;
  bool running_gpu = false;
  double progress = 0;
  std::string stage;
  std::string status;        // the last run's error, or what it skipped
  std::string rows_problem;  // what the rows measured: "reduce float 16M, block 256"
  std::vector<reduce::Row> rows;
  std::optional<reduce::CopyKernel> copy;
  std::string gpu_name;
  std::vector<std::string> skipped;
};

struct ReducePanelActions {
  bool params_changed = false;
  bool run_gpu = false;     // the selected variant (with CUB and the copy kernel for the percentages)
  bool run_ladder = false;  // every variant on the devices `device` names
  bool run_cpu = false;     // the CPU baselines
  bool cancel = false;
  bool clear = false;
};

constexpr double k_scan_step_s = 0.9;

// The controls, runs and results.
void draw_reduce_panel(ReducePanelModel& m, ReducePanelActions& a);
// The pictures (tree, scan) and the ladder chart.
void draw_reduce_views(ReducePanelModel& m, ReducePanelActions& a);

}  // namespace bs::ui
