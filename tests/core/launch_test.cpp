// launch_test.cpp: launch-configuration arithmetic and the messages students see.
#include <gtest/gtest.h>

#include "core/launch.h"

namespace bs {

TEST(Launch, CoveringGridUsesCeilDivision) {
  EXPECT_EQ(covering_grid({32, 8}, {1000, 777}), (Dim2{32, 98}));
  EXPECT_EQ(covering_grid({16, 16}, {16, 16}), (Dim2{1, 1}));
  EXPECT_EQ(covering_grid({16, 16}, {0, 10}), (Dim2{0, 0}));
}

TEST(Launch, FloorDivisionGridLeavesCellsUncovered) {
  const Dim2 block{32, 8}, domain{1000, 777};
  const Dim2 floor_grid{1000 / 32, 777 / 8};  // the tutorials' mistake
  const Coverage c = coverage_of(floor_grid, block, domain);
  EXPECT_EQ(c.covered_x, 992);
  EXPECT_EQ(c.covered_y, 776);
  EXPECT_EQ(c.uncovered_cells, 1000 * 777 - 992 * 776);
  EXPECT_FALSE(c.full());
  EXPECT_TRUE(coverage_of(covering_grid(block, domain), block, domain).full());
}

TEST(Launch, BlockOf2048ThreadsExplainsTheRule) {
  const auto err = validate_block({2048, 1}, DeviceLimits{});
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("x*y = 2048*1 = 2048 > 1024 threads per block"), std::string::npos) << *err;
  const auto err2 = validate_block({64, 32}, DeviceLimits{});
  ASSERT_TRUE(err2);
  EXPECT_NE(err2->find("2048 > 1024"), std::string::npos) << *err2;
}

TEST(Launch, BlockLimitsPerDimensionAndEmpty) {
  EXPECT_TRUE(validate_block({0, 8}, DeviceLimits{}));
  EXPECT_TRUE(validate_block({-1, 8}, DeviceLimits{}));
  EXPECT_TRUE(validate_block({1, 65}, DeviceLimits{.max_block_y = 64}));
  EXPECT_FALSE(validate_block({32, 32}, DeviceLimits{}));
  EXPECT_FALSE(validate_block({1024, 1}, DeviceLimits{}));
}

TEST(Launch, GridLimits) {
  EXPECT_TRUE(validate_grid({0, 1}, DeviceLimits{}));
  EXPECT_TRUE(validate_grid({1, 70000}, DeviceLimits{}));
  EXPECT_FALSE(validate_grid({100000, 65535}, DeviceLimits{}));
}

TEST(Launch, AdviceWhenNotAWarpMultiple) {
  const auto adv = block_advice({7, 13}, DeviceLimits{});
  ASSERT_TRUE(adv);
  EXPECT_NE(adv->find("91 threads"), std::string::npos);
  EXPECT_NE(adv->find("3 warps"), std::string::npos);
  EXPECT_FALSE(block_advice({32, 8}, DeviceLimits{}));
  // 31 threads: one warp, one idle lane, in the singular.
  const auto one = block_advice({31, 1}, DeviceLimits{});
  ASSERT_TRUE(one);
  EXPECT_NE(one->find("1 warp run, 1 lane idle"), std::string::npos) << *one;
}

TEST(Launch, ParseDim2) {
  EXPECT_EQ(*parse_dim2("32x8", "--block").value, (Dim2{32, 8}));
  EXPECT_EQ(*parse_dim2("256", "--block").value, (Dim2{256, 1}));
  EXPECT_EQ(*parse_size2("1000", "--size").value, (Dim2{1000, 1000}));
  EXPECT_EQ(*parse_size2("1000x777", "--size").value, (Dim2{1000, 777}));
  for (const char* bad : {"", "x", "32x", "abc", "3.5x2", "32x8x2", "1e3"}) {
    const ParsedDim2 p = parse_dim2(bad, "--block");
    EXPECT_FALSE(p.value) << bad;
    EXPECT_NE(p.error.find("--block"), std::string::npos) << p.error;
  }
}

}  // namespace bs
