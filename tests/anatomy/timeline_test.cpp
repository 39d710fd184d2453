// timeline_test.cpp: what the host derives from a block record, on the CPU: per-cell colour maps (at a field
// size that is not a multiple of the block), the per-SM timeline, wave counts, CSV and SVG.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "gpu/anatomy/anatomy.h"
#include "core/error.h"

namespace bs::anatomy {
namespace {

// The GPU's view, written independently of cell_values: every thread of every block of the grid computes cell
// (blockIdx * blockDim + threadIdx) when that lies inside the field.
std::vector<float> expected_by_threads(CellMode mode, int64_t nx, int64_t ny, Dim2 block, Dim2 grid) {
  std::vector<float> out(static_cast<size_t>(nx * ny), std::nanf(""));
  for (int64_t by = 0; by < grid.y; ++by)
    for (int64_t bx = 0; bx < grid.x; ++bx)
      for (int64_t ty = 0; ty < block.y; ++ty)
        for (int64_t tx = 0; tx < block.x; ++tx) {
          const int64_t x = bx * block.x + tx, y = by * block.y + ty;
          if (x >= nx || y >= ny) continue;
          const int64_t linear_thread = ty * block.x + tx;
          float v = 0;
          if (mode == CellMode::BlockLinear) v = static_cast<float>(by * grid.x + bx);
          if (mode == CellMode::ThreadLinear) v = static_cast<float>(linear_thread);
          if (mode == CellMode::WarpInBlock) v = static_cast<float>(linear_thread / 32);
          out[static_cast<size_t>(y * nx + x)] = v;
        }
  return out;
}

void expect_same(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " cell " << i;
    } else {
      EXPECT_EQ(got[i], want[i]) << what << " cell " << i;  // small integers: exact in float
    }
  }
}

TEST(CellValues, ArithmeticModesMatchTheThreadView_NonMultipleSize) {
  // 37x21 with 16x8 blocks: a 3x3 covering grid whose last column and row of blocks hang over the edge.
  const int64_t nx = 37, ny = 21;
  const Dim2 block{16, 8};
  const Dim2 grid = covering_grid(block, {nx, ny});
  ASSERT_EQ(grid, (Dim2{3, 3}));
  for (CellMode m : {CellMode::BlockLinear, CellMode::ThreadLinear, CellMode::WarpInBlock})
    expect_same(cell_values(m, nx, ny, block, grid), expected_by_threads(m, nx, ny, block, grid),
                cell_mode_label(m));
  // One cell by hand: (36, 20) lies in block (2, 2) = 8, thread (4, 4) = 4*16 + 4 = 68, warp 68/32 = 2.
  const size_t c = 20 * 37 + 36;
  EXPECT_EQ(cell_values(CellMode::BlockLinear, nx, ny, block, grid)[c], 8.f);
  EXPECT_EQ(cell_values(CellMode::ThreadLinear, nx, ny, block, grid)[c], 68.f);
  EXPECT_EQ(cell_values(CellMode::WarpInBlock, nx, ny, block, grid)[c], 2.f);
}

TEST(CellValues, OddBlockShapesSplitWarpsAcrossRows) {
  // Block 24x5 = 120 threads: warp 0 holds row 0 and 8 threads of row 1; 100x13 is a multiple of neither.
  const int64_t nx = 100, ny = 13;
  const Dim2 block{24, 5};
  const Dim2 grid = covering_grid(block, {nx, ny});
  for (CellMode m : {CellMode::BlockLinear, CellMode::ThreadLinear, CellMode::WarpInBlock})
    expect_same(cell_values(m, nx, ny, block, grid), expected_by_threads(m, nx, ny, block, grid),
                cell_mode_label(m));
  const auto warp = cell_values(CellMode::WarpInBlock, nx, ny, block, grid);
  EXPECT_EQ(warp[1 * nx + 7], 0.f);  // thread 1*24 + 7 = 31
  EXPECT_EQ(warp[1 * nx + 8], 1.f);  // thread 32
}

