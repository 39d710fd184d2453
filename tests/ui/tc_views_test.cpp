// tc_views_test.cpp: the matmul lab's tensor-core pictures (ui/matmul/tc_views.h) drawn on an ImGui frame of
// their own: hovering an element of the m16n8k16 fragment finds the lane the PTX layout gives it, hovering the TMA
// picture finds the box under the mouse (the wholly zero-filled one too), hovering the pipeline's timeline finds the
// k-tile, and the section with its table and every picture draws without a device, bad shapes included.
#include <gtest/gtest.h>
#include <imgui.h>

#include <algorithm>

#include "imgui_frame.h"
#include "ui/matmul/tc_views.h"

namespace {

class TcViewsOnAFrame : public bs::test::ImGuiFrameTest {
 protected:
  ImVec2 display_size() const override { return ImVec2(1000, 900); }
};

TEST_F(TcViewsOnAFrame, HoveringAFragmentElementFindsItsLane) {
  ImVec2 origin;
  float cell = 0;
  int lane = -1;
  frame(ImVec2(-1, -1), [&] {
    origin = ImGui::GetCursorScreenPos();
    const float w = ImGui::GetContentRegionAvail().x;
    cell = w / 18.0f > 34.0f ? 34.0f : w / 18.0f;
    bs::ui::draw_fragment_view(0, lane, 0);
  });
  EXPECT_EQ(lane, -1);
  // A(9, 10): row group 1, k pair 5 -> lane 4 * 1 + 1 = 5 (register a3).
  const ImVec2 at(origin.x + 10.5f * cell, origin.y + 9.5f * cell);
  frame(at, [&] { bs::ui::draw_fragment_view(0, lane, 0); });
  EXPECT_EQ(lane, 5);
  // C(8, 7): lane 4 * 0 + 3 = 3.
  frame(ImVec2(origin.x + 7.5f * cell, origin.y + 8.5f * cell), [&] { bs::ui::draw_fragment_view(2, lane, 0); });
  EXPECT_EQ(lane, 3);
}

TEST_F(TcViewsOnAFrame, SectionDrawsWithEverythingOpen) {
  bs::ui::TcPanelModel m;
  m.rungs.push_back({"mma_bf16_pipe", "mma.sync + cp.async", "bf16", "what changed", ""});
  m.rungs.push_back({"tf32x3", "3xTF32", "3xtf32", "split", "needs compute capability 8.0"});
  m.precision_rows.push_back({"bf16", "BF16", 3.0, 2e-3, 1.6e-2, true, "6e-02 at (1, 2)"});
  m.precision_rows.push_back({"fp16", "FP16", 3.0, 0.0, 2e-3, false, "12 cells not finite"});
  m.model_problem = "67x45x301 (M x N x K)";
  bs::ui::TcPanelActions a;
  for (int b_tile = 0; b_tile < 2; ++b_tile) {
    m.b_tile = b_tile == 1;
    frame(ImVec2(-1, -1), [&] {
      ImGui::SetNextItemOpen(true);  // the fragment picture's tree node
      bs::ui::draw_tc_section(m, a);
      bs::ui::draw_swizzle_view(m.b_tile, 0);
    });
  }
  EXPECT_FALSE(a.run_model);
  EXPECT_FALSE(a.cancel_model);
}

// The "time the rungs" button: a click asks for the timing; without a GPU it is disabled (a click does nothing and
// the reason shows); while timing, the same place cancels. The rows draw, a skipped one and one over its bound too.
TEST_F(TcViewsOnAFrame, TimeTheRungsButton) {
  bs::ui::TcPanelModel m;
  bs::ui::TcPanelActions a;
  ImVec2 o;
  const auto body = [&] {
    o = ImGui::GetCursorScreenPos();
    bs::ui::draw_tc_timing(m, a);
  };
  const auto click = [&] {
    a = {};
    frame(ImVec2(-1, -1), body);
    const ImVec2 at(o.x + 6, o.y + 6);
    frame(at, body);
    ImGui::GetIO().MouseDown[0] = true;
    frame(at, body);
    ImGui::GetIO().MouseDown[0] = false;
    frame(at, body);
  };
  click();
  EXPECT_TRUE(a.time_rungs);
  m.time_unavailable = "no CUDA device: test";
  click();
  EXPECT_FALSE(a.time_rungs) << "a disabled button asked for the timing";
  m.time_unavailable.clear();
  m.timing = true;
  m.timing_progress = 0.4;
  click();
  EXPECT_FALSE(a.time_rungs);
  EXPECT_TRUE(a.cancel_timing);
  m.timing = false;
  m.timed.push_back({"mma_bf16_pipe", "bf16", "", 1.25, 10, 550.0, 91.0, 2e-3, 1.6e-2, true});
  m.timed.push_back({"tf32x3", "3xtf32", "", 3.5, 10, 39.3, -1, 5e-6, 1e-6, false});
  m.timed.push_back({"wgmma_tma", "bf16", "needs compute capability 9.0", 0, 0, 0, -1, 0, 0, false});
  m.timed_problem = "4096x4096x4096 (M x N x K)";
  m.timed_device = "Test GPU";
  m.timed_reference = "float64 GPU (cuBLAS DGEMM)";
  click();
  EXPECT_TRUE(a.time_rungs);  // the rows are drawn below the button
}

TEST_F(TcViewsOnAFrame, HoveringTheTmaPictureFindsTheBox) {
  // The lab's 200 x 155 x 67 with BN 256: A is 2 x 2 boxes of 128 x 64, B 2 x 4 boxes of 64 x 64, the last
  // column of B's boxes wholly past n. The picture's scale: the boxes' extents fit the width and 10 text lines
  // (at least 160 pixels).
  ImVec2 o;
  float w = 0, line = 0, scale = 0;
  bs::ui::TmaHover h;
  frame(ImVec2(-1, -1), [&] {
    o = ImGui::GetCursorScreenPos();
    w = ImGui::GetContentRegionAvail().x;
    line = ImGui::GetTextLineHeightWithSpacing();
    const float max_h = std::max(160.0f, ImGui::GetTextLineHeight() * 10);
    scale = std::min((w - 28.0f) / (128 + 256), max_h / 256);
    h = bs::ui::draw_tma_view(200, 155, 67, 256, 0);
  });
  EXPECT_EQ(h.matrix, -1);
  const auto draw = [&] { h = bs::ui::draw_tma_view(200, 155, 67, 256, 0); };
  frame(ImVec2(o.x + 64 * scale + 2, o.y + line + 128 * scale + 2), draw);
  EXPECT_EQ(h.matrix, 0);
  EXPECT_EQ(h.i, 1);
  EXPECT_EQ(h.j, 1);
  const float bx = o.x + 128 * scale + 28;
  frame(ImVec2(bx + 3 * 64 * scale + 2, o.y + line + 2), draw);
  EXPECT_EQ(h.matrix, 1);
  EXPECT_EQ(h.i, 0);
  EXPECT_EQ(h.j, 3);
}

TEST_F(TcViewsOnAFrame, HoveringThePipelineFindsTheKTile) {
  ImVec2 o;
  float w = 0, x0 = 0, lane_h = 0;
  int tile = -2;
  frame(ImVec2(-1, -1), [&] {
    o = ImGui::GetCursorScreenPos();
    w = ImGui::GetContentRegionAvail().x;
    x0 = o.x + ImGui::CalcTextSize("cp.async ").x + 4;
    lane_h = std::max(22.0f, ImGui::GetTextLineHeight() * 1.6f);
    tile = bs::ui::draw_pipeline_view(1, 0.5f, true, 0);
  });
  EXPECT_EQ(tile, -1);
  // The first load starts the timeline; the last multiply ends it (10 k-tiles).
  frame(ImVec2(x0 + 2, o.y + 2), [&] { tile = bs::ui::draw_pipeline_view(1, 0.5f, true, 0); });
  EXPECT_EQ(tile, 0);
  frame(ImVec2(o.x + w - 8, o.y + lane_h * 1.9f + 4), [&] { tile = bs::ui::draw_pipeline_view(1, 0.5f, false, 0); });
  EXPECT_EQ(tile, 9);
}

TEST_F(TcViewsOnAFrame, NewPicturesDrawEveryShapeAndRefuseBadOnes) {
  bs::ui::TmaHover h;
  int tile = 0;
  frame(ImVec2(-1, -1), [&] {
    for (const long long m : {1LL, 67LL, 4096LL})
      for (const int bn : {128, 256}) bs::ui::draw_tma_view(m, 8192, 1, bn, 0);
    h = bs::ui::draw_tma_view(0, 5, 5, 128, 0);  // a message, no boxes
    bs::ui::draw_tma_swizzle_view(0);
    for (int stages = 1; stages <= 8; ++stages) bs::ui::draw_pipeline_view(stages, 3.0f, true, 0);
    tile = bs::ui::draw_pipeline_view(0, 1.0f, true, 0);
  });
  EXPECT_EQ(h.matrix, -1);
  EXPECT_EQ(tile, -1);
}

}  // namespace
