// counters_target.h: what a lab offers the hardware-counters window (app/counters_window.h) for its current
// run: a collection to run on a worker thread (its own buffers, so the live lab is untouched) and what the
// models predict for the same launch. Plain C++ (no CUDA).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "gpu/counters/counters.h"

namespace bs {

// The PTX simulator's counts of the same launch (app/memory/memory_sim.h): the kernel's own PTX run thread by
// thread, no GPU. nullopt members: not simulated (`note` says why).
struct SimulatedCounterValues {
  std::optional<double> ld_sectors_per_request, st_sectors_per_request, shared_conflicts;
  std::string note;
};

struct CounterTarget {
  std::string lab;      // "memory"
  std::string variant;  // "naive": with lab, the run log's record the measured DRAM bytes go to
  std::string what;     // for people: "memory: transpose, naive, 4096 x 4096"
  // Runs on a worker thread: builds its own GPU objects from a copy of the parameters and calls
  // counters::collect on one launch.
  std::function<counters::Result()> collect;
  // The work model (core/work_model.h): minimum DRAM bytes read and written; nullopt: no model.
  std::optional<double> model_dram_read, model_dram_write;
  // The access model (the memory lab's memory_model.h) where it applies; nullopt: no model.
  std::optional<double> model_ld_sectors_per_request, model_st_sectors_per_request, model_shared_conflicts;
  std::string access_model;  // where those come from, e.g. "memory lab model (memory_model.h)"
  // Runs on the same worker before `collect` (may be empty): the simulator's counts for the "simulator" column.
  std::function<SimulatedCounterValues()> simulate;
  // Called on the UI thread with the result (e.g. the memory lab fills its "measured" column). May be empty.
  std::function<void(const counters::Result&)> on_result;
};

}  // namespace bs
