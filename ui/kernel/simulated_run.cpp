// simulated_run.cpp: see simulated_run.h.
#include "ui/kernel/simulated_run.h"

#include <imgui.h>

#include <algorithm>

namespace bs::ui {

namespace {
const ImVec4 k_good(0.45f, 0.85f, 0.45f, 1.0f), k_bad(1.0f, 0.42f, 0.38f, 1.0f), k_warn(1.0f, 0.75f, 0.3f, 1.0f);

void draw_list(const char* title, const std::vector<std::string>& lines, uint64_t total, size_t max_lines,
               const ImVec4& colour) {
  if (lines.empty()) return;
  ImGui::TextUnformatted(title);
  for (size_t i = 0; i < std::min(lines.size(), max_lines); ++i)
    ImGui::TextColored(colour, "  %s", lines[i].c_str());
  if (total > std::min<uint64_t>(lines.size(), max_lines))
    ImGui::TextDisabled("  ... %llu in all", static_cast<unsigned long long>(total));
}
// "Check on the GPU" and compute-sanitizer's report beside the simulator's.
void draw_gpu_check(const SimulatedRunView& v, SimulatedRunActions& a) {
  ImGui::BeginDisabled(!v.gpu_check_enabled || v.gpu_check_running);
  if (ImGui::Button("Check on the GPU##simulated")) {
    a.gpu_check = true;
    if (v.gpu_check_clicked) *v.gpu_check_clicked = true;
  }
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (v.gpu_check_running)
    ImGui::TextDisabled("compute-sanitizer is running your kernel...");
  else if (!v.gpu_check_enabled)
    ImGui::TextDisabled("%s", v.gpu_check_reason.c_str());
  else
    ImGui::TextDisabled("runs it under compute-sanitizer (memcheck) in a child process");
  if (!v.gpu_summary.empty()) {
    ImGui::TextUnformatted("On the GPU (compute-sanitizer):");
    ImGui::TextColored(v.gpu_clean ? k_good : k_bad, "%s", v.gpu_summary.c_str());
  }
  if (!v.gpu_report.empty() && ImGui::TreeNode("compute-sanitizer's report##simulated")) {
    ImGui::BeginChild("##gpu_report", ImVec2(0, 180), true, ImGuiWindowFlags_HorizontalScrollbar);
    ImGui::TextUnformatted(v.gpu_report.c_str());
    ImGui::EndChild();
    ImGui::TreePop();
  }
}
}  // namespace

void draw_simulated_run(const SimulatedRunView& v, SimulatedRunActions& a, size_t max_lines) {
  if (v.running) {
    ImGui::ProgressBar(static_cast<float>(v.progress), ImVec2(200, 0), "simulating...");
    ImGui::SameLine();
    if (ImGui::SmallButton("Cancel##simulated")) a.cancel = true;
  }
  if (!v.status.empty()) ImGui::TextColored(k_warn, "%s", v.status.c_str());
  if (!v.has) return;
  ImGui::TextWrapped("%s", v.label.c_str());
  if (!v.note.empty()) ImGui::TextDisabled("%s", v.note.c_str());
  ImGui::TextColored(v.passed ? k_good : k_bad, "%s", v.verdict.c_str());
  if (!v.check.empty()) {
    ImGui::SameLine();
    ImGui::TextWrapped("%s", v.check.c_str());
  }
  if (!v.failure.empty()) ImGui::TextColored(k_bad, "%s", v.failure.c_str());
  draw_list("The simulator found:", v.diagnostics, v.diagnostics.size(), max_lines, k_warn);
  draw_list("Output elements concerned:", v.problems, v.problem_count, max_lines, k_bad);
  if (!v.problem_note.empty()) ImGui::TextDisabled("%s", v.problem_note.c_str());
  if (!v.summary.empty()) ImGui::TextDisabled("%s", v.summary.c_str());
  draw_gpu_check(v, a);
}

}  // namespace bs::ui
