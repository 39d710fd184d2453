// sweep_panel.h: the Sweep window's ImGui panel: lab, up to two swept parameters with their values, fixed
// parameters, repetitions, warm-up, device; Run / Cancel with progress and ETA; the result figure with its
// metric and axis toggles; export buttons and the output directory. It edits a model and reports actions;
// app/sweep/sweep_window.cpp runs the sweep and the exports. Pure ImGui: no CUDA, no app/ headers.
#pragma once

#include <string>
#include <vector>

#include "ui/figure.h"

namespace bs::ui {

struct SweepParamChoice {
  std::string name;
  std::string help;
  std::string example;  // values prefilled when the parameter is chosen
};

struct SweepPanelModel {
  // What the panel offers (filled by the window).
  std::vector<std::string> labs;
  std::vector<SweepParamChoice> params;  // of the chosen lab
  bool gpu_available = false;
  std::string gpu_reason;

  // Edited by the panel.
  int lab = 0;
  int param[2] = {0, -1};  // index into params; -1: none (second parameter only)
  char values[2][512] = {{}, {}};
  char fixed[512] = {};  // "size=2048, steps=50"
  int repetitions = 10;
  int warmup = 2;
  int device = 0;  // 0 all, 1 gpu, 2 cpu, 3 auto (the GPU where there is one, else the CPU)
  int metric = 0;  // 0 time, 1 throughput, 2 roofline
  bool auto_axes = true;
  bool log_x = false, log_y = false;
  char out_dir[1024] = {};
  int png_size[2] = {1600, 900};
  float png_scale = 1.0f;

  // Shown by the panel.
  bool running = false;
  double progress = 0;
  double eta_s = -1;
  std::string progress_line;
  std::string error;               // bad input or a failed sweep
  std::string stopped;             // a sticky GPU error stopped the sweep
  std::vector<std::string> notes;  // while running: the plan's (no GPU here, ...); after: the result's
  std::string confirm;             // a long sweep's question ("estimated at about 2 h: run anyway?")
  std::string export_message;
  bool export_failed = false;
  bool has_result = false;
  std::string result_label;  // "12 points, 3 series, 4.2 s" (or "cancelled: 5 of 12 points")
  const fig::Figure* figure = nullptr;
  std::string figure_message;  // why there is no figure (the roofline of a lab without a work model)
};

struct SweepPanelActions {
  bool lab_changed = false;
  bool param_changed[2] = {false, false};  // prefill that parameter's values
  bool run = false;
  bool cancel = false;
  bool confirm_run = false, confirm_drop = false;  // the answer to `confirm`
  bool figure_changed = false;                     // metric or axes
  bool export_csv = false, export_json = false, export_svg = false, export_png = false;
};

void draw_sweep_panel(SweepPanelModel& m, SweepPanelActions& a);

}  // namespace bs::ui
