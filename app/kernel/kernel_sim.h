// kernel_sim.h: a user kernel of a lab's contract (heat, vector, matmul) run in the PTX simulator (sim/) on
// the lab's own inputs, recorded for the pictures (ui/kernel/access_map.h) and checked against the lab's CPU
// reference. No GPU is involved: the result is labelled "simulated" and never timed as a GPU run (the wall
// time shown is the simulator's own). The kernel editor's Simulator tab runs it on a worker thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/cpu_job.h"
#include "core/launch.h"
#include "gpu/heat/heat.h"
#include "gpu/kernel/contracts.h"
#include "gpu/vector/vector.h"
#include "ui/kernel/access_map.h"

namespace bs {

// The launch to simulate. Sizes: heat nx x ny cells; vector n elements (size_x); matmul M x N x K (size_y =
// N, size_z = K). block: 0 takes the contract's default.
struct SimSettings {
  int64_t size_x = 0, size_y = 0, size_z = 0;
  int block_x = 0, block_y = 0;
  // A grid set by hand (the heat lab's "set grid by hand"): grid_x x grid_y blocks, as the GPU would launch
  // it, too small or too large. 0: the covering grid.
  int64_t grid_x = 0, grid_y = 0;
  static SimSettings defaults(kernel::Target t);  // odd sizes, so the last block shows its bugs
};
// nullopt when it can run; otherwise one sentence naming the field and the limit (the simulator runs every
// thread on the CPU: sizes are capped so a run stays within seconds).
std::optional<std::string> check_settings(kernel::Target t, const SimSettings& s);
// "heat 67 x 45, block 32 x 8, grid 3 x 6"
std::string settings_text(kernel::Target t, const SimSettings& s);

// What a lab hands the simulator instead of the contract's test inputs (app/kernel/lab_sim.h): the heat lab's
// own physics and current field (size_x x size_y cells), the vector lab's op to check against. Unset members
// keep the defaults above (the hot-spot field, either vector op).
struct LabInputs {
  std::optional<heat::Params> heat;        // physics (nx, ny come from the settings)
  std::vector<float> field;                // the heat step's input (empty: the hot-spot pattern)
  std::optional<vector::Op> vector_op;     // check against this op only
  uint64_t record_bytes = 0;               // the recorder's memory cap (0: its default)
};

struct SimOutcome {
  std::shared_ptr<const ui::SimTrace> trace;  // null when nothing ran (bad PTX, bad settings)
  bool ran = false;                           // the launch ran to its end (diagnostics may be present)
  std::string failure;                        // why it did not run or stopped (names line, thread and block)
  std::string check;                          // the comparison with the lab's reference
  bool passed = false;
  std::string summary;  // "simulated (no GPU): 18 blocks x 256 threads, 1.2 M thread-instructions in 0.31 s"
  // The output buffer as the kernel left it (NaN where no thread wrote: the outputs start poisoned).
  std::vector<float> output;
};

// Parses `ptx`, runs `kernel_name` (the lowered name) for target `t` with `s` on the lab's inputs, records
// the accesses and checks the output. Reports progress (blocks started) and honours cancel through `ctl`
// (throws JobCancelled). Never throws for a bad kernel: the outcome says what happened.
SimOutcome simulate_contract(kernel::Target t, const std::string& ptx, const std::string& kernel_name,
                             const SimSettings& s, JobControl* ctl = nullptr, const LabInputs* inputs = nullptr);

}  // namespace bs
