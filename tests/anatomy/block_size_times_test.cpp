// block_size_times_test.cpp: the measured kernel times the occupancy curve shows (GPU): one positive time per
// block size, in order, for the heat stencil and the matmul tile kernels; and a cancelled job stops. The
// sweep's loop the targets share (time_block_sizes) runs anywhere: order, progress, cancel.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "app/anatomy/anatomy_target.h"
#include "app/heat/heat_anatomy.h"
#include "app/matmul/matmul_anatomy.h"
#include "core/cpu_job.h"
#include "test_util.h"

namespace bs {
namespace {

TEST(BlockSizeTimes, TheSweepTimesEachSizeInOrderWithProgress) {
  JobControl ctl;
  std::vector<double> progress_seen;
  const std::vector<int> threads = {96, 32, 1000};
  const BlockSizeTimes r = time_block_sizes(ctl, "a label", threads, [&](size_t i) {
    progress_seen.push_back(ctl.progress());
    return 0.5 * static_cast<double>(threads[i]);
  });
  EXPECT_EQ(r.label, "a label");
  EXPECT_EQ(r.threads, (std::vector<double>{96, 32, 1000}));
  EXPECT_EQ(r.ms, (std::vector<double>{48, 16, 500}));
  EXPECT_EQ(progress_seen, (std::vector<double>{0.0, 1.0 / 3, 2.0 / 3}));
  EXPECT_EQ(ctl.progress(), 1.0);
}

TEST(BlockSizeTimes, TheSweepStopsBeforeTheNextSizeWhenCancelled) {
  JobControl ctl;
  int timed = 0;
  EXPECT_THROW(time_block_sizes(ctl, "", {32, 64, 128},
                                [&](size_t) {
                                  ++timed;
                                  ctl.cancel();
                                  return 1.0;
                                }),
               JobCancelled);
  EXPECT_EQ(timed, 1);
}

TEST(AnatomyGpu, BlockSizeTimesForTheHeatStencil) {
  BS_REQUIRE_GPU();
  HeatAnatomyTarget t;
  t.params.nx = 1000;  // not a multiple of any block shape
  t.params.ny = 777;
  t.cells_per_thread = 4;
  JobControl ctl;
  const BlockSizeTimes r = t.measure_block_sizes(ctl);
  ASSERT_EQ(r.threads.size(), 17u);  // 32, then 64 .. 1024 in steps of 64
  ASSERT_EQ(r.ms.size(), r.threads.size());
  EXPECT_EQ(r.threads.front(), 32);
  EXPECT_EQ(r.threads.back(), 1024);
  EXPECT_TRUE(std::is_sorted(r.threads.begin(), r.threads.end()));
  for (size_t i = 0; i < r.ms.size(); ++i) {
    EXPECT_GT(r.ms[i], 0.0) << r.threads[i] << " threads";
    EXPECT_LT(r.ms[i], 100.0) << r.threads[i] << " threads";  // a 1000x777 step is microseconds
  }
  for (size_t i = 0; i < r.ms.size(); ++i)
    std::printf("[ info ] heat 1000x777, 4 cells/thread, %4.0f threads: %.4f ms/step\n", r.threads[i],
                r.ms[i]);
}

TEST(AnatomyGpu, BlockSizeTimesForTheMatmulTiles) {
  BS_REQUIRE_GPU();
  MatmulAnatomyTarget t;
  t.problem = {333, 257, 129};
  t.variant = matmul::Variant::SmemTile32;
  JobControl ctl;
  const BlockSizeTimes r = t.measure_block_sizes(ctl);
  ASSERT_EQ(r.threads, (std::vector<double>{64, 256, 1024}));
  for (double ms : r.ms)
    EXPECT_GT(ms, 0.0);
}

TEST(AnatomyGpu, BlockSizeTimesStopWhenCancelled) {
  BS_REQUIRE_GPU();
  HeatAnatomyTarget t;
  t.params.nx = t.params.ny = 256;
  JobControl ctl;
  ctl.cancel();
  EXPECT_THROW(t.measure_block_sizes(ctl), JobCancelled);
}

}  // namespace
}  // namespace bs
