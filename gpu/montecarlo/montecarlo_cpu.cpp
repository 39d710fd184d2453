// montecarlo_cpu.cpp: the CPU baselines of the Monte Carlo lab: one thread, and all threads with OpenMP. Both
// walk the same fixed chunks of samples with one std::mt19937_64 per chunk, so the result depends on the seed
// only, never on the thread count or the scheduling.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <random>

#include "core/error.h"
#include "gpu/montecarlo/gbm.h"
#include "gpu/montecarlo/montecarlo.h"

namespace bs::montecarlo {

namespace {

// Chunk c's generator: seeded through seed_seq from every bit of (seed, c) plus a tag, so neighbouring chunks
// and neighbouring seeds start from unrelated states.
std::mt19937_64 chunk_generator(uint64_t seed, int64_t chunk) {
  const uint64_t c = static_cast<uint64_t>(chunk);
  std::seed_seq seq{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32), static_cast<uint32_t>(c),
                    static_cast<uint32_t>(c >> 32), 0x6d6f6e74u};
  return std::mt19937_64(seq);
}

// Samples [skip, skip + count) of chunk `chunk`. The skipped samples' normals are drawn and dropped, so that
// a batch starting inside a chunk sees the same numbers as the run that covers the chunk whole.
// Where the UI wants terminal prices binned (nullptr: not at all). `counts` has bins + 2 entries: the bins,
// then underflow, then overflow (the GPU's layout).
struct ChunkBins {
  double lo = 0, scale = 0;
  int bins = 0;
  std::vector<uint64_t> counts;
  void add(float s) {
    const double t = (static_cast<double>(s) - lo) * scale;
    const int b = t < 0.0 ? bins : (t < static_cast<double>(bins) ? static_cast<int>(t) : bins + 1);
    ++counts[static_cast<size_t>(b)];
  }
};

template <OptionType Opt, bool Anti>
Moments simulate_chunk(const PathConstants& c, uint64_t seed, int64_t chunk, int64_t skip, int64_t count,
                       ChunkBins* bins) {
  std::mt19937_64 gen = chunk_generator(seed, chunk);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (int64_t i = 0; i < skip * c.steps; ++i)
    (void)normal(gen);
  Moments m;
  for (int64_t i = 0; i < count; ++i) {
    PathAccumulator<Opt, Anti> acc;
    for (int k = 1; k <= c.steps; ++k)
      acc.step(c, k, normal(gen));
    const SampleOutcome o = acc.finish(c);
    const double v = o.value;
    m.n += 1;
    m.sum += v;
    m.sum_sq += v * v;
    if (bins) {
      bins->add(o.s_t);
      if (Anti) bins->add(o.s_t_mirror);
    }
  }
  return m;
}

using ChunkFn = Moments (*)(const PathConstants&, uint64_t, int64_t, int64_t, int64_t, ChunkBins*);

template <bool Anti>
ChunkFn pick_chunk_fn(OptionType o) {
  switch (o) {
    case OptionType::Call:
      return simulate_chunk<OptionType::Call, Anti>;
    case OptionType::Put:
      return simulate_chunk<OptionType::Put, Anti>;
    case OptionType::AsianCall:
      return simulate_chunk<OptionType::AsianCall, Anti>;
  }
  return simulate_chunk<OptionType::Call, Anti>;
}

}  // namespace

namespace {
Moments simulate_cpu_impl(const Params& p, SampleRange r, CpuMode mode, JobControl* ctl, Histogram* hist) {
  if (auto err = validate(p)) throw InvalidRequest(*err);
  const int64_t samples = sample_count(p);
  if (r.first < 0 || r.count < 1 || r.end() > samples)
    throw InvalidRequest("samples [" + std::to_string(r.first) + ", " + std::to_string(r.end()) +
                         ") are not inside this run's [0, " + std::to_string(samples) + ")");
  const PathConstants c = path_constants(p);
  const ChunkFn fn = p.antithetic ? pick_chunk_fn<true>(p.option) : pick_chunk_fn<false>(p.option);
  const int64_t first_chunk = r.first / k_cpu_chunk;
  const int64_t chunks = (r.end() - 1) / k_cpu_chunk - first_chunk + 1;
  std::vector<Moments> parts(static_cast<size_t>(chunks));
  std::vector<ChunkBins> part_bins(hist && !hist->counts.empty() ? static_cast<size_t>(chunks) : 0);
  for (ChunkBins& b : part_bins) {
    b.lo = hist->lo;
    b.bins = hist->bins();
    b.scale = hist->hi > hist->lo ? b.bins / (hist->hi - hist->lo) : 0.0;
    b.counts.assign(static_cast<size_t>(b.bins) + 2, 0);
  }
  std::atomic<int64_t> done{0};

  auto run_chunk = [&](int64_t j) {
    const int64_t chunk = first_chunk + j;
    const int64_t lo = std::max(r.first, chunk * k_cpu_chunk);
    const int64_t hi = std::min(r.end(), (chunk + 1) * k_cpu_chunk);
    parts[static_cast<size_t>(j)] = fn(c, p.seed, chunk, lo - chunk * k_cpu_chunk, hi - lo,
                                       part_bins.empty() ? nullptr : &part_bins[static_cast<size_t>(j)]);
    const int64_t d = done.fetch_add(1, std::memory_order_relaxed) + 1;
    if (ctl) ctl->set_progress(static_cast<double>(d) / static_cast<double>(chunks));
  };

  if (mode == CpuMode::OneThread) {
    for (int64_t j = 0; j < chunks; ++j) {
      if (ctl && ctl->cancelled()) throw JobCancelled{};
      run_chunk(j);
    }
  } else {
    std::atomic<bool> cancelled{false};
    // Dynamic scheduling balances the chunks; the result does not depend on which thread ran which chunk.
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t j = 0; j < chunks; ++j) {
      if (cancelled.load(std::memory_order_relaxed)) continue;
      if (ctl && ctl->cancelled()) {
        cancelled.store(true, std::memory_order_relaxed);
        continue;
      }
      run_chunk(j);
    }
    if (cancelled.load()) throw JobCancelled{};
  }

