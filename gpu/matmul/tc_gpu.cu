// tc_gpu.cu: the TcRunner (tc.h): device buffers, the conversion of A and B to each precision (padded, timed),
// cuBLAS at every precision, and the dispatch of the hand-written tensor-core rungs.
#include <cublas_v2.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "core/error.h"
#include "gpu/common/device_buffer.h"
#include "gpu/matmul/matmul_operands.h"
#include "gpu/matmul/tc.h"
#include "gpu/matmul/tc_kernels.cuh"

namespace bs::matmul::tc {

namespace {

#define BS_TC_CUBLAS(expr)                                                                                     \
  do {                                                                                                         \
    const cublasStatus_t bs_st_ = (expr);                                                                      \
    if (bs_st_ != CUBLAS_STATUS_SUCCESS)                                                                       \
      throw GpuError(std::string("cuBLAS error ") + cublasGetStatusName(bs_st_) + " in " #expr " at " __FILE__, \
                     static_cast<int>(bs_st_), false);                                                         \
  } while (0)

int64_t round_up(int64_t x, int64_t to) {
  return (x + to - 1) / to * to;
}

int kind_of(Precision p) {
  switch (p) {
    case Precision::Fp16: return kernels::k_fp16;
    case Precision::Bf16: return kernels::k_bf16;
    case Precision::Tf32: return kernels::k_tf32;
    case Precision::Tf32x3: return kernels::k_tf32x3;
    case Precision::Fp32: return kernels::k_fp32;
  }
  return kernels::k_fp32;
}

size_t elem_bytes(Precision p) {
  return p == Precision::Fp16 || p == Precision::Bf16 ? 2 : 4;
}

using ConvertFn = void (*)(const float*, int, int, void*, int, int);
ConvertFn convert_fn(Precision p) {
  switch (p) {
    case Precision::Fp16: return kernels::convert_pad<kernels::k_fp16>;
    case Precision::Bf16: return kernels::convert_pad<kernels::k_bf16>;
    case Precision::Tf32: return kernels::convert_pad<kernels::k_tf32>;
    case Precision::Tf32x3: return kernels::convert_pad<kernels::k_tf32x3>;
    case Precision::Fp32: return kernels::convert_pad<kernels::k_fp32>;
  }
  return nullptr;
}
using WidenFn = void (*)(const void*, int, int, int, float*);
WidenFn widen_fn(Precision p) {
  switch (p) {
    case Precision::Fp16: return kernels::widen_unpad<kernels::k_fp16>;
    case Precision::Bf16: return kernels::widen_unpad<kernels::k_bf16>;
    default: return kernels::widen_unpad<kernels::k_tf32>;
  }
}

// A hand-written rung's kernel and its dynamic shared memory.
struct KernelLaunch {
  void (*fn)(kernels::TcArgs) = nullptr;
  int smem = 0;
};
KernelLaunch kernel_for(Rung r) {
  using namespace kernels;
  switch (r) {
    case Rung::WmmaFp16: return {wmma_gemm<k_fp16, 1>, WmmaShape<k_fp16, 1>::smem};
    case Rung::WmmaBf16: return {wmma_gemm<k_bf16, 1>, WmmaShape<k_bf16, 1>::smem};
    case Rung::WmmaTf32: return {wmma_gemm<k_tf32, 1>, WmmaShape<k_tf32, 1>::smem};
    case Rung::MmaBf16: return {mma_gemm<k_bf16, 1>, MmaShape<1>::smem};
    case Rung::MmaBf16Pipe: return {mma_gemm<k_bf16, 4>, MmaShape<4>::smem};
    case Rung::MmaFp16Pipe: return {mma_gemm<k_fp16, 4>, MmaShape<4>::smem};
    case Rung::WmmaTf32Pipe: return {wmma_gemm<k_tf32, 3>, WmmaShape<k_tf32, 3>::smem};
    case Rung::Tf32x3: return {wmma_gemm<k_tf32x3, 3>, WmmaShape<k_tf32x3, 3>::smem};
    default: return {};
  }
}

}  // namespace

struct TcRunner::Impl : MatmulOperands {  // p, info, a, b, c, stream (matmul_operands.h)
  Impl(const Problem& problem, size_t reserve, const std::string& note) : MatmulOperands(problem, reserve, note) {}
  int64_t m_p = 0, n_p = 0, k_p = 0;  // padded sizes
  Event start, stop;
  cublasHandle_t blas = nullptr;
  struct Converted {
    DeviceBuffer<unsigned char> a, b;
    double ms = -1;  // < 0: not converted since the last set_inputs
  };
  std::array<Converted, 5> conv;
  DeviceBuffer<unsigned char> workspace;  // for external rungs that ask for one (3xTF32 on wgmma: A's split)
  // Per rung, the workspace bytes it asked for (-1: not asked yet): the problem is fixed, and split-K's answer
  // costs a device query, which should not run inside the timed loop.
  std::vector<int64_t> workspace_need = std::vector<int64_t>(tc::rungs().size(), -1);
  std::array<bool, 16> smem_set{};

