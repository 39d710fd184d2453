// reduce_cpu.cpp: the reduction lab's CPU baselines: std::reduce, std::inclusive_scan and
// std::exclusive_scan on one thread (one sequential pass) and on all threads (OpenMP: one contiguous chunk
// per thread, then the chunk sums), with progress and cancel between slabs.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <numeric>
#include <string>
#include <vector>

#include "gpu/reduce/reduce.h"

namespace bs::reduce {

namespace {

// Elements between two looks at the cancel flag: 1M elements, well under a millisecond.
constexpr int64_t k_slab = int64_t{1} << 20;

// One thread's sequential sum of x[lo, hi), slab by slab with the accumulator carried (std::reduce's own
// order, as if called once). `progress` is called with the elements done; returns false to stop.
template <class T, class Progress>
bool sum_range(const T* x, int64_t lo, int64_t hi, T& acc, Progress progress) {
  for (int64_t b = lo; b < hi; b += k_slab) {
    const int64_t e = std::min(hi, b + k_slab);
    acc = std::reduce(x + b, x + e, acc);
    if (!progress(e - lo)) return false;
  }
  return true;
}

template <class T, class Progress>
bool scan_range(const T* x, T* out, int64_t lo, int64_t hi, ScanKind kind, T& acc, Progress progress) {
  for (int64_t b = lo; b < hi; b += k_slab) {
    const int64_t e = std::min(hi, b + k_slab);
    if (kind == ScanKind::Inclusive) {
      std::inclusive_scan(x + b, x + e, out + b, std::plus<T>(), acc);
      acc = out[e - 1];
    } else {
      const T last = x[e - 1];
      std::exclusive_scan(x + b, x + e, out + b, acc);
      acc = out[e - 1] + last;
    }
    if (!progress(e - lo)) return false;
  }
  return true;
}

template <class T>
T reduce_impl(std::span<const T> xs, CpuMode mode, JobControl* ctl) {
  const int64_t n = static_cast<int64_t>(xs.size());
  const T* x = xs.data();
  if (mode == CpuMode::OneThread || n < 2 * k_slab) {
    T acc{};
    const bool done = sum_range(x, 0, n, acc, [&](int64_t d) {
      if (!ctl) return true;
      ctl->set_progress(static_cast<double>(d) / static_cast<double>(n));
      return !ctl->cancelled();
    });
    if (!done) throw JobCancelled{};
    return acc;
  }
  const int nt = omp_get_max_threads();
  std::vector<T> totals(static_cast<size_t>(nt), T{});
  std::atomic<bool> stop{false};
#pragma omp parallel num_threads(nt)
  {
    const int t = omp_get_thread_num(), m = omp_get_num_threads();
    const int64_t lo = n * t / m, hi = n * (t + 1) / m;
    T acc{};
    sum_range(x, lo, hi, acc, [&](int64_t d) {
      if (ctl && t == 0) ctl->set_progress(static_cast<double>(d) / static_cast<double>(hi - lo));
      if (ctl && ctl->cancelled()) stop = true;
      return !stop.load(std::memory_order_relaxed);
    });
    totals[static_cast<size_t>(t)] = acc;
  }
  if (stop) throw JobCancelled{};
  return std::reduce(totals.begin(), totals.end(), T{});
}

template <class T>
void scan_impl(std::span<const T> xs, std::span<T> outs, ScanKind kind, CpuMode mode, JobControl* ctl) {
  const int64_t n = static_cast<int64_t>(std::min(xs.size(), outs.size()));
  const T* x = xs.data();
  T* out = outs.data();
  if (mode == CpuMode::OneThread || n < 2 * k_slab) {
    T acc{};
    const bool done = scan_range(x, out, 0, n, kind, acc, [&](int64_t d) {
      if (!ctl) return true;
      ctl->set_progress(static_cast<double>(d) / static_cast<double>(n));
      return !ctl->cancelled();
    });
    if (!done) throw JobCancelled{};
    return;
  }
  // Pass 1: each thread scans its chunk from zero; pass 2: each chunk adds the sum of the chunks before it.
  const int nt = omp_get_max_threads();
  std::vector<T> totals(static_cast<size_t>(nt) + 1, T{});
  std::atomic<bool> stop{false};
#pragma omp parallel num_threads(nt)
  {
    const int t = omp_get_thread_num(), m = omp_get_num_threads();
    const int64_t lo = n * t / m, hi = n * (t + 1) / m;
    T acc{};
    scan_range(x, out, lo, hi, kind, acc, [&](int64_t d) {
      if (ctl && t == 0) ctl->set_progress(0.5 * static_cast<double>(d) / static_cast<double>(hi - lo));
      if (ctl && ctl->cancelled()) stop = true;
      return !stop.load(std::memory_order_relaxed);
    });
    totals[static_cast<size_t>(t) + 1] = acc;
#pragma omp barrier
#pragma omp single
    for (int k = 1; k <= m; ++k)
      totals[static_cast<size_t>(k)] += totals[static_cast<size_t>(k) - 1];
    const T off = totals[static_cast<size_t>(t)];
    if (!stop.load() && t > 0)
      for (int64_t b = lo; b < hi; b += k_slab) {
        const int64_t e = std::min(hi, b + k_slab);
        for (int64_t i = b; i < e; ++i)
          out[i] += off;
        if (ctl && t == 1)
          ctl->set_progress(0.5 + 0.5 * static_cast<double>(e - lo) / static_cast<double>(hi - lo));
        if (ctl && ctl->cancelled()) stop = true;
        if (stop.load(std::memory_order_relaxed)) break;
      }
  }
  if (stop) throw JobCancelled{};
}

}  // namespace

float reduce_cpu(std::span<const float> x, CpuMode mode, JobControl* ctl) {
  return reduce_impl<float>(x, mode, ctl);
}
int32_t reduce_cpu(std::span<const int32_t> x, CpuMode mode, JobControl* ctl) {
  // Wrapping int32 arithmetic (as the GPU's): summed as uint32, whose overflow is defined.
  std::span<const uint32_t> u(reinterpret_cast<const uint32_t*>(x.data()), x.size());
  return static_cast<int32_t>(reduce_impl<uint32_t>(u, mode, ctl));
}
void scan_cpu(std::span<const float> x, std::span<float> out, ScanKind kind, CpuMode mode, JobControl* ctl) {
  scan_impl<float>(x, out, kind, mode, ctl);
}
void scan_cpu(std::span<const int32_t> x, std::span<int32_t> out, ScanKind kind, CpuMode mode,
              JobControl* ctl) {
  std::span<const uint32_t> u(reinterpret_cast<const uint32_t*>(x.data()), x.size());
  std::span<uint32_t> o(reinterpret_cast<uint32_t*>(out.data()), out.size());
  scan_impl<uint32_t>(u, o, kind, mode, ctl);
}

}  // namespace bs::reduce
