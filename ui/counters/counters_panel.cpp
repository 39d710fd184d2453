// counters_panel.cpp: see counters_panel.h.
#include "ui/counters/counters_panel.h"

#include <imgui.h>

#include <cmath>
#include <cstdio>

#include "ui/widgets.h"

namespace bs::ui {

const char* counters_replay_text() {
  return "Counters replay the kernel (one run per counter pass, each from a cold L2): collected apart from "
         "the timed runs and never part of a timing. The live lab pauses while they are collected.";
}

void draw_counters_panel(const CountersPanelModel& m, CountersPanelActions& a) {
  ImGui::TextWrapped("Run: %s", m.target.c_str());
  ImGui::BeginDisabled(!m.can_collect || m.running);
  if (ImGui::Button("Collect counters")) a.collect = true;
  ImGui::EndDisabled();
  if (m.running) {
    ImGui::SameLine();
    // CUPTI reports no progress between passes: an indeterminate bar with the elapsed time.
    char label[64];
    std::snprintf(label, sizeof label, "collecting (kernel replay) %.1f s", m.elapsed_s);
    ImGui::ProgressBar(static_cast<float>(std::fmod(m.elapsed_s * 0.5, 1.0)), ImVec2(-1, 0), label);
  }
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("%s", counters_replay_text());
  ImGui::PopStyleColor();
  if (!m.status.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, tone_colour(Tone::Warning));
    ImGui::TextWrapped("%s", m.status.c_str());
    ImGui::PopStyleColor();
  }
  if (!m.info.empty()) ImGui::TextUnformatted(m.info.c_str());
  if (ImGui::BeginTable("##counters", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
    ImGui::TableSetupColumn("counter", ImGuiTableColumnFlags_WidthStretch, 1.6f);
    ImGui::TableSetupColumn("measured", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableSetupColumn("model", ImGuiTableColumnFlags_WidthStretch, 1.6f);
    ImGui::TableSetupColumn("simulator", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableHeadersRow();
    for (const CounterRow& r : m.rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.metric.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.measured.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.model.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.simulated.c_str());
    }
    ImGui::EndTable();
  }
  if (!m.stalls.empty()) {
    ImGui::TextUnformatted("Top stall reasons (cycles per issued instruction):");
    for (const auto& s : m.stalls)
      ImGui::BulletText("%s", s.c_str());
  }
}

}  // namespace bs::ui
