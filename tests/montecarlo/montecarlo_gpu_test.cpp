// montecarlo_gpu_test.cpp: the GPU pricer against Black-Scholes, put-call parity, the CPU baseline, itself
// (same seed, other launches, batches) and the lognormal law of S_T. Skips where no CUDA device is usable.
//
// Statistical tolerance: 4 standard errors (combined SE sqrt(a^2 + b^2) for a difference of two independent
// estimates). Seeds are fixed, so each check is deterministic; by chance alone a 4 SE miss has probability
// 6e-5. Sizes (1,000,003 paths, 37 steps, blocks of 100) are deliberately not multiples of 4, 32 or the
// block.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "gpu/montecarlo/montecarlo.h"
#include "test_util.h"

namespace mc = bs::montecarlo;

namespace {

mc::Params params(mc::OptionType o, int64_t paths, int steps) {
  mc::Params p;
  p.option = o;
  p.paths = paths;
  p.steps = steps;
  return p;
}

mc::Result run(const mc::Params& p, mc::Layout layout = mc::Layout::GridStride, int block = 256,
               const mc::RunOptions& o = {}) {
  return mc::run_gpu(p, mc::Launch{block, layout, 2}, o);
}

struct Case {
  const char* name;
  double s0, strike, rate, sigma, maturity;
};
const Case k_cases[] = {
    {"atm", 100, 100, 0.05, 0.2, 1.0},
    {"itm_call", 110, 95, 0.03, 0.25, 0.5},
    {"otm_call", 90, 120, 0.01, 0.35, 2.0},
    {"high_vol", 50, 55, 0.08, 0.8, 1.5},
    {"negative_rate", 100, 100, -0.01, 0.15, 3.0},
};

}  // namespace

TEST(MonteCarloGpu, EuropeanNearBlackScholes) {
  BS_REQUIRE_GPU();
  for (const Case& c : k_cases) {
    for (auto opt : {mc::OptionType::Call, mc::OptionType::Put}) {
      for (auto layout : {mc::Layout::GridStride, mc::Layout::OnePathPerThread}) {
        mc::Params p = params(opt, 1'000'003, 37);
        p.s0 = c.s0;
        p.strike = c.strike;
        p.rate = c.rate;
        p.sigma = c.sigma;
        p.maturity = c.maturity;
        const mc::Result r = run(p, layout);
        const double ref = *mc::reference_price(p);
        EXPECT_LT(std::abs(mc::error_in_std_errors(r.estimate, ref)), 4.0)
            << c.name << " " << mc::option_label(opt) << " " << mc::layout_label(layout) << ": "
            << r.estimate.price << " +- " << r.estimate.std_error << " vs Black-Scholes " << ref;
        EXPECT_EQ(r.estimate.paths, 1'000'003);
      }
    }
  }
}

TEST(MonteCarloGpu, SixteenMillionPathsStayAccurate) {
  BS_REQUIRE_GPU();
  // The largest run: double partials and a double final sum keep the mean exact to ~1e-12, far below the SE.
  const mc::Params p = params(mc::OptionType::Call, mc::k_max_paths, 8);
  const mc::Result r = run(p);
  const double ref = *mc::reference_price(p);
  EXPECT_EQ(r.estimate.paths, mc::k_max_paths);
  EXPECT_LT(std::abs(mc::error_in_std_errors(r.estimate, ref)), 4.0)
      << r.estimate.price << " +- " << r.estimate.std_error << " vs " << ref;
  EXPECT_LT(r.estimate.std_error, 0.005);
}

