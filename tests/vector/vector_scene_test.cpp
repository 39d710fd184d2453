// vector_scene_test.cpp: the vector lab renders (headless screenshot with the strip view and the charts, CPU
// data here), and the pure layout helpers of its panel place bars, timeline ops and the crossover marker
// right.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "image_util.h"
#include "run_util.h"
#include "test_util.h"
#include "ui/vector/vector_lab_panel.h"

namespace bs {

namespace {

std::string vector_out_path(const std::string& name) {
  return test::output_path(name);
}

// Distinct RGB colours in the left part of the image (the view window: strip, timeline, sweep plot).
size_t distinct_view_colours(const std::string& png) {
  return test::image_stats(png, 1.0 / 32, 1.0 / 16, 0.5, 15.0 / 16).distinct_colours;
}

}  // namespace

TEST(VectorScene, HeadlessScreenshotShowsStripAndCharts) {
  const std::string png = vector_out_path("vector.png");
  const auto r = test::run_blockscope(
      "--headless --scene vector --frames 20 --width 1600 --height 900 --screenshot " + png);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The strip alone has 12 palette colours; text, plot lines and their anti-aliasing add many more. A blank
  // or single-panel frame has a few dozen at most.
  EXPECT_GT(distinct_view_colours(png), 150u) << r.output;
}

TEST(VectorScene, HeadlessOnTheGpuShowsGpuRows) {
  BS_REQUIRE_GPU();
  const std::string png = vector_out_path("vector_gpu.png");
  const auto r = test::run_blockscope("--headless --scene vector --frames 20 --screenshot " + png);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GT(distinct_view_colours(png), 150u) << r.output;
}

// --- Layout helpers ----------------------------------------------------------------------------------------

TEST(VectorLayout, StackedBarIsProportionalAndContiguous) {
  const double v[3] = {10, 20, 10};
  const auto s = ui::stacked_bar(v, 400, 6);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_FLOAT_EQ(s[0].x0, 0);
  EXPECT_NEAR(s[0].x1, 100, 1e-3);
  EXPECT_NEAR(s[1].x1, 300, 1e-3);
  EXPECT_FLOAT_EQ(s[2].x1, 400);
  for (size_t i = 1; i < s.size(); ++i)
    EXPECT_FLOAT_EQ(s[i].x0, s[i - 1].x1);
}

TEST(VectorLayout, StackedBarKeepsATinyKernelVisible) {
  // Tiny N: a 5 us kernel between two 40 ms copies would be 0.025 px wide in proportion.
  const double v[3] = {40, 0.005, 40};
  const auto s = ui::stacked_bar(v, 400, 6);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_FLOAT_EQ(s[1].x1 - s[1].x0, 6);
  EXPECT_NEAR(s[0].x1 - s[0].x0, 197, 1e-3);  // the copies share the rest equally
  EXPECT_FLOAT_EQ(s[2].x1, 400);
}

TEST(VectorLayout, StackedBarSkipsZerosAndEmptyInput) {
  const double v[3] = {0, 5, 0};
  const auto s = ui::stacked_bar(v, 100, 6);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].part, 1);
  EXPECT_FLOAT_EQ(s[0].x1, 100);
  const double z[3] = {0, 0, 0};
  EXPECT_TRUE(ui::stacked_bar(z, 100, 6).empty());
}

TEST(VectorLayout, TimelineRectsMapStreamsToRowsAndTimeToX) {
  std::vector<vector::TimelineOp> ops = {{vector::OpKind::H2D, 0, 0, 0.0, 2.0, 0},
                                         {vector::OpKind::Kernel, 0, 0, 2.0, 3.0, 0},
                                         {vector::OpKind::H2D, 1, 1, 2.0, 4.0, 0},
                                         {vector::OpKind::D2H, 0, 0, 3.0, 5.0, 0},
                                         {vector::OpKind::Kernel, 1, 1, 4.0, 4.0001, 0}};
  const vector::Timeline t = vector::analyze_timeline(ops, 2, 2);
  ASSERT_DOUBLE_EQ(t.total_ms, 5.0);
  const auto r = ui::timeline_rects(t, 500, 10, 2);
  ASSERT_EQ(r.size(), 5u);
  EXPECT_FLOAT_EQ(r[0].x0, 0);
  EXPECT_FLOAT_EQ(r[0].x1, 200);
  EXPECT_FLOAT_EQ(r[0].y0, 0);
  EXPECT_FLOAT_EQ(r[2].y0, 12);  // stream 1: one row and one gap down
  EXPECT_FLOAT_EQ(r[2].y1, 22);
  EXPECT_FLOAT_EQ(r[3].x1, 500);
  EXPECT_GE(r[4].x1 - r[4].x0, 1.0f);  // a 0.1 us kernel still gets a pixel
  // A shared span (to line up two timelines): 10 ms over 500 px.
  EXPECT_FLOAT_EQ(ui::timeline_rects(t, 500, 10, 2, 10.0)[3].x1, 250);
}

