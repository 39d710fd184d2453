// tc_hopper.h: the matmul lab's Hopper tensor-core rungs (TMA loads into 128B-swizzled shared memory, wgmma,
// producer/consumer warp specialization), BF16 in, FP32 accumulate and out. Plain C++: no CUDA headers, so
// ui/ and the lab can list the rungs and their reasons on any machine. The kernels need sm_90a code (wgmma,
// setmaxnreg), which only compute capability 9.0 runs.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace bs::matmul::hopper {

enum class Step { TmaWgmma, WarpSpecialized, Persistent, TmaStore };

struct StepInfo {
  Step id;
  const char* name;         // short, for the CLI and files, e.g. "wgmma_tma"
  const char* title;        // a line for the ladder
  const char* description;  // what changed against the rung before and why it is faster
};

// The rungs in ladder order.
std::span<const StepInfo> steps();

// nullopt when CUDA device `device` can run these kernels; otherwise the reason, e.g. "needs a Hopper GPU
// (compute capability 9.0, sm_90a code); this one is 8.6". Never throws; works where no driver exists.
std::optional<std::string> unavailable_reason(int device);

// C (float32, row-major m x n, leading dimension n) = A x B on the current device. A: bf16 row-major m x k
// with leading dimension lda; B: bf16 row-major k x n with leading dimension ldb. lda and ldb are multiples
// of 8 elements (16 bytes, TMA's rule for strides) and their padding columns hold zeros; a and b are 16-byte
// aligned. Any m, n, k >= 1: partial tiles in every direction. Asynchronous on `stream` (a cudaStream_t;
// nullptr is the legacy default stream). Throws std::runtime_error (bs::InvalidRequest for bad arguments,
// bs::GpuError for a CUDA error or a device that cannot run the kernels) with a message that names the broken
// rule.
void gemm_bf16(Step s, const void* a, int64_t lda, const void* b, int64_t ldb, float* c, int64_t m, int64_t n,
               int64_t k, void* stream);

}  // namespace bs::matmul::hopper
