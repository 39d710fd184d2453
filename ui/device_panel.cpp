// device_panel.cpp: see device_panel.h.
#include "ui/device_panel.h"

#include <imgui.h>

namespace bs::ui {

void draw_device_panel(const DeviceInfo& d, const PathView& path) {
  if (!d.available) {
    ImGui::TextColored(ImVec4(1.0f, 0.6f, 0.3f, 1.0f), "no CUDA device: %s", d.reason.c_str());
    ImGui::TextWrapped("Everything runs on the CPU. Timings are CPU timings.");
  } else {
    ImGui::Text("%s", d.name.c_str());
    ImGui::Text("compute capability %s, %d SMs", d.compute_capability().c_str(), d.sm_count);
    ImGui::Text("memory %.1f GiB (%.1f GiB free), bus %d bit", d.total_mem / 1073741824.0,
                d.free_mem / 1073741824.0, d.mem_bus_bits);
    ImGui::Text("SM clock %.0f MHz, memory clock %.0f MHz", d.clock_khz / 1e3, d.mem_clock_khz / 1e3);
    ImGui::Text("FP32 peak %.1f TFLOP/s, DRAM peak %.0f GB/s (theoretical)", peak_fp32_gflops(d) / 1e3,
                peak_dram_gbs(d));
    ImGui::Text("max %lld threads/block, %d threads/SM, %d regs/SM, %zu KiB smem/SM",
                static_cast<long long>(d.limits.max_threads_per_block), d.max_threads_per_sm, d.regs_per_sm,
                d.smem_per_sm / 1024);
    ImGui::Text("driver %s, runtime %s", version_string(d.driver_version).c_str(),
                version_string(d.runtime_version).c_str());
  }
  ImGui::Separator();
  ImGui::Text("GL: %s", path.gl_renderer.c_str());
  ImGui::TextDisabled("%s, %s", path.gl_version.c_str(), path.gl_platform.c_str());
  ImGui::Text("render path: %s", path.path.c_str());
  ImGui::TextWrapped("%s", path.reason.c_str());
}

void draw_path_overlay(const PathView& path) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float pad = 8.0f;
  // Top-left, just under the field window's title bar.
  ImGui::SetNextWindowPos(ImVec2(vp->Pos.x + pad, vp->Pos.y + 2 * ImGui::GetFrameHeight() + pad),
                          ImGuiCond_Always);
  ImGui::SetNextWindowBgAlpha(0.65f);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                 ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoMove;
  if (ImGui::Begin("##path_overlay", nullptr, flags)) {
    ImGui::Text("path: %s   %.0f fps", path.path.c_str(), path.fps);
    // Wrapped, so a long reason does not cover the lab's view.
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 26.0f);
    ImGui::TextDisabled("%s", path.reason.c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::End();
}

}  // namespace bs::ui