  Moments total;
  for (const Moments& m : parts)
    total += m;  // chunk order: the same sums for any thread count
  for (const ChunkBins& b : part_bins) {
    for (int i = 0; i < b.bins; ++i)
      hist->counts[static_cast<size_t>(i)] += b.counts[static_cast<size_t>(i)];
    hist->underflow += b.counts[static_cast<size_t>(b.bins)];
    hist->overflow += b.counts[static_cast<size_t>(b.bins) + 1];
  }
  return total;
}
}  // namespace

Moments simulate_cpu(const Params& p, SampleRange r, CpuMode mode, JobControl* ctl) {
  return simulate_cpu_impl(p, r, mode, ctl, nullptr);
}

Moments simulate_cpu(const Params& p, SampleRange r, CpuMode mode, JobControl* ctl, Histogram& hist) {
  return simulate_cpu_impl(p, r, mode, ctl, &hist);
}

std::vector<float> cpu_sample_paths(const Params& p, int count) {
  if (auto err = validate(p)) throw InvalidRequest(*err);
  if (count < 0 || count > k_max_sample_paths)
    throw InvalidRequest("sample paths = " + std::to_string(count) + ": choose 0 to " +
                         std::to_string(k_max_sample_paths));
  count = static_cast<int>(std::min<int64_t>(count, paths_for_samples(sample_count(p), p.antithetic)));
  const PathConstants c = path_constants(p);
  const size_t len = static_cast<size_t>(c.steps) + 1;
  std::vector<float> out(static_cast<size_t>(count) * len);
  const int per_sample = p.antithetic ? 2 : 1;
  const int samples = (count + per_sample - 1) / per_sample;
  std::vector<float> z(static_cast<size_t>(c.steps));
  std::optional<std::mt19937_64> gen;
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (int s = 0; s < samples; ++s) {
    // Sample s draws the same normals as in simulate_chunk: its chunk's generator, in sample order.
    if (s % k_cpu_chunk == 0) {
      gen.emplace(chunk_generator(p.seed, s / k_cpu_chunk));
      normal.reset();
    }
    for (float& v : z)
      v = normal(*gen);
    for (int m = 0; m < per_sample; ++m) {
      const int j = s * per_sample + m;
      if (j >= count) break;
      float* row = out.data() + static_cast<size_t>(j) * len;
      row[0] = c.s0;
      float zsum = 0.0f;
      for (int k = 1; k <= c.steps; ++k) {
        zsum = add_rn(zsum, z[static_cast<size_t>(k - 1)]);
        row[k] = mul_rn(c.s0, fast_exp(log_growth(c, k, zsum, m == 1)));
      }
    }
  }
  return out;
}

Result run_cpu(const Params& p, CpuMode mode, JobControl* ctl) {
  if (auto err = validate(p)) throw InvalidRequest(*err);
  Result res;
  res.variant = cpu_mode_label(mode);
  const auto t0 = std::chrono::steady_clock::now();
  const Moments m = simulate_cpu(p, {0, sample_count(p)}, mode, ctl);
  const auto t1 = std::chrono::steady_clock::now();
  res.ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  res.estimate = make_estimate(m, p);
  res.path_steps_per_s = static_cast<double>(res.estimate.paths) * p.steps / (res.ms * 1e-3);
  res.note = "std::mt19937_64 + std::normal_distribution<float>, one generator per chunk of " +
             std::to_string(k_cpu_chunk) + " samples";
  return res;
}

BenchRow bench_cpu(const Params& p, CpuMode mode, JobControl* ctl) {
  // A short warm-up run starts the OpenMP thread pool and faults in the code, outside the timing.
  Params warm = p;
  warm.paths = std::min<int64_t>(p.paths, 2 * k_cpu_chunk);
  (void)simulate_cpu(warm, {0, sample_count(warm)}, mode, nullptr);
  const Result r = run_cpu(p, mode, ctl);
  BenchRow row;
  row.variant = r.variant;
  row.device = "CPU";
  row.estimate = r.estimate;
  row.reference = reference_price(p);
  row.ms = row.p10 = row.p90 = r.ms;
  row.repetitions = 1;
  row.gpath_steps_per_s = r.path_steps_per_s / 1e9;
  row.note = "std::mt19937_64 per chunk of " + std::to_string(k_cpu_chunk) + " samples";
  return row;
}

}  // namespace bs::montecarlo
