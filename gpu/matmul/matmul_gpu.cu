// matmul_gpu.cu: the GpuRunner (device buffers, kernel dispatch, event timing, kernel attributes), cuBLAS
// SGEMM in strict FP32 and the cuBLAS DGEMM reference, and the GPU bench.
#include <cublas_v2.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "gpu/common/device_buffer.h"
#include "gpu/common/device_info.h"
#include "gpu/common/gpu_timer.h"
#include "gpu/common/nvtx_range.h"
#include "gpu/matmul/matmul.h"
#include "gpu/matmul/matmul_kernels.cuh"
#include "gpu/matmul/matmul_operands.h"

namespace bs::matmul {

namespace {

void throw_cublas(cublasStatus_t st, const char* expr, const char* file, int line) {
  throw GpuError(std::string("cuBLAS error ") + cublasGetStatusName(st) + " (" + cublasGetStatusString(st) +
                     ") in " + expr + " at " + file + ":" + std::to_string(line),
                 static_cast<int>(st), false);
}

#define BS_CUBLAS_CHECK(expr)                                                             \
  do {                                                                                    \
    const cublasStatus_t bs_st_ = (expr);                                                 \
    if (bs_st_ != CUBLAS_STATUS_SUCCESS) throw_cublas(bs_st_, #expr, __FILE__, __LINE__); \
  } while (0)

size_t free_device_bytes() {
  size_t free_b = 0, total_b = 0;
  BS_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  return free_b;
}

}  // namespace

struct GpuRunner::Impl : MatmulOperands {  // p, info, a, b, c, stream (matmul_operands.h)
  explicit Impl(const Problem& problem) : MatmulOperands(problem) {}
  bool vec = false;  // K and N multiples of 4: the block-tile kernels use float4 loads and stores
  EventTimer timer;
  cublasHandle_t blas = nullptr;
  std::optional<AutoChoice> auto_override;
  AutoChoice auto_default;
  DeviceBuffer<float> workspace;  // split-k partial products (auto), grown on first need
  DeviceBuffer<float> b_padded;   // auto's tile kernels where N is not a multiple of 4: B, rows padded to 4n
  // Split-k's fold (auto_folds): one arrival counter per tile of C, zeroed once when allocated; each launch's
  // last block of a tile sets it back to 0.
  DeviceBuffer<unsigned> tile_counters;
  std::array<bool, 2 * cfg::k_auto_configs.size()> auto_smem_set{};  // dynamic smem limit raised per kernel

  AutoChoice auto_choice() const { return auto_override ? *auto_override : auto_default; }

  kernels::AutoKernelFn auto_kernel(const AutoChoice& ch) {
    const bool f4 = auto_float4(auto_configs()[static_cast<size_t>(ch.config)], p);
    const kernels::AutoKernelFn fn = kernels::auto_kernel_for(ch.config, f4);
    if (!fn) throw InvalidRequest("auto: no config " + std::to_string(ch.config));
    bool& set = auto_smem_set[static_cast<size_t>(ch.config) * 2 + (f4 ? 1 : 0)];
    if (!set) {
      // Above 48 KB of dynamic shared memory a kernel must opt in.
      const int bytes = static_cast<int>(auto_configs()[static_cast<size_t>(ch.config)].smem_bytes);
      BS_CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(fn),
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
      set = true;
    }
    return fn;
  }