TEST(VectorLayout, CrossoverMarkerIsAVerticalLineAtTheCrossover) {
  vector::Crossover c;
  c.kind = vector::Crossover::Kind::InRange;
  c.n = 3.0 * 1024 * 1024;
  const auto m = ui::crossover_marker(c, 0.01, 40);
  ASSERT_TRUE(m);
  EXPECT_DOUBLE_EQ(m->x[0], c.n);
  EXPECT_DOUBLE_EQ(m->x[1], c.n);
  EXPECT_DOUBLE_EQ(m->y[0], 0.01);
  EXPECT_DOUBLE_EQ(m->y[1], 40);
  EXPECT_NE(m->label.find("3M"), std::string::npos) << m->label;
  // A crossover between powers of two reads in K or M, as the crossover text below the plot does.
  c.n = 201701;
  EXPECT_EQ(ui::crossover_marker(c, 0.01, 40)->label, "from ~197.0K");
  c.n = 1.25 * 1024 * 1024 + 3;
  EXPECT_EQ(ui::crossover_marker(c, 0.01, 40)->label, "from ~1.25M");
  c.kind = vector::Crossover::Kind::None;
  EXPECT_FALSE(ui::crossover_marker(c, 0.01, 40));
}

TEST(VectorLayout, CrossoverMarkerFromRealSweepPoints) {
  // GPU with copies loses below 8K and wins from 16K on: the marker lies between the two.
  const std::vector<int64_t> n = {1024, 2048, 4096, 8192, 16384, 32768};
  const std::vector<double> gpu = {0.05, 0.05, 0.06, 0.07, 0.08, 0.10};
  const std::vector<double> cpu = {0.01, 0.02, 0.04, 0.08, 0.16, 0.32};
  const vector::Crossover c = vector::find_crossover(n, gpu, cpu);
  const auto m = ui::crossover_marker(c, 0.01, 0.32);
  ASSERT_TRUE(m);
  EXPECT_GT(m->x[0], 4096);
  EXPECT_LE(m->x[0], 8192);
}

TEST(VectorLayout, StripGeometryFitsAndWraps) {
  // 2048 cells into 1000 x 100 px, rows of a power of two: 7 px cells give 128 a row (256 would need 1792
  // px), 16 rows = 112 px: too tall; 6 px: 128 a row, 16 rows = 96 px fits; the cells widen to 1000/128 -> 7
  // px.
  const ui::StripGeometry g = ui::strip_geometry(2048, 1000, 100, 2, 24);
  EXPECT_FLOAT_EQ(g.cell, 6);
  EXPECT_FLOAT_EQ(g.cell_w, 7);
  EXPECT_EQ(g.per_row, 128);
  EXPECT_EQ(g.rows, 16);
  // Few cells: the largest cell size, one row.
  const ui::StripGeometry big = ui::strip_geometry(10, 800, 100, 2, 24);
  EXPECT_FLOAT_EQ(big.cell, 24);
  EXPECT_EQ(big.per_row, 32);
  EXPECT_EQ(big.rows, 1);
  // Too many to fit: the minimum cell, rows overflow (the view scrolls).
  EXPECT_FLOAT_EQ(ui::strip_geometry(1000000, 100, 10, 2, 24).cell, 2);
}

TEST(VectorLayout, StripGroupsShowBlocksOrPasses) {
  vector::Params p;
  p.n = 4096;
  p.block = 256;
  p.streams = 1;
  // One thread per element: element 300 is in block 1.
  p.indexing = vector::Indexing::OnePerElement;
  EXPECT_EQ(ui::strip_group(vector::touched_by(300, p, 4), p.indexing, false), 1);
  // Grid-stride with 4 blocks x 256 threads: element 1100 is in pass 1, block 0 (thread 76).
  p.indexing = vector::Indexing::GridStride;
  const vector::Touch t = vector::touched_by(1100, p, 4);
  EXPECT_EQ(ui::strip_group(t, p.indexing, false), 1);
  EXPECT_EQ(ui::strip_group(t, p.indexing, true), 0);
  // Float4 loads: a thread takes 4 neighbouring elements, so a 256-thread block covers 1024 of them.
  p.indexing = vector::Indexing::OnePerElement;
  p.width = vector::LoadWidth::Float4;
  EXPECT_EQ(ui::strip_group(vector::touched_by(1023, p, 4), p.indexing, false), 0);
  EXPECT_EQ(ui::strip_group(vector::touched_by(1024, p, 4), p.indexing, false), 1);
  // Neighbouring groups get different colours, and the palette repeats.
  EXPECT_NE(ui::strip_colour(0), ui::strip_colour(1));
  EXPECT_EQ(ui::strip_colour(0), ui::strip_colour(ui::k_strip_palette_size));
}

}  // namespace bs
