// memory_sim.h: the memory lab's own kernels (memory_kernels.cuh, compiled through NVRTC) run in the PTX
// simulator exactly as GpuRunner launches them, and their memory counts as CUPTI's L1TEX counters name them
// (sim::memory_counts): the bench's --counts table puts them beside the access model's, and tests compare them
// with the model (no GPU) and with CUPTI (GPU). No GPU is used here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/counters_target.h"
#include "gpu/memory/memory.h"
#include "sim/ptx.h"
#include "sim/sim.h"

namespace bs::memory {

// The NVRTC source: memory_kernels.cuh with its includes inlined and the template instantiations GpuRunner
// launches (block.y 1, 2, 4, 8, 16, 32).
std::string sim_source();

// One launch of variant v for p on the lab's inputs (make_input), the output zeroed as the runner's memset
// does. The buffers live in `data`: a MemoryLaunch is moved, never copied.
struct MemoryLaunch {
  std::string entry_part;  // a part of the mangled .entry name ("tiled_kernelILi8ELi33E"): see entry_of
  std::vector<std::vector<float>> data;  // in, out
  sim::LaunchConfig cfg;
  MemoryLaunch() = default;
  MemoryLaunch(MemoryLaunch&&) = default;
  MemoryLaunch& operator=(MemoryLaunch&&) = default;
};
MemoryLaunch sim_launch(const Params& p, Variant v);
// The .entry of `m` whose name contains `part`; empty when none.
std::string entry_of(const sim::Module& m, const std::string& part);

// The simulator's counts of one launch, or why there are none.
struct SimulatedCounts {
  std::optional<sim::MemoryCounts> counts;
  std::string message;  // why not ("the launch has 64M threads: the simulator takes up to 4M here")
  double seconds = 0;   // the simulation's wall time
};
constexpr uint64_t k_sim_max_thread_work = uint64_t{1} << 24;  // threads x loop iterations the bench simulates
// Compiles sim_source() once per call (NVRTC; needs no GPU) and runs each (p, v) in the simulator.
std::vector<SimulatedCounts> simulate_counts(const std::vector<std::pair<Params, Variant>>& launches);

// The counters window's "simulator" column for one launch: sectors per global load and store request and the
// shared-memory bank conflicts (loads and stores), or why not simulated.
SimulatedCounterValues simulated_values(const Params& p, Variant v);

}  // namespace bs::memory