  void launch_auto(const AutoChoice& ch) {
    const kernels::AutoKernelFn fn = auto_kernel(ch);
    const AutoConfigInfo& ci = auto_configs()[static_cast<size_t>(ch.config)];
    const int slices = auto_slices(ch, p);
    const size_t mn = p.c_count();
    const size_t slice = kernels::auto_slice_floats(p);
    float* out = c.data();
    if (slices > 1) {
      if (workspace.size() < slice * static_cast<size_t>(slices)) {
        workspace = DeviceBuffer<float>();  // free the old one first
        workspace.resize(slice * static_cast<size_t>(slices));
      }
      out = workspace.data();
    }
    const LaunchShape s = launch_shape(ch, p);
    const dim3 grid(static_cast<unsigned>(s.grid.x), static_cast<unsigned>(s.grid.y),
                    static_cast<unsigned>(slices));
    const float* bsrc = b.data();
    int ldb = static_cast<int>(p.n);
    if (auto_pads_b(ci, p)) {
      // Every run copies B into rows of a multiple of 4 floats (zeros past N), so that the kernel's copies of
      // B are 16-byte cp.async like at aligned sizes; the copy is part of auto's time.
      ldb = static_cast<int>((p.n + 3) / 4 * 4);
      const size_t count = static_cast<size_t>(p.k) * static_cast<size_t>(ldb);
      if (b_padded.size() < count) {
        const size_t bytes = count * sizeof(float);
        if (bytes + k_device_reserve_bytes > free_device_bytes())
          throw InvalidRequest("auto at " + to_string(p) + " needs " + std::to_string((bytes >> 20) + 1) +
                               " MiB more device memory for a copy of B with rows padded to a multiple of 4 "
                               "floats; choose sizes whose N is a multiple of 4, or smaller sizes");
        b_padded.resize(count);
      }
      // A block per row of B (at most 16 per SM, grid-stride beyond), a thread per float4 of the row.
      const int blocks = static_cast<int>(std::min<int64_t>(p.k, std::max(info.sm_count, 1) * 16));
      const int threads = std::min(256, (ldb / 4 + 31) / 32 * 32);
      kernels::pad_rows<<<blocks, threads, 0, stream.get()>>>(
          b.data(), b_padded.data(), static_cast<int>(p.k), static_cast<int>(p.n), ldb);
      BS_CUDA_CHECK_LAUNCH();
      bsrc = b_padded.data();
    }
    const bool fold = slices > 1 && auto_folds(ch, p);
    unsigned* counters = nullptr;
    if (fold) {
      const size_t tiles = static_cast<size_t>(s.grid.x) * static_cast<size_t>(s.grid.y);
      if (tile_counters.size() < tiles) {
        tile_counters = DeviceBuffer<unsigned>();
        tile_counters.resize(tiles);
        BS_CUDA_CHECK(cudaMemsetAsync(tile_counters.data(), 0, tiles * sizeof(unsigned), stream.get()));
      }
      counters = tile_counters.data();
    }
    const kernels::AutoArgs args = kernels::auto_args(ch, p, a.data(), bsrc, ldb, out, c.data(), counters);
    fn<<<grid, static_cast<unsigned>(ci.threads), ci.smem_bytes, stream.get()>>>(args);
    BS_CUDA_CHECK_LAUNCH();
    if (slices > 1 && !fold) {
      // A float4 per thread and pass; 64-thread blocks where 256 would leave SMs idle (small C, many slices).
      const size_t items = slice / 4, sms = static_cast<size_t>(std::max(info.sm_count, 1));
      const int threads = items >= 256 * 2 * sms ? 256 : 64;
      const int blocks = static_cast<int>(std::min<size_t>((items + threads - 1) / threads, sms * 32));
      kernels::splitk_reduce<<<blocks, threads, 0, stream.get()>>>(workspace.data(), c.data(), mn, slice,
                                                                   slices);
      BS_CUDA_CHECK_LAUNCH();
    }
  }

  ~Impl() {
    if (blas) {
      const cublasStatus_t st = cublasDestroy(blas);
      if (st != CUBLAS_STATUS_SUCCESS) log_cuda_error(cudaErrorUnknown, "cublasDestroy", __FILE__, __LINE__);
    }
  }

  cublasHandle_t cublas() {
    if (!blas) {
      BS_CUBLAS_CHECK(cublasCreate(&blas));
      BS_CUBLAS_CHECK(cublasSetStream(blas, stream.get()));
      // Strict FP32: the default math mode never uses TF32 tensor cores (that needs
      // CUBLAS_TF32_TENSOR_OP_MATH or CUBLAS_COMPUTE_32F_FAST_TF32) nor BF16x9 emulation
      // (CUBLAS_FP32_EMULATED_BF16X9_MATH). Set explicitly rather than trusting the default, and read back.
      BS_CUBLAS_CHECK(cublasSetMathMode(blas, CUBLAS_DEFAULT_MATH));
      cublasMath_t mode{};
      BS_CUBLAS_CHECK(cublasGetMathMode(blas, &mode));
      if (mode != CUBLAS_DEFAULT_MATH) throw GpuError("cuBLAS refused CUBLAS_DEFAULT_MATH", 0, false);
    }
    return blas;
  }

