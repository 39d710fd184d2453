// simulated_run_test.cpp: the labs' simulated-run block (ui/kernel/simulated_run.h) in real ImGui frames
// (no GL): "Check on the GPU" is pressed by a mouse click only when enabled, and the click reaches the
// runner through the view's shared flag (the labs copy the view each frame and forward nothing).
#include <gtest/gtest.h>

#include <imgui.h>

#include <memory>

#include "imgui_frames.h"
#include "ui/kernel/simulated_run.h"

namespace bs::ui {
namespace {

class SimulatedRunFrames : public ::testing::Test {
 protected:
  test::HeadlessImGui m_imgui{ImVec2(900, 600), 1.0f / 30};
  // One frame with the mouse at (x, y), the left button down or up; the actions it produced.
  SimulatedRunActions frame(const SimulatedRunView& v, float x, float y, bool down) {
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = ImVec2(x, y);
    io.MouseDown[0] = down;
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(io.DisplaySize);
    ImGui::Begin("run", nullptr, ImGuiWindowFlags_NoDecoration);
    SimulatedRunActions a;
    draw_simulated_run(v, a);
    ImGui::End();
    ImGui::Render();
    return a;
  }
  // Clicks down the left edge of the block (where the button sits) until something presses it; true if so.
  bool click_down_the_column(const SimulatedRunView& v) {
    for (float y = 2; y < 400; y += 4) {
      frame(v, 30, y, false);
      frame(v, 30, y, true);
      if (frame(v, 30, y, false).gpu_check) return true;
    }
    return false;
  }

 private:
};

SimulatedRunView finished_run() {
  SimulatedRunView v;
  v.has = true;
  v.label = "simulated (no GPU): your vector_op, vector n = 1000, block 256, grid 4";
  v.ran = v.passed = true;
  v.verdict = "PASS (simulated)";
  v.check = "max rel err 0 against the lab's op formula";
  v.gpu_check_clicked = std::make_shared<bool>(false);
  return v;
}

TEST_F(SimulatedRunFrames, ADisabledCheckCannotBePressed) {
  SimulatedRunView v = finished_run();
  v.gpu_check_enabled = false;
  v.gpu_check_reason = "needs a CUDA GPU (CUDA driver version is insufficient)";
  EXPECT_FALSE(click_down_the_column(v));
  EXPECT_FALSE(*v.gpu_check_clicked);
}

TEST_F(SimulatedRunFrames, AnEnabledCheckIsPressedAndTheClickReachesTheSharedFlag) {
  SimulatedRunView v = finished_run();
  v.gpu_check_enabled = true;
  EXPECT_TRUE(click_down_the_column(v));
  EXPECT_TRUE(*v.gpu_check_clicked);
  // While one runs it cannot be pressed again.
  *v.gpu_check_clicked = false;
  v.gpu_check_running = true;
  EXPECT_FALSE(click_down_the_column(v));
  EXPECT_FALSE(*v.gpu_check_clicked);
}

TEST_F(SimulatedRunFrames, WithoutARunThereIsNoButton) {
  SimulatedRunView v = finished_run();
  v.has = false;
  v.gpu_check_enabled = true;
  EXPECT_FALSE(click_down_the_column(v));
}

}  // namespace
}  // namespace bs::ui
