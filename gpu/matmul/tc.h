// tc.h: the tensor-core rungs of the matmul ladder (pure C++; ui/ and app/ include it). They follow the FP32 SIMT
// ladder (matmul.h) and run the same problem (row-major float32 A, B; float32 C) with the inputs converted once
// to the rung's precision (precision.h): WMMA (FP16, BF16, TF32), mma.sync with ldmatrix and a swizzled
// shared-memory layout, the same fed by a cp.async multistage pipeline, and 3xTF32 (FP32 accuracy on TF32 tensor
// cores). cuBLAS runs at every precision in the same run (BF16, FP16, TF32 through cublasGemmEx with FP32 output,
// and strict FP32), so each rung reads as a % of the library at its own precision.
//
// Adding a rung is a Rung value and a table entry (tc_common.cpp: name, title, description, precision, minimum
// compute capability, optionally a function giving the reason it cannot run on a device and an `external` launcher)
// plus, for a kernel of tc_kernels.cuh, a dispatch line in tc_gpu.cu's kernel_for.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/cpu_job.h"
#include "core/stats.h"
#include "gpu/common/device_info.h"
#include "gpu/matmul/matmul.h"
#include "gpu/matmul/precision.h"

namespace bs::matmul::tc {

enum class Rung {
  CublasFp32,   // cuBLAS SGEMM, strict FP32 (the SIMT ladder's reference)
  CublasTf32,   // cublasGemmEx, CUBLAS_COMPUTE_32F_FAST_TF32
  CublasFp16,   // cublasGemmEx, FP16 in, FP32 accumulate and out
  CublasBf16,   // cublasGemmEx, BF16 in, FP32 accumulate and out
  WmmaFp16,     // nvcuda::wmma 16x16x16 fragments, FP16 in, FP32 accumulate
  WmmaBf16,     // the same in BF16
  WmmaTf32,     // 16x16x8 TF32 fragments
  MmaBf16,      // mma.sync m16n8k16 with ldmatrix from a swizzled shared-memory tile (no bank conflicts)
  MmaBf16Pipe,  // + a 4-stage cp.async pipeline
  MmaFp16Pipe,  // the same pipeline in FP16
  WmmaTf32Pipe, // TF32 WMMA fed by a 3-stage cp.async pipeline
  Tf32x3,       // 3xTF32: FP32 inputs split into TF32 hi + lo, three products, FP32 accuracy
  // Hopper (compute capability 9.0, sm_90a code), BF16: the kernels of tc_hopper.h behind `external` launchers.
  WgmmaTma,         // TMA loads into 128B-swizzled shared memory, wgmma from shared memory, one warpgroup
  WarpSpecialized,  // + a producer warpgroup feeding two consumer warpgroups (setmaxnreg), 128x256 tiles
  WsPersistent,     // + one block per SM walking its tiles in grouped order
  WsTmaStore,       // + the epilogue through swizzled shared memory and TMA stores
  WgmmaSplitK,      // wgmma_tma's kernel over slices of K where C has few tiles (a workspace)
  // Hopper, float32 in (hopper::gemm_tf32): the warp-specialized persistent kernel in TF32, and 3xTF32 on it.
  WgmmaTf32,    // wgmma m64n256k8.tf32 on the transposed product (B through registers, rounded there)
  WgmmaTf32x3,  // 3xTF32 on wgmma: A split by a pass (timed with the rung), B in registers, 3 wgmma per k8
};

struct RungInfo {
  Rung id;
  const char* name;         // command-line name, e.g. "mma_bf16_pipe"
  const char* title;        // short label
  const char* description;  // what changed from the rung before and why it is faster
  Precision precision;
  int min_cc;    // minimum compute capability, major * 10 + minor (80 for sm_80)
  bool library;  // cuBLAS
  // Extra reason the rung cannot run on `d` beyond its compute capability (nullptr: none). For rungs whose
  // kernels come from elsewhere (e.g. a Hopper-only header's unavailable_reason(device)).
  std::optional<std::string> (*unavailable)(const DeviceInfo& d) = nullptr;
  // A kernel launched from elsewhere (nullptr: one of tc_gpu.cu's own). It gets the operands converted to the
  // rung's precision, row-major and zero-padded (lda = K rounded up to k_pad_k, ldb = N rounded up to k_pad_mn,
  // both multiples of 8), C as M x N float32 (ldc = N), a device workspace of workspace_bytes(M, N, K, lda) bytes
  // (nullptr when that is nullptr), the problem's M, N, K and the runner's cudaStream_t as void*; it must only
  // enqueue, and what it enqueues is the rung's time. E.g. Hopper's bs::matmul::hopper::gemm_bf16(step, ...)
  // behind a small adapter.
  void (*external)(const void* a, int lda, const void* b, int ldb, float* c, int m, int n, int k, void* workspace,
                   void* stream) = nullptr;
  int64_t (*workspace_bytes)(int64_t m, int64_t n, int64_t k, int64_t lda) = nullptr;
  // An external rung that takes float32 inputs as they are (nothing rounded beforehand): it gets the user's
  // own A and B (lda = K, ldb = N, nothing converted) where K and N are multiples of 4 (16-byte rows, as TMA
  // needs), else the zero-padded float32 copies (a copy, timed as the conversion).
  bool float32_inputs = false;
};
// Every rung, cuBLAS first (one per precision), then the hand-written ones in ladder order.
std::span<const RungInfo> rungs();
const RungInfo& info(Rung r);
std::optional<Rung> parse_rung(std::string_view name);
// The cuBLAS rung of precision `p` (3xTF32 is compared with strict FP32 cuBLAS: the accuracy it matches).
Rung cublas_rung(Precision p);
// nullopt when `r` can run on `d`; otherwise why not, e.g. "needs compute capability 8.0 (BF16 mma.sync); this
// GPU is 7.5" or "no CUDA device: ...".
std::optional<std::string> unavailable_reason(const RungInfo& r, const DeviceInfo& d);

// The padding every converted operand gets: rows and columns up to multiples of these, zero-filled, so the
// kernels read whole tiles without bounds checks (only C's stores are guarded). 128 = the largest block tile.
constexpr int64_t k_pad_mn = 128;
constexpr int64_t k_pad_k = 32;

// Owns the float32 A, B, C of a problem on the device, the converted (padded) copies per precision and a cuBLAS
// handle. Throws bs::InvalidRequest for a problem that cannot run and bs::GpuError on CUDA failures.
class TcRunner {
 public:
  explicit TcRunner(const Problem& p);
  ~TcRunner();
  TcRunner(const TcRunner&) = delete;
  TcRunner& operator=(const TcRunner&) = delete;

