// device_panel.cpp: see device_panel.h.
#include "ui/device_panel.h"

#include <imgui.h>

#include <cstdio>

#include "ui/widgets.h"

namespace bs::ui {

void draw_device_panel(const DeviceInfo& d, const PathView& path) {
  if (!d.available) {
    ImGui::PushStyleColor(ImGuiCol_Text, tone_colour(Tone::Warning));
    ImGui::TextWrapped("no CUDA device: %s", d.reason.c_str());
    ImGui::PopStyleColor();
    ImGui::TextWrapped("Everything runs on the CPU. Timings are CPU timings.");
  } else {
    // Wrapped: the Device window is as narrow as the lab's panel.
    ImGui::PushTextWrapPos(0.0f);
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
    ImGui::PopTextWrapPos();
  }
  ImGui::Separator();
  ImGui::TextWrapped("GL: %s", path.gl_renderer.c_str());
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled("%s, %s", path.gl_version.c_str(), path.gl_platform.c_str());
  ImGui::PopTextWrapPos();
  ImGui::Text("render path: %s", path.path.c_str());
  ImGui::TextWrapped("%s", path.reason.c_str());
}

float path_status_min_width(const PathView& path) {
  return ImGui::CalcTextSize(path.path.c_str()).x + ImGui::GetStyle().ItemSpacing.x * 2;
}

float draw_path_status(const PathView& path, float right) {
  char forms[3][160];
  std::snprintf(forms[0], sizeof forms[0], "path: %s   %.0f fps", path.path.c_str(),
                static_cast<double>(path.fps));
  std::snprintf(forms[1], sizeof forms[1], "path: %s", path.path.c_str());
  std::snprintf(forms[2], sizeof forms[2], "%s", path.path.c_str());
  const float pad = ImGui::GetStyle().ItemSpacing.x;
  const float left = ImGui::GetCursorScreenPos().x + pad;
  for (const char* text : forms) {
    const float w = ImGui::CalcTextSize(text).x;
    if (right - pad - w < left) continue;
    ImGui::SetCursorScreenPos(ImVec2(right - pad - w, ImGui::GetCursorScreenPos().y));
    ImGui::TextUnformatted(text);
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
      ImGui::Text("render path: %s", path.path.c_str());
      ImGui::TextUnformatted(path.reason.c_str());
      ImGui::PopTextWrapPos();
      ImGui::EndTooltip();
    }
    return w + pad * 2;
  }
  return 0;
}

}  // namespace bs::ui
