// tc_views_test.cpp: the matmul lab's tensor-core pictures (ui/matmul/tc_views.h) drawn on an ImGui frame of
// their own: hovering an element of the m16n8k16 fragment finds the lane the PTX layout gives it, and the
// section with its table and both pictures opened draws without a device.
#include <gtest/gtest.h>
#include <imgui.h>

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

}  // namespace
