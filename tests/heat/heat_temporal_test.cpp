// heat_temporal_test.cpp: temporal blocking's bookkeeping on the CPU (tile geometry, shrinking step regions,
// the cost counts, validation) and, on a GPU, the fused kernel against the one-step kernel after 200 steps at
// awkward sizes, both boundary kinds, bit for bit.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/error.h"
#include "gpu/heat/heat.h"
#include "gpu/heat/temporal.h"
#include "test_util.h"

namespace bs::heat {

namespace {
Params field(int64_t nx, int64_t ny, Boundary b) {
  Params p;
  p.nx = nx;
  p.ny = ny;
  p.dt = 0.24f;
  p.boundary = b;
  p.boundary_temp = 0.3f;
  return p;
}
bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}
// Index of the first cell whose bits differ (-1: none), for the failure message.
int64_t first_difference(const std::vector<float>& a, const std::vector<float>& b) {
  for (size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0) return static_cast<int64_t>(i);
  return -1;
}
const DeviceLimits k_any{};
constexpr int64_t k_h100_shared = 227 * 1024;
}  // namespace

TEST(HeatTemporal, StepRegionsShrinkByOneCellPerSidePerStep) {
  EXPECT_FALSE(in_step_region(0, 10, 1));
  EXPECT_TRUE(in_step_region(1, 10, 1));
  EXPECT_TRUE(in_step_region(8, 10, 1));
  EXPECT_FALSE(in_step_region(9, 10, 1));
  EXPECT_FALSE(in_step_region(2, 10, 3));
  EXPECT_TRUE(in_step_region(3, 10, 3));
  EXPECT_TRUE(in_step_region(6, 10, 3));
  EXPECT_FALSE(in_step_region(7, 10, 3));
  // Consecutive tiles' output regions abut: tile b's last step covers field cells [b * out, (b + 1) * out).
  const TemporalTile t{{128, 4, 16}, 6};
  EXPECT_EQ(t.out_width(), 116);
  EXPECT_EQ(t.out_height(), 52);
  for (int b = 0; b < 4; ++b) {
    const int o = tile_origin(b, t.out_width(), t.steps);
    EXPECT_EQ(o + t.steps, b * t.out_width());
    EXPECT_EQ(o + t.width() - t.steps, (b + 1) * t.out_width());
  }
  EXPECT_EQ(temporal_grid(t, 8192, 8192), (Dim2{71, 158}));  // ceil(8192 / 116), ceil(8192 / 52)
  EXPECT_EQ(temporal_grid(t, 116, 52), (Dim2{1, 1}));
  EXPECT_EQ(temporal_grid(t, 117, 53), (Dim2{2, 2}));
}

TEST(HeatTemporal, TileValidationSaysWhatIsWrong) {
  EXPECT_FALSE(validate_tile({k_default_tile, k_default_fused_steps}, k_any, k_h100_shared));
  EXPECT_FALSE(validate_tile({k_default_tile, 1}, k_any, k_h100_shared));
  auto has = [](const std::optional<std::string>& e, const char* what) {
    return e && e->find(what) != std::string::npos;
  };
  EXPECT_TRUE(has(validate_tile({k_default_tile, 0}, k_any, k_h100_shared), "1 to 8"));
  EXPECT_TRUE(has(validate_tile({k_default_tile, 9}, k_any, k_h100_shared), "1 to 8"));
  EXPECT_TRUE(has(validate_tile({{128, 4, 12}, 4}, k_any, k_h100_shared), "8 or 16"));
  EXPECT_TRUE(has(validate_tile({{16, 1, 8}, 4}, k_any, k_h100_shared), "no output cells"));
  EXPECT_TRUE(has(validate_tile({{2048, 1, 8}, 4}, k_any, k_h100_shared), "1024"));
  // 128 x 128 cells, two buffers: 128 KiB, more than a device with 100 KiB per block allows.
  EXPECT_TRUE(has(validate_tile({{128, 8, 16}, 4}, k_any, 100 * 1024), "128 KiB"));
  EXPECT_TRUE(has(validate_tile({k_default_tile, 4}, k_any, 48 * 1024), "64 KiB"));
}

