// heat_solver_gpu_test.cpp: what the heat lab asks of GpuSolver beyond stepping: the CPU fallback's covered-
// cells step equals the GPU kernel with the same too-small grid, strokes paint the same cells on both, one
// cell reads back, and a launch change drops the timings of batches run with the old launch. Skips without a
// GPU.
#include <gtest/gtest.h>

#include <vector>

#include "core/error.h"
#include "gpu/heat/heat.h"
#include "test_util.h"

namespace bs::heat {

namespace {
Params awkward() {
  Params p;
  p.nx = 1000;
  p.ny = 777;
  p.dt = 0.24f;
  p.boundary = Boundary::Fixed;
  p.boundary_temp = 0.3f;
  return p;
}
}  // namespace

TEST(HeatSolverGpu, TooSmallGridMatchesTheCpuCoveredStep) {
  BS_REQUIRE_GPU();
  const Params p = awkward();
  for (int cpt : {1, 4}) {
    SCOPED_TRACE(cpt);
    const Dim2 block{32, 8}, grid{p.nx / 32, p.ny / (8 * cpt)};
    GpuSolver s(p);
    s.set_launch(block, grid, cpt);
    const Coverage c = s.coverage();
    ASSERT_FALSE(c.full());
    EXPECT_EQ(c.covered_x, coverage_of(grid, cells_of(block, cpt), {p.nx, p.ny}).covered_x);
    const auto init = make_initial(p, InitialPattern::Noise);
    s.upload(init);
    s.step(20);
    const auto gpu = s.download();
    std::vector<float> f = init, tmp(f.size());
    for (int i = 0; i < 20; ++i) {
      step_cpu(f.data(), tmp.data(), p, CpuMode::AllThreads, c);
      f.swap(tmp);
    }
    // The same stencil_update, but the GPU may contract to FMA: a float tolerance, and exact equality where
    // no thread computes.
    EXPECT_LT(test::max_abs_diff(gpu, f), 1e-5);
    for (int64_t y = 0; y < p.ny; ++y)
      for (int64_t x = 0; x < p.nx; ++x) {
        if (x >= c.covered_x || y >= c.covered_y) {
          ASSERT_EQ(gpu[static_cast<size_t>(y * p.nx + x)], init[static_cast<size_t>(y * p.nx + x)]);
        }
      }
  }
}

TEST(HeatSolverGpu, StrokesPaintTheSameCellsAsOnTheCpu) {
  BS_REQUIRE_GPU();
  const Params p = awkward();
  GpuSolver s(p);
  std::vector<float> cpu(static_cast<size_t>(p.cells()), 0.25f);
  s.upload(cpu);
  const Stroke strokes[] = {{10.5, 20.5, 600.5, 500.5, 3.0, 5.0f}, {900, 700, 900, 700, 12, -1.0f}};
  for (const Stroke& st : strokes) {
    s.paint(st);
    apply_stroke_cpu(cpu, p.nx, p.ny, st);
  }
  // The same capsule test (brush.h); the GPU may contract it to FMA, which can flip a cell lying on the rim
  // within rounding: a handful at most of the thousands painted.
  const auto gpu = s.download();
  size_t painted = 0, differ = 0;
  for (size_t i = 0; i < cpu.size(); ++i) {
    painted += cpu[i] != 0.25f;
    differ += gpu[i] != cpu[i];
  }
  EXPECT_GT(painted, 3000u);
  EXPECT_LE(differ, 8u);
  EXPECT_EQ(s.read_cell(300, 260), cpu[static_cast<size_t>(260 * p.nx + 300)]);
  EXPECT_EQ(s.read_cell(900, 700), -1.0f);
  EXPECT_EQ(s.read_cell(0, 776), 0.25f);
  EXPECT_THROW(s.read_cell(1000, 0), InvalidRequest);
}

TEST(HeatSolverGpu, ALaunchChangeDropsTheOldLaunchsTimings) {
  BS_REQUIRE_GPU();
  GpuSolver s(awkward());
  s.upload(make_initial(awkward(), InitialPattern::HotSpots));
  s.set_launch({32, 8}, std::nullopt, 1);
  s.step(50);
  s.set_launch({64, 4}, std::nullopt, 8);  // waits for the 50 steps and drops their time
  EXPECT_TRUE(s.poll_step_ms().empty());
  s.step(5);
  s.step(5);
  s.sync();
  EXPECT_EQ(s.poll_step_ms().size(), 2u);  // only the two batches of the new launch
}

}  // namespace bs::heat
