// simulated_run.h: a lab's view of its user kernel run in the PTX simulator without a GPU (the heat lab's
// step, the vector lab's op, the matmul lab's rung; app/kernel/lab_sim.h runs it): labelled "simulated",
// the check against the lab's reference, the simulator's diagnostics and the output elements they concern.
// Never a time: the simulator's speed says nothing about a GPU's. Below it, "Check on the GPU": the same
// kernel under compute-sanitizer in a child process (app/kernel/gpu_check.h), its report beside the
// simulator's diagnostics; greyed with the reason without a CUDA device or compute-sanitizer on the PATH.
// draw_simulated_run is the one panel block the three labs share (pure ImGui, no CUDA).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace bs::ui {

struct SimulatedRunView {
  // The run in progress.
  bool running = false;
  double progress = 0;
  std::string status;  // "cancelled", why it could not start, ...
  // The last finished run (has == false: none yet).
  bool has = false;
  std::string label;    // "simulated (no GPU): your vector_op, n = 1000, block 256, grid 4"
  std::string note;     // what was capped or sampled ("n = 4M simulated of the lab's 16M: ...")
  bool ran = false;     // the launch ran to its end
  bool passed = false;  // ran, matches the lab's reference and the simulator found nothing
  std::string verdict;  // "PASS" / "FAIL"
  std::string check;    // the comparison with the lab's reference
  std::string failure;  // why it stopped (names the line, thread and block)
  std::string summary;  // thread-instructions, CPU time of the simulator (not a GPU time)
  std::vector<std::string> diagnostics;  // "kernel.cu:4: out-of-bounds: thread (..) of block (..) wrote ..."
  std::vector<std::string> problems;     // "c[1000]: no thread wrote it" (the first few)
  uint64_t problem_count = 0;            // all problem elements
  std::string problem_note;              // "unwritten / multiply-written elements need every block recorded"

  // "Check on the GPU" (compute-sanitizer in a child process).
  bool gpu_check_enabled = false;
  std::string gpu_check_reason;  // why it is greyed ("needs a CUDA GPU (...)"); empty when enabled
  bool gpu_check_running = false;
  std::string gpu_summary;       // "compute-sanitizer: 2 errors (exit status 1)"; empty before a check
  bool gpu_clean = false;        // no errors and the GPU run's check passed
  std::string gpu_report;        // the command and compute-sanitizer's full output
  // Set by draw_simulated_run when the button is pressed and taken by LabSimulation::poll(): the labs copy
  // the view into their model every frame, so the click reaches the runner without each lab forwarding it.
  std::shared_ptr<bool> gpu_check_clicked;
};

struct SimulatedRunActions {
  bool cancel = false;
  bool gpu_check = false;  // "Check on the GPU" pressed (also signalled through the view's gpu_check_clicked)
};

// The view as panel lines: label, verdict and check, failure, diagnostics (at most `max_lines` each), the
// problem elements, the note; a progress bar and Cancel while it runs.
void draw_simulated_run(const SimulatedRunView& v, SimulatedRunActions& a, size_t max_lines = 8);

}  // namespace bs::ui