TEST(HeatTemporal, CostCountsHaloWork) {
  // Hand count on a 116 x 52 field (one tile of the default shape with 6 steps): the tile hangs 6 cells over
  // every edge, so it loads the whole field once; step s updates the in-field part of [s, W - s) x [s, H -
  // s).
  const TemporalTile t{{128, 4, 16}, 6};
  const TemporalCost one = temporal_cost(t, 116, 52);
  EXPECT_EQ(one.useful, 116 * 52 * 6);
  EXPECT_EQ(one.stored, 116 * 52);
  EXPECT_EQ(one.loaded, 116 * 52);
  EXPECT_EQ(one.computed, one.useful);  // nothing outside the field is computed
  EXPECT_DOUBLE_EQ(one.computed_per_useful(), 1.0);
  // Two tiles side by side: at step s each computes 6 - s columns of the other's output region.
  const TemporalCost two = temporal_cost(t, 232, 52);
  int64_t extra = 0;
  for (int s = 1; s <= 6; ++s)
    extra += 2 * (6 - s) * 52;  // tile 0 reaches 6 - s cells past column 116, tile 1 as far before it
  EXPECT_EQ(two.computed, 232 * 52 * 6 + extra);
  EXPECT_EQ(two.loaded, (232 + 2 * 6) * 52);
  // Far from the edges (8192^2) the interior formula holds within the edge tiles' share.
  const TemporalCost big = temporal_cost(t, 8192, 8192);
  double inner = 0;
  for (int s = 1; s <= 6; ++s)
    inner += double(128 - 2 * s) * (64 - 2 * s);
  inner /= 6.0 * 116 * 52;
  EXPECT_NEAR(big.computed_per_useful(), inner, 0.02);
  EXPECT_GT(big.computed_per_useful(), 1.0);
  // DRAM per useful update: about (128 * 64 / (116 * 52) + 1) * 4 / 6 bytes, against 8 for one step.
  EXPECT_NEAR(big.bytes_per_update(), (128.0 * 64 / (116 * 52) + 1) * 4 / 6, 0.05);
  EXPECT_LT(big.bytes_per_update(), 2.0);
  // One step per pass is the one-step kernel's traffic plus the 1-cell halo.
  EXPECT_NEAR(temporal_cost({{128, 4, 16}, 1}, 8192, 8192).bytes_per_update(), 8.0, 0.3);
}

// The tiling emulated on the CPU equals single steps bit for bit: every tile, every step region, both
// boundary rules, fields smaller than a tile and sizes no tile divides.
TEST(HeatTemporal, CpuFusedPassEqualsSingleStepsBitForBit) {
  const TileShape shapes[] = {{128, 4, 16}, {32, 2, 8}, {20, 3, 8}};
  for (Boundary b : {Boundary::Fixed, Boundary::Insulated})
    for (auto [nx, ny] : {std::pair<int64_t, int64_t>{333, 257}, {97, 61}, {5, 3}, {1, 40}})
      for (const TileShape& shape : shapes)
        for (int steps : {1, 2, 3, 5, 8}) {
          const TemporalTile t{shape, steps};
          if (validate_tile(t, k_any, k_h100_shared)) continue;
          const Params p = field(nx, ny, b);
          const auto init = make_initial(p, InitialPattern::Noise, 7);
          auto ref = init;
          run_cpu(ref, p, steps, CpuMode::OneThread);
          std::vector<float> fused(init.size(), -99.0f);
          fused_pass_cpu(init.data(), fused.data(), p, t);
          ASSERT_TRUE(same_bits(fused, ref))
              << nx << "x" << ny << ", " << to_string(shape) << ", " << steps << " steps, boundary "
              << k_boundary_names.name_of(b) << ": first difference at cell " << first_difference(fused, ref);
        }
}

// --- GPU -------------------------------------------------------------------------------------------------

