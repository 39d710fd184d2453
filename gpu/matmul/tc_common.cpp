// tc_common.cpp: the tensor-core rung table (tc.h), the reasons a rung cannot run, and the bench that runs the
// rungs against cuBLAS at each precision and float64.
#include <algorithm>
#include <array>
#include <cmath>

#include "core/error.h"
#include "gpu/matmul/tc.h"
#include "gpu/matmul/tc_hopper.h"

namespace bs::matmul::tc {

namespace {

// The Hopper rungs: tc_hopper.h's steps, their names and texts as that header gives them, launched through
// hopper::gemm_bf16 on the runner's padded BF16 operands, or hopper::gemm_tf32 on the float32 inputs as they
// are (float32_inputs: nothing rounded beforehand; TF32: the tensor core uses A's TF32 bits and the kernel rounds
// B; 3xTF32: with a workspace for A's split).
template <hopper::Step S>
void launch_hopper(const void* a, int lda, const void* b, int ldb, float* c, int m, int n, int k, void* workspace,
                   void* stream) {
  if constexpr (S == hopper::Step::Tf32 || S == hopper::Step::Tf32x3)
    hopper::gemm_tf32(S, static_cast<const float*>(a), lda, static_cast<const float*>(b), ldb, c, m, n, k, workspace,
                      stream);
  else
    hopper::gemm_bf16(S, a, lda, b, ldb, c, m, n, k, stream, workspace);
}

int64_t tf32x3_workspace(int64_t m, int64_t, int64_t, int64_t lda) {
  return hopper::tf32x3_workspace_bytes(m, lda);
}
int64_t splitk_workspace(int64_t m, int64_t n, int64_t k, int64_t) {
  return hopper::splitk_workspace_bytes(m, n, k);
}

std::optional<std::string> hopper_unavailable(const DeviceInfo& d) {
  return hopper::unavailable_reason(d.index);
}

template <hopper::Step S>
RungInfo hopper_rung(Rung id) {
  constexpr bool tf32 = S == hopper::Step::Tf32 || S == hopper::Step::Tf32x3;
  const Precision p = S == hopper::Step::Tf32 ? Precision::Tf32 : tf32 ? Precision::Tf32x3 : Precision::Bf16;
  for (const hopper::StepInfo& s : tf32 ? hopper::tf32_steps() : hopper::steps())
    if (s.id == S)
      return RungInfo{id,
                      s.name,
                      s.title,
                      s.description,
                      p,
                      90,
                      false,
                      &hopper_unavailable,
                      &launch_hopper<S>,
                      S == hopper::Step::Tf32x3   ? &tf32x3_workspace
                      : S == hopper::Step::SplitK ? &splitk_workspace
                                                  : nullptr,
                      tf32};
  throw InvalidRequest("the Hopper rungs have no step " + std::to_string(static_cast<int>(S)));
}

// Ladder order: the library at each precision first (the rows every % refers to), then the hand-written rungs.
const std::array k_rungs{
    RungInfo{Rung::CublasFp32, "cublas_fp32", "cuBLAS SGEMM, strict FP32",
             "cublasGemmEx with CUBLAS_COMPUTE_32F in the default math mode: CUDA cores only, the SIMT ladder's "
             "reference and the accuracy 3xTF32 must match",
             Precision::Fp32, 50, true},
    RungInfo{Rung::CublasTf32, "cublas_tf32", "cuBLAS, TF32 tensor cores",
             "the same float32 inputs with CUBLAS_COMPUTE_32F_FAST_TF32: cuBLAS rounds them to TF32 and multiplies on "
             "tensor cores, accumulating in FP32",
             Precision::Tf32, 80, true},
    RungInfo{Rung::CublasFp16, "cublas_fp16", "cuBLAS, FP16 in, FP32 accumulate",
             "cublasGemmEx on the FP16 copies of A and B (K padded to a multiple of 32 with zeros, as every FP16 "
             "rung reads them), FP32 compute and output", Precision::Fp16, 70, true},
    RungInfo{Rung::CublasBf16, "cublas_bf16", "cuBLAS, BF16 in, FP32 accumulate",
             "cublasGemmEx on the BF16 copies of A and B (K padded to a multiple of 32 with zeros, as every BF16 "
             "rung reads them), FP32 compute and output", Precision::Bf16, 80, true},
    RungInfo{Rung::WmmaFp16, "wmma_fp16", "WMMA 16x16x16, FP16",
             "the first tensor-core kernel: each warp multiplies 16x16x16 tiles with one instruction (nvcuda::wmma) "
             "instead of 4096 FMAs on CUDA cores; shared-memory tiles of 128x128x32 as in the SIMT ladder, one stage",
             Precision::Fp16, 80, false},
    RungInfo{Rung::WmmaBf16, "wmma_bf16", "WMMA 16x16x16, BF16",
             "the same kernel in BF16: FP32's exponent range with a 7-bit mantissa, so no overflow where FP16 "
             "would, at the same speed", Precision::Bf16, 80, false},
    RungInfo{Rung::WmmaTf32, "wmma_tf32", "WMMA 16x16x8, TF32",
             "TF32 fragments (k = 8): float32 storage, half the tensor-core rate of BF16, twice the bytes per "
             "element", Precision::Tf32, 80, false},
    RungInfo{Rung::MmaBf16, "mma_bf16", "mma.sync + ldmatrix, swizzled smem, BF16",
             "PTX mma.sync m16n8k16 instead of WMMA: fragments loaded with ldmatrix (one instruction gives a warp four "
             "8x8 tiles) from shared memory laid out in XOR-swizzled 16-byte chunks, so the 8 rows an ldmatrix phase "
             "reads fall in 32 different banks (unswizzled: 4-way and 8-way conflicts); still one stage",
             Precision::Bf16, 80, false},
    RungInfo{Rung::MmaBf16Pipe, "mma_bf16_pipe", "mma.sync + cp.async 4-stage pipeline, BF16",
             "the same math fed by cp.async: global -> shared copies that skip the registers and run in the "
             "background, 3 tiles in flight while the 4th is multiplied, so the tensor cores no longer wait for "
             "memory at every k-step", Precision::Bf16, 80, false},
    RungInfo{Rung::MmaFp16Pipe, "mma_fp16_pipe", "mma.sync + cp.async 4-stage pipeline, FP16",
             "the pipelined kernel in FP16: same speed as BF16, 3 more mantissa bits, FP16's small range",
             Precision::Fp16, 80, false},
    RungInfo{Rung::WmmaTf32Pipe, "wmma_tf32_pipe", "WMMA TF32 + cp.async 3-stage pipeline",
             "the TF32 WMMA kernel fed by a 3-stage cp.async pipeline (TF32 tiles are twice the bytes of BF16 ones, "
             "so fewer stages fit)", Precision::Tf32, 80, false},
    RungInfo{Rung::Tf32x3, "tf32x3", "3xTF32 (FP32 accuracy on TF32 tensor cores)",
             "each float32 input split into hi = tf32(x) and lo = tf32(x - hi) in the kernel; a_lo*b_hi + a_hi*b_lo + "
             "a_hi*b_hi on TF32 tensor cores (3 products for 1) keeps about 22 mantissa bits; each k-tile is summed from "
             "zero and added to the FP32 total on the CUDA cores, because the tensor core's accumulation truncates: "
             "FP32's accuracy on tensor cores", Precision::Tf32x3, 80, false},
    hopper_rung<hopper::Step::TmaWgmma>(Rung::WgmmaTma),
    hopper_rung<hopper::Step::WarpSpecialized>(Rung::WarpSpecialized),
    hopper_rung<hopper::Step::Persistent>(Rung::WsPersistent),
    hopper_rung<hopper::Step::TmaStore>(Rung::WsTmaStore),
    hopper_rung<hopper::Step::SplitK>(Rung::WgmmaSplitK),
    hopper_rung<hopper::Step::Tf32>(Rung::WgmmaTf32),
    hopper_rung<hopper::Step::Tf32x3>(Rung::WgmmaTf32x3),
};

const char* cc_needs(const RungInfo& r) {
  if (r.min_cc >= 90) return "Hopper's TMA, wgmma and setmaxnreg in sm_90a code";
  if (r.library) return r.precision == Precision::Fp16 ? "FP16 tensor cores" : "BF16/TF32 tensor cores";
  return "cp.async and BF16/TF32 tensor cores";
}

}  // namespace

std::span<const RungInfo> rungs() {
  return k_rungs;
}

const RungInfo& info(Rung r) {
  for (const auto& i : k_rungs)
    if (i.id == r) return i;
  throw InvalidRequest("unknown tensor-core rung");
}

std::optional<Rung> parse_rung(std::string_view name) {
  for (const auto& i : k_rungs)
    if (name == i.name) return i.id;
  return std::nullopt;
}

Rung cublas_rung(Precision p) {
  switch (p) {
    case Precision::Bf16: return Rung::CublasBf16;
    case Precision::Fp16: return Rung::CublasFp16;
    case Precision::Tf32: return Rung::CublasTf32;
    case Precision::Fp32:
    case Precision::Tf32x3: return Rung::CublasFp32;
  }
  return Rung::CublasFp32;
}

std::optional<std::string> unavailable_reason(const RungInfo& r, const DeviceInfo& d) {
  if (!d.available) return "no CUDA device: " + d.reason;
  const int cc = d.cc_major * 10 + d.cc_minor;
  if (cc < r.min_cc)
    return "needs compute capability " + std::to_string(r.min_cc / 10) + "." + std::to_string(r.min_cc % 10) + " (" +
           cc_needs(r) + "); this GPU is " + d.compute_capability();
  if (r.unavailable) return r.unavailable(d);
  return std::nullopt;
}

TcBenchResult bench_tc(const Problem& p, std::span<const float> a, std::span<const float> b, Reference& ref,
                       std::span<const Rung> which, int repetitions, double budget_s, JobControl* ctl) {
  TcBenchResult out;
  TcRunner runner(p);
  const DeviceInfo& dev = runner.device();
  out.device = dev.name;
  runner.set_inputs(a, b);
  if (ref.values.empty()) {
    const double fmas = static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k);
    if (fmas > k_cpu_reference_max_fmas) {
      GpuRunner g(p);
      g.set_inputs(a, b);
      ref.values = g.reference_f64();
      ref.label = "float64 GPU (cuBLAS DGEMM)";
    } else {
      ref.values = reference_cpu(a, b, p);
      ref.label = "float64 CPU (OpenBLAS dgemm)";
    }
  }
  out.reference = ref.label;

