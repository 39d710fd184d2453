// sweep_panel.cpp: see sweep_panel.h. Layout: the setup on the left (a fixed-width column), the figure on the
// right, filling the window.
#include "ui/sweep/sweep_panel.h"

#include <imgui.h>

#include <cstdio>

#include "ui/figure_view.h"
#include "ui/widgets.h"

namespace bs::ui {

namespace {

std::string eta_text(double s) {
  char buf[64];
  if (s < 0) return "ETA: estimating...";
  if (s < 90)
    std::snprintf(buf, sizeof buf, "ETA: %.0f s", s);
  else if (s < 5400)
    std::snprintf(buf, sizeof buf, "ETA: %.1f min", s / 60);
  else
    std::snprintf(buf, sizeof buf, "ETA: %.1f h", s / 3600);
  return buf;
}

// A combo over the lab's parameters; `allow_none` adds "(none)" as -1.
bool param_combo(const char* label, int* index, const std::vector<SweepParamChoice>& params,
                 bool allow_none) {
  const char* preview = *index >= 0 && *index < static_cast<int>(params.size())
                            ? params[static_cast<size_t>(*index)].name.c_str()
                            : "(none)";
  bool changed = false;
  if (ImGui::BeginCombo(label, preview)) {
    if (allow_none && ImGui::Selectable("(none)", *index < 0)) {
      *index = -1;
      changed = true;
    }
    for (size_t i = 0; i < params.size(); ++i) {
      if (ImGui::Selectable(params[i].name.c_str(), *index == static_cast<int>(i))) {
        changed = *index != static_cast<int>(i);
        *index = static_cast<int>(i);
      }
      if (ImGui::IsItemHovered() && !params[i].help.empty()) ImGui::SetTooltip("%s", params[i].help.c_str());
    }
    ImGui::EndCombo();
  }
  return changed;
}

void setup_column(SweepPanelModel& m, SweepPanelActions& a) {
  const bool locked = m.running;
  if (locked) ImGui::BeginDisabled();
  section_title("What to sweep");
  ImGui::SetNextItemWidth(-1);
  if (ImGui::BeginCombo("##lab", m.lab >= 0 && m.lab < static_cast<int>(m.labs.size())
                                     ? m.labs[static_cast<size_t>(m.lab)].c_str()
                                     : "")) {
    for (size_t i = 0; i < m.labs.size(); ++i)
      if (ImGui::Selectable(m.labs[i].c_str(), m.lab == static_cast<int>(i)) &&
          m.lab != static_cast<int>(i)) {
        m.lab = static_cast<int>(i);
        a.lab_changed = true;
      }
    ImGui::EndCombo();
  }
  for (int k = 0; k < 2; ++k) {
    ImGui::PushID(k);
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.45f);
    if (param_combo(k == 0 ? "parameter" : "second (optional)", &m.param[k], m.params, k == 1))
      a.param_changed[k] = true;
    if (m.param[k] >= 0) {
      ImGui::SetNextItemWidth(-1);
      ImGui::InputText("##values", m.values[k], sizeof m.values[k]);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Comma-separated values, or a doubling range like 2^10..2^20 or 1K..1M");
    }
    ImGui::PopID();
  }
  ImGui::TextDisabled("fixed parameters (NAME=VALUE, ...)");
  ImGui::SetNextItemWidth(-1);
  ImGui::InputText("##fixed", m.fixed, sizeof m.fixed);
  if (ImGui::IsItemHovered()) {
    std::string all;
    for (const auto& p : m.params)
      all += p.name + ": " + p.help + "\n";
    ImGui::SetTooltip("%s", all.c_str());
  }

