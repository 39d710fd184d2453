// anatomy_ui_test.cpp: the anatomy views without a GPU: wave arithmetic, the timeline chart's layout helpers
// (one row per SM, bars inside the visible window), the timeline PNG through ui::render_png on a headless GL
// context (synthetic record), and headless screenshots of the heat lab with an overlay on.
#define STB_IMAGE_IMPLEMENTATION
#include <gtest/gtest.h>

#include <filesystem>

#include "image_util.h"
#include "run_util.h"
#include "gpu/anatomy/anatomy.h"
#include "ui/anatomy/anatomy_panel.h"
#include "ui/gl/context.h"

namespace bs {
namespace {

TEST(AnatomyWaves, PredictedWaveArithmetic) {
  EXPECT_EQ(anatomy::predicted_waves(1024, 132, 2), 4);  // 1024 / 264 = 3.9 -> 4
  EXPECT_EQ(anatomy::predicted_waves(264, 132, 2), 1);
  EXPECT_EQ(anatomy::predicted_waves(265, 132, 2), 2);
  EXPECT_EQ(anatomy::predicted_waves(1, 132, 16), 1);
  EXPECT_EQ(ui::waves_text(1024, 132, 2), "4 waves = ceil(1024 blocks / (132 SMs x 2 resident per SM))");
  EXPECT_EQ(ui::waves_text(10, 132, 2).substr(0, 7), "1 wave ");
}

TEST(AnatomyWaves, ObservedWavesFromARecord) {
  // 2 SMs, 1 resident block each; SM 0 ran 3 blocks, SM 1 ran 1: predicted ceil(4/2) = 2, observed 3.
  std::vector<anatomy::BlockRecord> rec = {
      {0, 0, 0, 0, 100, 200}, {1, 0, 0, 0, 200, 300}, {2, 0, 0, 0, 300, 400}, {3, 0, 1, 0, 100, 150}};
  const anatomy::Timeline t = anatomy::build_timeline(rec, 2, 1);
  EXPECT_EQ(t.predicted_waves, 2);
  EXPECT_EQ(t.observed_waves, 3);
  EXPECT_EQ(t.lanes.size(), 2u);
  EXPECT_EQ(t.lanes[0].blocks.size(), 3u);
}

TEST(AnatomyWaves, OverlappingBlocksOnOneSmGetSubRows) {
  // SM 0: blocks A [0, 100) and B [50, 150) overlap, C [120, 200) reuses A's sub-row.
  std::vector<anatomy::BlockRecord> rec = {
      {0, 0, 0, 0, 0, 100}, {1, 0, 0, 0, 50, 150}, {2, 0, 0, 0, 120, 200}};
  const anatomy::Timeline t = anatomy::build_timeline(rec, 1, 2);
  ASSERT_EQ(t.lanes.size(), 1u);
  EXPECT_EQ(t.lanes[0].slots, 2);
  EXPECT_EQ(t.lanes[0].blocks[0].slot, 0);
  EXPECT_EQ(t.lanes[0].blocks[1].slot, 1);
  EXPECT_EQ(t.lanes[0].blocks[2].slot, 0);
}

TEST(AnatomyTimelineLayout, OneRowPerSmInsideThePlot) {
  const ui::TimelineLayout l = ui::layout_timeline(ImVec2(10, 20), ImVec2(800, 400), 132, 0, 1000, 13);
  EXPECT_EQ(l.lanes, 132);
  EXPECT_GT(l.plot_w, 600);
  float prev_end = l.plot_y0;
  for (int i = 0; i < 132; ++i) {
    const auto [y0, y1] = ui::lane_rows(l, i);
    EXPECT_FLOAT_EQ(y0, prev_end);
    EXPECT_GT(y1, y0);
    prev_end = y1;
  }
  EXPECT_NEAR(prev_end, l.plot_y0 + l.plot_h, 1e-3);
  EXPECT_LE(l.plot_y0 + l.plot_h, 20 + 400);
}

TEST(AnatomyTimelineLayout, BarsClipToTheVisibleWindow) {
  const ui::TimelineLayout l = ui::layout_timeline(ImVec2(0, 0), ImVec2(1000, 300), 4, 100, 200, 13);
  EXPECT_FALSE(ui::bar_span(l, 0, 50));     // before the window
  EXPECT_FALSE(ui::bar_span(l, 250, 300));  // after it
  const auto inside = ui::bar_span(l, 120, 180);
  ASSERT_TRUE(inside);
  EXPECT_NEAR(inside->first, l.plot_x0 + 0.2f * l.plot_w, 1e-3);
  EXPECT_NEAR(inside->second, l.plot_x0 + 0.8f * l.plot_w, 1e-3);
  const auto clipped = ui::bar_span(l, 50, 150);
  ASSERT_TRUE(clipped);
  EXPECT_FLOAT_EQ(clipped->first, l.plot_x0);
  // A zero-length block (shorter than the timer's step) is still one pixel wide.
  const auto tiny = ui::bar_span(l, 150, 150);
  ASSERT_TRUE(tiny);
  EXPECT_NEAR(tiny->second - tiny->first, 1.0f, 1e-3);
  EXPECT_LE(tiny->second, l.plot_x0 + l.plot_w);
}

TEST(AnatomyTimelinePng, RendersASyntheticRecord) {
  std::string err;
  std::unique_ptr<gl::Context> ctx = gl::create_headless(64, 64, &err);
  if (!ctx) GTEST_SKIP() << "no headless GL context: " << err;
  // 8 SMs, 2 resident; 40 blocks of 1 us in waves, SM 7 idle.
  std::vector<anatomy::BlockRecord> rec;
  for (uint32_t b = 0; b < 40; ++b) {
    const uint32_t sm = b % 7;
    const uint64_t wave = b / 14;
    rec.push_back({b, 0, sm, 0, 1000 * wave + 10 * (b % 2), 1000 * wave + 900 + 10 * (b % 2)});
  }
  const anatomy::Timeline t = anatomy::build_timeline(rec, 8, 2);
  EXPECT_EQ(t.idle_sms, 1);
  const std::string png = test::output_path("anatomy_timeline.png");
  ASSERT_TRUE(ui::export_timeline_png(t, "synthetic record", png, &err)) << err;
  const test::ImageStats s = test::image_stats(png);
  EXPECT_EQ(s.width, 1600);
  EXPECT_GE(s.distinct_colours, 5u) << "expected bars in several wave colours, text and axes";
}

// The heat lab with an overlay: the field shows many colours (field + blended categorical overlay), and the
// run exits 0 on the CPU path too.
TEST(AnatomyScene, HeatLabWithBlockIdxOverlay) {
  const std::string png = test::output_path("heat_overlay_blockidx.png");
  const auto r = test::run_blockscope(
      "--headless --scene heat --size 300x200 --block 48x4 --cells-per-thread 4 "
      "--overlay blockidx --frames 12 --screenshot " +
      png);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const test::ImageStats s = test::image_stats(png, 1.0 / 16, 1.0 / 8, 0.5, 7.0 / 8);
  EXPECT_GT(s.distinct_colours, 50u) << r.output;
}

TEST(AnatomyScene, SmOverlayOnTheCpuPathSaysItNeedsAGpu) {
  const std::string png = test::output_path("heat_overlay_sm_cpu.png");
  const auto r = test::run_blockscope(
      "--headless --scene heat --render-path cpu --size 256 --overlay sm "
      "--frames 6 --screenshot " +
      png);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(std::filesystem::exists(png));
}

TEST(AnatomyScene, BadOverlayNameIsRejected) {
  const auto r = test::run_blockscope("--headless --overlay bogus --frames 1");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("--overlay"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace bs
