// overlay_test.cpp: the field overlays' mapping cell -> blockIdx / threadIdx / warp on the CPU (block shapes
// that do not divide the field, cells_per_thread 1 and 4, the matmul variants' tiles), and the overlay image
// (categorical period, uncovered cells, SM / time modes that need a record).
#include <gtest/gtest.h>

#include <cmath>

#include "app/heat/heat_anatomy.h"
#include "app/matmul/matmul_anatomy.h"
#include "gpu/anatomy/overlay.h"
#include "gpu/heat/heat.h"
#include "gpu/matmul/matmul.h"

namespace bs::anatomy {
namespace {

std::array<uint32_t, 256> grey_ramp() {
  std::array<uint32_t, 256> r{};
  for (uint32_t i = 0; i < 256; ++i)
    r[i] = 0xff000000u | (i << 16) | (i << 8) | i;
  return r;
}

// Brute force: which thread of the heat kernel writes cell (x, y)? Walk every thread of the launch exactly as
// gpu/heat's step_kernel indexes: x = bx*bdx + tx, y0 = (by*bdy + ty) * C, cells y0 .. y0 + C - 1.
struct Owner {
  int64_t bx = -1, by = -1, tx = -1, ty = -1;
};
std::vector<Owner> heat_owners_brute(int64_t nx, int64_t ny, Dim2 block, Dim2 grid, int c) {
  std::vector<Owner> o(static_cast<size_t>(nx * ny));
  for (int64_t by = 0; by < grid.y; ++by)
    for (int64_t bx = 0; bx < grid.x; ++bx)
      for (int64_t ty = 0; ty < block.y; ++ty)
        for (int64_t tx = 0; tx < block.x; ++tx) {
          const int64_t x = bx * block.x + tx, y0 = (by * block.y + ty) * c;
          for (int k = 0; k < c; ++k) {
            const int64_t y = y0 + k;
            if (x < nx && y < ny) {
              Owner& w = o[static_cast<size_t>(y * nx + x)];
              EXPECT_EQ(w.bx, -1) << "cell written twice";
              w = {bx, by, tx, ty};
            }
          }
        }
  return o;
}

void expect_heat_mapping_matches(int64_t nx, int64_t ny, Dim2 block, int c) {
  const Dim2 grid = covering_grid(heat::cells_of(block, c), {nx, ny});
  const CellMapping m = heat_mapping(block, grid, c);
  const std::vector<Owner> brute = heat_owners_brute(nx, ny, block, grid, c);
  for (int64_t y = 0; y < ny; ++y)
    for (int64_t x = 0; x < nx; ++x) {
      const CellOwner o = cell_owner(m, x, y);
      const Owner& b = brute[static_cast<size_t>(y * nx + x)];
      ASSERT_TRUE(o.covered) << x << "," << y;
      ASSERT_EQ(o.bx, b.bx) << x << "," << y;
      ASSERT_EQ(o.by, b.by) << x << "," << y;
      ASSERT_EQ(o.tx, b.tx) << x << "," << y;
      ASSERT_EQ(o.ty, b.ty) << x << "," << y;
      ASSERT_EQ(o.block_linear, b.by * grid.x + b.bx);
      ASSERT_EQ(o.thread_linear, b.ty * block.x + b.tx);
      ASSERT_EQ(o.warp, (b.ty * block.x + b.tx) / 32);
    }
}

TEST(OverlayMapping, HeatOneCellPerThreadRaggedEdges) {
  expect_heat_mapping_matches(100, 37, {48, 4}, 1);  // 100 = 2*48 + 4, 37 = 9*4 + 1
  expect_heat_mapping_matches(33, 70, {16, 16}, 1);
}

TEST(OverlayMapping, HeatFourCellsPerThreadRaggedEdges) {
  // A block covers 48 x 16 cells; a thread 4 consecutive rows of one column.
  expect_heat_mapping_matches(100, 37, {48, 4}, 4);
  expect_heat_mapping_matches(65, 131, {32, 2}, 4);
  const CellMapping m = heat_mapping({48, 4}, {3, 3}, 4);
  EXPECT_EQ(m.tile, (Dim2{48, 16}));
  const CellOwner o = cell_owner(m, 50, 21);  // block (1, 1): local (2, 5) -> thread row 5 / 4 = 1
  EXPECT_EQ(o.bx, 1);
  EXPECT_EQ(o.by, 1);
  EXPECT_EQ(o.tx, 2);
  EXPECT_EQ(o.ty, 1);
  EXPECT_EQ(o.thread_linear, 1 * 48 + 2);
  EXPECT_EQ(o.warp, 50 / 32);
}

TEST(OverlayMapping, ManualGridLeavesCellsUncovered) {
  const CellMapping m = heat_mapping({32, 8}, {2, 2}, 1);  // covers 64 x 16
  EXPECT_TRUE(cell_owner(m, 63, 15).covered);
  EXPECT_FALSE(cell_owner(m, 64, 0).covered);
  EXPECT_FALSE(cell_owner(m, 0, 16).covered);
}

TEST(OverlayMapping, MatmulNaiveCoalescedAndUncoalesced) {
  const matmul::Problem p{100, 70, 9};  // C is 100 rows x 70 columns
  const auto co = matmul_mapping(matmul::Variant::NaiveCoalesced, p);
  ASSERT_TRUE(co);
  // x = column: cell (col 40, row 65) -> blockIdx (1, 2), threadIdx (8, 1).
  CellOwner o = cell_owner(*co, 40, 65);
  EXPECT_EQ(o.bx, 1);
  EXPECT_EQ(o.by, 2);
  EXPECT_EQ(o.tx, 8);
  EXPECT_EQ(o.ty, 1);
  const auto un = matmul_mapping(matmul::Variant::NaiveUncoalesced, p);
  ASSERT_TRUE(un);
  EXPECT_TRUE(un->swap_xy);
  // x = row: the same cell -> blockIdx (row / 32, col / 32) = (2, 1), threadIdx (row % 32, col % 32) = (1,
  // 8).
  o = cell_owner(*un, 40, 65);
  EXPECT_EQ(o.bx, 2);
  EXPECT_EQ(o.by, 1);
  EXPECT_EQ(o.tx, 1);
  EXPECT_EQ(o.ty, 8);
  EXPECT_EQ(o.block_linear, 1 * un->grid.x + 2);
  // Every cell covered by the launch shape.
  for (int64_t r = 0; r < p.m; ++r)
    for (int64_t c = 0; c < p.n; ++c)
      ASSERT_TRUE(cell_owner(*un, c, r).covered);
}

TEST(OverlayMapping, MatmulTilesMatchLaunchShape) {
  const matmul::Problem p{1000, 777, 33};
  for (const auto& vi : matmul::gpu_variants()) {
    const auto m = matmul_mapping(vi.id, p);
    if (vi.id == matmul::Variant::Cublas) {
      EXPECT_FALSE(m);
      continue;
    }
    ASSERT_TRUE(m) << vi.name;
    const matmul::TileGeometry g = matmul::tile_geometry(vi.id, p);
    // The last cell of C belongs to the last block; blockIdx.x walks columns in tiles of bn (except naive
    // uncoalesced, whose x walks rows).
    const CellOwner last = cell_owner(*m, p.n - 1, p.m - 1);
    ASSERT_TRUE(last.covered) << vi.name;
    EXPECT_EQ(last.block_linear, m->grid.count() - 1) << vi.name;
    const CellOwner o = cell_owner(*m, g.bn, 0);
    if (vi.id == matmul::Variant::NaiveUncoalesced) {
      EXPECT_EQ(o.by, 1) << vi.name;
    } else {
      EXPECT_EQ(o.bx, 1) << vi.name;
      EXPECT_EQ(o.by, 0) << vi.name;
    }
  }
}

// auto on a matrix-vector shape: its blocks cover C (one block column of 32 columns per block), and the
// reason no thread is drawn names the split of K over threads.
TEST(OverlayMapping, MatmulAutoSkinnyBlocks) {
  const matmul::Problem p{3, 1000, 4096};
  const auto m = matmul_mapping(matmul::Variant::Auto, p);
  ASSERT_TRUE(m);
  const CellOwner last = cell_owner(*m, p.n - 1, p.m - 1);
  ASSERT_TRUE(last.covered);
  EXPECT_EQ(last.block_linear, m->grid.count() - 1);
  EXPECT_EQ(cell_owner(*m, 32, 0).bx, 1);
  EXPECT_FALSE(m->threads_known);
  EXPECT_NE(m->why_threads_unknown.find("split over 32 threads"), std::string::npos) << m->why_threads_unknown;
}

TEST(OverlayMapping, MatmulRegisterBlockedThreads) {
  const matmul::Problem p{256, 256, 16};
  // 1D register blocking (64x64 tile, TM 8): thread t owns column t % 64 and rows (t / 64) * 8 ...
  const auto r1 = matmul_mapping(matmul::Variant::RegBlock1D, p);
  ASSERT_TRUE(r1 && r1->threads_known);
  CellOwner o = cell_owner(*r1, 64 + 5, 64 + 19);  // block (1, 1), local col 5, row 19 -> thread 2*64 + 5
  EXPECT_EQ(o.tx, 2 * 64 + 5);
  EXPECT_EQ(o.ty, 0);
  EXPECT_EQ(o.warp, (2 * 64 + 5) / 32);
  // 2D (128x128 tile, 8x8 micro-tiles): thread t owns rows 8*(t / 16), columns 8*(t % 16).
  const auto r2 = matmul_mapping(matmul::Variant::RegBlock2D, p);
  ASSERT_TRUE(r2 && r2->threads_known);
  o = cell_owner(*r2, 8 * 3 + 7, 8 * 5 + 2);
  EXPECT_EQ(o.thread_linear, 5 * 16 + 3);
  // Warp-tiled variants: threads own strided pieces; only blockIdx is drawn.
  const auto wt = matmul_mapping(matmul::Variant::WarpTile, p);
  ASSERT_TRUE(wt);
  EXPECT_FALSE(wt->threads_known);
  EXPECT_FALSE(wt->why_threads_unknown.empty());
}

TEST(OverlayImage, BlockIdxPeriodAvoidsVerticalRepeats) {
  EXPECT_EQ(categorical_period(7), 12);
  EXPECT_EQ(categorical_period(24), 11);
  // 24 blocks across: with mod 12 the block below would repeat the colour; mod 11 it does not.
  const CellMapping m = heat_mapping({4, 4}, {24, 3}, 1);
  const OverlayImage img = make_overlay(OverlayMode::BlockIdx, m, 96, 12, {}, grey_ramp());
  ASSERT_EQ(img.w, 96);
  ASSERT_EQ(img.h, 12);
  EXPECT_EQ(img.period, 11);
  EXPECT_NE(img.legend.find("mod 11"), std::string::npos);
  for (int y = 0; y + 4 < 12; ++y)
    for (int x = 0; x < 96; ++x)
      ASSERT_NE(img.rgba[static_cast<size_t>(y * 96 + x)], img.rgba[static_cast<size_t>((y + 4) * 96 + x)]);
}

TEST(OverlayImage, UncoveredCellsTransparentAndSampling) {
  const CellMapping m = heat_mapping({32, 8}, {1, 1}, 1);
  const OverlayImage img = make_overlay(OverlayMode::ThreadIdx, m, 40, 10, {}, grey_ramp());
  EXPECT_EQ(img.rgba[static_cast<size_t>(0)] >> 24, 0xffu);
  EXPECT_EQ(img.rgba[static_cast<size_t>(35)], 0u);      // column 35: no block
  EXPECT_EQ(img.rgba[static_cast<size_t>(9 * 40)], 0u);  // row 9: no block
  // A field larger than the texture limit is sampled and says so.
  const CellMapping big = heat_mapping({32, 8}, {128, 512}, 1);
  const OverlayImage s = make_overlay(OverlayMode::BlockIdx, big, 4096, 4096, {}, grey_ramp(), 1024, 1024);
  EXPECT_EQ(s.w, 1024);
  EXPECT_NE(s.legend.find("sampled"), std::string::npos);
}

TEST(OverlayImage, SmAndTimeNeedARecord) {
  const CellMapping m = heat_mapping({16, 16}, {2, 2}, 1);
  OverlayImage img = make_overlay(OverlayMode::Sm, m, 32, 32, {}, grey_ramp());
  EXPECT_TRUE(img.rgba.empty());
  EXPECT_NE(img.error.find("needs a GPU"), std::string::npos);
  std::vector<BlockRecord> rec = {
      {0, 0, 3, 0, 1000, 3000}, {1, 0, 5, 0, 1000, 2000}, {0, 1, 3, 0, 3000, 7000}, {1, 1, 5, 0, 2000, 3000}};
  img = make_overlay(OverlayMode::BlockTime, m, 32, 32, rec, grey_ramp());
  ASSERT_EQ(img.rgba.size(), 32u * 32u);
  EXPECT_DOUBLE_EQ(img.lo_us, 1.0);
  EXPECT_DOUBLE_EQ(img.hi_us, 4.0);
  // Block (0, 1) ran longest: the top of the ramp; (1, 0) and (1, 1) the shortest: the bottom.
  EXPECT_EQ(img.rgba[static_cast<size_t>(20 * 32 + 0)], grey_ramp()[255]);
  EXPECT_EQ(img.rgba[static_cast<size_t>(0 * 32 + 20)], grey_ramp()[0]);
  img = make_overlay(OverlayMode::Sm, m, 32, 32, rec, grey_ramp());
  EXPECT_EQ(img.rgba[0], categorical_palette()[3]);
  EXPECT_EQ(img.rgba[20], categorical_palette()[5]);
}

TEST(OverlayModes, CycleAndParse) {
  OverlayMode m = OverlayMode::Off;
  std::vector<OverlayMode> seen;
  for (int i = 0; i < k_overlay_mode_count; ++i) {
    m = next_overlay_mode(m);
    seen.push_back(m);
  }
  EXPECT_EQ(seen.front(), OverlayMode::BlockIdx);
  EXPECT_EQ(seen.back(), OverlayMode::Off);
  EXPECT_EQ(parse_overlay_mode("sm"), OverlayMode::Sm);
  EXPECT_EQ(parse_overlay_mode("time"), OverlayMode::BlockTime);
  EXPECT_FALSE(parse_overlay_mode("bogus"));
  EXPECT_TRUE(overlay_needs_record(OverlayMode::BlockTime));
  EXPECT_FALSE(overlay_needs_record(OverlayMode::Warp));
}

TEST(OverlayMapping, AppTargetsMapLikeTheLabs) {
  HeatAnatomyTarget h;
  h.params.nx = 300;
  h.params.ny = 200;
  h.block = {64, 4};
  h.cells_per_thread = 8;
  h.grid = covering_grid(heat::cells_of(h.block, 8), {300, 200});
  const auto m = h.mapping();
  ASSERT_TRUE(m);
  EXPECT_EQ(m->tile, (Dim2{64, 32}));
  EXPECT_EQ(m->grid, (Dim2{5, 7}));
  EXPECT_FALSE(MatmulAnatomyTarget({64, 64, 64}, matmul::Variant::Cublas).mapping());
}

}  // namespace
}  // namespace bs::anatomy
