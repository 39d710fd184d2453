// matmul_cpu.cpp: the CPU baselines of C = A x B (naive triple loop on one thread, cache-blocked on all
// threads with OpenMP, OpenBLAS sgemm), the float64 reference (OpenBLAS dgemm), and the CPU bench row.
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "gpu/matmul/matmul.h"

namespace bs::matmul {

namespace {

void require_sizes(std::span<const float> a, std::span<const float> b, size_t c_size, const Problem& p) {
  if (auto err = validate(p)) throw InvalidRequest(*err);
  if (a.size() != p.a_count() || b.size() != p.b_count() || c_size != p.c_count())
    throw InvalidRequest("matrix sizes do not match " + to_string(p) +
                         ": A needs M*K, B K*N and C M*N values");
}

// The textbook loop: for each output, a dot product of a row of A with a column of B. The column of B is read
// with a stride of N floats, so nearly every read misses the cache once N*K no longer fits. Cancel is checked
// every 64 outputs, so even a single 8192-long row stops promptly.
void gemm_naive(const float* a, const float* b, float* c, const Problem& p, JobControl* ctl) {
  const int64_t M = p.m, N = p.n, K = p.k;
  constexpr int64_t check_every = 64;
  for (int64_t i = 0; i < M; ++i) {
    const float* arow = a + i * K;
    for (int64_t j0 = 0; j0 < N; j0 += check_every) {
      if (ctl && ctl->cancelled()) throw JobCancelled{};
      const int64_t j1 = std::min(N, j0 + check_every);
      for (int64_t j = j0; j < j1; ++j) {
        float acc = 0.0f;
        for (int64_t k = 0; k < K; ++k)
          acc += arow[k] * b[k * N + j];
        c[i * N + j] = acc;
      }
    }
    if (ctl) ctl->set_progress(static_cast<double>(i + 1) / static_cast<double>(M));
  }
}

// Cache blocking: a 64 x 256 block of C stays in L1/L2 while 256-deep slabs of A and B stream past it; the
// i-k-j order makes the innermost loop a contiguous, vectorisable "row of C += a * row of B". Blocks of C are
// independent, so OpenMP hands them to the threads; each block checks cancel before it starts.
void gemm_blocked(const float* a, const float* b, float* c, const Problem& p, JobControl* ctl) {
  const int64_t M = p.m, N = p.n, K = p.k;
  constexpr int64_t MB = 64, NB = 256, KB = 256;
  const int64_t mt = ceil_div(M, MB), nt = ceil_div(N, NB), tiles = mt * nt;
  std::atomic<int64_t> done{0};
  std::atomic<bool> stop{false};
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t t = 0; t < tiles; ++t) {
    if (stop.load(std::memory_order_relaxed)) continue;
    if (ctl && ctl->cancelled()) {
      stop.store(true, std::memory_order_relaxed);
      continue;
    }
    const int64_t i0 = (t / nt) * MB, i1 = std::min(M, i0 + MB);
    const int64_t j0 = (t % nt) * NB, j1 = std::min(N, j0 + NB);
    for (int64_t i = i0; i < i1; ++i)
      std::fill(c + i * N + j0, c + i * N + j1, 0.0f);
    for (int64_t k0 = 0; k0 < K; k0 += KB) {
      const int64_t k1 = std::min(K, k0 + KB);
      for (int64_t i = i0; i < i1; ++i) {
        float* __restrict__ crow = c + i * N;
        const float* arow = a + i * K;
        for (int64_t k = k0; k < k1; ++k) {
          const float av = arow[k];
          const float* __restrict__ brow = b + k * N;
#pragma omp simd
          for (int64_t j = j0; j < j1; ++j)
            crow[j] += av * brow[j];
        }
      }
    }
    const int64_t d = done.fetch_add(1, std::memory_order_relaxed) + 1;
    if (ctl) ctl->set_progress(static_cast<double>(d) / static_cast<double>(tiles));
  }
  if (stop.load()) throw JobCancelled{};
}

// Rows per BLAS call: whole matrix when small, else about an eighth of it, so progress and cancel have a
// point to act between calls while each call stays large enough for the library to run at full speed.
int64_t panel_rows(int64_t m) {
  return std::max<int64_t>(512, ceil_div(m, 8));
}

void gemm_openblas(const float* a, const float* b, float* c, const Problem& p, JobControl* ctl) {
  const int64_t M = p.m, N = p.n, K = p.k;
  const int64_t rows = panel_rows(M);
  for (int64_t i0 = 0; i0 < M; i0 += rows) {
    if (ctl && ctl->cancelled()) throw JobCancelled{};
    const int64_t r = std::min(rows, M - i0);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(r), static_cast<int>(N),
                static_cast<int>(K), 1.0f, a + i0 * K, static_cast<int>(K), b, static_cast<int>(N), 0.0f,
                c + i0 * N, static_cast<int>(N));
    if (ctl) ctl->set_progress(static_cast<double>(i0 + r) / static_cast<double>(M));
  }
}

}  // namespace

