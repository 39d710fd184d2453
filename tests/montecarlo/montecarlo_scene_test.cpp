// montecarlo_scene_test.cpp: the Monte Carlo lab renders (paths, histogram, price panel) headless on the CPU
// path and on the GPU, and the bookkeeping behind its plots (batch schedule, convergence points, density in
// counts, the CPU histogram and sample paths) is right.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <numeric>
#include <set>

#include "core/error.h"
#include "gpu/montecarlo/montecarlo.h"
#include "image_util.h"
#include "run_util.h"
#include "test_util.h"
#include "ui/montecarlo/montecarlo_lab_panel.h"

namespace bs {

namespace {
namespace mcl = montecarlo;

std::string mc_out_path(const std::string& name) {
  return test::output_path(name);
}

// Distinct RGB colours inside a region given as fractions of the image.
size_t distinct_colours(const std::string& png, double x0, double x1, double y0, double y1) {
  return test::image_stats(png, x0, y0, x1, y1).distinct_colours;
}
}  // namespace

TEST(MonteCarloScene, HeadlessCpuScreenshotShowsPathsHistogramAndPrice) {
  const std::string png = mc_out_path("montecarlo_cpu.png");
  const auto r = test::run_blockscope(
      "--headless --render-path cpu --scene montecarlo --frames 30 --width 1280 "
      "--height 800 --screenshot " +
      png);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Paths (top left) are drawn in a colour ramp with blending: many colours. The histogram and plot (bottom
  // left) and the panel (right) add text and bars.
  EXPECT_GT(distinct_colours(png, 0.05, 0.55, 0.1, 0.5), 100u) << r.output;
  EXPECT_GT(distinct_colours(png, 0.05, 0.55, 0.55, 0.95), 20u) << r.output;
  EXPECT_GT(distinct_colours(png, 0.6, 1.0, 0.1, 0.9), 20u) << r.output;
}

// On the GPU: the paths reach GL through interop (CUDA writes the vertex buffer), or through a host copy.
TEST(MonteCarloScene, HeadlessGpuInteropScreenshot) {
  BS_REQUIRE_GPU();
  const std::string png = mc_out_path("montecarlo_gpu_interop.png");
  const auto r = test::run_blockscope(
      "--headless --render-path interop --scene montecarlo --frames 60 --width 1280 "
      "--height 800 --screenshot " +
      png);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("path: CUDA + interop"), std::string::npos) << r.output;
  EXPECT_GT(distinct_colours(png, 0.05, 0.55, 0.1, 0.5), 100u) << r.output;
  EXPECT_GT(distinct_colours(png, 0.05, 0.55, 0.55, 0.95), 20u) << r.output;
}

TEST(MonteCarloScene, HeadlessGpuHostCopyScreenshot) {
  BS_REQUIRE_GPU();
  const std::string png = mc_out_path("montecarlo_gpu_host.png");
  const auto r = test::run_blockscope(
      "--headless --render-path host --scene montecarlo --frames 60 --width 1280 "
      "--height 800 --screenshot " +
      png);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GT(distinct_colours(png, 0.05, 0.55, 0.1, 0.5), 100u) << r.output;
}

TEST(MonteCarloHelpers, GrowingBatchesCoverEverySampleOnce) {
  for (int64_t samples : {int64_t{1}, int64_t{999}, int64_t{1000}, int64_t{50'001}, mcl::k_max_paths}) {
    const auto b = ui::mc::growing_batches(samples, 1000, 1.5);
    ASSERT_FALSE(b.empty());
    int64_t next = 0;
    for (const auto& r : b) {
      EXPECT_EQ(r.first, next);
      EXPECT_GT(r.count, 0);
      next = r.end();
    }
    EXPECT_EQ(next, samples);
  }
  // 1k .. 16M by 1.5x: about log(16777) / log(1.5) = 24 batches, so the plot gets many points.
  const auto b = ui::mc::growing_batches(mcl::k_max_paths, 1000, 1.5);
  EXPECT_GE(b.size(), 20u);
  EXPECT_LE(b.size(), 28u);
}

TEST(MonteCarloHelpers, ConvergenceTrackKeepsGrowingPointsAndGuideFallsAsInverseSqrt) {
  ui::mc::ConvergenceTrack t;
  mcl::Estimate e;
  e.paths = e.samples = 1000;
  e.price = 10.5;
  e.std_error = 0.4;
  e.ci_low = e.price - mcl::k_z95 * e.std_error;
  e.ci_high = e.price + mcl::k_z95 * e.std_error;
  EXPECT_TRUE(t.add(e, 10.45));
  EXPECT_FALSE(t.add(e, 10.45));  // same path count: a repeat, not a new point
  mcl::Estimate e2 = e;
  e2.paths = e2.samples = 4000;
  e2.std_error = 0.2;
  e2.price = 10.45;  // exactly the reference: |error| 0, floored for the log axis
  e2.ci_low = e2.price - mcl::k_z95 * e2.std_error;
  e2.ci_high = e2.price + mcl::k_z95 * e2.std_error;
  EXPECT_TRUE(t.add(e2, 10.45));
  mcl::Estimate nan = e2;
  nan.paths = 8000;
  nan.std_error = std::nan("");
  EXPECT_FALSE(t.add(nan, 10.45));
  ASSERT_EQ(t.points().size(), 2u);
  const auto y = t.ys(true);
  EXPECT_NEAR(y[0], 0.05, 1e-12);
  EXPECT_GT(y[1], 0.0);
  EXPECT_LT(y[1], 0.01 * e2.std_error);
  // Without a closed form the plot shows the CI half-width, 1.96 standard errors.
  EXPECT_NEAR(t.ys(false)[0], mcl::k_z95 * 0.4, 1e-12);
  // Guide through the newest point: 0.2 at 4000 paths, twice that at a quarter of the paths.
  const auto g = t.guide({1000.0, 4000.0, 16000.0});
  EXPECT_NEAR(g[0], 0.4, 1e-12);
  EXPECT_NEAR(g[1], 0.2, 1e-12);
  EXPECT_NEAR(g[2], 0.1, 1e-12);
  // Without a closed form the guide runs through the newest half-width (1.96 standard errors).
  const auto ga = t.guide({4000.0, 16000.0}, false);
  EXPECT_NEAR(ga[0], mcl::k_z95 * 0.2, 1e-12);
  EXPECT_NEAR(ga[1], mcl::k_z95 * 0.1, 1e-12);
}

TEST(MonteCarloHelpers, DensityInCountsMatchesExpectedCountsPerBin) {
  mcl::Params p;
  mcl::Histogram h;
  const mcl::Range r = mcl::default_histogram_range(p);
  h.lo = r.lo;
  h.hi = r.hi;
  h.counts.assign(200, 0);
  h.counts[100] = 1'000'000;  // only the total matters for the overlay
  const auto d = ui::mc::density_in_counts(h, p, 1);
  ASSERT_EQ(d.x.size(), 201u);
  const std::vector<double> expected = mcl::expected_counts(h, p);
  // Midpoint of pdf at the two edges vs the exact integral over the bin: with 200 bins across the 0.1%..99.9%
  // range the trapezoid error is below 0.5% of the bin's count (plus 1 count where bins are nearly empty).
  for (size_t i = 0; i < expected.size(); ++i) {
    const double trapezoid = 0.5 * (d.y[i] + d.y[i + 1]);
    EXPECT_NEAR(trapezoid, expected[i], 0.005 * expected[i] + 1.0) << "bin " << i;
  }
  mcl::Params flat = p;
  flat.sigma = 0;
  EXPECT_TRUE(ui::mc::density_in_counts(h, flat).x.empty());
}

TEST(MonteCarloHelpers, CpuHistogramCountsEveryPathAndMatchesTheUnbinnedRun) {
  mcl::Params p;
  p.paths = 10'001;  // not a multiple of the chunk size, odd under antithetic
  p.steps = 16;
  for (bool anti : {false, true}) {
    p.antithetic = anti;
    mcl::Histogram h;
    const mcl::Range r = mcl::default_histogram_range(p);
    h.lo = r.lo;
    h.hi = r.hi;
    h.counts.assign(50, 0);
    const int64_t samples = mcl::sample_count(p);
    // Two batches into one histogram, against one unbinned run: the same moments bit for bit.
    const mcl::SampleRange a{0, samples / 3}, b{samples / 3, samples - samples / 3};
    mcl::Moments m = mcl::simulate_cpu(p, a, mcl::CpuMode::AllThreads, nullptr, h);
    m += mcl::simulate_cpu(p, b, mcl::CpuMode::OneThread, nullptr, h);
    const mcl::Moments whole = mcl::simulate_cpu(p, {0, samples}, mcl::CpuMode::AllThreads);
    EXPECT_EQ(m.n, whole.n);
    EXPECT_NEAR(m.sum, whole.sum, 1e-9 * std::abs(whole.sum));
    EXPECT_EQ(h.total(), static_cast<uint64_t>(mcl::paths_for_samples(samples, anti)));
    // 0.1% .. 99.9% quantile range: about 0.2% of paths fall outside; allow 1%.
    EXPECT_LT(h.underflow + h.overflow, h.total() / 100);
  }
}

TEST(MonteCarloHelpers, CpuSamplePathsEndAtThePricedTerminalPrices) {
  mcl::Params p;
  p.paths = 6000;
  p.steps = 8;
  p.antithetic = true;
  p.option = mcl::OptionType::Call;
  // 4095 paths (the most, less one: the last pair is cut) = 2048 samples; every row starts at S0.
  const std::vector<float> paths = mcl::cpu_sample_paths(p, 4095);
  ASSERT_EQ(paths.size(), 4095u * 9u);
  for (int j = 0; j < 4095; ++j)
    EXPECT_EQ(paths[static_cast<size_t>(j) * 9], static_cast<float>(p.s0));
  // The mean of the pair's call payoffs from the drawn S_T equals what simulate_cpu priced for those samples.
  double sum = 0;
  for (int i = 0; i < 2047; ++i) {
    const float a = paths[static_cast<size_t>(2 * i) * 9 + 8],
                b = paths[static_cast<size_t>(2 * i + 1) * 9 + 8];
    const float k = static_cast<float>(p.strike);
    sum += 0.5f * ((a > k ? a - k : 0.0f) + (b > k ? b - k : 0.0f));
  }
  const mcl::Moments m = mcl::simulate_cpu(p, {0, 2047}, mcl::CpuMode::OneThread);
  // Same float arithmetic, summed in the same order in double: equal to rounding of the double sums.
  EXPECT_NEAR(sum, m.sum, 1e-9 * std::abs(m.sum));
  EXPECT_THROW(mcl::cpu_sample_paths(p, mcl::k_max_sample_paths + 1), InvalidRequest);
}

}  // namespace bs