  void launch(Variant v) {
    const int m = static_cast<int>(p.m), n = static_cast<int>(p.n), k = static_cast<int>(p.k);
    if (v == Variant::Cublas) {
      // cuBLAS is column-major. Row-major C (m x n) has the bytes of column-major C^T (n x m), and likewise A
      // and B, so C = A B is computed as C^T = B^T A^T: "B" first, with dimensions (n, m, k) and leading
      // dimensions n, k, n. No transposes, no copies.
      const float alpha = 1.0f, beta = 0.0f;
      BS_CUBLAS_CHECK(cublasGemmEx(cublas(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b.data(), CUDA_R_32F,
                                   n, a.data(), CUDA_R_32F, k, &beta, c.data(), CUDA_R_32F, n,
                                   CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
      return;
    }
    if (v == Variant::Auto) {
      launch_auto(auto_choice());
      return;
    }
    const LaunchShape s = launch_shape(v, p);
    const dim3 block(static_cast<unsigned>(s.block.x), static_cast<unsigned>(s.block.y));
    const dim3 grid(static_cast<unsigned>(s.grid.x), static_cast<unsigned>(s.grid.y));
    kernels::kernel_for(v, vec)<<<grid, block, 0, stream.get()>>>(a.data(), b.data(), c.data(), m, n, k);
    BS_CUDA_CHECK_LAUNCH();
  }
};

GpuRunner::GpuRunner(const Problem& p) : m(std::make_unique<Impl>(p)) {
  m->vec = p.k % 4 == 0 && p.n % 4 == 0;
  m->auto_default = choose_auto(p, m->info.sm_count);
}

AutoChoice GpuRunner::auto_choice() const {
  return m->auto_choice();
}

void GpuRunner::set_auto_choice(std::optional<AutoChoice> c) {
  if (c && (c->config < 0 || c->config >= static_cast<int>(auto_configs().size()) || c->split_k < 1))
    throw InvalidRequest("auto: config " + std::to_string(c->config) + " / split-k " +
                         std::to_string(c->split_k) + " does not exist");
  if (c && !auto_fits(auto_configs()[static_cast<size_t>(c->config)], m->p))
    throw InvalidRequest(std::string("auto: config ") + auto_configs()[static_cast<size_t>(c->config)].name +
                         " computes matrix-vector shapes only (M or N up to its width), not " + to_string(m->p));
  m->auto_override = c;
}

GpuRunner::~GpuRunner() = default;

const Problem& GpuRunner::problem() const {
  return m->p;
}
const DeviceInfo& GpuRunner::device() const {
  return m->info;
}

void GpuRunner::set_inputs(std::span<const float> a, std::span<const float> b) {
  m->upload(a, b);
}

void GpuRunner::poison_c() {
  // Every byte 0xFF: 0xFFFFFFFF is a quiet NaN in float32.
  BS_CUDA_CHECK(cudaMemsetAsync(m->c.data(), 0xFF, m->c.bytes(), m->stream.get()));
}

void GpuRunner::run_once(Variant v) {
  poison_c();
  m->launch(v);
  m->stream.sync();
}

void GpuRunner::enqueue(Variant v) {
  m->timer.begin(m->stream.get());
  m->launch(v);
  m->timer.end(m->stream.get());
}

std::vector<double> GpuRunner::poll_ms() {
  std::vector<double> out;
  for (const auto& s : m->timer.poll())
    out.push_back(s.ms);
  return out;
}

std::vector<double> GpuRunner::time_runs(Variant v, int warmup, int repetitions) {
  const NvtxRange range(std::string("matmul/") + info(v).name);
  for (int i = 0; i < warmup; ++i)
    m->launch(v);
  repetitions = std::max(repetitions, 1);
  // Back-to-back launches between consecutive events: each interval is one run, and the host never waits in
  // between.
  std::vector<Event> ev(static_cast<size_t>(repetitions) + 1);
  ev[0].record(m->stream.get());
  for (int r = 0; r < repetitions; ++r) {
    m->launch(v);
    ev[static_cast<size_t>(r) + 1].record(m->stream.get());
  }
  BS_CUDA_CHECK(cudaEventSynchronize(ev.back().get()));
  std::vector<double> ms;
  for (size_t r = 0; r + 1 < ev.size(); ++r)
    ms.push_back(elapsed_ms(ev[r], ev[r + 1]));
  return ms;
}

void GpuRunner::sync() {
  m->stream.sync();
}

std::vector<float> GpuRunner::download_c() {
  std::vector<float> out(m->c.size());
  BS_CUDA_CHECK(
      cudaMemcpyAsync(out.data(), m->c.data(), m->c.bytes(), cudaMemcpyDeviceToHost, m->stream.get()));
  m->stream.sync();
  return out;
}

const float* GpuRunner::device_a() const {
  return m->a.data();
}
const float* GpuRunner::device_b() const {
  return m->b.data();
}
const float* GpuRunner::device_c() const {
  return m->c.data();
}
void* GpuRunner::stream_handle() const {
  return m->stream.get();
}

LaunchShape GpuRunner::launch(Variant v) const {
  if (v == Variant::Auto) return launch_shape(m->auto_choice(), m->p);
  return launch_shape(v, m->p);
}

KernelAttributes GpuRunner::attributes(Variant v) {
  KernelAttributes out;
  if (v == Variant::Auto) {
    const AutoChoice ch = m->auto_choice();
    const kernels::AutoKernelFn fn = m->auto_kernel(ch);
    const AutoConfigInfo& ci = auto_configs()[static_cast<size_t>(ch.config)];
    cudaFuncAttributes fa{};
    BS_CUDA_CHECK(cudaFuncGetAttributes(&fa, reinterpret_cast<const void*>(fn)));
    out.known = true;
    out.regs_per_thread = fa.numRegs;
    out.static_smem_bytes = fa.sharedSizeBytes + ci.smem_bytes;  // static + dynamic
    out.local_bytes = fa.localSizeBytes;
    out.max_threads_per_block = fa.maxThreadsPerBlock;
    BS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &out.blocks_per_sm, reinterpret_cast<const void*>(fn), ci.threads, ci.smem_bytes));
    out.warps_per_sm = out.blocks_per_sm * (ci.threads / 32);
    return out;
  }
  const kernels::KernelFn fn = kernels::kernel_for(v, m->vec);
  if (!fn) return out;
  cudaFuncAttributes fa{};
  BS_CUDA_CHECK(cudaFuncGetAttributes(&fa, reinterpret_cast<const void*>(fn)));
  out.known = true;
  out.regs_per_thread = fa.numRegs;
  out.static_smem_bytes = fa.sharedSizeBytes;
  out.local_bytes = fa.localSizeBytes;
  out.max_threads_per_block = fa.maxThreadsPerBlock;
  const LaunchShape s = launch_shape(v, m->p);
  const int threads = static_cast<int>(s.block.count());
  BS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&out.blocks_per_sm,
                                                              reinterpret_cast<const void*>(fn), threads, 0));
  out.warps_per_sm = out.blocks_per_sm * ((threads + 31) / 32);
  return out;
}

std::vector<double> GpuRunner::reference_f64() {
  const Problem& p = m->p;
  const size_t need = (p.a_count() + p.b_count() + p.c_count()) * sizeof(double) + k_device_reserve_bytes;
  const size_t free_b = free_device_bytes();
  if (need > free_b)
    throw InvalidRequest("the float64 GPU reference at " + to_string(p) + " needs " +
                         std::to_string(need >> 20) + " MiB of device memory; " +
                         std::to_string(free_b >> 20) + " MiB are free");
  DeviceBuffer<double> ad(p.a_count()), bd(p.b_count()), cd(p.c_count());
  const cudaStream_t s = m->stream.get();
  const int blocks = std::max(1, m->info.sm_count) * 8;
  kernels::widen<<<blocks, 256, 0, s>>>(m->a.data(), ad.data(), p.a_count());
  BS_CUDA_CHECK_LAUNCH();
  kernels::widen<<<blocks, 256, 0, s>>>(m->b.data(), bd.data(), p.b_count());
  BS_CUDA_CHECK_LAUNCH();
  // Same transpose trick as SGEMM. DGEMM in the default math mode is IEEE float64 (no fixed-point emulation,
  // which needs CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH).
  const double alpha = 1.0, beta = 0.0;
  const int mm = static_cast<int>(p.m), nn = static_cast<int>(p.n), kk = static_cast<int>(p.k);
  BS_CUBLAS_CHECK(cublasDgemm(m->cublas(), CUBLAS_OP_N, CUBLAS_OP_N, nn, mm, kk, &alpha, bd.data(), nn,
                              ad.data(), kk, &beta, cd.data(), nn));
  std::vector<double> out(p.c_count());
  BS_CUDA_CHECK(
      cudaMemcpyAsync(out.data(), cd.data(), cd.size() * sizeof(double), cudaMemcpyDeviceToHost, s));
  m->stream.sync();
  return out;
}

std::string GpuRunner::cublas_mode() {
  return "cublasGemmEx, CUBLAS_COMPUTE_32F, CUBLAS_DEFAULT_MATH (strict FP32: no TF32, no BF16x9 emulation)";
}

void GpuRunner::abandon() noexcept {
  m->a.abandon();
  m->b.abandon();
  m->c.abandon();
  m->workspace.abandon();
  m->b_padded.abandon();
  m->tile_counters.abandon();
  m->stream.abandon();
  m->timer.abandon();
  m->blas = nullptr;
}

// --- Bench -------------------------------------------------------------------------------------------------

GpuBenchResult bench_gpu(const Problem& p, std::span<const float> a, std::span<const float> b, Reference& ref,
                         std::span<const Variant> variants, int repetitions, double budget_s) {
  GpuBenchResult out;
  GpuRunner runner(p);
  out.device = runner.device().name;
  out.peak_gflops = peak_fp32_gflops(runner.device());
  runner.set_inputs(a, b);

  if (ref.values.empty()) {
    const double fmas = static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k);
    if (fmas > k_cpu_reference_max_fmas) {
      try {
        ref.values = runner.reference_f64();
        ref.label = "float64 GPU (cuBLAS DGEMM)";
      } catch (const InvalidRequest& e) {
        out.notes.push_back(std::string(e.what()) + ": using the CPU reference instead");
      }
    }
    if (ref.values.empty()) {
      ref.values = reference_cpu(a, b, p);
      ref.label = "float64 CPU (OpenBLAS dgemm)";
    }
  }