// The fused kernel after 200 steps (whole passes and a shorter last one) equals 200 one-step launches bit for
// bit: the same update function, the same operands in the same order, so the same roundings (contractions
// included).
TEST(HeatTemporalGpu, FusedEqualsOneStepBitForBitAfter200Steps) {
  BS_REQUIRE_GPU();
  const TileShape shapes[] = {k_default_tile, {128, 8, 8}, {64, 4, 16}, {96, 3, 8}};
  for (Boundary b : {Boundary::Fixed, Boundary::Insulated})
    for (auto [nx, ny] : {std::pair<int64_t, int64_t>{333, 257}, {1000, 999}, {70, 33}}) {
      const Params p = field(nx, ny, b);
      const auto init = make_initial(p, InitialPattern::Noise, 3);
      GpuSolver one(p);
      one.upload(init);
      one.step(200);
      const auto ref = one.download();
      for (const TileShape& shape : shapes)
        for (int steps : {2, 3, 4, 6, 7, 8}) {
          GpuSolver s(p);
          s.set_fused_steps(steps, shape);
          ASSERT_TRUE(s.fused_active());
          ASSERT_TRUE(s.coverage().full());
          s.upload(init);
          s.step(200);
          const auto got = s.download();
          EXPECT_TRUE(same_bits(got, ref))
              << nx << "x" << ny << ", " << to_string(shape) << ", " << steps << " steps/pass, boundary "
              << k_boundary_names.name_of(b) << ": first difference at cell " << first_difference(got, ref)
              << ", max |diff| " << test::max_abs_diff(got, ref);
        }
    }
}

// Against the CPU reference too (the standard every variant meets), and batches of uneven length.
TEST(HeatTemporalGpu, FusedMatchesCpuAndAnyBatching) {
  BS_REQUIRE_GPU();
  const Params p = field(1000, 777, Boundary::Insulated);
  const auto init = make_initial(p, InitialPattern::HotSpots);
  auto ref = init;
  run_cpu(ref, p, 100, CpuMode::AllThreads);
  GpuSolver s(p);
  s.set_fused_steps(6);
  s.upload(init);
  for (int n : {1, 5, 13, 40, 41})  // 100 steps in batches that are not multiples of 6
    s.step(n);
  const auto got = s.download();
  // Same formula; the GPU may fuse multiply-adds (one rounding instead of two): differences stay ~1e-7.
  EXPECT_LE(test::max_abs_diff(got, ref), 1e-5);
  EXPECT_NEAR(total_heat(got), total_heat(init), 1e-3 * p.cells());
}

// Small enough for compute-sanitizer (memcheck, racecheck): edge and interior tiles, both boundaries, both
// rows-per-thread kernels, a shorter last pass.
TEST(HeatTemporalGpu, SmallFieldForSanitizers) {
  BS_REQUIRE_GPU();
  for (Boundary b : {Boundary::Fixed, Boundary::Insulated})
    for (const TileShape& shape : {TileShape{32, 4, 8}, TileShape{32, 2, 16}}) {
      const Params p = field(100, 90, b);
      const auto init = make_initial(p, InitialPattern::Noise, 5);
      GpuSolver one(p), fused(p);
      one.upload(init);
      one.step(11);
      fused.set_fused_steps(4, shape);
      fused.upload(init);
      fused.step(11);
      EXPECT_TRUE(same_bits(fused.download(), one.download())) << to_string(shape);
    }
}

TEST(HeatTemporalGpu, SettingsAndRejections) {
  BS_REQUIRE_GPU();
  const Params p = field(300, 200, Boundary::Fixed);
  GpuSolver s(p);
  EXPECT_EQ(s.fused_steps(), 1);
  EXPECT_FALSE(s.fused_active());
  EXPECT_THROW(s.set_fused_steps(9), InvalidRequest);
  EXPECT_THROW(s.set_fused_steps(4, {128, 4, 12}), InvalidRequest);
  EXPECT_THROW(s.set_fused_steps(4, {256, 8, 16}), InvalidRequest);  // 2048 threads
  EXPECT_EQ(s.fused_steps(), 1);                                     // a rejected setting changes nothing
  s.set_fused_steps(5, {64, 4, 8});
  EXPECT_EQ(s.fused_steps(), 5);
  EXPECT_EQ(s.tile_shape(), (TileShape{64, 4, 8}));
  // A hand-set grid that covers too little waits while passes are fused: every cell is computed.
  s.set_launch({32, 8}, Dim2{2, 2}, 1);
  EXPECT_TRUE(s.coverage().full());
  s.set_fused_steps(1);
  EXPECT_FALSE(s.coverage().full());
}

}  // namespace bs::heat
