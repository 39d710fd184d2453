// matmul_scene_test.cpp: the matmul lab renders headless (C heat map + block-grid overlay + A/B diagram, on
// the CPU path here), and the tile / k-loop geometry behind the overlay is right, including partial edge
// tiles.
#include <gtest/gtest.h>

#include <stb_image.h>

#include <cstdlib>
#include <filesystem>

#include "image_util.h"
#include "run_util.h"
#include "test_util.h"
#include "ui/matmul/matmul_lab_panel.h"

namespace bs {

namespace {
std::string out_path(const std::string& name) {
  return test::output_path(name);
}

// Pure-white pixels in the view (left half): the outline of the highlighted C tile is drawn pure white; the
// coolwarm colormap's centre is a light grey, never 255.
size_t white_pixels(const std::string& png) {
  int w = 0, h = 0, n = 0;
  unsigned char* px = stbi_load(png.c_str(), &w, &h, &n, 3);
  if (!px) return 0;
  size_t count = 0;
  for (int y = h / 8; y < h * 7 / 8; ++y)
    for (int x = w / 16; x < w / 2; ++x) {
      const unsigned char* p = px + 3 * (static_cast<size_t>(y) * w + x);
      count += p[0] == 255 && p[1] == 255 && p[2] == 255;
    }
  stbi_image_free(px);
  return count;
}
}  // namespace

TEST(MatmulScene, HeadlessScreenshotShowsCAndTheOverlay) {
  const std::string png = out_path("matmul.png");
  const auto r = test::run_blockscope(
      "--headless --scene matmul --frames 20 --width 1280 --height 720 --screenshot " + png);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // A random product under a colormap plus translucent block colours: far more than a blank frame's handful.
  const test::ImageStats view = test::image_stats(png, 1.0 / 16, 1.0 / 8, 0.5, 7.0 / 8);
  EXPECT_EQ(view.width, 1280);
  EXPECT_GT(view.distinct_colours, 500u) << r.output;
  // The pinned tile's outline (3 px around a block of C): hundreds of pure-white pixels.
  EXPECT_GT(white_pixels(png), 200u) << r.output;
}

TEST(MatmulScene, HeadlessOnTheGpuRunsTheSelectedVariant) {
  BS_REQUIRE_GPU();
  const std::string png = out_path("matmul_gpu.png");
  const auto r = test::run_blockscope("--headless --scene matmul --frames 40 --screenshot " + png);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GT(test::image_stats(png, 1.0 / 16, 1.0 / 8, 0.5, 7.0 / 8).distinct_colours, 500u) << r.output;
}

// --- Geometry
// ------------------------------------------------------------------------------------------------
using ui::CellRect;
using ui::TileCover;

TEST(MatmulGeometry, TilesOf1000x777With32Tiles) {
  const TileCover c{1000, 777, 32, 32};
  EXPECT_EQ(c.tile_rows(), 32);  // ceil(1000/32)
  EXPECT_EQ(c.tile_cols(), 25);  // ceil(777/32)
  EXPECT_EQ(c.count(), 800);
  EXPECT_EQ(c.edge_rows(), 8);  // 1000 - 31*32
  EXPECT_EQ(c.edge_cols(), 9);  // 777 - 24*32
  EXPECT_EQ(c.tile(31, 24), (CellRect{992, 768, 8, 9}));
  EXPECT_EQ(c.nominal(31, 24), (CellRect{992, 768, 32, 32}));
  EXPECT_TRUE(c.partial(31, 0));
  EXPECT_TRUE(c.partial(0, 24));
  EXPECT_FALSE(c.partial(30, 23));
  EXPECT_EQ(c.tile(0, 0), (CellRect{0, 0, 32, 32}));
}

TEST(MatmulGeometry, WhichTileACellIsIn) {
  const TileCover c{1000, 777, 32, 32};
  EXPECT_EQ(c.tile_of(0, 0), (std::pair<int64_t, int64_t>{0, 0}));
  EXPECT_EQ(c.tile_of(31, 31), (std::pair<int64_t, int64_t>{0, 0}));
  EXPECT_EQ(c.tile_of(32, 31), (std::pair<int64_t, int64_t>{1, 0}));
  EXPECT_EQ(c.tile_of(999, 776), (std::pair<int64_t, int64_t>{31, 24}));
  EXPECT_FALSE(c.tile_of(1000, 0));
  EXPECT_FALSE(c.tile_of(0, 777));
  EXPECT_FALSE(c.tile_of(-1, 0));
  // Non-square block tiles (128 x 64): rows by BM, columns by BN.
  const TileCover r{1000, 777, 128, 64};
  EXPECT_EQ(r.tile_of(130, 70), (std::pair<int64_t, int64_t>{1, 1}));
  EXPECT_EQ(r.tile_rows(), 8);
  EXPECT_EQ(r.tile_cols(), 13);
  EXPECT_EQ(r.edge_rows(), 1000 - 7 * 128);
  EXPECT_EQ(r.edge_cols(), 777 - 12 * 64);
}

TEST(MatmulGeometry, KLoopPanelsAndSteps) {
  const TileCover c{1000, 777, 32, 32};
  const int64_t k = 333;
  EXPECT_EQ(ui::k_steps(k, 32), 11);  // ceil(333/32)
  EXPECT_EQ(ui::k_steps(k, 8), 42);
  EXPECT_EQ(ui::k_steps(32, 32), 1);
  EXPECT_EQ(ui::k_steps(k, 0), 0);  // no shared-memory loop
  // The whole loop reads a row-panel of A and a column-panel of B.
  EXPECT_EQ(ui::a_row_panel(c, 2, k), (CellRect{64, 0, 32, 333}));
  EXPECT_EQ(ui::b_col_panel(c, 24, k), (CellRect{0, 768, 333, 9}));
  // Step 3: A columns 96..127, B rows 96..127.
  EXPECT_EQ(ui::a_tile_at_step(c, 2, k, 32, 3), (CellRect{64, 96, 32, 32}));
  EXPECT_EQ(ui::b_tile_at_step(c, 1, k, 32, 3), (CellRect{96, 32, 32, 32}));
  // The last step holds only the K remainder (333 - 10*32 = 13), and the edge tile only its 8 rows / 9 cols.
  EXPECT_EQ(ui::a_tile_at_step(c, 31, k, 32, 10), (CellRect{992, 320, 8, 13}));
  EXPECT_EQ(ui::b_tile_at_step(c, 24, k, 32, 10), (CellRect{320, 768, 13, 9}));
}

TEST(MatmulGeometry, BlockIndexFollowsTheVariantsAxes) {
  // Tile row 3, tile column 5: blockIdx = (5, 3), except the uncoalesced naive kernel whose x runs down rows.
  EXPECT_EQ(ui::block_index(matmul::Variant::SmemTile32, 3, 5), (std::pair<int64_t, int64_t>{5, 3}));
  EXPECT_EQ(ui::block_index(matmul::Variant::NaiveUncoalesced, 3, 5), (std::pair<int64_t, int64_t>{3, 5}));
}

TEST(MatmulGeometry, NeighbouringBlocksGetDifferentColours) {
  for (int64_t i = 0; i < 64; ++i) {
    EXPECT_NE(ui::block_colour(i, 255), ui::block_colour(i + 1, 255)) << i;
    EXPECT_EQ(ui::block_colour(i, 70) >> IM_COL32_A_SHIFT, 70u);
  }
}

TEST(MatmulGeometry, EveryVariantsTilesCoverC) {
  // For each GPU variant with a known tiling, the tiles (clipped) add up to exactly M x N cells.
  const matmul::Problem p{1000, 777, 333};
  for (const auto& v : matmul::gpu_variants()) {
    const auto g = matmul::tile_geometry(v.id, p);
    if (!g.known) continue;
    const TileCover c{p.m, p.n, g.bm, g.bn};
    int64_t cells = 0;
    for (int64_t ty = 0; ty < c.tile_rows(); ++ty)
      for (int64_t tx = 0; tx < c.tile_cols(); ++tx)
        cells += c.tile(ty, tx).rows * c.tile(ty, tx).cols;
    EXPECT_EQ(cells, p.m * p.n) << v.name;
    // The launch grid of the variant has one block per tile.
    const auto s = matmul::launch_shape(v.id, p);
    EXPECT_EQ(s.grid.x * s.grid.y, c.count()) << v.name;
  }
}

}  // namespace bs