  const double budget_ms = budget_s * 1e3;
  auto bench_one = [&](Variant v) {
    BenchRow row;
    row.variant = matmul::info(v).name;
    row.label = matmul::info(v).title;
    row.device = out.device;
    row.gpu = true;
    row.launch = runner.launch(v);
    row.attr = runner.attributes(v);
    if (v == Variant::Auto) row.choice = to_string(runner.auto_choice());
    // Correctness on a NaN-poisoned C; this run also loads the module and (cuBLAS) picks the algorithm.
    runner.run_once(v);
    row.check = check_result(runner.download_c(), ref.values, p.k, ref.label);
    row.checked = true;
    // One more run to see how long a run takes, then as many as fit the budget (at least 3 in all).
    std::vector<double> ms = runner.time_runs(v, 0, 1);
    const int more =
        std::clamp(static_cast<int>(budget_ms / std::max(ms[0], 1e-3)), 3, std::max(repetitions, 3)) - 1;
    const std::vector<double> rest = runner.time_runs(v, ms[0] * 3 < budget_ms ? 1 : 0, more);
    ms.insert(ms.end(), rest.begin(), rest.end());
    row.ms = summarize(ms);
    row.runs = static_cast<int>(ms.size());
    row.gflops = p.flops() / (row.ms.median * 1e-3) / 1e9;
    row.pct_peak = out.peak_gflops > 0 ? 100.0 * row.gflops / out.peak_gflops : -1;
    if (row.attr.known && row.attr.local_bytes > 0)
      row.note = std::to_string(row.attr.local_bytes) + " bytes/thread of local memory: registers spilled";
    return row;
  };

