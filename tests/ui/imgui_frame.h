// imgui_frame.h: a test fixture with an ImGui context of its own (no GL: nothing is rendered) and one full-screen
// window per frame, for tests that draw panels and pictures and read back what they hovered or drew.
#pragma once

#include <gtest/gtest.h>
#include <imgui.h>

#include <functional>

namespace bs::test {

class ImGuiFrameTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_prev = ImGui::GetCurrentContext();
    m_ctx = ImGui::CreateContext();
    ImGui::SetCurrentContext(m_ctx);
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = display_size();
    io.DeltaTime = 1.0f / 60;
    unsigned char* px = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&px, &w, &h);
  }
  void TearDown() override {
    ImGui::DestroyContext(m_ctx);
    ImGui::SetCurrentContext(m_prev);
  }
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
  ImGuiContext* m_prev = nullptr;
  ImGuiContext* m_ctx = nullptr;
};

}  // namespace bs::test
