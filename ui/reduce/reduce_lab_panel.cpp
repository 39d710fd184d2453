// reduce_lab_panel.cpp: see reduce_lab_panel.h. The controls (problem, ladder, runs, results) and the ladder
// figure; the pictures (reduction tree, scan steps, ladder chart) are in reduce_views.cpp.
#include "ui/reduce/reduce_lab_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/readout.h"
#include "core/param_binding.h"
#include "ui/reduce/reduce_schema.h"
#include "ui/widgets.h"

namespace bs::ui {

namespace red = reduce;
namespace rm = reduce_model;

// Every parameter at the schema's default, through its binding.
ReducePanelModel::ReducePanelModel() {
  const params::Schema& s = reduce_schema();
  params::load_bound(s, *this, s.defaults());
  params = params_of(*this);
}

namespace {

// Ladder order: GPU rows by rung (CUB last among them, as in the ladder), then CPU rows.
int row_order(const red::Row& r) {
  if (!r.gpu) return 1000 + (r.name == "cpu-all" ? 1 : 0);
  if (auto v = red::k_reduce_variant_names.parse(r.name)) return red::rung(*v);
  if (auto v = red::k_scan_variant_names.parse(r.name)) return red::rung(*v);
  return 500;
}

}  // namespace

void merge_rows(std::vector<red::Row>& rows, const std::vector<red::Row>& fresh) {
  for (const red::Row& f : fresh) {
    auto it = std::find_if(rows.begin(), rows.end(),
                           [&](const red::Row& r) { return r.name == f.name && r.gpu == f.gpu; });
    if (it != rows.end())
      *it = f;
    else
      rows.push_back(f);
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const red::Row& a, const red::Row& b) { return row_order(a) < row_order(b); });
}

uint32_t row_rgba(const red::Row& r) {
  constexpr uint32_t k_gpu_rgba = 0xf0a040ffu, k_cub_rgba = 0x5aa0ffffu, k_cpu_rgba = 0x9a9aaaffu;
  const bool cub = r.gpu && r.name == "cub";
  return cub ? k_cub_rgba : r.gpu ? k_gpu_rgba : k_cpu_rgba;
}

fig::Figure ladder_figure(const std::vector<red::Row>& rows, const std::optional<red::CopyKernel>& copy,
                          const std::string& problem, const std::string& gpu_name) {
  fig::Figure f;
  f.kind = fig::Kind::Bars;
  f.title = problem + ": GB/s per variant";
  f.subtitle = (gpu_name.empty() ? std::string("CPU only") : gpu_name) +
               "; median, whisker p10-p90; orange GPU kernels, blue CUB, grey CPU";
  if (copy && copy->gbs > 0)
    f.subtitle += "; copy kernel " + std::to_string(static_cast<int>(std::lround(copy->gbs))) + " GB/s";
  f.y_label = "GB/s";
  for (const red::Row& r : rows) {
    // GB/s is bytes / time: the slow run (p90) gives the low end of the whisker.
    const double bytes_ms = r.gbs * r.ms.median;
    const double lo = r.ms.p90 > 0 ? bytes_ms / r.ms.p90 : r.gbs;
    const double hi = r.ms.p10 > 0 ? bytes_ms / r.ms.p10 : r.gbs;
    f.bars.push_back({r.variant, r.gbs, lo, hi, row_rgba(r)});
  }
  return f;
}

// --- Panel -------------------------------------------------------------------------------------------------