TEST(CellValues, CellsOutsideASmallGridAreNaN) {
  // A 2x1 grid of 16x8 blocks covers only 32x8 of a 37x21 field.
  const auto v = cell_values(CellMode::BlockLinear, 37, 21, {16, 8}, {2, 1});
  expect_same(v, expected_by_threads(CellMode::BlockLinear, 37, 21, {16, 8}, {2, 1}), "small grid");
  EXPECT_TRUE(std::isnan(v[0 * 37 + 32]));
  EXPECT_TRUE(std::isnan(v[8 * 37 + 0]));
  EXPECT_EQ(v[7 * 37 + 31], 1.f);
}

std::vector<BlockRecord> synthetic_record(Dim2 grid) {
  // Block (x, y) ran on SM (x + y) % 3 from 1000 + 10*linear to 1000 + 10*linear + 5 + y ns.
  std::vector<BlockRecord> rec;
  for (int64_t y = grid.y - 1; y >= 0; --y)  // any order: the record is in completion order on the GPU
    for (int64_t x = 0; x < grid.x; ++x) {
      BlockRecord r;
      r.block_x = static_cast<uint32_t>(x);
      r.block_y = static_cast<uint32_t>(y);
      r.sm = static_cast<uint32_t>((x + y) % 3);
      r.start_ns = 1000 + 10 * static_cast<uint64_t>(y * grid.x + x);
      r.end_ns = r.start_ns + 5 + static_cast<uint64_t>(y);
      rec.push_back(r);
    }
  return rec;
}

TEST(CellValues, SmAndRunTimeModesReadTheRecord) {
  const int64_t nx = 37, ny = 21;
  const Dim2 block{16, 8}, grid{3, 3};
  const auto rec = synthetic_record(grid);
  const auto sm = cell_values(CellMode::SmId, nx, ny, block, grid, rec);
  const auto rt = cell_values(CellMode::BlockRunTime, nx, ny, block, grid, rec);
  for (int64_t y = 0; y < ny; ++y)
    for (int64_t x = 0; x < nx; ++x) {
      const int64_t bx = x / 16, by = y / 8;
      EXPECT_EQ(sm[static_cast<size_t>(y * nx + x)], static_cast<float>((bx + by) % 3));
      EXPECT_EQ(rt[static_cast<size_t>(y * nx + x)], static_cast<float>(5 + by));
    }
}

TEST(CellValues, RejectsMissingOrInconsistentRecords) {
  const Dim2 block{16, 8}, grid{3, 3};
  EXPECT_THROW(cell_values(CellMode::SmId, 37, 21, block, grid), InvalidRequest);
  auto rec = synthetic_record(grid);
  rec.pop_back();
  EXPECT_THROW(cell_values(CellMode::SmId, 37, 21, block, grid, rec), InvalidRequest);
  rec.push_back(rec.front());  // a block twice
  EXPECT_THROW(cell_values(CellMode::BlockRunTime, 37, 21, block, grid, rec), InvalidRequest);
  EXPECT_THROW(cell_values(CellMode::BlockLinear, 0, 21, block, grid), InvalidRequest);
  EXPECT_THROW(cell_values(CellMode::BlockLinear, 37, 21, {0, 8}, grid), InvalidRequest);
}

TEST(Waves, PredictedIsCeilOfBlocksOverSlots) {
  EXPECT_EQ(predicted_waves(4096, 132, 8), 4);  // 4096 / 1056 = 3.88
  EXPECT_EQ(predicted_waves(1056, 132, 8), 1);
  EXPECT_EQ(predicted_waves(1057, 132, 8), 2);
  EXPECT_EQ(predicted_waves(0, 132, 8), 0);
}

