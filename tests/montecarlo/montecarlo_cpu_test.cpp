// montecarlo_cpu_test.cpp: closed forms, parameter validation, estimates, batches and the CPU baselines of
// the Monte Carlo lab. Every test here runs without a GPU and in well under a second each.
//
// Statistical tolerances: an estimate is accepted within 4 standard errors of its reference (a fixed seed
// makes each test deterministic; 4 SE would be crossed by chance with probability 6e-5, so a failure means a
// bug).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "core/error.h"
#include "gpu/montecarlo/montecarlo.h"

namespace mc = bs::montecarlo;

namespace {

mc::Params small(mc::OptionType o = mc::OptionType::Call, int64_t paths = 100'000, int steps = 4) {
  mc::Params p;
  p.option = o;
  p.paths = paths;
  p.steps = steps;
  return p;
}

struct Case {
  const char* name;
  double s0, strike, rate, sigma, maturity;
};
// At the money (the textbook case), in and out of the money, high volatility, short and long maturity.
const Case k_cases[] = {
    {"atm", 100, 100, 0.05, 0.2, 1.0},
    {"itm_call", 110, 95, 0.03, 0.25, 0.5},
    {"otm_call", 90, 120, 0.01, 0.35, 2.0},
    {"high_vol", 50, 55, 0.08, 0.8, 1.5},
};

}  // namespace

TEST(MonteCarloClosedForm, BlackScholesTextbookValues) {
  const mc::BlackScholes bs = mc::black_scholes(100, 100, 0.05, 0.2, 1.0);
  // Hull's textbook values to four decimals.
  EXPECT_NEAR(bs.call, 10.4506, 5e-5);
  EXPECT_NEAR(bs.put, 5.5735, 5e-5);
  // Put-call parity holds to rounding.
  EXPECT_NEAR(bs.call - bs.put, 100.0 - 100.0 * std::exp(-0.05), 1e-12);
}

TEST(MonteCarloClosedForm, ZeroVolatilityGivesDiscountedIntrinsicValue) {
  const mc::BlackScholes bs = mc::black_scholes(100, 100, 0.05, 0.0, 1.0);
  EXPECT_DOUBLE_EQ(bs.call, 100.0 - 100.0 * std::exp(-0.05));
  EXPECT_DOUBLE_EQ(bs.put, 0.0);
}

TEST(MonteCarloClosedForm, NormalQuantileInvertsTheCdf) {
  EXPECT_NEAR(mc::normal_quantile(0.975), 1.959963984540054, 1e-12);
  EXPECT_NEAR(mc::normal_quantile(0.5), 0.0, 1e-15);
  for (double p : {1e-9, 1e-4, 0.01, 0.02425, 0.3, 0.7, 0.99, 1 - 1e-6})
    EXPECT_NEAR(mc::normal_cdf(mc::normal_quantile(p)), p, 1e-12 * std::max(1.0, p / (1 - p))) << "p = " << p;
}

TEST(MonteCarloClosedForm, LognormalDensityIntegratesToOne) {
  mc::Params p;
  p.sigma = 0.4;
  p.maturity = 2.0;
  const double lo = mc::lognormal_quantile(1e-9, p), hi = mc::lognormal_quantile(1 - 1e-9, p);
  const int n = 200'000;
  double integral = 0;
  const double h = (hi - lo) / n;
  for (int i = 0; i < n; ++i)
    integral += h * 0.5 * (mc::lognormal_pdf(lo + i * h, p) + mc::lognormal_pdf(lo + (i + 1) * h, p));
  // Trapezoid error at this resolution is ~1e-8; the truncated tails hold 2e-9.
  EXPECT_NEAR(integral, 1.0, 1e-6);
  EXPECT_NEAR(mc::lognormal_cdf(mc::lognormal_quantile(0.25, p), p), 0.25, 1e-12);
  // The median of S_T is exp(mean of ln S_T) = S0 e^{(r - sigma^2/2) T}.
  EXPECT_NEAR(mc::lognormal_quantile(0.5, p), 100 * std::exp((0.05 - 0.08) * 2.0), 1e-9);
}

TEST(MonteCarloValidation, AcceptsTheDefaults) {
  EXPECT_FALSE(mc::check(mc::Params{}).has_value());
  mc::Params p;
  p.sigma = 0;  // a deterministic path is allowed
  p.paths = 1;
  p.steps = 1;
  EXPECT_FALSE(mc::check(p).has_value());
  p.paths = mc::k_max_paths;
  p.steps = mc::k_max_steps;
  EXPECT_FALSE(mc::check(p).has_value());
}

