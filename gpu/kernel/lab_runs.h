// lab_runs.h: a user kernel run as each lab runs its own kernels: launched per contract on device buffers
// (the labs' hooks pass theirs), and, for the bench and the tests, a whole run on buffers of its own: check
// against the lab's reference (error and pass/fail) and timing as the labs time (CUDA events, warm-up
// excluded, median and p10/p90 over repetitions). Plain C++ (device pointers are plain pointers here).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/stats.h"
#include "gpu/heat/heat.h"
#include "gpu/kernel/kernel_runner.h"
#include "gpu/matmul/matmul.h"
#include "gpu/vector/vector.h"

namespace bs::kernel {

// --- One launch per contract, on the caller's device buffers (stream: a cudaStream_t, or null) -----------
void launch_heat_step(const LoadedKernel& k, Dim2 grid, Dim2 block, const float* in, float* out,
                      const heat::Params& p, void* stream);
void launch_vector_op(const LoadedKernel& k, Dim2 grid, Dim2 block, const float* a, const float* b, float* c,
                      int64_t n, void* stream);
void launch_matmul(const LoadedKernel& k, Dim2 grid, Dim2 block, const float* a, const float* b, float* c,
                   const matmul::Problem& p, void* stream);

// --- A whole checked and timed run -------------------------------------------------------------------------
struct RunSettings {
  int warmup = 2;                          // untimed runs after the checked one
  int repetitions = 7;                     // timed runs
  double timeout_s = k_default_timeout_s;  // per run; beyond it the kernel is reported as hung
};

// The heat check: max |user - reference| / max |reference| after `steps` steps, against the lab's CPU step.
// Each step of either may round differently by a few float ulps (NVRTC contracts c + r * (...) into a fused
// multiply-add, the CPU build does not); the explicit scheme damps errors, so they add up at most linearly.
double heat_tolerance(int steps);

struct UserRun {
  std::string kernel;  // "heat_step"
  Dim2 grid, block;
  KernelFigures figures;
  Summary ms;                      // per launch (heat: per step)
  std::vector<double> samples_ms;  // every timed repetition, in order (what ms summarises)
  double gb_per_s = 0;  // effective bandwidth (heat: 8 B per cell per step; vector: 12 B per element)
  double gflops = 0;    // matmul: 2 M N K per run
  bool passed = false;
  double error = 0, tolerance = 0;
  std::string check;                                // "max rel err 1.2e-07 <= 4.0e-05: pass"
  std::optional<matmul::CheckResult> matmul_check;  // matmul: the check as the matmul lab shows it
  std::vector<float> output;
};

// `steps` steps of the user's heat_step from `initial`, checked against heat::run_cpu; timed `steps` steps
// per repetition. grid: nullopt covers the field. Throws InvalidRequest for a launch that cannot run (before
// anything runs) and GpuError for faults (naming the kernel).
UserRun run_heat(const LoadedKernel& k, const heat::Params& p, const std::vector<float>& initial, int steps,
                 Dim2 block, std::optional<Dim2> grid, const RunSettings& s = {});
// c = f(a, b) on vector::fill_inputs' inputs, checked against the lab's op `reference`
// (vector::check_result).
UserRun run_vector(const LoadedKernel& k, int64_t n, int64_t block, std::optional<int64_t> grid,
                   vector::Op reference, const RunSettings& s = {});
// C = A x B on matmul::make_matrix(M, K, 1) and (K, N, 2), C poisoned with NaN first; checked against the
// float64 CPU reference (OpenBLAS dgemm) with matmul::tolerance(K).
UserRun run_matmul(const LoadedKernel& k, const matmul::Problem& p, Dim2 block, std::optional<Dim2> grid,
                   const RunSettings& s = {});
// The same run on the caller's device buffers (the matmul lab's A, B and C, already holding its inputs; C is
// poisoned with NaN first and holds the user's result after), checked against the caller's float64
// `reference` (M*N values; empty: the check says there is none) on `stream`. Nothing is allocated or freed.
UserRun run_matmul_on(const LoadedKernel& k, const matmul::Problem& p, Dim2 block, std::optional<Dim2> grid,
                      const float* a, const float* b, float* c, void* stream,
                      const std::vector<double>& reference, const std::string& reference_label,
                      const RunSettings& s = {});

}  // namespace bs::kernel
