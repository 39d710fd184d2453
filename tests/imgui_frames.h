// imgui_frames.h: an ImGui context of a test's own for driving widgets on real frames without GL (nothing is
// rendered): made current on construction with the display size and frame time given, no imgui.ini, and the
// font atlas built (NewFrame needs it); destroyed on destruction, with the caller's context current again.
// A fixture holds one as a member.
#pragma once

#include <imgui.h>

namespace bs::test {

class HeadlessImGui {
 public:
  HeadlessImGui(ImVec2 display, float delta_time) : m_prev(ImGui::GetCurrentContext()) {
    m_ctx = ImGui::CreateContext();
    ImGui::SetCurrentContext(m_ctx);
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = display;
    io.DeltaTime = delta_time;
    unsigned char* px = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&px, &w, &h);
  }
  ~HeadlessImGui() {
    ImGui::DestroyContext(m_ctx);
    ImGui::SetCurrentContext(m_prev);
  }
  HeadlessImGui(const HeadlessImGui&) = delete;
  HeadlessImGui& operator=(const HeadlessImGui&) = delete;

 private:
  ImGuiContext* m_prev = nullptr;
  ImGuiContext* m_ctx = nullptr;
};

}  // namespace bs::test
