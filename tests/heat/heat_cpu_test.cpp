// heat_cpu_test.cpp: the CPU baselines and the physics: stability limit, conservation with insulated edges,
// the analytic spreading of a Gaussian, one thread == all threads.
#include <gtest/gtest.h>

#include <cmath>

#include "gpu/heat/heat.h"
#include "test_util.h"

namespace bs::heat {

TEST(HeatParams, StabilityLimitIsEnforcedWithAMessage) {
  Params p;
  p.alpha = 2.0f;
  p.dx = 1.0f;
  p.dt = 0.13f;  // limit is 1/(4*2) = 0.125
  const auto err = validate(p);
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("stability limit"), std::string::npos) << *err;
  p.dt = max_stable_dt(p.alpha, p.dx);
  EXPECT_FALSE(validate(p));
}

TEST(HeatParams, SizesAndPositivity) {
  Params p;
  p.nx = 0;
  EXPECT_TRUE(validate(p));
  p.nx = -5;
  EXPECT_TRUE(validate(p));
  p.nx = 8193;
  EXPECT_TRUE(validate(p));
  p.nx = 1000;
  p.ny = 777;
  EXPECT_FALSE(validate(p));
  p.alpha = 0;
  EXPECT_TRUE(validate(p));
}

TEST(HeatCpu, InitialFieldsAreNeverZero) {
  Params p;
  p.nx = 100;
  p.ny = 77;
  for (auto pat : {InitialPattern::HotSpots, InitialPattern::Gaussian, InitialPattern::Noise}) {
    const auto f = make_initial(p, pat);
    double sum_abs = 0;
    for (float v : f)
      sum_abs += std::abs(v);
    EXPECT_GT(sum_abs / f.size(), 0.01);
  }
}

TEST(HeatCpu, OneThreadEqualsAllThreads) {
  Params p;
  p.nx = 301;
  p.ny = 157;
  for (Boundary b : {Boundary::Fixed, Boundary::Insulated}) {
    p.boundary = b;
    auto a = make_initial(p, InitialPattern::Noise);
    auto c = a;
    run_cpu(a, p, 20, CpuMode::OneThread);
    run_cpu(c, p, 20, CpuMode::AllThreads);
    EXPECT_EQ(a, c);  // same arithmetic, per cell, in either mode
  }
}

TEST(HeatCpu, InsulatedBoundariesConserveHeat) {
  Params p;
  p.nx = 203;
  p.ny = 117;
  p.boundary = Boundary::Insulated;
  auto f = make_initial(p, InitialPattern::HotSpots);
  const double before = total_heat(f);
  run_cpu(f, p, 500, CpuMode::AllThreads);
  // Each step moves heat between neighbours only; float rounding of ~24k cells over 500 steps stays far below
  // 1e-4.
  EXPECT_NEAR(total_heat(f) / before, 1.0, 1e-4);
}

TEST(HeatCpu, FixedBoundaryDrainsTowardsEdgeTemperature) {
  Params p;
  p.nx = 64;
  p.ny = 64;
  p.boundary_temp = 0.0f;
  auto f = make_initial(p, InitialPattern::HotSpots);
  const double before = total_heat(f);
  run_cpu(f, p, 2000, CpuMode::AllThreads);
  EXPECT_LT(std::abs(total_heat(f)), std::abs(before));
}

TEST(HeatCpu, GaussianSpreadsAsTheAnalyticSolution) {
  // u(r, t) = A s0^2 / (s0^2 + 2 alpha t) exp(-r^2 / (2 (s0^2 + 2 alpha t))) in an infinite plane. The grid
  // is 16 initial sigmas wide so the boundary is irrelevant; the 5-point stencil's error is O(dx^2 / s^2) ~
  // 1%.
  Params p;
  p.nx = p.ny = 257;
  p.dt = 0.2f;
  const double s0 = 8.0, amp = 1.0;
  auto f = make_gaussian(p, s0, amp);
  const int steps = 500;
  run_cpu(f, p, steps, CpuMode::AllThreads);
  const double t = steps * p.dt;
  const double s2 = s0 * s0 + 2.0 * p.alpha * t;
  double max_err = 0;
  for (int64_t y = 0; y < p.ny; ++y)
    for (int64_t x = 0; x < p.nx; ++x) {
      const double dx = x + 0.5 - p.nx / 2.0, dy = y + 0.5 - p.ny / 2.0;
      const double exact = amp * s0 * s0 / s2 * std::exp(-(dx * dx + dy * dy) / (2 * s2));
      max_err = std::max(max_err, std::abs(f[static_cast<size_t>(y * p.nx + x)] - exact));
    }
  const double peak = amp * s0 * s0 / s2;
  EXPECT_LT(max_err, 0.01 * peak) << "peak " << peak << ", max error " << max_err;
}

TEST(HeatCpu, CancelStopsARun) {
  Params p;
  p.nx = p.ny = 256;
  auto f = make_initial(p, InitialPattern::Noise);
  JobControl ctl;
  ctl.cancel();
  EXPECT_THROW(run_cpu(f, p, 1000, CpuMode::OneThread, &ctl), JobCancelled);
}

}  // namespace bs::heat