TEST(MonteCarloValidation, RefusesBadParametersNamingThem) {
  struct Bad {
    std::function<void(mc::Params&)> change;
    const char* param;
    const char* says;
  };
  const Bad bad[] = {
      {[](mc::Params& p) { p.sigma = -0.1; }, "sigma", "negative"},
      {[](mc::Params& p) { p.maturity = 0; }, "maturity", "positive"},
      {[](mc::Params& p) { p.maturity = -1; }, "maturity", "positive"},
      {[](mc::Params& p) { p.paths = 0; }, "paths", "at least 1"},
      {[](mc::Params& p) { p.paths = mc::k_max_paths + 1; }, "paths", "16777216"},
      {[](mc::Params& p) { p.steps = 0; }, "steps", "at least 1"},
      {[](mc::Params& p) { p.steps = 1025; }, "steps", "1024"},
      {[](mc::Params& p) { p.s0 = 0; }, "s0", "positive"},
      {[](mc::Params& p) { p.s0 = -5; }, "s0", "positive"},
      {[](mc::Params& p) { p.strike = 0; }, "strike", "positive"},
      {[](mc::Params& p) { p.strike = std::nan(""); }, "strike", "finite"},
      {[](mc::Params& p) {
         p.sigma = 4.0;
         p.maturity = 4.0;
       },
       "sigma", "overflow"},
  };
  for (const Bad& b : bad) {
    mc::Params p;
    b.change(p);
    const auto err = mc::check(p);
    ASSERT_TRUE(err.has_value()) << "expected a refusal for " << b.param;
    EXPECT_EQ(err->param, b.param) << err->message;
    EXPECT_NE(err->message.find(b.says), std::string::npos) << err->message;
    EXPECT_EQ(mc::validate(p), err->message);
  }
}

TEST(MonteCarloValidation, RunOptions) {
  EXPECT_FALSE(mc::validate(mc::RunOptions{}).has_value());
  mc::RunOptions o;
  o.histogram_bins = mc::k_max_histogram_bins + 1;
  EXPECT_TRUE(mc::validate(o).has_value());
  o = {};
  o.sample_paths = -1;
  EXPECT_TRUE(mc::validate(o).has_value());
}