namespace {

void problem_section(ReducePanelModel& m, ReducePanelActions& a) {
  bool changed = false;
  const float fs = ImGui::GetFontSize();
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("op  ");
  same_line_if_fits(labelled_width(ImGui::GetFrameHeight(), "reduce (one sum)"));
  changed |= ImGui::RadioButton("reduce (one sum)", &m.op, static_cast<int>(red::Op::Reduce));
  same_line_if_fits(labelled_width(ImGui::GetFrameHeight(), "scan (prefix sums)"));
  changed |= ImGui::RadioButton("scan (prefix sums)", &m.op, static_cast<int>(red::Op::Scan));
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("type");
  same_line_if_fits(labelled_width(ImGui::GetFrameHeight(), "float"));
  changed |= ImGui::RadioButton("float", &m.type, static_cast<int>(red::ElemType::F32));
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "checked against a double reference within lambda sqrt(depth) u (see the results' tooltip)");
  same_line_if_fits(labelled_width(ImGui::GetFrameHeight(), "int (checked exactly)"));
  changed |= ImGui::RadioButton("int (checked exactly)", &m.type, static_cast<int>(red::ElemType::I32));
  if (m.op == static_cast<int>(red::Op::Scan)) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("scan");
    same_line_if_fits(labelled_width(ImGui::GetFrameHeight(), "inclusive"));
    changed |= ImGui::RadioButton("inclusive", &m.scan_kind, static_cast<int>(red::ScanKind::Inclusive));
    same_line_if_fits(labelled_width(ImGui::GetFrameHeight(), "exclusive"));
    changed |= ImGui::RadioButton("exclusive", &m.scan_kind, static_cast<int>(red::ScanKind::Exclusive));
  }
  ImGui::SetNextItemWidth(fs * 6);
  changed |= input_text_on_commit("n", m.n_text, sizeof m.n_text);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("elements; K, M, G = 1024, 1024^2, 1024^3 (e.g. 1000, 16M, 256M)");
  for (const char* s : {"1", "1000", "1M", "16M", "256M"}) {
    ImGui::SameLine();
    if (ImGui::SmallButton(s)) {
      std::snprintf(m.n_text, sizeof m.n_text, "%s", s);
      changed = true;
    }
  }
  error_text(m.n_error);
  advice_text(m.memory_note);
  ImGui::SetNextItemWidth(fs * 6);
  if (ImGui::BeginCombo("threads per block", std::to_string(m.block).c_str())) {
    for (int b = red::k_min_block; b <= red::k_max_block; b *= 2)
      if (ImGui::Selectable(std::to_string(b).c_str(), b == m.block)) {
        m.block = b;
        changed = true;
      }
    ImGui::EndCombo();
  }
  if (changed) a.params_changed = true;
}

void variant_section(ReducePanelModel& m, ReducePanelActions& a) {
  const bool scan = m.op == static_cast<int>(red::Op::Scan);
  int& sel = scan ? m.scan_variant : m.reduce_variant;
  const size_t count = scan ? red::k_scan_variant_names.size() : red::k_reduce_variant_names.size();
  bool changed = false;
  for (size_t i = 0; i < count; ++i) {
    const int v = static_cast<int>(i);
    const std::string name = scan ? std::string(red::k_scan_variant_names.names()[i])
                                  : std::string(red::k_reduce_variant_names.names()[i]);
    const int rung =
        scan ? red::rung(static_cast<red::ScanVariant>(v)) : red::rung(static_cast<red::ReduceVariant>(v));
    const char* desc = scan ? red::description(static_cast<red::ScanVariant>(v))
                            : red::description(static_cast<red::ReduceVariant>(v));
    char label[96];
    std::snprintf(label, sizeof label, "%2d  %s", rung, name.c_str());
    if (ImGui::Selectable(label, sel == v)) {
      sel = v;
      changed = true;
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", desc);
    if (sel == v) {
      ImGui::Indent(ImGui::GetFontSize() * 1.5f);
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      ImGui::TextWrapped("%s", desc);
      ImGui::PopStyleColor();
      ImGui::Unindent(ImGui::GetFontSize() * 1.5f);
    }
  }
  error_text(m.param_error);
  dim_text(m.occupancy_text);
  if (changed) a.params_changed = true;
}

void run_section(ReducePanelModel& m, ReducePanelActions& a) {
  dim_text(m.compute_label);
  const bool bad = !m.n_error.empty() || !m.param_error.empty();
  ImGui::BeginDisabled(m.running || !m.gpu || bad);
  if (ImGui::Button("Run this variant (GPU)")) a.run_gpu = true;
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip(
        "the selected variant, with CUB and the copy kernel in the same run for the percentages");
  ImGui::EndDisabled();
  same_line_if_fits(button_width("Run CPU baselines"));
  ImGui::BeginDisabled(m.running || bad);
  if (ImGui::Button("Run CPU baselines")) a.run_cpu = true;
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("%s and %s on the same inputs", red::cpu_mode_label(red::CpuMode::OneThread),
                      red::cpu_mode_label(red::CpuMode::AllThreads));
  if (ImGui::Button("Run the whole ladder")) a.run_ladder = true;
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip(
        "every variant of the ladder (GPU: with CUB and the copy kernel), and the CPU baselines when "
        "the devices say so");
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("on");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 4.5f);
  const auto devices = red::k_device_names.names();
  if (ImGui::BeginCombo("##device", std::string(devices[static_cast<size_t>(m.device)]).c_str())) {
    for (size_t i = 0; i < devices.size(); ++i)
      if (ImGui::Selectable(std::string(devices[i]).c_str(), static_cast<int>(i) == m.device))
        m.device = static_cast<int>(i);
    ImGui::EndCombo();
  }
  if (!m.gpu) advice_text("GPU runs need a CUDA device: " + m.gpu_missing);
  if (m.running) {
    ImGui::ProgressBar(static_cast<float>(m.progress), ImVec2(-ImGui::GetFontSize() * 5, 0), m.stage.c_str());
    same_line_if_fits(button_width("Cancel"));
    if (ImGui::Button("Cancel")) a.cancel = true;
  }
  error_text(m.status);
}