  ~Impl() {
    if (blas && cublasDestroy(blas) != CUBLAS_STATUS_SUCCESS)
      log_cuda_error(cudaErrorUnknown, "cublasDestroy", __FILE__, __LINE__);
  }

  cublasHandle_t cublas() {
    if (!blas) {
      BS_TC_CUBLAS(cublasCreate(&blas));
      BS_TC_CUBLAS(cublasSetStream(blas, stream.get()));
      // The default math mode: the compute type of each call alone decides TF32 or not.
      BS_TC_CUBLAS(cublasSetMathMode(blas, CUBLAS_DEFAULT_MATH));
    }
    return blas;
  }

  Converted& converted(Precision q) { return conv[static_cast<size_t>(kind_of(q))]; }

  void launch_cublas(Rung r) {
    // Row-major C = A B computed as column-major C^T = B^T A^T (matmul_gpu.cu explains the trick).
    const float alpha = 1.0f, beta = 0.0f;
    const int m = static_cast<int>(p.m), n = static_cast<int>(p.n);
    int k = static_cast<int>(p.k);
    const void *ap = a.data(), *bp = b.data();
    int lda = k, ldb = n;
    cudaDataType_t type = CUDA_R_32F;
    cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
    if (r == Rung::CublasTf32) compute = CUBLAS_COMPUTE_32F_FAST_TF32;  // cuBLAS rounds the float32 inputs itself
    if (r == Rung::CublasFp16 || r == Rung::CublasBf16) {
      const Precision q = r == Rung::CublasFp16 ? Precision::Fp16 : Precision::Bf16;
      Converted& cv = converted(q);
      ap = cv.a.data();
      bp = cv.b.data();
      lda = static_cast<int>(k_p);
      ldb = static_cast<int>(n_p);
      // K as the padded copies have it (zeros past K change nothing): the same K the hand-written rungs
      // multiply, so an odd K does not push cuBLAS off its aligned kernels while they read whole tiles.
      k = static_cast<int>(k_p);
      type = r == Rung::CublasFp16 ? CUDA_R_16F : CUDA_R_16BF;
    }
    BS_TC_CUBLAS(cublasGemmEx(cublas(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, bp, type, ldb, ap, type, lda,
                              &beta, c.data(), CUDA_R_32F, n, compute, CUBLAS_GEMM_DEFAULT));
  }

  // The converted copies rung `ri` reads: none (nullopt) where it reads the float32 inputs as they are (cuBLAS
  // FP32 and TF32; a float32_inputs rung where K and N are multiples of 4), the zero-padded float32 copy for such
  // a rung otherwise, else its precision's.
  std::optional<Precision> operands(const RungInfo& ri) const {
    if (ri.library && (ri.precision == Precision::Fp32 || ri.precision == Precision::Tf32)) return std::nullopt;
    if (ri.float32_inputs)
      return p.k % 4 == 0 && p.n % 4 == 0 ? std::nullopt : std::optional<Precision>(Precision::Fp32);
    return ri.precision;
  }

  double convert_for(const RungInfo& ri) {
    const std::optional<Precision> q = operands(ri);
    return q ? ensure_converted(*q) : 0.0;
  }

  void launch(Rung r) {
    const RungInfo& ri = info_of(r);
    convert_for(ri);
    if (ri.library) {
      launch_cublas(r);
      return;
    }
    if (ri.external) {
      const std::optional<Precision> q = operands(ri);
      const void* ap = q ? converted(*q).a.data() : static_cast<const void*>(a.data());
      const void* bp = q ? converted(*q).b.data() : static_cast<const void*>(b.data());
      const int64_t lda = q ? k_p : p.k, ldb = q ? n_p : p.n;
      void* ws = nullptr;
      if (ri.workspace_bytes) {
        // rungs() lists every Rung, so each has its slot.
        int64_t& need = workspace_need.at(static_cast<size_t>(r));
        if (need < 0) need = ri.workspace_bytes(p.m, p.n, p.k, lda);
        const auto bytes = static_cast<size_t>(need);
        if (workspace.size() < bytes) workspace.resize(bytes);
        ws = workspace.data();
      }
      ri.external(ap, static_cast<int>(lda), bp, static_cast<int>(ldb), c.data(), static_cast<int>(p.m),
                  static_cast<int>(p.n), static_cast<int>(p.k), ws, stream.get());
      BS_CUDA_CHECK_LAUNCH();
      return;
    }
    const KernelLaunch kl = kernel_for(r);
    if (!kl.fn) throw InvalidRequest(std::string("rung ") + ri.name + " has no kernel in this build");
    bool& set = smem_set[static_cast<size_t>(r)];
    if (!set) {
      // Above 48 KB of dynamic shared memory a kernel must opt in.
      BS_CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kl.fn),
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, kl.smem));
      set = true;
    }
    const Converted& cv = converted(ri.precision);
    const kernels::TcArgs args{cv.a.data(), cv.b.data(), c.data(), static_cast<int>(p.m), static_cast<int>(p.n),
                               static_cast<int>(k_p), static_cast<int>(n_p)};
    const dim3 grid(static_cast<unsigned>(n_p / kernels::k_bn), static_cast<unsigned>(m_p / kernels::k_bm));
    kl.fn<<<grid, kernels::k_threads, static_cast<size_t>(kl.smem), stream.get()>>>(args);
    BS_CUDA_CHECK_LAUNCH();
  }

  static const RungInfo& info_of(Rung r) { return tc::info(r); }

  double ensure_converted(Precision q) {
    Converted& cv = converted(q);
    if (cv.ms >= 0) return cv.ms;
    const size_t e = elem_bytes(q);
    cv.a.resize(static_cast<size_t>(m_p * k_p) * e);
    cv.b.resize(static_cast<size_t>(k_p * n_p) * e);
    const ConvertFn fn = convert_fn(q);
    const unsigned blocks = static_cast<unsigned>(std::max(1, info.sm_count) * 8);
    auto both = [&] {
      fn<<<blocks, 256, 0, stream.get()>>>(a.data(), static_cast<int>(p.m), static_cast<int>(p.k), cv.a.data(),
                                           static_cast<int>(m_p), static_cast<int>(k_p));
      BS_CUDA_CHECK_LAUNCH();
      fn<<<blocks, 256, 0, stream.get()>>>(b.data(), static_cast<int>(p.k), static_cast<int>(p.n), cv.b.data(),
                                           static_cast<int>(k_p), static_cast<int>(n_p));
      BS_CUDA_CHECK_LAUNCH();
    };
    // Once untimed: the first launch of a kernel also loads it (CUDA's lazy loading), which on the H100 made the
    // first conversion of a run look 6x slower than the others. The timed second one writes the same values.
    both();
    start.record(stream.get());
    both();
    stop.record(stream.get());
    stream.sync();
    cv.ms = elapsed_ms(start, stop);
    return cv.ms;
  }

  std::vector<float> widen(Precision q, bool is_a) {
    ensure_converted(q);
    const Converted& cv = converted(q);
    const int rows = static_cast<int>(is_a ? p.m : p.k), cols = static_cast<int>(is_a ? p.k : p.n);
    const int cols_p = static_cast<int>(is_a ? k_p : n_p);
    DeviceBuffer<float> out(static_cast<size_t>(rows) * static_cast<size_t>(cols));
    widen_fn(q)<<<static_cast<unsigned>(std::max(1, info.sm_count) * 8), 256, 0, stream.get()>>>(
        is_a ? cv.a.data() : cv.b.data(), rows, cols, cols_p, out.data());
    BS_CUDA_CHECK_LAUNCH();
    std::vector<float> host(out.size());
    BS_CUDA_CHECK(cudaMemcpyAsync(host.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost, stream.get()));
    stream.sync();
    return host;
  }
};