TEST(Timeline, GroupsBlocksPerSmSortedAndCountsWaves) {
  // 20 blocks on 4 SMs with 2 resident each: predicted ceil(20 / 8) = 3 waves. SM 0 and 1 run 6 blocks, SM 2
  // runs 8, SM 3 none: observed = ceil(8 / 2) = 4, one idle SM.
  std::vector<BlockRecord> rec;
  const uint32_t sms[20] = {0, 1, 2, 0, 1, 2, 0, 1, 2, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 2};
  for (uint32_t i = 0; i < 20; ++i) {
    BlockRecord r;
    r.block_x = i % 5;
    r.block_y = i / 5;
    r.sm = sms[i];
    r.start_ns = 5000 + 100 * (19 - i);  // reverse order, to test the sort
    r.end_ns = r.start_ns + 50;
    rec.push_back(r);
  }
  const Timeline t = build_timeline(rec, 4, 2);
  EXPECT_EQ(t.block_count, 20);
  EXPECT_EQ(t.predicted_waves, 3);
  EXPECT_EQ(t.observed_waves, 4);
  EXPECT_EQ(t.idle_sms, 1);
  EXPECT_EQ(t.min_blocks_on_sm, 0);
  EXPECT_EQ(t.max_blocks_on_sm, 8);
  ASSERT_EQ(t.lanes.size(), 4u);
  EXPECT_EQ(t.lanes[2].blocks.size(), 8u);
  EXPECT_EQ(t.t0_ns, 5000u);
  EXPECT_EQ(t.span_ns, 1950);
  EXPECT_EQ(t.median_block_ns, 50);
  EXPECT_EQ(t.timer_tick_ns, 50);
  size_t total = 0;
  for (const auto& lane : t.lanes) {
    total += lane.blocks.size();
    for (size_t k = 0; k < lane.blocks.size(); ++k) {
      EXPECT_EQ(lane.blocks[k].wave, static_cast<int>(k / 2));
      EXPECT_LE(lane.blocks[k].start_ns, lane.blocks[k].end_ns);
      if (k > 0) {
        EXPECT_LE(lane.blocks[k - 1].start_ns, lane.blocks[k].start_ns);
      }
    }
  }
  EXPECT_EQ(total, 20u);
  EXPECT_THROW(build_timeline(rec, 4, 0), InvalidRequest);
}

TEST(Timeline, SmIdsBeyondTheSmCountGetTheirOwnLanes) {
  BlockRecord r;
  r.sm = 7;
  r.start_ns = 10;
  r.end_ns = 20;
  const Timeline t = build_timeline(std::vector<BlockRecord>{r}, 4, 1);
  EXPECT_EQ(t.lanes.size(), 8u);
  EXPECT_EQ(t.idle_sms, 4);  // SMs 0..3 exist and ran nothing
  EXPECT_EQ(t.observed_waves, 1);
}

TEST(BlocksCsv, HeaderAndRowsInBlockOrderWithRelativeTimes) {
  const auto rec = synthetic_record({3, 2});
  const std::string csv = blocks_csv(rec);
  const std::string want =
      "block_x,block_y,sm,start_ns,end_ns\n"
      "0,0,0,0,5\n"
      "1,0,1,10,15\n"
      "2,0,2,20,25\n"
      "0,1,1,30,36\n"
      "1,1,2,40,46\n"
      "2,1,0,50,56\n";
  EXPECT_EQ(csv, want);
}

TEST(TimelineSvg, OneRectPerBlockAndOneLabelledRowPerSm) {
  const auto rec = synthetic_record({4, 3});
  const Timeline t = build_timeline(rec, 3, 2);
  const std::string svg = timeline_svg(t, "test <&>");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("test &lt;&amp;&gt;"), std::string::npos);
  size_t titles = 0;
  for (size_t p = svg.find("<title>block ("); p != std::string::npos; p = svg.find("<title>block (", p + 1))
    ++titles;
  EXPECT_EQ(titles, 12u);
  for (const char* label : {">SM 0<", ">SM 1<", ">SM 2<"})
    EXPECT_NE(svg.find(label), std::string::npos) << label;
}

}  // namespace
}  // namespace bs::anatomy