std::string cpu_label(CpuVariant v) {
  switch (v) {
    case CpuVariant::Naive:
      return "CPU naive triple loop, 1 thread";
    case CpuVariant::Blocked:
      return "CPU cache-blocked, " + std::to_string(omp_get_max_threads()) + " threads (OpenMP)";
    case CpuVariant::OpenBlas:
      return "CPU OpenBLAS sgemm, " + std::to_string(openblas_get_num_threads()) + " threads";
  }
  return "CPU";
}

void run_cpu(CpuVariant v, std::span<const float> a, std::span<const float> b, std::span<float> c,
             const Problem& p, JobControl* ctl) {
  require_sizes(a, b, c.size(), p);
  if (ctl) ctl->set_progress(0.0);
  switch (v) {
    case CpuVariant::Naive:
      gemm_naive(a.data(), b.data(), c.data(), p, ctl);
      break;
    case CpuVariant::Blocked:
      gemm_blocked(a.data(), b.data(), c.data(), p, ctl);
      break;
    case CpuVariant::OpenBlas:
      gemm_openblas(a.data(), b.data(), c.data(), p, ctl);
      break;
  }
}

std::vector<double> reference_cpu(std::span<const float> a, std::span<const float> b, const Problem& p,
                                  JobControl* ctl) {
  require_sizes(a, b, p.c_count(), p);
  // float -> double is exact, so the reference differs from the true product of the float inputs only by
  // float64 rounding (about 1e-16 relative): far below any float32 kernel's error.
  std::vector<double> ad(a.begin(), a.end()), bd(b.begin(), b.end());
  std::vector<double> c(p.c_count());
  const int64_t M = p.m, N = p.n, K = p.k;
  const int64_t rows = panel_rows(M);
  if (ctl) ctl->set_progress(0.0);
  for (int64_t i0 = 0; i0 < M; i0 += rows) {
    if (ctl && ctl->cancelled()) throw JobCancelled{};
    const int64_t r = std::min(rows, M - i0);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(r), static_cast<int>(N),
                static_cast<int>(K), 1.0, ad.data() + i0 * K, static_cast<int>(K), bd.data(),
                static_cast<int>(N), 0.0, c.data() + i0 * N, static_cast<int>(N));
    if (ctl) ctl->set_progress(static_cast<double>(i0 + r) / static_cast<double>(M));
  }
  return c;
}

BenchRow bench_cpu(CpuVariant v, const Problem& p, std::span<const float> a, std::span<const float> b,
                   const Reference& ref, int repetitions, double budget_s, JobControl* ctl) {
  BenchRow row;
  row.variant = info(v).name;
  row.label = cpu_label(v);
  row.device = "CPU";
  row.gpu = false;
  std::vector<float> c(p.c_count(), std::numeric_limits<float>::quiet_NaN());
  auto timed = [&] {
    const auto t0 = std::chrono::steady_clock::now();
    run_cpu(v, a, b, c, p, ctl);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  // The first run writes a NaN-poisoned C and is the one checked; it also pays for first-touch page faults
  // and thread start-up, so it is kept as a sample only when the run is too slow to repeat.
  const double first = timed();
  if (!ref.values.empty()) {
    row.check = check_result(c, ref.values, p.k, ref.label);
    row.checked = true;
  }
  std::vector<double> samples;
  const double budget_ms = budget_s * 1e3;
  if (first * 2 > budget_ms || repetitions <= 1) {
    samples.push_back(first);
  } else {
    const int n = std::clamp(static_cast<int>(budget_ms / first), 1, repetitions);
    for (int i = 0; i < n; ++i)
      samples.push_back(timed());
  }
  row.ms = summarize(samples);
  row.runs = static_cast<int>(samples.size());
  row.gflops = p.flops() / (row.ms.median * 1e-3) / 1e9;
  return row;
}

}  // namespace bs::matmul
