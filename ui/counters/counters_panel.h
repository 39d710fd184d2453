// counters_panel.h: the hardware-counters panel (ImGui, no CUDA): for the active lab's current run, each
// curated counter measured next to what the model predicts, a "Collect counters" button (the app runs the
// collection on a worker; the panel shows its progress), and why counters are unavailable where they are.
#pragma once

#include <string>
#include <vector>

namespace bs::ui {

struct CounterRow {
  std::string metric;    // "DRAM bytes read"
  std::string measured;  // "8.43 MB", or "-" before a collection / where unavailable
  std::string model;     // "8.39 MB (work model)", or "no model"
  std::string simulated;  // the PTX simulator's count of the same launch, or "-"
};

struct CountersPanelModel {
  std::string target;  // what would be measured ("memory: transpose, naive, 4096 x 4096") or why nothing
  bool can_collect = false;
  bool running = false;
  double elapsed_s = 0;
  std::string status;  // why counters are unavailable / failed: shown in the warning colour
  std::string info;    // of the last collection: "7 passes, 0.61 s, GH100"
  std::vector<CounterRow> rows;
  std::vector<std::string> stalls;  // "long_scoreboard: 27.0 cycles per issued instruction"
};

struct CountersPanelActions {
  bool collect = false;
};

// The note under the button: counters replay the kernel, so they are never part of a timed run.
const char* counters_replay_text();

void draw_counters_panel(const CountersPanelModel& m, CountersPanelActions& a);

}  // namespace bs::ui
