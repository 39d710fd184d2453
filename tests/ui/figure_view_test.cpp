// figure_view_test.cpp: the hover targets the painter reports (what the on-screen read-out shows), and the
// widget's hover on a real ImGui frame (no GL needed: nothing is rendered).
#include <gtest/gtest.h>
#include <imgui.h>

#include <string>
#include <vector>

#include "figure_samples.h"
#include "imgui_frames.h"
#include "ui/figure.h"
#include "ui/figure_view.h"

namespace {

std::vector<bs::fig::Hit> hits_of(const bs::fig::Figure& f) {
  bs::test::NullCanvas c;
  std::vector<bs::fig::Hit> hits;
  bs::fig::paint(f, c, 0, 0, 1200, 700, bs::fig::light_theme(), &hits);
  return hits;
}

}  // namespace

TEST(FigureHits, LinesReportEveryPointWithItsBand) {
  const auto f = bs::test::sample_lines();
  const auto hits = hits_of(f);
  size_t points = 0;
  for (const auto& s : f.series)
    points += s.y.size();
  ASSERT_EQ(hits.size(), points);
  EXPECT_TRUE(hits[0].point);
  EXPECT_NE(hits[0].text.find("GPU (float4)"), std::string::npos) << hits[0].text;
  EXPECT_NE(hits[0].text.find("time (ms)"), std::string::npos) << hits[0].text;
  EXPECT_NE(hits[0].text.find("p10-p90"), std::string::npos) << hits[0].text;
}

TEST(FigureHits, HeatmapCellsAndBarsDescribeTheirValues) {
  const auto hm = hits_of(bs::test::sample_heatmap());
  ASSERT_EQ(hm.size(), 12u);
  EXPECT_NE(hm[5].text.find("0.48"), std::string::npos) << hm[5].text;  // row 1, col 1
  EXPECT_NE(hm[5].text.find("(best)"), std::string::npos) << hm[5].text;
  EXPECT_NE(hm[11].text.find("n/a"), std::string::npos) << hm[11].text;

  const auto bars = hits_of(bs::test::sample_bars());
  ASSERT_EQ(bars.size(), 5u);
  EXPECT_NE(bars[4].text.find("cublas"), std::string::npos);
  EXPECT_NE(bars[4].text.find("p10-p90: 40.4k - 43.4k"), std::string::npos) << bars[4].text;
  for (size_t i = 1; i < bars.size(); ++i)
    EXPECT_GT(bars[i].x0, bars[i - 1].x0);
}

TEST(FigureHits, FormatValueAndColormap) {
  EXPECT_EQ(bs::fig::format_value(0.4812), "0.481");
  EXPECT_EQ(bs::fig::format_value(5200), "5200");
  EXPECT_EQ(bs::fig::format_value(42100), "42.1k");
  EXPECT_EQ(bs::fig::format_value(2.5e6), "2.5M");
  EXPECT_EQ(bs::fig::format_value(0.0), "0");
  EXPECT_EQ(bs::fig::format_value(std::nan("")), "n/a");
  EXPECT_EQ(bs::fig::colormap(0.0), 0x440154ffu);  // viridis ends
  EXPECT_EQ(bs::fig::colormap(1.0), 0xfde725ffu);
  EXPECT_EQ(bs::fig::colormap(-3.0), bs::fig::colormap(0.0));
}

TEST(FigureView, HoverOnAFrame) {
  const bs::test::HeadlessImGui imgui(ImVec2(1000, 700), 1.0f / 60);
  ImGuiIO& io = ImGui::GetIO();
  const auto f = bs::test::sample_bars();
  bool hovered[3] = {};
  // Frame 0 creates the window; ImGui decides what the mouse hovers from the previous frame's windows.
  for (int frame = 0; frame < 3; ++frame) {
    io.MousePos = frame == 2 ? ImVec2(-100, -100) : ImVec2(500, 400);
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(io.DisplaySize);
    ImGui::Begin("figure", nullptr, ImGuiWindowFlags_NoDecoration);
    hovered[frame] = bs::ui::draw_figure("bars", ImVec2(0, 0), f);
    ImGui::End();
    ImGui::EndFrame();
  }
  EXPECT_TRUE(hovered[1]);
  EXPECT_FALSE(hovered[2]);
}
