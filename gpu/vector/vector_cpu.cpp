// vector_cpu.cpp: the vector lab's CPU side: deterministic inputs, the CPU baselines (one thread; all threads
// with OpenMP) with progress and cancel, their timing, and the check of a result against the CPU formula.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "core/clock.h"
#include "gpu/common/input_hash.h"
#include "gpu/vector/elementwise.h"
#include "gpu/vector/vector.h"

namespace bs::vector {

namespace {

// Elements between two looks at the cancel flag: 1M floats x 3 arrays = 12 MiB, about a millisecond.
constexpr int64_t k_slab = int64_t{1} << 20;

// Thread t's contiguous share of [0, n). fill_inputs and compute_cpu use the same split, so each thread
// computes on the pages it first touched (on a two-socket host they sit in its own socket's memory).
inline std::pair<int64_t, int64_t> share(int64_t n, int t, int nt) {
  return {n * t / nt, n * (t + 1) / nt};
}

// [0.5, 1.5): the input hash's fraction, plus one half.
inline float unit_input(int64_t i, uint32_t salt) {
  return 0.5f + unit_fraction(i, salt);
}

template <Op op>
void kernel_range(const float* __restrict a, const float* __restrict b, float* __restrict c, int64_t lo,
                  int64_t hi) {
  for (int64_t i = lo; i < hi; ++i)
    c[i] = apply_op<op>(a[i], b[i]);
}

void compute_range(Op op, const float* a, const float* b, float* c, int64_t lo, int64_t hi) {
  if (op == Op::Add)
    kernel_range<Op::Add>(a, b, c, lo, hi);
  else
    kernel_range<Op::Formula>(a, b, c, lo, hi);
}

}  // namespace

void fill_inputs(float* a, float* b, int64_t n, uint32_t seed) {
  if (n <= 0) return;
  const uint32_t sa = mix32(seed * 2 + 1), sb = mix32(seed * 2 + 2);
#pragma omp parallel if (n > 65536)
  {
    const auto [lo, hi] = share(n, omp_get_thread_num(), omp_get_num_threads());
    for (int64_t i = lo; i < hi; ++i) {
      a[i] = unit_input(i, sa);
      b[i] = unit_input(i, sb);
    }
  }
}

void compute_cpu(Op op, const float* a, const float* b, float* c, int64_t n, CpuMode mode, JobControl* ctl) {
  if (n <= 0) return;
  if (mode == CpuMode::OneThread) {
    for (int64_t lo = 0; lo < n; lo += k_slab) {
      if (ctl && ctl->cancelled()) throw JobCancelled{};
      const int64_t hi = std::min(n, lo + k_slab);
      compute_range(op, a, b, c, lo, hi);
      if (ctl) ctl->set_progress(static_cast<double>(hi) / static_cast<double>(n));
    }
    return;
  }
  // One parallel region with a static split (see share); each thread looks at the cancel flag between slabs.
  std::atomic<int64_t> done{0};
#pragma omp parallel
  {
    const auto [lo, hi] = share(n, omp_get_thread_num(), omp_get_num_threads());
    for (int64_t s = lo; s < hi; s += k_slab) {
      if (ctl && ctl->cancelled()) break;
      const int64_t e = std::min(hi, s + k_slab);
      compute_range(op, a, b, c, s, e);
      if (ctl) {
        const int64_t d = done.fetch_add(e - s, std::memory_order_relaxed) + (e - s);
        ctl->set_progress(static_cast<double>(d) / static_cast<double>(n));
      }
    }
  }
  if (ctl && ctl->cancelled()) throw JobCancelled{};
}

Summary time_cpu(Op op, const float* a, const float* b, float* c, int64_t n, CpuMode mode, int repetitions,
                 JobControl* ctl) {
  repetitions = std::max(repetitions, 1);
  // Warm-up: page faults, OpenMP thread start, caches. Then one call to size the batches.
  compute_cpu(op, a, b, c, n, mode);
  auto t0 = std::chrono::steady_clock::now();
  compute_cpu(op, a, b, c, n, mode);
  const double one = std::max(ms_since(t0), 1e-6);
  const int batch = static_cast<int>(std::clamp(std::ceil(0.2 / one), 1.0, 100000.0));
  std::vector<double> per_call;
  per_call.reserve(static_cast<size_t>(repetitions));
  for (int r = 0; r < repetitions; ++r) {
    if (ctl && ctl->cancelled()) throw JobCancelled{};
    t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < batch; ++k)
      compute_cpu(op, a, b, c, n, mode);
    per_call.push_back(ms_since(t0) / batch);
    if (ctl) ctl->set_progress(static_cast<double>(r + 1) / repetitions);
  }
  return summarize(per_call);
}

Check check_result(Op op, const float* a, const float* b, const float* c, int64_t n) {
  Check ch;
  int64_t bad = 0, first = n;
  double worst = 0;
  const bool exact = op == Op::Add;
#pragma omp parallel for schedule(static) reduction(+ : bad) reduction(min : first) reduction(max : worst) if (n > 65536)
  for (int64_t i = 0; i < n; ++i) {
    const float ref = op == Op::Add ? add_op(a[i], b[i]) : formula_op(a[i], b[i]);
    const double rel =
        std::abs(static_cast<double>(c[i]) - ref) / std::max(std::abs(static_cast<double>(ref)), 1e-30);
    const bool ok = exact ? c[i] == ref : rel <= k_formula_rel_tol;  // NaN fails both
    if (!ok) {
      ++bad;
      first = std::min(first, i);
    }
    if (std::isfinite(rel)) worst = std::max(worst, rel);
  }
  ch.mismatches = bad;
  ch.max_rel_err = worst;
  ch.passed = bad == 0;
  char buf[200];
  if (ch.passed) {
    if (exact)
      std::snprintf(buf, sizeof buf, "exact");
    else
      std::snprintf(buf, sizeof buf, "max rel err %.1e <= %.0e", worst, k_formula_rel_tol);
  } else {
    ch.first_bad = first;
    const float ref = op == Op::Add ? add_op(a[first], b[first]) : formula_op(a[first], b[first]);
    std::snprintf(buf, sizeof buf,
                  "MISMATCH: %lld of %lld elements (%s), first at i = %lld: got %.9g, expected %.9g",
                  static_cast<long long>(bad), static_cast<long long>(n),
                  exact ? "exact equality expected" : "relative tolerance 1e-6",
                  static_cast<long long>(first), static_cast<double>(c[first]), static_cast<double>(ref));
  }
  ch.text = buf;
  return ch;
}

}  // namespace bs::vector