  // cuBLAS is measured first and again last, and the faster of the two is the reference: clocks that drift
  // during the run (warming up, or throttling when hot) then never flatter the hand-written kernels.
  BenchRow cublas = bench_one(Variant::Cublas);
  for (const auto& vi : gpu_variants()) {
    if (vi.id == Variant::Cublas) continue;
    if (std::find(variants.begin(), variants.end(), vi.id) != variants.end())
      out.rows.push_back(bench_one(vi.id));
  }
  BenchRow again = bench_one(Variant::Cublas);
  out.notes.push_back("cuBLAS median " + std::to_string(cublas.ms.median) +
                      " ms before the other variants, " + std::to_string(again.ms.median) +
                      " ms after; the faster is the % cuBLAS reference");
  const CheckResult worse = cublas.check.pass ? again.check : cublas.check;  // a failure is never hidden
  if (again.ms.median < cublas.ms.median) cublas = std::move(again);
  cublas.check = worse;
  out.rows.push_back(std::move(cublas));
  const double cublas_ms = out.rows.back().ms.median;
  for (auto& r : out.rows)
    r.pct_cublas = 100.0 * cublas_ms / r.ms.median;
  out.notes.push_back("cuBLAS: " + GpuRunner::cublas_mode());
  return out;
}

}  // namespace bs::matmul