namespace {

// The largest workspace an external rung asks for on this problem (the runner keeps one, grown to the
// largest): wgmma 3xTF32's split of A (8 bytes per element of the padded A), split-K's partial C (at most
// about 1.5 x SMs x 64 KiB). 0 where the rungs cannot tell (no device to ask: MatmulOperands then refuses).
size_t largest_workspace(const Problem& p, int64_t k_p) {
  int64_t most = 0;
  for (const RungInfo& ri : tc::rungs()) {
    if (!ri.workspace_bytes) continue;
    try {
      most = std::max(most, ri.workspace_bytes(p.m, p.n, p.k, k_p));
    } catch (const GpuError&) {
      cudaGetLastError();
    }
  }
  return static_cast<size_t>(most);
}

}  // namespace

TcRunner::TcRunner(const Problem& p) {
  // float32 A, B, C plus the padded copies of every precision once run (FP16 2 + BF16 2 + TF32 4 + 3xTF32 4,
  // + the plain float32 copy 4 where a float32_inputs rung needs padding, bytes per element) and the largest
  // workspace of the external rungs, checked before any allocation. An invalid problem is refused by
  // MatmulOperands first.
  const bool sane = !validate(p);
  const int64_t m_p = sane ? round_up(p.m, k_pad_mn) : 0, n_p = sane ? round_up(p.n, k_pad_mn) : 0,
                k_p = sane ? round_up(p.k, k_pad_k) : 0;
  const size_t padded = static_cast<size_t>(m_p * k_p + k_p * n_p) * 16 + (sane ? largest_workspace(p, k_p) : 0);
  m = std::make_unique<Impl>(p, padded, " (the tensor-core rungs also keep padded copies of A and B per precision)");
  m->m_p = m_p;
  m->n_p = n_p;
  m->k_p = k_p;
}