TEST(MonteCarloEstimate, FromMoments) {
  mc::Params p;
  p.rate = 0.0;  // no discounting: the plain sample mean and standard error
  mc::Moments m;
  for (double v : {1.0, 2.0, 3.0, 4.0}) {
    m.n += 1;
    m.sum += v;
    m.sum_sq += v * v;
  }
  const mc::Estimate e = mc::make_estimate(m, p);
  EXPECT_DOUBLE_EQ(e.price, 2.5);
  EXPECT_NEAR(e.std_error, std::sqrt((5.0 / 3.0) / 4.0), 1e-15);
  EXPECT_NEAR(e.ci_high - e.ci_low, 2 * mc::k_z95 * e.std_error, 1e-15);
  p.antithetic = true;
  EXPECT_EQ(mc::make_estimate(m, p).paths, 8);
  EXPECT_EQ(mc::sample_count(small()), 100'000);
  mc::Params odd = small();
  odd.antithetic = true;
  odd.paths = 1001;
  EXPECT_EQ(mc::sample_count(odd), 501);  // rounded up to whole pairs
}

TEST(MonteCarloBatches, EvenAndDoublingCoverTheRun) {
  for (int64_t n : {1LL, 7LL, 1000LL, 1'048'577LL}) {
    for (const auto& batches : {mc::even_batches(n, 7), mc::doubling_batches(n, 1000)}) {
      int64_t next = 0;
      for (const auto& r : batches) {
        EXPECT_EQ(r.first, next);
        EXPECT_GE(r.count, 1);
        next = r.end();
      }
      EXPECT_EQ(next, n);
    }
  }
  const auto d = mc::doubling_batches(16'000, 1000);
  ASSERT_EQ(d.size(), 5u);  // ends 1000, 2000, 4000, 8000, 16000
  EXPECT_EQ(d[4].end(), 16'000);
}

TEST(MonteCarloHistogram, EdgesTotalsAndExpectedCounts) {
  mc::Params p;
  const mc::Range r = mc::default_histogram_range(p);
  EXPECT_LT(r.lo, p.s0);
  EXPECT_GT(r.hi, p.s0);
  mc::Histogram h;
  h.lo = r.lo;
  h.hi = r.hi;
  h.counts.assign(50, 100);
  h.underflow = 3;
  h.overflow = 4;
  EXPECT_EQ(h.total(), 5007u);
  const auto e = h.edges();
  ASSERT_EQ(e.size(), 51u);
  EXPECT_DOUBLE_EQ(e.front(), r.lo);
  EXPECT_DOUBLE_EQ(e.back(), r.hi);
  double expected = 0;
  for (double v : mc::expected_counts(h, p))
    expected += v;
  EXPECT_NEAR(expected, 5007 * 0.998, 1e-6);  // the range spans the 0.1% to 99.9% quantiles
}

TEST(MonteCarloCpu, EuropeanNearBlackScholes) {
  for (const Case& c : k_cases) {
    for (auto opt : {mc::OptionType::Call, mc::OptionType::Put}) {
      mc::Params p = small(opt, 100'000, 3);
      p.s0 = c.s0;
      p.strike = c.strike;
      p.rate = c.rate;
      p.sigma = c.sigma;
      p.maturity = c.maturity;
      const mc::Result r = mc::run_cpu(p, mc::CpuMode::AllThreads);
      const double ref = *mc::reference_price(p);
      EXPECT_LT(std::abs(mc::error_in_std_errors(r.estimate, ref)), 4.0)
          << c.name << " " << mc::option_label(opt) << ": " << r.estimate.price << " +- "
          << r.estimate.std_error << " vs Black-Scholes " << ref;
      EXPECT_EQ(r.estimate.paths, 100'000);
    }
  }
}

TEST(MonteCarloCpu, OneThreadAndAllThreadsAgreeBitwise) {
  // Chunks with their own generators, summed in chunk order: the thread count cannot change a bit.
  const mc::Params p = small(mc::OptionType::Call, 50'001, 5);
  const mc::Result one = mc::run_cpu(p, mc::CpuMode::OneThread);
  const mc::Result all = mc::run_cpu(p, mc::CpuMode::AllThreads);
  EXPECT_EQ(one.estimate.price, all.estimate.price);
  EXPECT_EQ(one.estimate.std_error, all.estimate.std_error);
  const double ref = *mc::reference_price(p);
  EXPECT_LT(std::abs(mc::error_in_std_errors(one.estimate, ref)), 4.0);
  EXPECT_NE(one.variant, all.variant);
}

TEST(MonteCarloCpu, SameSeedSameResultOtherSeedOther) {
  mc::Params p = small(mc::OptionType::Put, 20'000, 4);
  const mc::Moments a = mc::simulate_cpu(p, {0, 20'000}, mc::CpuMode::AllThreads);
  const mc::Moments b = mc::simulate_cpu(p, {0, 20'000}, mc::CpuMode::AllThreads);
  EXPECT_EQ(a.sum, b.sum);
  EXPECT_EQ(a.sum_sq, b.sum_sq);
  p.seed = 43;
  const mc::Moments c = mc::simulate_cpu(p, {0, 20'000}, mc::CpuMode::AllThreads);
  EXPECT_NE(a.sum, c.sum);
}

TEST(MonteCarloCpu, BatchesAddUpToOneRun) {
  // Batch edges fall inside chunks on purpose: the skipped normals are drawn and dropped, so the same paths
  // are priced; only the order of the double additions differs (hence 1e-12, not bitwise).
  const mc::Params p = small(mc::OptionType::Call, 30'000, 3);
  const mc::Moments whole = mc::simulate_cpu(p, {0, 30'000}, mc::CpuMode::AllThreads);
  mc::Moments parts;
  for (const auto& r : mc::even_batches(30'000, 7))
    parts += mc::simulate_cpu(p, r, mc::CpuMode::OneThread);
  EXPECT_EQ(parts.n, whole.n);
  EXPECT_NEAR(parts.sum, whole.sum, 1e-12 * whole.sum);
  EXPECT_NEAR(parts.sum_sq, whole.sum_sq, 1e-12 * whole.sum_sq);
}

TEST(MonteCarloCpu, PutCallParity) {
  // C - P = S0 - K e^{-rT} path by path in expectation. Call and put share the seed, hence the paths.
  // Tolerance: 4 combined standard errors sqrt(se_C^2 + se_P^2) (as for every statistical check here; the 95%
  // CIs alone would be missed by chance one run in 20).
  const mc::Params call = small(mc::OptionType::Call, 100'000, 4);
  mc::Params put = call;
  put.option = mc::OptionType::Put;
  const mc::Estimate c = mc::run_cpu(call, mc::CpuMode::AllThreads).estimate;
  const mc::Estimate pp = mc::run_cpu(put, mc::CpuMode::AllThreads).estimate;
  const double parity = call.s0 - call.strike * call.discount();
  EXPECT_LT(std::abs((c.price - pp.price) - parity), 4 * std::hypot(c.std_error, pp.std_error));
}

TEST(MonteCarloCpu, AntitheticReducesTheStandardError) {
  // Same number of simulated paths. For an at-the-money call f(Z) and f(-Z) are negatively correlated, which
  // cuts the variance of the estimate by about half; 0.9 leaves room for sampling noise in the SE itself.
  mc::Params p = small(mc::OptionType::Call, 100'000, 4);
  const mc::Estimate plain = mc::run_cpu(p, mc::CpuMode::AllThreads).estimate;
  p.antithetic = true;
  const mc::Estimate anti = mc::run_cpu(p, mc::CpuMode::AllThreads).estimate;
  EXPECT_EQ(anti.paths, plain.paths);
  EXPECT_LT(anti.std_error, 0.9 * plain.std_error);
  EXPECT_LT(std::abs(mc::error_in_std_errors(anti, *mc::reference_price(p))), 4.0);
}

TEST(MonteCarloCpu, AsianWithOneStepIsTheEuropeanCall) {
  // With one monitoring date the average is S_T: same normals, same float arithmetic, same bits.
  mc::Params p = small(mc::OptionType::Call, 20'000, 1);
  const mc::Estimate eu = mc::run_cpu(p, mc::CpuMode::AllThreads).estimate;
  p.option = mc::OptionType::AsianCall;
  const mc::Estimate as = mc::run_cpu(p, mc::CpuMode::AllThreads).estimate;
  EXPECT_EQ(eu.price, as.price);
  EXPECT_FALSE(mc::reference_price(p).has_value());
}

TEST(MonteCarloCpu, AsianIsCheaperThanEuropean) {
  // Averaging lowers the volatility of the underlying of the payoff: ATM Asian ~5.8 vs European 10.45, a gap
  // of hundreds of standard errors.
  mc::Params p = small(mc::OptionType::AsianCall, 50'000, 12);
  const mc::Estimate as = mc::run_cpu(p, mc::CpuMode::AllThreads).estimate;
  EXPECT_GT(as.price, 4.5);
  EXPECT_LT(as.price, 7.0);
  EXPECT_LT(as.price, *mc::reference_price(small(mc::OptionType::Call)) - 20 * as.std_error);
}

TEST(MonteCarloCpu, ZeroVolatilityIsExactToFloatRounding) {
  mc::Params p = small(mc::OptionType::Call, 5'000, 8);
  p.sigma = 0.0;
  const mc::Estimate e = mc::run_cpu(p, mc::CpuMode::OneThread).estimate;
  // float32 prices: relative 1e-5 covers the rounding of S0 e^{rT} built from eight float drift terms.
  EXPECT_NEAR(e.price, *mc::reference_price(p), 1e-5 * p.s0);
  EXPECT_LT(e.std_error, 1e-5);
}

TEST(MonteCarloCpu, ProgressAndCancel) {
  const mc::Params p = small(mc::OptionType::Call, 40'000, 2);
  bs::JobControl done;
  (void)mc::run_cpu(p, mc::CpuMode::AllThreads, &done);
  EXPECT_DOUBLE_EQ(done.progress(), 1.0);
  for (auto mode : {mc::CpuMode::OneThread, mc::CpuMode::AllThreads}) {
    bs::JobControl ctl;
    ctl.cancel();
    EXPECT_THROW((void)mc::run_cpu(p, mode, &ctl), bs::JobCancelled);
  }
}

TEST(MonteCarloCpu, RefusesBadRequests) {
  mc::Params p = small();
  p.sigma = -0.2;
  try {
    (void)mc::run_cpu(p, mc::CpuMode::OneThread);
    FAIL() << "a negative sigma was accepted";
  } catch (const bs::InvalidRequest& e) {
    EXPECT_NE(std::string(e.what()).find("sigma"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)mc::simulate_cpu(small(), {99'999, 2}, mc::CpuMode::OneThread), bs::InvalidRequest);
  EXPECT_THROW((void)mc::simulate_cpu(small(), {0, 0}, mc::CpuMode::OneThread), bs::InvalidRequest);
}