  // The rungs asked for and the cuBLAS rung of each one's precision, in table order.
  std::vector<bool> want(k_rungs.size(), which.empty());
  for (const Rung r : which)
    for (size_t i = 0; i < k_rungs.size(); ++i)
      if (k_rungs[i].id == r || k_rungs[i].id == cublas_rung(info(r).precision)) want[i] = true;

  for (size_t i = 0; i < k_rungs.size(); ++i) {
    if (ctl) {
      if (ctl->cancelled()) throw JobCancelled{};
      ctl->set_progress(static_cast<double>(i) / static_cast<double>(k_rungs.size()));
    }
    if (!want[i]) continue;
    const RungInfo& ri = k_rungs[i];
    TcRow row;
    row.rung = &ri;
    if (auto why = unavailable_reason(ri, dev)) {
      row.skipped = *why;
      out.rows.push_back(std::move(row));
      continue;
    }
    row.convert_ms = runner.convert_for(ri.id);
    runner.run_once(ri.id);
    row.error = measure_error(runner.download_c(), ref.values, p.n, error_bound(ri.precision, p.k));
    const double first = runner.time_runs(ri.id, 0, 1).front();
    const int n = std::clamp(static_cast<int>(budget_s * 1e3 / std::max(first, 1e-3)), 3, std::max(repetitions, 3));
    row.ms = summarize(runner.time_runs(ri.id, 1, n));
    row.runs = n;
    row.tflops = p.flops() / (row.ms.median * 1e-3) / 1e12;
    row.attr = runner.attributes(ri.id);
    out.rows.push_back(std::move(row));
  }
  for (TcRow& row : out.rows) {
    if (!row.skipped.empty()) continue;
    const Rung lib = cublas_rung(row.rung->precision);
    for (const TcRow& c : out.rows)
      if (c.rung->id == lib && c.skipped.empty() && row.ms.median > 0)
        row.pct_cublas = 100.0 * c.ms.median / row.ms.median;
  }
  return out;
}

}  // namespace bs::matmul::tc
