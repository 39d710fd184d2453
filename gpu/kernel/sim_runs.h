// sim_runs.h: a user kernel run in the PTX simulator (sim/) as each lab runs its own kernels: the contract's
// arguments on host buffers, checked against the lab's reference as lab_runs.h checks a GPU run (the same
// tolerance and wording), with the simulator's diagnostics and counts. No GPU needed; never timed as a GPU
// run (the figures are the simulator's, labelled "simulated").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/launch.h"
#include "gpu/heat/heat.h"
#include "gpu/kernel/contracts.h"
#include "gpu/matmul/matmul.h"
#include "gpu/vector/vector.h"
#include "sim/sim.h"

namespace bs::kernel {

struct SimSettings {
  uint64_t budget = uint64_t{1} << 22;  // instructions per thread (an endless loop stops here)
  int workers = 0;                      // host threads (0: all)
  sim::Observer* observer = nullptr;    // the (first) launch's events
  bool diagnostics = true;
};

struct SimRun {
  std::string kernel;  // the PTX name (lowered)
  Dim2 grid, block;
  bool ran = false;     // the simulator ran every launch to its end (else `failure` says why)
  std::string failure;  // "kernel.cu:7: ... (thread (..), block (..))"
  bool passed = false;  // ran, and the output matches the lab's reference
  double error = 0, tolerance = 0;
  std::string check;  // "max rel err 1.2e-07 <= 1.0e-06: pass vs the CPU step (simulated)"
  std::vector<float> output;
  sim::LaunchConfig config;  // the first launch's configuration (buffers point into this run's storage)
  sim::LaunchResult result;  // the first launch: diagnostics, per-instruction and per-thread counts
  std::vector<std::vector<float>> storage;  // the buffers' host memory (config.buffers point here)
  int launches = 0;
  double seconds = 0;      // wall time in the simulator
  double cpu_seconds = 0;  // the simulator's CPU time (all its host threads)
  bool clean() const { return passed && result.diagnostics.empty(); }
};

// `steps` heat steps of `kernel` (the PTX entry's name) from `initial`, checked against heat::run_cpu with
// heat_tolerance(steps). Throws InvalidRequest for a launch that cannot run (before anything runs).
SimRun sim_heat(const sim::Module& m, const std::string& kernel, const heat::Params& p,
                const std::vector<float>& initial, int steps, Dim2 block, std::optional<Dim2> grid,
                const SimSettings& s = {});
// c = f(a, b) on vector::fill_inputs' inputs (c poisoned with NaN), checked with vector::check_result.
SimRun sim_vector(const sim::Module& m, const std::string& kernel, int64_t n, int64_t block,
                  std::optional<int64_t> grid, vector::Op reference, const SimSettings& s = {});
// C = A x B on matmul::make_matrix(M, K, 1) and (K, N, 2), C poisoned with NaN, checked against the float64
// CPU reference with matmul::check_result.
SimRun sim_matmul(const sim::Module& m, const std::string& kernel, const matmul::Problem& p, Dim2 block,
                  std::optional<Dim2> grid, const SimSettings& s = {});

}  // namespace bs::kernel