TcRunner::~TcRunner() = default;

const Problem& TcRunner::problem() const {
  return m->p;
}
const DeviceInfo& TcRunner::device() const {
  return m->info;
}

void TcRunner::set_inputs(std::span<const float> a, std::span<const float> b) {
  m->upload(a, b);
  for (auto& cv : m->conv)
    cv.ms = -1;
}

double TcRunner::convert(Precision p) {
  return m->ensure_converted(p);
}

double TcRunner::convert_for(Rung r) {
  return m->convert_for(tc::info(r));
}

std::vector<float> TcRunner::converted_a(Precision p) {
  return m->widen(p, true);
}
std::vector<float> TcRunner::converted_b(Precision p) {
  return m->widen(p, false);
}

void TcRunner::run_once(Rung r) {
  if (auto why = unavailable_reason(info(r), m->info)) throw InvalidRequest(std::string(info(r).name) + ": " + *why);
  BS_CUDA_CHECK(cudaMemsetAsync(m->c.data(), 0xFF, m->c.bytes(), m->stream.get()));  // NaN everywhere
  m->launch(r);
  m->stream.sync();
}

std::vector<double> TcRunner::time_runs(Rung r, int warmup, int repetitions) {
  if (auto why = unavailable_reason(info(r), m->info)) throw InvalidRequest(std::string(info(r).name) + ": " + *why);
  for (int i = 0; i < warmup; ++i)
    m->launch(r);
  std::vector<Event> ev(static_cast<size_t>(2 * repetitions));
  for (int i = 0; i < repetitions; ++i) {
    ev[static_cast<size_t>(2 * i)].record(m->stream.get());
    m->launch(r);
    ev[static_cast<size_t>(2 * i + 1)].record(m->stream.get());
  }
  m->stream.sync();
  std::vector<double> ms;
  for (int i = 0; i < repetitions; ++i)
    ms.push_back(elapsed_ms(ev[static_cast<size_t>(2 * i)], ev[static_cast<size_t>(2 * i + 1)]));
  return ms;
}

std::vector<float> TcRunner::download_c() {
  std::vector<float> out(m->c.size());
  BS_CUDA_CHECK(cudaMemcpyAsync(out.data(), m->c.data(), m->c.bytes(), cudaMemcpyDeviceToHost, m->stream.get()));
  m->stream.sync();
  return out;
}

KernelAttributes TcRunner::attributes(Rung r) {
  KernelAttributes out;
  const KernelLaunch kl = kernel_for(r);
  if (!kl.fn || unavailable_reason(info(r), m->info)) return out;
  BS_CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kl.fn),
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, kl.smem));
  cudaFuncAttributes fa{};
  BS_CUDA_CHECK(cudaFuncGetAttributes(&fa, reinterpret_cast<const void*>(kl.fn)));
  out.known = true;
  out.regs_per_thread = fa.numRegs;
  out.static_smem_bytes = fa.sharedSizeBytes + static_cast<size_t>(kl.smem);
  out.local_bytes = fa.localSizeBytes;
  out.max_threads_per_block = fa.maxThreadsPerBlock;
  BS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&out.blocks_per_sm, reinterpret_cast<const void*>(kl.fn),
                                                              kernels::k_threads, static_cast<size_t>(kl.smem)));
  out.warps_per_sm = out.blocks_per_sm * (kernels::k_threads / 32);
  return out;
}

}  // namespace bs::matmul::tc
