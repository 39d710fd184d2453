// reduce_bench_run.cpp: run_bench, the reduction lab's measurement of a whole ladder: the copy kernel and CUB
// first (the yardsticks of "% of copy" and "% of CUB"), then every GPU variant, then the CPU baselines, each
// checked against the exact reference.
#include <chrono>
#include <functional>
#include <vector>

#include "core/clock.h"
#include "core/error.h"
#include "gpu/reduce/reduce.h"

namespace bs::reduce {

namespace {

// Milliseconds per call of `once`, after one warm-up call; calls shorter than 0.2 ms are timed in batches.
Summary time_calls(const std::function<void()>& once, int repetitions, JobControl* ctl) {
  auto t0 = std::chrono::steady_clock::now();
  once();
  const double first = ms_since(t0);
  const int batch = first > 0.2 ? 1 : std::min(10000, static_cast<int>(0.2 / std::max(first, 1e-4)) + 1);
  std::vector<double> ms;
  for (int r = 0; r < std::max(repetitions, 1); ++r) {
    if (ctl && ctl->cancelled()) throw JobCancelled{};
    t0 = std::chrono::steady_clock::now();
    for (int b = 0; b < batch; ++b)
      once();
    ms.push_back(ms_since(t0) / batch);
  }
  return summarize(ms);
}

template <class T>
void cpu_rows(const BenchOptions& o, BenchResult& r, JobControl* ctl) {
  const Params& p = o.params;
  std::vector<T> x(static_cast<size_t>(p.n));
  fill_inputs(x.data(), p.n);
  std::vector<T> out(p.op == Op::Scan ? x.size() : 0);
  for (CpuMode mode : {CpuMode::OneThread, CpuMode::AllThreads}) {
    Row row;
    row.gpu = false;
    row.name = mode == CpuMode::OneThread ? "cpu-1" : "cpu-all";
    row.variant = cpu_mode_label(mode);
    T value{};
    auto once = [&] {
      if (p.op == Op::Reduce)
        value = reduce_cpu(std::span<const T>(x), mode);
      else
        scan_cpu(std::span<const T>(x), std::span<T>(out), p.scan_kind, mode);
    };
    row.ms = time_calls(once, o.repetitions, ctl);
    row.repetitions = o.repetitions;
    const double bytes = static_cast<double>(p.n) * 4 * (p.op == Op::Reduce ? 1 : 2);
    row.gbs = row.ms.median > 0 ? bytes / (row.ms.median * 1e-3) / 1e9 : 0;
    const int64_t depth = cpu_summation_depth(p.n, mode, cpu_thread_count());
    if (p.op == Op::Reduce) {
      row.value = static_cast<double>(value);
      if (o.check) {
        if constexpr (std::is_same_v<T, float>)
          row.check = check_sum(static_cast<double>(value), p.n, depth);
        else
          row.check = check_sum(static_cast<int64_t>(value), p.n);
      }
    } else {
      row.value = static_cast<double>(out.back());
      if (o.check) {
        if constexpr (std::is_same_v<T, float>)
          row.check = check_scan(std::span<const float>(out), p.scan_kind, depth);
        else
          row.check = check_scan(std::span<const int32_t>(out), p.scan_kind);
      }
    }
    if (!o.check) row.check.passed = true;
    row.note = mode == CpuMode::OneThread ? "std::" : "OpenMP chunks of std::";
    row.note += p.op == Op::Reduce
                    ? "reduce"
                    : (p.scan_kind == ScanKind::Inclusive ? "inclusive_scan" : "exclusive_scan");
    r.rows.push_back(std::move(row));
  }
}

}  // namespace

BenchResult run_bench(const BenchOptions& o, JobControl* ctl) {
  BenchResult r;
  Params p = o.params;
  {
    // n alone (any variant takes any n at least 1, except the single-block scans, checked per variant).
    Params any = p;
    any.reduce_variant = ReduceVariant::Cub;
    any.scan_variant = ScanVariant::Cub;
    if (auto err = validate(any)) throw InvalidRequest(*err);
    if (!o.all_variants)
      if (auto err = validate(p)) throw InvalidRequest(*err);
  }
  std::vector<Params> variants;
  if (o.all_variants) {
    if (p.op == Op::Reduce)
      for (ReduceVariant v : k_reduce_variant_names.values()) {
        Params q = p;
        q.reduce_variant = v;
        variants.push_back(q);
      }
    else
      for (ScanVariant v : k_scan_variant_names.values()) {
        Params q = p;
        q.scan_variant = v;
        variants.push_back(q);
      }
  } else {
    variants.push_back(p);
  }
  const bool want_gpu = o.device != Device::Cpu;
  const bool want_cpu = o.device != Device::Gpu;
  const double steps = static_cast<double>(variants.size()) + 3;
  double done = 0;
  auto progress = [&] {
    if (ctl) {
      ctl->set_progress(++done / steps);
      if (ctl->cancelled()) throw JobCancelled{};
    }
  };
  if (want_gpu) {
    const DeviceInfo dev = query_device();
    if (!dev.available) {
      r.gpu_skipped_reason = "no CUDA device (" + dev.reason + ")";
    } else {
      GpuRunner runner;
      r.gpu_ran = true;
      r.gpu_name = runner.device().name;
      // CUB first: every other row's "% of CUB" divides by its time.
      Params cubp = p;
      cubp.reduce_variant = ReduceVariant::Cub;
      cubp.scan_variant = ScanVariant::Cub;
      Row cub = runner.run(cubp, o.repetitions, o.check);
      progress();
      try {
        r.copy = runner.copy_kernel(p.n);
      } catch (const InvalidRequest& e) {
        r.skipped.push_back(std::string("copy kernel: ") + e.what());
      }
      progress();
      auto finish = [&](Row& row) {
        if (r.copy.gbs > 0) row.copy_pct = 100.0 * row.gbs / r.copy.gbs;
        if (row.ms.median > 0) row.cub_pct = 100.0 * cub.ms.median / row.ms.median;
      };
      for (const Params& q : variants) {
        const bool is_cub =
            q.op == Op::Reduce ? q.reduce_variant == ReduceVariant::Cub : q.scan_variant == ScanVariant::Cub;
        if (is_cub) {
          finish(cub);
          r.rows.push_back(cub);
          progress();
          continue;
        }
        if (auto err = validate(q)) {
          r.skipped.push_back(variant_name(q) + ": " + *err);
          progress();
          continue;
        }
        Row row = runner.run(q, o.repetitions, o.check);
        finish(row);
        r.rows.push_back(std::move(row));
        progress();
      }
      if (!o.all_variants && !(p.op == Op::Reduce ? p.reduce_variant == ReduceVariant::Cub
                                                  : p.scan_variant == ScanVariant::Cub)) {
        finish(cub);
        cub.note = "the yardstick of % of CUB";
        r.rows.push_back(cub);
      }
    }
  }
  if (want_cpu) {
    if (auto err = check_host_memory(p, available_host_bytes())) throw InvalidRequest(*err);
    if (p.type == ElemType::F32)
      cpu_rows<float>(o, r, ctl);
    else
      cpu_rows<int32_t>(o, r, ctl);
    progress();
  }
  for (const Row& row : r.rows)
    r.all_checks_passed = r.all_checks_passed && row.check.passed;
  return r;
}

}  // namespace bs::reduce