TEST(MonteCarloGpu, PutCallParity) {
  BS_REQUIRE_GPU();
  // Same seed, same paths for call and put; tolerance 4 combined SE (see the CPU test of the same name).
  mc::Params call = params(mc::OptionType::Call, 2'000'001, 64);
  call.s0 = 105;
  call.sigma = 0.3;
  mc::Params put = call;
  put.option = mc::OptionType::Put;
  const mc::Estimate c = run(call).estimate, pp = run(put).estimate;
  const double parity = call.s0 - call.strike * call.discount();
  EXPECT_LT(std::abs((c.price - pp.price) - parity), 4 * std::hypot(c.std_error, pp.std_error))
      << "C - P = " << c.price - pp.price << ", S0 - K e^{-rT} = " << parity;
}

TEST(MonteCarloGpu, SameSeedSameBitsOtherSeedOtherPrice) {
  BS_REQUIRE_GPU();
  mc::Params p = params(mc::OptionType::AsianCall, 300'007, 29);
  p.antithetic = true;
  const mc::Estimate a = run(p).estimate, b = run(p).estimate;
  EXPECT_EQ(a.price, b.price);  // no atomics on the sums: a fixed reduction order
  EXPECT_EQ(a.std_error, b.std_error);
  p.seed = 7;
  EXPECT_NE(run(p).estimate.price, a.price);
}

TEST(MonteCarloGpu, EveryLaunchPricesTheSamePaths) {
  BS_REQUIRE_GPU();
  // Block size and layout only change which thread simulates a sample and the order of the double additions,
  // so prices agree to rounding of the sums (1e-12 relative). Blocks of 33, 100 and 1000 leave partial warps.
  const mc::Params p = params(mc::OptionType::Put, 250'001, 13);
  const mc::Estimate ref = run(p).estimate;
  for (int block : {32, 33, 100, 128, 1000, 1024})
    for (auto layout : {mc::Layout::GridStride, mc::Layout::OnePathPerThread}) {
      const mc::Estimate e = run(p, layout, block).estimate;
      EXPECT_NEAR(e.price, ref.price, 1e-12 * ref.price)
          << "block " << block << " " << mc::layout_label(layout);
      EXPECT_NEAR(e.std_error, ref.std_error, 1e-9 * ref.std_error) << "block " << block;
    }
  // Histogram on or off: the same European prices, to the bit.
  mc::RunOptions o;
  o.histogram_bins = 64;
  EXPECT_EQ(run(p, mc::Layout::GridStride, 256, o).estimate.price, ref.price);
}

TEST(MonteCarloGpu, CpuAndGpuAgree) {
  BS_REQUIRE_GPU();
  // Different generators (Philox vs mt19937_64), so only statistical agreement: 4 combined SE.
  for (auto opt : {mc::OptionType::Call, mc::OptionType::Put, mc::OptionType::AsianCall}) {
    for (bool anti : {false, true}) {
      mc::Params p = params(opt, 200'000, 16);
      p.antithetic = anti;
      const mc::Estimate g = run(p).estimate;
      const mc::Estimate c = mc::run_cpu(p, mc::CpuMode::AllThreads).estimate;
      EXPECT_LT(std::abs(g.price - c.price), 4 * std::hypot(g.std_error, c.std_error))
          << mc::option_label(opt) << (anti ? " antithetic" : "") << ": GPU " << g.price << " +- "
          << g.std_error << ", CPU " << c.price << " +- " << c.std_error;
    }
  }
}

TEST(MonteCarloGpu, AntitheticReducesTheStandardError) {
  BS_REQUIRE_GPU();
  mc::Params p = params(mc::OptionType::Call, 1'000'000, 32);
  const mc::Estimate plain = run(p).estimate;
  p.antithetic = true;
  const mc::Estimate anti = run(p).estimate;
  EXPECT_EQ(anti.paths, plain.paths);
  EXPECT_EQ(anti.samples, plain.samples / 2);
  EXPECT_LT(anti.std_error, 0.9 * plain.std_error) << anti.std_error << " vs " << plain.std_error;
  EXPECT_LT(std::abs(mc::error_in_std_errors(anti, *mc::reference_price(p))), 4.0);
}

TEST(MonteCarloGpu, AsianWithOneStepIsTheEuropeanCall) {
  BS_REQUIRE_GPU();
  mc::Params p = params(mc::OptionType::Call, 100'003, 1);
  const double eu = run(p).estimate.price;
  p.option = mc::OptionType::AsianCall;
  EXPECT_EQ(run(p).estimate.price, eu);
}

TEST(MonteCarloGpu, HistogramCountsEveryPathAndFollowsTheLognormal) {
  BS_REQUIRE_GPU();
  for (bool anti : {false, true}) {
    mc::Params p = params(mc::OptionType::Call, 1'000'001, 10);
    p.antithetic = anti;
    mc::RunOptions o;
    o.histogram_bins = 97;
    for (auto layout : {mc::Layout::GridStride, mc::Layout::OnePathPerThread}) {
      mc::GpuPricer pricer;
      pricer.set_launch({100, layout, 2});
      pricer.reset(p, o);
      const mc::Result r = pricer.run();
      const mc::Histogram h = pricer.histogram();
      ASSERT_EQ(h.bins(), 97);
      EXPECT_EQ(h.total(), static_cast<uint64_t>(r.estimate.paths))
          << (anti ? "antithetic " : "") << mc::layout_label(layout);
      EXPECT_EQ(static_cast<int64_t>(h.total()), anti ? 1'000'002 : 1'000'001);
      // S_T is exactly lognormal for GBM at any step count. Each bin within 5 sqrt(expected) + 1% of expected
      // (Poisson noise; the 1% covers float32 rounding of prices at bin edges). Antithetic pairs are not
      // independent draws, but each path is still lognormal and the pairing only lowers the bin noise.
      const std::vector<double> e = mc::expected_counts(h, p);
      for (int b = 0; b < h.bins(); ++b)
        EXPECT_LT(std::abs(static_cast<double>(h.counts[b]) - e[b]), 5 * std::sqrt(e[b]) + 0.01 * e[b] + 1)
            << "bin " << b << " of " << h.bins() << (anti ? " (antithetic)" : "");
      const double tails = static_cast<double>(h.underflow + h.overflow) / static_cast<double>(h.total());
      EXPECT_NEAR(tails, 0.002, 0.0005);  // the range spans the 0.1% to 99.9% quantiles
    }
  }
}

TEST(MonteCarloGpu, BatchesAddUpToOneRun) {
  BS_REQUIRE_GPU();
  const mc::Params p = params(mc::OptionType::Call, 1'000'003, 20);
  mc::RunOptions o;
  o.histogram_bins = 40;
  mc::GpuPricer pricer;
  pricer.reset(p, o);
  const mc::Result whole = pricer.run();
  const mc::Histogram whole_hist = pricer.histogram();

  for (const auto& batches :
       {mc::even_batches(mc::sample_count(p), 9), mc::doubling_batches(mc::sample_count(p), 1000)}) {
    pricer.reset(p, o);
    for (const auto& r : batches)
      pricer.enqueue(r);  // more than the 8 slots: the oldest are collected on the way
    std::vector<mc::BatchResult> done;
    for (const auto& b : pricer.poll())
      done.push_back(b);
    for (const auto& b : pricer.finish())
      done.push_back(b);
    ASSERT_EQ(done.size(), batches.size());
    int64_t next = 0;
    for (const auto& b : done) {
      EXPECT_EQ(b.range.first, next);  // completed in order
      next = b.range.end();
      EXPECT_EQ(b.cumulative.samples, next);
      EXPECT_GT(b.ms, 0.0);
    }
    // Same subsequences, same paths: the sums differ only in the order of the double additions.
    EXPECT_NEAR(done.back().cumulative.price, whole.estimate.price, 1e-12 * whole.estimate.price);
    EXPECT_NEAR(pricer.estimate().std_error, whole.estimate.std_error, 1e-9 * whole.estimate.std_error);
    EXPECT_EQ(pricer.histogram().counts, whole_hist.counts);  // integer counts: exactly equal
  }
}

// One launch for many chunks (enqueue_chunks, the multi-GPU pricer's path) gives every chunk the bits of its
// own launch (enqueue): the same grid, the same samples per thread, the same sums. Chunks of uneven sizes,
// not in order, with and without the grid-stride loop taking several samples per thread (1 wave, blocks of
// 100), one path per thread, antithetic pairs and the Asian kernel; the histogram counts every path once.
TEST(MonteCarloGpu, ChunkedLaunchGivesEachChunkTheBitsOfItsOwnLaunch) {
  BS_REQUIRE_GPU();
  for (const mc::Launch l : {mc::Launch{100, mc::Layout::GridStride, 1}, mc::Launch{256, mc::Layout::GridStride, 2},
                             mc::Launch{96, mc::Layout::OnePathPerThread, 2}})
    for (auto option : {mc::OptionType::Call, mc::OptionType::AsianCall})
      for (bool anti : {false, true}) {
        mc::Params p = params(option, 1'000'003, 37);
        p.antithetic = anti;
        mc::RunOptions o;
        o.histogram_bins = 40;
        mc::GpuPricer pricer;
        pricer.set_launch(l);
        const int64_t n = mc::sample_count(p);
        // Three big chunks (several samples per thread at 1 wave), then small ones, out of order.
        std::vector<mc::SampleRange> chunks = mc::even_batches(n / 2, 3);
        for (auto r : mc::even_batches(n - n / 2, 7)) {
          r.first += n / 2;
          chunks.insert(chunks.begin() + 1, r);
        }
        std::vector<mc::Moments> alone;
        pricer.reset(p, o);
        for (const auto& r : chunks) {
          pricer.enqueue(r);
          alone.push_back(pricer.finish().front().batch);
        }
        const mc::Histogram hist_alone = pricer.histogram();
        pricer.reset(p, o);
        for (int rep = 0; rep < 2; ++rep) {  // the second launch reuses the uploaded chunk table
          if (rep == 1) pricer.reset(p, o);
          pricer.enqueue_chunks(chunks);
          if (rep == 0) pricer.reduce_chunks();
          const mc::GpuPricer::Chunks got = pricer.finish_chunks();
          ASSERT_EQ(got.moments.size(), chunks.size());
          EXPECT_GT(got.ms, 0.0);
          for (size_t c = 0; c < chunks.size(); ++c) {
            const std::string what = std::string(mc::layout_label(l.layout)) + ", block " + std::to_string(l.block) +
                                     ", " + mc::option_label(option) + (anti ? ", antithetic" : "") + ", chunk " +
                                     std::to_string(c) + ", run " + std::to_string(rep);
            EXPECT_EQ(got.moments[c].n, chunks[c].count) << what;
            EXPECT_EQ(got.moments[c].sum, alone[c].sum) << what;
            EXPECT_EQ(got.moments[c].sum_sq, alone[c].sum_sq) << what;
          }
          EXPECT_EQ(pricer.moments().n, n);
          EXPECT_EQ(pricer.histogram().counts, hist_alone.counts);
          EXPECT_EQ(pricer.histogram().total(), static_cast<uint64_t>(mc::paths_for_samples(n, anti)));
        }
      }
}

TEST(MonteCarloGpu, ChunkedLaunchRefusesMisuse) {
  BS_REQUIRE_GPU();
  mc::GpuPricer pricer;
  pricer.reset(params(mc::OptionType::Call, 1000, 16));
  EXPECT_THROW(pricer.enqueue_chunks({}), bs::InvalidRequest);
  EXPECT_THROW(pricer.enqueue_chunks({{0, 500}, {990, 20}}), bs::InvalidRequest);
  EXPECT_THROW(pricer.reduce_chunks(), bs::InvalidRequest);
  EXPECT_THROW(pricer.finish_chunks(), bs::InvalidRequest);
  pricer.enqueue({0, 10});
  EXPECT_THROW(pricer.enqueue_chunks({{10, 10}}), bs::InvalidRequest) << "a batch is in flight";
  (void)pricer.finish();
  pricer.enqueue_chunks({{10, 10}, {20, 980}});
  EXPECT_THROW(pricer.enqueue({0, 10}), bs::InvalidRequest) << "a chunked launch is in flight";
  EXPECT_THROW(pricer.enqueue_chunks({{0, 10}}), bs::InvalidRequest) << "a chunked launch is in flight";
  EXPECT_EQ(pricer.finish_chunks().moments.size(), 2u);
  EXPECT_EQ(pricer.moments().n, 1000);
}

TEST(MonteCarloGpu, SamplePathsArePricedPaths) {
  BS_REQUIRE_GPU();
  // Price a run of exactly the stored paths from their last column on the host: the same terminal prices, so
  // the same price to the rounding of the sums.
  for (bool anti : {false, true}) {
    mc::Params p = params(mc::OptionType::Call, 3000, 37);
    p.antithetic = anti;
    mc::RunOptions o;
    o.sample_paths = 3000;
    mc::GpuPricer pricer;
    pricer.reset(p, o);
    const mc::Result r = pricer.run();
    ASSERT_EQ(pricer.sample_path_count(), 3000);
    ASSERT_EQ(pricer.sample_path_length(), 38);
    ASSERT_NE(pricer.device_sample_paths(), nullptr);
    const std::vector<float> paths = pricer.download_sample_paths();
    ASSERT_EQ(paths.size(), 3000u * 38u);
    double sum = 0;
    for (int j = 0; j < 3000; ++j) {
      const float* row = paths.data() + static_cast<size_t>(j) * 38;
      EXPECT_EQ(row[0], 100.0f);
      for (int k = 0; k < 38; ++k)
        ASSERT_TRUE(std::isfinite(row[k]) && row[k] > 0) << "path " << j << " step " << k;
      sum += std::max(row[37] - 100.0f, 0.0f);
    }
    EXPECT_NEAR(p.discount() * sum / 3000.0, r.estimate.price, 1e-6 * r.estimate.price)
        << (anti ? "antithetic" : "");
  }
}

TEST(MonteCarloGpu, XorwowAlsoPricesCorrectly) {
  BS_REQUIRE_GPU();
  // XORWOW's per-path curand_init(seed, i, 0) walks a skip-ahead table (slow); fewer paths keep the test
  // short.
  mc::Params p = params(mc::OptionType::Call, 100'000, 16);
  p.generator = mc::Generator::Xorwow;
  const mc::Estimate e = run(p).estimate;
  EXPECT_LT(std::abs(mc::error_in_std_errors(e, *mc::reference_price(p))), 4.0)
      << e.price << " +- " << e.std_error;
}

TEST(MonteCarloGpu, RefusesBadRequests) {
  BS_REQUIRE_GPU();
  mc::GpuPricer pricer;
  for (int block : {0, 1025, 2048}) {
    try {
      pricer.set_launch({block, mc::Layout::GridStride, 2});
      FAIL() << "block " << block << " was accepted";
    } catch (const bs::InvalidRequest& e) {
      EXPECT_NE(std::string(e.what()).find("block"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(pricer.set_launch({256, mc::Layout::GridStride, 0}), bs::InvalidRequest);
  mc::Params p = params(mc::OptionType::Call, 0, 16);
  EXPECT_THROW(pricer.reset(p), bs::InvalidRequest);
  p.paths = 1000;
  pricer.reset(p);
  EXPECT_THROW(pricer.enqueue({990, 20}), bs::InvalidRequest);
  EXPECT_THROW(pricer.enqueue({0, 0}), bs::InvalidRequest);
  mc::RunOptions o;
  o.sample_paths = mc::k_max_sample_paths + 1;
  EXPECT_THROW(pricer.reset(p, o), bs::InvalidRequest);
}
