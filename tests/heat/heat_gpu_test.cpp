// heat_gpu_test.cpp: the GPU stencil against the CPU reference, launch validation, the uncovered cells of a
// too-small grid, and recovery from a context-poisoning error. Skips where no CUDA device exists.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "gpu/common/cuda_check.h"
#include "core/error.h"
#include "gpu/heat/heat.h"
#include "test_util.h"

namespace bs::test {
cudaError_t launch_wild_write();
}

namespace bs::heat {

namespace {
Params awkward(Boundary b) {
  Params p;
  p.nx = 1000;  // not a multiple of any block width below
  p.ny = 777;
  p.dt = 0.24f;
  p.boundary = b;
  p.boundary_temp = 0.3f;
  return p;
}
}  // namespace

TEST(HeatGpu, MatchesCpuAfter100StepsForManyBlockShapes) {
  BS_REQUIRE_GPU();
  for (Boundary b : {Boundary::Fixed, Boundary::Insulated}) {
    const Params p = awkward(b);
    auto ref = make_initial(p, InitialPattern::Noise);
    const auto init = ref;
    run_cpu(ref, p, 100, CpuMode::AllThreads);
    for (Dim2 block : {Dim2{32, 8}, Dim2{16, 16}, Dim2{7, 13}, Dim2{256, 1}, Dim2{1, 64}, Dim2{32, 32}}) {
      for (int cells : k_cells_per_thread_choices) {
        GpuSolver s(p);
        s.set_launch(block, std::nullopt, cells);
        ASSERT_TRUE(s.coverage().full());
        s.upload(init);
        s.step(100);
        const auto gpu = s.download();
        // Same formula; the GPU may fuse multiply-adds (one rounding instead of two): differences stay ~1e-7.
        EXPECT_LE(test::max_abs_diff(gpu, ref), 1e-5)
            << "block " << to_string(block) << ", " << cells << " cells/thread, boundary " << int(b);
      }
    }
  }
}

TEST(HeatGpu, InsulatedConservesHeat) {
  BS_REQUIRE_GPU();
  const Params p = awkward(Boundary::Insulated);
  GpuSolver s(p);
  const auto init = make_initial(p, InitialPattern::HotSpots);
  s.upload(init);
  s.step(1000);
  EXPECT_NEAR(total_heat(s.download()) / total_heat(init), 1.0, 1e-4);
}

TEST(HeatGpu, GaussianSpreadsAsOnTheCpu) {
  BS_REQUIRE_GPU();
  Params p;
  p.nx = p.ny = 257;
  auto f = make_gaussian(p, 8.0, 1.0);
  GpuSolver s(p);
  s.upload(f);
  s.step(500);
  const auto gpu = s.download();
  const double s2 = 64.0 + 2.0 * p.alpha * 500 * p.dt;
  const double center = gpu[static_cast<size_t>(128 * p.nx + 128)];
  EXPECT_NEAR(center, 64.0 / s2 * std::exp(-0.25 / s2), 0.01 * 64.0 / s2);
}

TEST(HeatGpu, RefusesIllegalLaunchesWithTheRule) {
  BS_REQUIRE_GPU();
  GpuSolver s(awkward(Boundary::Fixed));
  try {
    s.set_launch({2048, 1});
    FAIL() << "2048 threads accepted";
  } catch (const InvalidRequest& e) {
    EXPECT_NE(std::string(e.what()).find("2048 > 1024"), std::string::npos) << e.what();
  }
  EXPECT_THROW(s.set_launch({0, 8}), InvalidRequest);
  EXPECT_THROW(s.set_launch({32, 8}, Dim2{0, 1}), InvalidRequest);
  EXPECT_THROW(s.set_launch({32, 8}, std::nullopt, 3), InvalidRequest);
  EXPECT_EQ(s.block(), k_default_block);  // unchanged after refusals (the default launch)
}

TEST(HeatGpu, TooSmallGridLeavesUncoveredCellsUntouched) {
  BS_REQUIRE_GPU();
  const Params p = awkward(Boundary::Fixed);
  GpuSolver s(p);
  const Dim2 block{32, 8};
  s.set_launch(block, Dim2{p.nx / 32, p.ny / 8});  // floor division: 992 x 776 covered
  const Coverage c = s.coverage();
  ASSERT_FALSE(c.full());
  const auto init = make_initial(p, InitialPattern::Noise);
  s.upload(init);
  s.step(11);
  const auto out = s.download();
  // With 4 cells per thread a floor-division grid leaves a band at the bottom too.
  GpuSolver s4(p);
  s4.set_launch(block, Dim2{p.nx / 32, p.ny / (8 * 4)}, 4);
  EXPECT_EQ(s4.coverage().covered_y, (p.ny / 32) * 32);
  size_t untouched = 0, changed_inside = 0;
  for (int64_t y = 0; y < p.ny; ++y)
    for (int64_t x = 0; x < p.nx; ++x) {
      const size_t i = static_cast<size_t>(y * p.nx + x);
      if (x >= c.covered_x || y >= c.covered_y)
        untouched += out[i] == init[i];
      else
        changed_inside += out[i] != init[i];
    }
  EXPECT_EQ(untouched, static_cast<size_t>(c.uncovered_cells));
  EXPECT_GT(changed_inside, static_cast<size_t>(c.covered_x * c.covered_y) / 2);
}

TEST(HeatGpu, SizeThatDoesNotFitIsRefusedClearly) {
  BS_REQUIRE_GPU();
  Params p;
  p.nx = 8193;
  EXPECT_THROW(GpuSolver{p}, InvalidRequest);
}

TEST(HeatGpu, StickyErrorIsDetectedAndHandled) {
  BS_REQUIRE_GPU();
  const cudaError_t err = test::launch_wild_write();
  ASSERT_NE(err, cudaSuccess);
  ASSERT_TRUE(is_sticky_cuda_error(err)) << cudaGetErrorName(err);
  // The context is poisoned: even a plain allocation fails now, and says it is sticky.
  try {
    Params p;
    p.nx = p.ny = 64;
    GpuSolver poisoned(p);
    FAIL() << "allocation succeeded on a poisoned context";
  } catch (const GpuError& e) {
    EXPECT_TRUE(e.sticky()) << e.what();
  }
  // Either the device comes back after a reset (older drivers), or the driver keeps it unavailable to this
  // process (the CUDA documentation: relaunch the process), and the app falls back to the CPU. Both outcomes
  // must be clean: a working solver, or a message saying why not.
  std::string why;
  const Params p = awkward(Boundary::Fixed);
  auto ref = make_initial(p, InitialPattern::Noise);
  const auto init = ref;
  run_cpu(ref, p, 5, CpuMode::OneThread);
  if (reset_cuda_device(test::device().index, &why)) {
    GpuSolver s(p);
    s.upload(init);
    s.step(5);
    EXPECT_LE(test::max_abs_diff(s.download(), ref), 1e-5);
  } else {
    EXPECT_FALSE(why.empty());
    std::printf(
        "[ info ] device not usable again in this process after the fault: %s (the app falls back to the "
        "CPU)\n",
        why.c_str());
  }
}

}  // namespace bs::heat
