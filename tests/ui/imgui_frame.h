// imgui_frame.h: a test fixture with an ImGui context of its own (tests/imgui_frames.h: no GL, nothing is
// rendered) and one full-screen window per frame, for tests that draw panels and pictures and read back what they
// hovered or drew.
#pragma once

#include <gtest/gtest.h>
#include <imgui.h>

#include <functional>
#include <optional>

#include "imgui_frames.h"

namespace bs::test {

class ImGuiFrameTest : public ::testing::Test {
 protected:
  void SetUp() override { m_imgui.emplace(display_size(), 1.0f / 60); }
  void TearDown() override { m_imgui.reset(); }
  virtual ImVec2 display_size() const { return ImVec2(1000, 700); }
  // Runs `body` inside a window at (0, 0) with the mouse at `mouse`.
  void frame(ImVec2 mouse, const std::function<void()>& body) {
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = mouse;
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(io.DisplaySize);
    ImGui::Begin("frame", nullptr, ImGuiWindowFlags_NoDecoration);
    body();
    ImGui::End();
    ImGui::EndFrame();
  }

 private:
  std::optional<HeadlessImGui> m_imgui;
};

}  // namespace bs::test
