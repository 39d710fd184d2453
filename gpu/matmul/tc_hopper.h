// tc_hopper.h: the matmul lab's Hopper tensor-core rungs (TMA loads into 128B-swizzled shared memory, wgmma,
// producer/consumer warp specialization), BF16 in, FP32 accumulate and out; and the same machinery in TF32
// and 3xTF32 (float32 in, FP32 accumulate and out). Plain C++: no CUDA headers, so ui/ and the lab can list
// the rungs and their reasons on any machine. The kernels need sm_90a code (wgmma, setmaxnreg), which only
// compute capability 9.0 runs.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace bs::matmul::hopper {

enum class Step {
  TmaWgmma,
  WarpSpecialized,
  Persistent,
  TmaStore,
  SplitK,  // wgmma_tma's kernel over slices of K, for problems with fewer output tiles than SMs (a workspace)
  // float32 operands (gemm_tf32)
  Tf32,    // TF32 tensor cores: wgmma m64nNk8.tf32, the transposed product (see gemm_tf32)
  Tf32x3,  // 3xTF32: FP32 accuracy from three TF32 products
};

struct StepInfo {
  Step id;
  const char* name;         // short, for the CLI and files, e.g. "wgmma_tma"
  const char* title;        // a line for the ladder
  const char* description;  // what changed against the rung before and why it is faster
};

// The BF16 rungs in ladder order (gemm_bf16).
std::span<const StepInfo> steps();
// The float32-in rungs: TF32, then 3xTF32 (gemm_tf32).
std::span<const StepInfo> tf32_steps();

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
// Step::SplitK with more than one slice (splitk_workspace_bytes(m, n, k) > 0) needs `workspace`: that many
// bytes, 16-byte aligned, not shared by calls in flight at the same time; the other steps ignore it.
void gemm_bf16(Step s, const void* a, int64_t lda, const void* b, int64_t ldb, float* c, int64_t m, int64_t n,
               int64_t k, void* stream, void* workspace = nullptr);
// Bytes of workspace gemm_bf16(Step::SplitK, ...) needs on the current device: one m x n float32 partial C
// per slice of K, 0 where it runs unsplit (as many 128 x 128 tiles as half the SMs or more, or K of one
// 64-deep k-tile).
int64_t splitk_workspace_bytes(int64_t m, int64_t n, int64_t k);

// Blocks for a persistent launch over `tiles` tiles (>= 1) on `sms` SMs: as many rounds as one block per SM
// needs, but only as many blocks as those rounds need, so every block gets the same number of tiles, give or
// take one. At 4096^3 (512 tiles of 128 x 256, 132 SMs): 128 blocks of 4 tiles, not 132 of which 16 idle in
// the last round; the same 4 rounds, and with 4 SMs idle throughout the others clock higher under the power
// limit (H200, ncu, 2026-11-28: 1.61 -> 1.63 GHz; ws_tma_store 99.2 -> 100.2% of cuBLAS at 4096^3, 99.5 ->
// 101.4% at 8192^3).
int64_t persistent_blocks(int64_t tiles, int64_t sms);

// C (float32, row-major m x n, leading dimension n) = A x B on TF32 tensor cores, FP32 accumulate. A: float32
// row-major m x k (leading dimension lda), B: float32 row-major k x n (ldb); lda and ldb are multiples of 4
// elements (16 bytes), a and b 16-byte aligned, c 8-byte aligned; any m, n, k >= 1.
//   Step::Tf32: B is rounded to TF32 (to nearest) in the kernel; A is read by the tensor core, which ignores
//     the low 13 mantissa bits (truncation): pass A already rounded to TF32 for round-to-nearest (the ladder
//     passes the float32 inputs as they are, as cuBLAS TF32 gets them). workspace is unused.
//   Step::Tf32x3: A and B as they are; A is split into TF32 hi and lo matrices in `workspace`
//     (tf32_workspace_bytes(m, lda) bytes, 16-byte aligned) by a pass on the same stream before the GEMM,
//     B in the kernel. The result has about FP32's accuracy.
// Asynchronous on `stream`; the workspace must not be shared by calls in flight at the same time. Throws as
// gemm_bf16.
void gemm_tf32(Step s, const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t m,
               int64_t n, int64_t k, void* workspace, void* stream);
// Bytes of workspace gemm_tf32(Step::Tf32x3, ...) needs: A's hi and lo parts, 2 m lda floats.
int64_t tf32x3_workspace_bytes(int64_t m, int64_t lda);

}  // namespace bs::matmul::hopper