void results_section(ReducePanelModel& m, ReducePanelActions& a) {
  if (m.rows.empty()) {
    ImGui::TextDisabled("no runs yet at these settings");
    return;
  }
  ImGui::TextDisabled("%s", m.rows_problem.c_str());
  same_line_if_fits(button_width("clear"));
  if (ImGui::SmallButton("clear")) a.clear = true;
  if (m.copy && m.copy->gbs > 0)
    dim_text(fmt_double("copy kernel: %.0f GB/s", m.copy->gbs) + " (" + red::format_count(m.copy->n) +
             " elements read and written, median)");
  const ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (ImGui::BeginTable("reduce_rows", 7, flags)) {
    ImGui::PushTextWrapPos(
        0.0f);  // cells wrap in their column (stretch columns share the width: no feedback)
    ImGui::TableSetupColumn("variant", ImGuiTableColumnFlags_WidthStretch);
    for (const char* c : {"time", "GB/s", "% copy", "% CUB", "error", "check"})
      ImGui::TableSetupColumn(c);
    ImGui::TableHeadersRow();
    for (const red::Row& r : m.rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(rgba_u32(row_rgba(r))));
      ImGui::TextUnformatted(r.variant.c_str());
      ImGui::PopStyleColor();
      if (ImGui::IsItemHovered()) {
        std::string tip = r.variant;
        if (!r.plan.text.empty()) tip += "\n" + r.plan.text;
        tip += "\nmedian of " + std::to_string(r.repetitions) + " runs, p10 " + format_ms(r.ms.p10) +
               ", p90 " + format_ms(r.ms.p90);
        tip += "\ncheck: " + r.check.text;
        if (!r.note.empty()) tip += "\n" + r.note;
        ImGui::SetTooltip("%s", tip.c_str());
      }
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_ms(r.ms.median).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%.1f", r.gbs);
      ImGui::TableNextColumn();
      if (r.copy_pct > 0)
        ImGui::Text("%.0f%%", r.copy_pct);
      else
        ImGui::TextDisabled("-");
      ImGui::TableNextColumn();
      if (r.cub_pct > 0)
        ImGui::Text("%.0f%%", r.cub_pct);
      else
        ImGui::TextDisabled("-");
      ImGui::TableNextColumn();
      if (r.check.tolerance > 0)
        ImGui::Text("%.1e", r.check.max_err);
      else if (r.check.mismatches > 0)
        ImGui::Text("%lld wrong", static_cast<long long>(r.check.mismatches));
      else
        ImGui::TextUnformatted(r.check.passed ? "exact" : "wrong");
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.check.text.c_str());
      ImGui::TableNextColumn();
      if (r.check.passed)
        wrapped_text("pass", light_theme() ? ImVec4(0.1f, 0.5f, 0.1f, 1) : ImVec4(0.45f, 0.9f, 0.45f, 1));
      else
        error_text("FAIL");
    }
    ImGui::PopTextWrapPos();
    ImGui::EndTable();
  }
  for (const std::string& s : m.skipped)
    dim_text("skipped: " + s);
}

}  // namespace

void draw_reduce_panel(ReducePanelModel& m, ReducePanelActions& a) {
  if (ImGui::CollapsingHeader("Problem", ImGuiTreeNodeFlags_DefaultOpen)) problem_section(m, a);
  const char* ladder = m.op == static_cast<int>(red::Op::Scan) ? "Scan ladder" : "Reduction ladder";
  if (ImGui::CollapsingHeader(ladder, ImGuiTreeNodeFlags_DefaultOpen)) variant_section(m, a);
  if (ImGui::CollapsingHeader("Runs", ImGuiTreeNodeFlags_DefaultOpen)) run_section(m, a);
  if (ImGui::CollapsingHeader("Results (CUDA events / host clock, median)", ImGuiTreeNodeFlags_DefaultOpen))
    results_section(m, a);
}

}  // namespace bs::ui