  section_title("Timing");
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.45f);
  ImGui::InputInt("repetitions", &m.repetitions);
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.45f);
  ImGui::InputInt("warm-up runs", &m.warmup);
  ImGui::TextUnformatted("device");
  ImGui::SameLine();
  ImGui::RadioButton("all", &m.device, 0);
  ImGui::SameLine();
  ImGui::RadioButton("GPU", &m.device, 1);
  ImGui::SameLine();
  ImGui::RadioButton("CPU", &m.device, 2);
  ImGui::SameLine();
  ImGui::RadioButton("auto", &m.device, 3);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("The GPU series where a GPU exists, else the CPU series");
  if (!m.gpu_available && m.device == 1)
    error_text("No GPU here (" + m.gpu_reason + "): device GPU cannot run; choose auto or CPU.");
  else if (!m.gpu_available && m.device != 2)
    advice_text("No GPU here (" + m.gpu_reason + "): this sweep runs on the CPU.");
  if (locked) ImGui::EndDisabled();

  ImGui::Spacing();
  if (!m.confirm.empty() && !m.running) {
    advice_text(m.confirm);
    const float half = (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x) / 2;
    if (ImGui::Button("Run anyway", ImVec2(half, 0))) a.confirm_run = true;
    ImGui::SameLine();
    if (ImGui::Button("Don't run", ImVec2(half, 0))) a.confirm_drop = true;
  } else if (!m.running) {
    if (ImGui::Button("Run sweep", ImVec2(-1, 0))) a.run = true;
  } else {
    ImGui::ProgressBar(static_cast<float>(m.progress), ImVec2(-1, 0), eta_text(m.eta_s).c_str());
    if (ImGui::Button("Cancel", ImVec2(-1, 0))) a.cancel = true;
  }
  if (!m.progress_line.empty()) wrapped_text(m.progress_line, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  error_text(m.error);
  error_text(m.stopped);
  for (const std::string& n : m.notes)
    advice_text(n);

  section_title("Figure");
  if (ImGui::RadioButton("time", &m.metric, 0)) a.figure_changed = true;
  ImGui::SameLine();
  if (ImGui::RadioButton("throughput", &m.metric, 1)) a.figure_changed = true;
  ImGui::SameLine();
  if (ImGui::RadioButton("roofline", &m.metric, 2)) a.figure_changed = true;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "every series at every point at its model intensity (FLOP per DRAM byte) under the "
        "ceilings measured on this machine");
  error_text(m.figure_message);
  if (ImGui::Checkbox("automatic axes", &m.auto_axes)) a.figure_changed = true;
  if (!m.auto_axes) {
    ImGui::SameLine();
    if (ImGui::Checkbox("log x", &m.log_x)) a.figure_changed = true;
    ImGui::SameLine();
    if (ImGui::Checkbox("log y", &m.log_y)) a.figure_changed = true;
  }

  section_title("Export");
  ImGui::TextDisabled("directory");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("record.json is written next to every export");
  ImGui::SetNextItemWidth(-1);
  ImGui::InputText("##outdir", m.out_dir, sizeof m.out_dir);
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.45f);
  ImGui::InputInt2("PNG px", m.png_size);
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.45f);
  ImGui::SliderFloat("PNG scale", &m.png_scale, 0.5f, 4.0f, "%.1fx");
  if (!m.has_result) ImGui::BeginDisabled();
  const float w = (ImGui::GetContentRegionAvail().x - 3 * ImGui::GetStyle().ItemSpacing.x) / 4;
  if (ImGui::Button("CSV", ImVec2(w, 0))) a.export_csv = true;
  ImGui::SameLine();
  if (ImGui::Button("JSON", ImVec2(w, 0))) a.export_json = true;
  ImGui::SameLine();
  if (ImGui::Button("SVG", ImVec2(w, 0))) a.export_svg = true;
  ImGui::SameLine();
  if (ImGui::Button("PNG", ImVec2(w, 0))) a.export_png = true;
  if (!m.has_result) ImGui::EndDisabled();
  if (m.export_failed)
    error_text(m.export_message);
  else if (!m.export_message.empty())
    wrapped_text(m.export_message, tone_colour(Tone::Pass));
}

}  // namespace

void draw_sweep_panel(SweepPanelModel& m, SweepPanelActions& a) {
  const float left = 340.0f * ImGui::GetFontSize() / 13.0f;
  ImGui::BeginChild("setup", ImVec2(left, 0), false);
  setup_column(m, a);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("figure", ImVec2(0, 0), false);
  if (!m.result_label.empty()) ImGui::TextDisabled("%s", m.result_label.c_str());
  if (m.figure) {
    draw_figure("sweep_figure", ImVec2(0, 0), *m.figure);
  } else if (!m.figure_message.empty()) {
    ImGui::Spacing();
    ImGui::TextWrapped("%s", m.figure_message.c_str());
  } else {
    ImGui::Spacing();
    ImGui::TextWrapped(
        "Choose a parameter and its values, then Run. Every point runs the warm-up, then the repetitions; "
        "the "
        "figure shows the median with a p10-p90 band, and every raw sample goes into the CSV and JSON.");
  }
  ImGui::EndChild();
}

}  // namespace bs::ui