  const Problem& problem() const;
  const DeviceInfo& device() const;
  void set_inputs(std::span<const float> a, std::span<const float> b);
  // Converts A and B to `p` (padded, once per precision until set_inputs); returns the conversion's time in ms
  // (CUDA events, the second of two conversions so that loading the kernel is not counted; later calls return
  // the same figure without converting again). Called by run_once / time_runs as needed.
  double convert(Precision p);
  // What rung `r` needs converted before it runs, converted (as convert), in ms; 0 when it reads the float32
  // inputs as they are (cuBLAS FP32 and TF32; a float32_inputs rung where K and N are multiples of 4).
  double convert_for(Rung r);
  // The converted operands as the GPU holds them, unpadded, as float values (tests compare them bit for bit
  // with round_to; 3xTF32 and FP32 hold the float32 values: 3xTF32 splits them in the kernel).
  std::vector<float> converted_a(Precision p);
  std::vector<float> converted_b(Precision p);

  // Blocking: C poisoned with NaN, one launch of `r`, wait. Throws InvalidRequest when the rung cannot run here.
  void run_once(Rung r);
  // Blocking: `warmup` untimed launches, then `repetitions` timed ones (ms each, CUDA events).
  std::vector<double> time_runs(Rung r, int warmup, int repetitions);
  std::vector<float> download_c();
  // Registers per thread and shared memory per block of a hand-written rung (known = false for cuBLAS).
  KernelAttributes attributes(Rung r);

 private:
  struct Impl;
  std::unique_ptr<Impl> m;
};

// --- Benchmark ---------------------------------------------------------------------------------------------
struct TcRow {
  const RungInfo* rung = nullptr;
  std::string skipped;  // non-empty: why it did not run (nothing else is set)
  Summary ms;
  int runs = 0;
  double tflops = 0;
  double pct_cublas = -1;  // % of cuBLAS at the rung's precision (3xTF32: of strict FP32 cuBLAS); < 0 unknown
  double convert_ms = 0;   // converting A and B to the rung's precision (once; not in ms)
  KernelAttributes attr;
  ErrorStats error;  // against float64, with error_bound(precision, k)
};
struct TcBenchResult {
  std::string device;
  std::string reference;  // what the float64 reference was
  std::vector<TcRow> rows;
};
// Runs `which` (every rung when empty; the cuBLAS rungs of the precisions asked for always run too): a poisoned
// correctness run measured against `ref` (computed when empty: CPU OpenBLAS dgemm up to
// k_cpu_reference_max_fmas, cuBLAS DGEMM above), then warm-up and timed runs (about `budget_s` s per rung, at
// least 3). Rungs this device cannot run come back with `skipped` set. Throws GpuError without a device.
// `ctl` (optional, e.g. the lab's worker): progress after each rung, cancel checked before each (JobCancelled).
TcBenchResult bench_tc(const Problem& p, std::span<const float> a, std::span<const float> b, Reference& ref,
                       std::span<const Rung> which, int repetitions = 10, double budget_s = 1.5,
                       JobControl* ctl = nullptr);

}  // namespace bs::matmul::tc
