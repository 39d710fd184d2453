// reduce_lab_panel.cpp: see reduce_lab_panel.h.
#include "ui/reduce/reduce_lab_panel.h"

#include <imgui.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "ui/plot_export.h"
#include "ui/reduce/reduce_schema.h"
#include "ui/widgets.h"

namespace bs::ui {

namespace red = reduce;
namespace rm = reduce_model;

ReducePanelModel::ReducePanelModel() {
  const params::Schema& s = reduce_schema();
  op = s.at("op").default_choice();
  type = s.at("type").default_choice();
  reduce_variant = s.at("reduce_variant").default_choice();
  scan_variant = s.at("scan_variant").default_choice();
  scan_kind = s.at("scan_kind").default_choice();
  block = static_cast<int>(s.at("block").default_int());
  device = s.at("device").default_choice();
  std::snprintf(n_text, sizeof n_text, "%s", s.at("n").default_value.get<std::string>().c_str());
  params = params_from_state(nlohmann::json::object());
}

// --- Pure helpers ------------------------------------------------------------------------------------------

std::optional<rm::Tree> tree_of(red::ReduceVariant v) {
  using V = red::ReduceVariant;
  switch (v) {
    case V::InterleavedDivergent:
      return rm::Tree::InterleavedDivergent;
    case V::InterleavedBankConflicts:
      return rm::Tree::InterleavedStrided;
    case V::Sequential:
    case V::FirstAddDuringLoad:
      return rm::Tree::Sequential;
    case V::UnrollLastWarp:
    case V::CompleteUnroll:
    case V::GridStride:
      return rm::Tree::SequentialLastWarp;
    case V::WarpShuffle:
    case V::AtomicPerBlock:
      return rm::Tree::Shuffle;
    case V::Cub:
      return std::nullopt;
  }
  return std::nullopt;
}

rm::LoadPhase load_of(red::ReduceVariant v) {
  using V = red::ReduceVariant;
  rm::LoadPhase l;
  if (v == V::FirstAddDuringLoad || v == V::UnrollLastWarp || v == V::CompleteUnroll)
    l.elements_per_thread = 2;
  if (v == V::GridStride || v == V::WarpShuffle || v == V::AtomicPerBlock) {
    l.grid_stride = true;
    l.elements_per_thread = 0;  // as many as the grid leaves each thread
  }
  l.atomic_result = v == V::AtomicPerBlock;
  return l;
}

rm::ScanAlgo scan_algo_of(red::ScanVariant v) {
  return v == red::ScanVariant::BlellochBlock ? rm::ScanAlgo::Blelloch : rm::ScanAlgo::HillisSteele;
}

const char* scan_view_note(red::ScanVariant v) {
  switch (v) {
    case red::ScanVariant::HillisSteeleBlock:
    case red::ScanVariant::BlellochBlock:
      return "";
    case red::ScanVariant::ScanThenPropagate:
      return "scan-then-propagate scans tiles of block x 32 elements: each thread scans its 32 in registers, "
             "the "
             "threads' totals go through __shfl_up_sync inside each warp (the Hillis-Steele steps drawn "
             "here, on "
             "32 lanes), then the warps' totals the same way; a second kernel scans the tile sums, a third "
             "adds "
             "each tile's offset";
    case red::ScanVariant::DecoupledLookback:
      return "decoupled-lookback scans each tile as scan-then-propagate does (per-thread scans, then the "
             "Hillis-Steele shuffle steps drawn here on 32 lanes), publishes the tile's sum at once and "
             "looks back "
             "at its predecessors' published sums for its prefix: one pass, 2 arrays moved";
    case red::ScanVariant::Cub:
      return "cub::DeviceScan picks its own tiles (a single-pass look-back scan; its inside is not drawn): "
             "the "
             "steps below are the Hillis-Steele warp scan the hand-written tile scans use";
  }
  return "";
}

std::vector<double> scan_demo_values(int n) {
  static constexpr double k_textbook[8] = {3, 1, 7, 0, 4, 1, 6, 3};
  std::vector<double> v(static_cast<size_t>(std::max(n, 0)));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = i < 8 ? k_textbook[i] : static_cast<double>((i * 7 + 3) % 10);
  return v;
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

std::string format_ms(double ms) {
  char buf[48];
  if (ms < 0.1)
    std::snprintf(buf, sizeof buf, "%.1f us", ms * 1000.0);
  else if (ms < 10)
    std::snprintf(buf, sizeof buf, "%.3f ms", ms);
  else
    std::snprintf(buf, sizeof buf, "%.1f ms", ms);
  return buf;
}

namespace {

constexpr uint32_t k_gpu_rgba = 0xf0a040ffu;
constexpr uint32_t k_cub_rgba = 0x5aa0ffffu;
constexpr uint32_t k_cpu_rgba = 0x9a9aaaffu;

bool is_cub(const red::Row& r) {
  return r.gpu && r.name == "cub";
}
uint32_t row_rgba(const red::Row& r) {
  return is_cub(r) ? k_cub_rgba : r.gpu ? k_gpu_rgba : k_cpu_rgba;
}
ImU32 im_col(uint32_t rgba, int alpha = -1) {
  return IM_COL32(rgba >> 24 & 0xff, rgba >> 16 & 0xff, rgba >> 8 & 0xff, alpha < 0 ? (rgba & 0xff) : alpha);
}

// The GB/s the rows' "% of copy" refers to (the copy kernel of the same run), from any GPU row that has it.
double copy_reference_gbs(const std::vector<red::Row>& rows) {
  for (const red::Row& r : rows)
    if (r.gpu && r.copy_pct > 0 && r.gbs > 0) return r.gbs * 100.0 / r.copy_pct;
  return 0;
}

}  // namespace

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

// Dim text that wraps at the window's edge.
void dim(const std::string& text) {
  wrapped_text(text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

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
  wrapped_text(m.occupancy_text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  if (changed) a.params_changed = true;
}

void run_section(ReducePanelModel& m, ReducePanelActions& a) {
  wrapped_text(m.compute_label, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
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
    dim(fmt("copy kernel: %.0f GB/s", m.copy->gbs) + " (" + red::format_count(m.copy->n) +
        " elements read and written, median)");
  const ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (ImGui::BeginTable("reduce_rows", 7, flags)) {
    ImGui::PushTextWrapPos(0.0f);  // cells wrap in their column (stretch columns share the width: no feedback)
    ImGui::TableSetupColumn("variant", ImGuiTableColumnFlags_WidthStretch);
    for (const char* c : {"time", "GB/s", "% copy", "% CUB", "error", "check"})
      ImGui::TableSetupColumn(c);
    ImGui::TableHeadersRow();
    for (const red::Row& r : m.rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(im_col(row_rgba(r))));
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
    dim("skipped: " + s);
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

// --- Views -------------------------------------------------------------------------------------------------

namespace {

struct TreeColours {
  ImU32 useful, executes, idle_lane, idle_warp, divergent_edge, sync, text_dim;
};
TreeColours tree_colours() {
  const bool light = light_theme();
  return {IM_COL32(240, 150, 40, 255),
          light ? IM_COL32(240, 205, 150, 255) : IM_COL32(140, 95, 45, 255),
          light ? IM_COL32(235, 120, 120, 255) : IM_COL32(170, 50, 55, 255),
          light ? IM_COL32(215, 215, 222, 255) : IM_COL32(58, 58, 68, 255),
          light ? IM_COL32(200, 30, 30, 255) : IM_COL32(255, 90, 90, 255),
          light ? IM_COL32(40, 110, 200, 255) : IM_COL32(100, 170, 255, 255),
          ImGui::GetColorU32(ImGuiCol_TextDisabled)};
}

void legend_swatch(ImU32 col, const char* text, bool outline = false, ImU32 edge = 0) {
  const float h = ImGui::GetTextLineHeight();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(ImVec2(p.x, p.y + h * 0.15f), ImVec2(p.x + h * 0.9f, p.y + h * 0.85f), col);
  if (outline)
    dl->AddRect(ImVec2(p.x, p.y + h * 0.15f), ImVec2(p.x + h * 0.9f, p.y + h * 0.85f), edge, 0, 0, 2);
  ImGui::Dummy(ImVec2(h, h));
  ImGui::SameLine(0, h * 0.3f);
  ImGui::TextUnformatted(text);
}

std::string step_stats(const rm::ReduceStep& s) {
  std::string t = std::to_string(s.active_threads) + (s.active_threads == 1 ? " lane" : " lanes");
  if (s.useful_threads != s.active_threads) t += " (" + std::to_string(s.useful_threads) + " count)";
  if (s.idle_warps) t += ", " + std::to_string(s.idle_warps) + " idle";
  if (s.divergent_warps) t += ", " + std::to_string(s.divergent_warps) + " diverge";
  if (s.conflict_ways > 1) t += ", " + std::to_string(s.conflict_ways) + "-way";
  return t;
}

// The banks of the step's worst warp access: one column per bank, one box per distinct word the warp's lanes
// touch in it (stacked: an N-way conflict is a column N boxes tall, N shared-memory passes).
void draw_bank_picture(const rm::ReduceStep& s) {
  const rm::WarpStep* worst = nullptr;
  for (const rm::WarpStep& w : s.warps)
    if (w.active && (!worst || w.conflict_ways > worst->conflict_ways)) worst = &w;
  if (!worst) return;
  std::vector<int64_t> dst(worst->dst.begin(), worst->dst.end()), src(worst->src.begin(), worst->src.end());
  const bool use_src =
      rm::bank_conflict_ways(src, worst->active) >= rm::bank_conflict_ways(dst, worst->active);
  const auto cols = rm::bank_columns(use_src ? src : dst, worst->active);
  size_t tall = 1;
  for (const auto& c : cols)
    tall = std::max(tall, c.size());
  const int warp = static_cast<int>(worst - s.warps.data());
  ImGui::Separator();
  ImGui::Text("warp %d's %s: %zu-way (%s)", warp, use_src ? "reads of the partner word" : "writes", tall,
              tall > 1 ? "stacked boxes: words of one bank, served one after another" : "one word per bank");
  const float fs = ImGui::GetFontSize();
  const float cw = fs * 1.25f, ch = std::min(fs * 1.1f, fs * 12.0f / static_cast<float>(tall));
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const TreeColours c = tree_colours();
  const float base = p.y + ch * static_cast<float>(tall);
  for (int b = 0; b < rm::k_banks; ++b) {
    const float x0 = p.x + static_cast<float>(b) * cw;
    const auto& col = cols[static_cast<size_t>(b)];
    for (size_t k = 0; k < col.size(); ++k) {
      const float y1 = base - static_cast<float>(k) * ch, y0 = y1 - ch + 1;
      dl->AddRectFilled(ImVec2(x0, y0), ImVec2(x0 + cw - 1, y1), k == 0 ? c.useful : c.idle_lane);
      const std::string w = std::to_string(col[k]);
      const ImVec2 sz = ImGui::CalcTextSize(w.c_str());
      if (sz.x < cw - 1 && sz.y <= ch + 1)
        dl->AddText(ImVec2(x0 + 0.5f * (cw - 1 - sz.x), y0 + 0.5f * (ch - 1 - sz.y)),
                    IM_COL32(20, 20, 25, 255), w.c_str());
    }
    if (b % 4 == 0) dl->AddText(ImVec2(x0, base + 2), c.text_dim, std::to_string(b).c_str());
  }
  ImGui::Dummy(ImVec2(cw * rm::k_banks, ch * static_cast<float>(tall) + fs * 1.2f));
  ImGui::TextDisabled("banks 0..31 across; box = a 4-byte word (its index in shared memory)");
}

void draw_tree_view(ReducePanelModel& m) {
  const auto v = static_cast<red::ReduceVariant>(m.reduce_variant);
  const std::optional<rm::Tree> tree = tree_of(v);
  const std::string vname(red::k_reduce_variant_names.names()[static_cast<size_t>(m.reduce_variant)]);
  if (!tree) {
    ImGui::TextWrapped(
        "cub::DeviceReduce picks its own tiles, loads and warp/block reductions for this GPU (its inside is "
        "not "
        "drawn). Pick a hand-written rung to see its tree; CUB is the yardstick in the results.");
    return;
  }
  const int block = m.params.block;
  if (auto err = rm::check_block(*tree, block)) {
    advice_text(*err);
    return;
  }
  const rm::ReduceTree t = rm::build_tree(*tree, block, load_of(v));
  const TreeColours c = tree_colours();
  wrapped_text(vname + ": one block of " + std::to_string(block) + " threads = " + std::to_string(t.warps) +
                   " warps, " + std::to_string(t.steps.size()) + " steps, " + std::to_string(t.syncthreads) +
                   " __syncthreads()",
               ImGui::GetStyleColorVec4(ImGuiCol_Text));
  wrapped_text(t.note, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  {
    // The legend wraps at the window's edge (720p, presenter scale).
    const float fs0 = ImGui::GetFontSize(), room = ImGui::GetContentRegionAvail().x;
    float used = 0;
    auto item = [&](ImU32 col, const char* label, bool outline = false, ImU32 edge = 0) {
      const float w = ImGui::GetTextLineHeight() * 1.3f + ImGui::CalcTextSize(label).x;
      if (used > 0 && used + fs0 + w <= room) {
        ImGui::SameLine(0, fs0);
        used += fs0;
      } else {
        used = 0;
      }
      legend_swatch(col, label, outline, edge);
      used += w;
    };
    item(c.useful, "lane adds (result counts)");
    item(c.executes, "lane executes, result unused");
    item(c.idle_lane, "idle lane in a working warp");
    item(c.idle_warp, "idle warp");
    item(c.idle_warp, "divergent warp", true, c.divergent_edge);
  }
  const float fs = ImGui::GetFontSize();
  const float avail = ImGui::GetContentRegionAvail().x;
  const float label_w = fs * 4.2f;
  // The stats column as wide as its longest line (at most 45% of the width), the lanes take the rest.
  float stats_w = 0;
  for (const rm::ReduceStep& s : t.steps)
    stats_w = std::max(stats_w, ImGui::CalcTextSize(step_stats(s).c_str()).x);
  stats_w = std::min(stats_w + fs * 0.8f, avail * 0.45f);
  const float area_w = std::max(avail - label_w - stats_w, fs * 6);
  // Rows grow to fill the height left (a 1080p screen or a projector), from 1.15 to 2.5 text lines.
  const float footer = ImGui::GetFrameHeightWithSpacing() + ImGui::GetTextLineHeightWithSpacing() + fs * 1.6f;
  const float row_gap = fs * 0.35f;
  const float fill =
      (ImGui::GetContentRegionAvail().y - footer) / static_cast<float>(t.steps.size()) - row_gap;
  const float row_h = std::clamp(fill, std::max(fs * 1.15f, 10.0f), fs * 2.5f);
  const float warp_gap = area_w / static_cast<float>(t.warps) > 12 ? 2.0f : 1.0f;
  const float warp_w = area_w / static_cast<float>(t.warps);
  const float lane_w = (warp_w - warp_gap) / rm::k_warp;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  // Warp numbers above the first row where they fit.
  const float head_h = fs * 1.1f;
  {
    const int every = std::max(1, static_cast<int>(std::ceil(fs * 1.6f / warp_w)));
    for (int w = 0; w < t.warps; w += every) {
      const std::string s = "w" + std::to_string(w);
      dl->AddText(ImVec2(p0.x + label_w + static_cast<float>(w) * warp_w, p0.y), c.text_dim, s.c_str());
    }
  }
  float y = p0.y + head_h;
  for (const rm::ReduceStep& s : t.steps) {
    const char* tag = s.kind == rm::StepKind::WarpSumsToShared ? "sums"
                      : s.kind == rm::StepKind::Shuffle        ? "off"
                                                               : "st";
    std::string label = s.kind == rm::StepKind::WarpSumsToShared
                            ? "store"
                            : std::string(tag) + " " + std::to_string(s.stride);
    dl->AddText(ImVec2(p0.x, y + (row_h - fs) * 0.5f), text, label.c_str());
    for (int w = 0; w < t.warps; ++w) {
      const rm::WarpStep& ws = s.warps[static_cast<size_t>(w)];
      const float x0 = p0.x + label_w + static_cast<float>(w) * warp_w;
      const float x1 = x0 + warp_w - warp_gap;
      if (ws.state == rm::WarpState::Idle) {
        dl->AddRectFilled(ImVec2(x0, y), ImVec2(x1, y + row_h), c.idle_warp);
        continue;
      }
      if (lane_w >= 1.5f) {
        for (int l = 0; l < rm::k_warp; ++l) {
          const bool act = ws.active >> l & 1u, use = ws.useful >> l & 1u;
          const ImU32 col = !act ? c.idle_lane : (use || !m.show_useful) ? c.useful : c.executes;
          const float lx = x0 + static_cast<float>(l) * lane_w;
          dl->AddRectFilled(ImVec2(lx, y),
                            ImVec2(lx + std::max(lane_w - (lane_w > 4 ? 1.0f : 0.0f), 1.0f), y + row_h), col);
        }
      } else {
        // Too narrow for lanes: the warp's share of each kind, side by side.
        const float span = x1 - x0;
        const float fu = static_cast<float>(std::popcount(ws.useful)) / rm::k_warp;
        const float fa = static_cast<float>(std::popcount(ws.active)) / rm::k_warp;
        const float xu = x0 + span * (m.show_useful ? fu : fa), xa = x0 + span * fa;
        dl->AddRectFilled(ImVec2(x0, y), ImVec2(x1, y + row_h), c.idle_lane);
        dl->AddRectFilled(ImVec2(x0, y), ImVec2(xa, y + row_h), c.executes);
        dl->AddRectFilled(ImVec2(x0, y), ImVec2(xu, y + row_h), c.useful);
      }
      if (ws.state == rm::WarpState::Divergent)
        dl->AddRect(ImVec2(x0 - 0.5f, y - 0.5f), ImVec2(x1 + 0.5f, y + row_h + 0.5f), c.divergent_edge, 0, 0,
                    2);
    }
    const std::string stats = step_stats(s);
    dl->AddText(ImVec2(p0.x + label_w + area_w + fs * 0.4f, y + (row_h - fs) * 0.5f),
                s.conflict_ways > 1 ? c.divergent_edge : text, stats.c_str());
    // Only while this window is the one under the mouse (another window, e.g. Anatomy, may cover the rows).
    if (ImGui::IsWindowHovered() &&
        ImGui::IsMouseHoveringRect(ImVec2(p0.x, y), ImVec2(p0.x + avail, y + row_h + row_gap))) {
      std::string tip = std::string(rm::step_kind_label(s.kind)) + "\n" + s.label + "\n" + stats;
      // The first few additions: which words (shared memory) or lanes (shuffles) add into which.
      const bool lanes = s.kind == rm::StepKind::Shuffle;
      const char* v = lanes ? "v" : "s";
      std::string adds;
      for (size_t i = 0; i < s.adds.size() && i < 4; ++i) {
        const auto [dst, src] = s.adds[i];
        adds += (i ? ", " : "") + std::string(v) + "[" + std::to_string(dst) + "] " +
                (s.kind == rm::StepKind::WarpSumsToShared ? "= v[" : "+= " + std::string(v) + "[") +
                std::to_string(src) + "]";
      }
      if (s.adds.size() > 4) adds += ", ... (" + std::to_string(s.adds.size()) + " in all)";
      if (!adds.empty()) tip += "\n" + adds;
      if (s.smem_ideal > 0)
        tip += "\nshared-memory passes: " + std::to_string(s.smem_wavefronts) +
               " (conflict-free: " + std::to_string(s.smem_ideal) + ")";
      tip += s.sync_after ? "\nthen __syncthreads()" : "\nno __syncthreads() after it";
      ImGui::BeginTooltip();
      ImGui::TextUnformatted(tip.c_str());
      if (s.kind != rm::StepKind::Shuffle && s.conflict_ways > 0) draw_bank_picture(s);
      ImGui::EndTooltip();
    }
    y += row_h;
    if (s.sync_after) {
      // The barrier: a thin line under the row across the block.
      dl->AddLine(ImVec2(p0.x + label_w, y + row_gap * 0.5f),
                  ImVec2(p0.x + label_w + area_w, y + row_gap * 0.5f), c.sync, 1.5f);
    }
    y += row_gap;
  }
  ImGui::Dummy(ImVec2(avail, y - p0.y));
  dim("blue line: __syncthreads(); red text: bank conflicts (32 banks of 4 bytes); hover a row");
  ImGui::Checkbox("show which lanes count", &m.show_useful);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("tell lanes whose result counts from lanes that only execute");
}

// The kernel scans up to 1024 elements in one block (512 threads); the small array fits in one warp, so its
// own accesses never conflict. The same step at the kernel's size: without and with its padding.
std::string blelloch_conflicts_text(const rm::ScanStep& st) {
  const rm::ScanModel big = rm::build_scan(rm::ScanAlgo::Blelloch, 1024);
  for (const rm::ScanStep& b : big.steps)
    if (b.phase == st.phase && b.offset == st.offset)
      return "at 1024 elements this stride gives " + std::to_string(b.conflict_ways) +
             "-way bank conflicts; the kernel's padding (i + i/32) makes it " +
             std::to_string(b.conflict_ways_padded) + "-way";
  return "";
}

void draw_scan_view(ReducePanelModel& m) {
  const auto sv = static_cast<red::ScanVariant>(m.scan_variant);
  const rm::ScanAlgo algo = scan_algo_of(sv);
  const float fs = ImGui::GetFontSize();
  dim(scan_view_note(sv));
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("array");
  for (int n : {8, 16, 32}) {
    ImGui::SameLine();
    if (ImGui::RadioButton(std::to_string(n).c_str(), m.scan_n == n)) {
      m.scan_n = n;
      m.scan_step = 0;
    }
  }
  const rm::ScanModel sm = rm::build_scan(algo, m.scan_n);
  const int steps = static_cast<int>(sm.steps.size());
  m.scan_step = std::clamp(m.scan_step, 0, steps);
  ImGui::SameLine(0, fs);
  if (ImGui::Button(m.scan_play ? "Pause" : "Play")) {
    if (!m.scan_play && m.scan_step >= steps) m.scan_step = 0;
    m.scan_play = !m.scan_play;
    m.scan_clock = 0;
  }
  ImGui::SameLine();
  if (ImGui::ArrowButton("##prev", ImGuiDir_Left) && m.scan_step > 0) --m.scan_step;
  ImGui::SameLine();
  if (ImGui::ArrowButton("##next", ImGuiDir_Right) && m.scan_step < steps) ++m.scan_step;
  ImGui::SameLine();
  ImGui::SetNextItemWidth(std::max(ImGui::GetContentRegionAvail().x, fs * 6));
  ImGui::SliderInt("##step", &m.scan_step, 0, steps, "step %d");

  const std::vector<double> x = scan_demo_values(m.scan_n);
  const int cur = m.scan_step;
  const std::vector<double> before = rm::run_scan(sm, x, static_cast<size_t>(std::max(cur - 1, 0)));
  const std::vector<double> after = rm::run_scan(sm, x, static_cast<size_t>(cur));
  const rm::ScanStep* st = cur > 0 ? &sm.steps[static_cast<size_t>(cur - 1)] : nullptr;
  if (st) {
    ImGui::Text("%s  (%zu %s)", st->label.c_str(), st->ops.size(),
                st->ops.size() == 1 ? "thread" : "threads");
    if (st->phase != rm::ScanPhase::ClearRoot && algo == rm::ScanAlgo::Blelloch)
      dim(blelloch_conflicts_text(*st));
  } else {
    ImGui::Text("the input (%s, %s): %d steps, %lld adds",
                algo == rm::ScanAlgo::HillisSteele ? "Hillis-Steele" : "Blelloch",
                sm.inclusive ? "inclusive" : "exclusive", steps, static_cast<long long>(sm.adds));
    dim(algo == rm::ScanAlgo::HillisSteele ? "every element adds at every step: n log2 n work, log2 n steps"
                                           : "the up-sweep builds a tree of partial sums, the down-sweep "
                                             "hands each prefix down: 2(n-1) adds");
  }

  // Two rows: before the step (top) and after it (bottom); lines show which element adds into which.
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float avail = ImGui::GetContentRegionAvail().x;
  const float cell = std::min(avail / static_cast<float>(m.scan_n), fs * 3.2f);
  // Taller cells and longer lines where the window has the room (1080p, a projector).
  const float room = ImGui::GetContentRegionAvail().y;
  const float cell_h = std::clamp(room * 0.09f, fs * 1.6f, fs * 2.6f);
  const float gap_h = std::clamp(room * 0.3f, fs * 3.2f, fs * 9.0f);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float top = p0.y + fs * 1.1f, bottom = top + cell_h + gap_h;
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const TreeColours c = tree_colours();
  const ImU32 box = light_theme() ? IM_COL32(235, 235, 240, 255) : IM_COL32(45, 45, 55, 255);
  const ImU32 changed_col = light_theme() ? IM_COL32(250, 215, 160, 255) : IM_COL32(120, 80, 30, 255);
  std::vector<bool> touched(static_cast<size_t>(m.scan_n), false);
  if (st)
    for (const rm::ScanOp& op : st->ops) {
      touched[static_cast<size_t>(op.dst)] = true;
      if (op.kind == rm::ScanOpKind::SwapAdd) touched[static_cast<size_t>(op.src)] = true;
    }
  auto cell_x = [&](int i) { return p0.x + static_cast<float>(i) * cell; };
  auto draw_row = [&](const std::vector<double>& vals, float yy, bool highlight) {
    for (int i = 0; i < m.scan_n; ++i) {
      const float x0 = cell_x(i), x1 = x0 + cell - 2;
      dl->AddRectFilled(ImVec2(x0, yy), ImVec2(x1, yy + cell_h),
                        highlight && touched[static_cast<size_t>(i)] ? changed_col : box, 3);
      char buf[24];
      std::snprintf(buf, sizeof buf, "%.0f", vals[static_cast<size_t>(i)]);
      const ImVec2 sz = ImGui::CalcTextSize(buf);
      if (sz.x < cell - 3)
        dl->AddText(ImVec2(0.5f * (x0 + x1 - sz.x), yy + 0.5f * (cell_h - sz.y)), text, buf);
    }
  };
  dl->AddText(ImVec2(p0.x, p0.y), c.text_dim, cur > 0 ? "before the step" : "input");
  draw_row(before, top, false);
  if (cur > 0) {
    draw_row(after, bottom, true);
    dl->AddText(ImVec2(p0.x, bottom + cell_h + fs * 0.2f), c.text_dim,
                "after the step (changed cells highlighted)");
    for (const rm::ScanOp& op : st->ops) {
      const float xd = cell_x(op.dst) + cell * 0.5f, xs = cell_x(op.src) + cell * 0.5f;
      if (op.kind == rm::ScanOpKind::Clear) {
        dl->AddLine(ImVec2(xd, top + cell_h), ImVec2(xd, bottom), c.divergent_edge, 2);
        continue;
      }
      dl->AddLine(ImVec2(xs, top + cell_h), ImVec2(xd, bottom), c.useful, 2);
      dl->AddLine(ImVec2(xd, top + cell_h), ImVec2(xd, bottom), c.text_dim, 1);
      if (op.kind == rm::ScanOpKind::SwapAdd)
        dl->AddLine(ImVec2(xd, top + cell_h), ImVec2(xs, bottom), c.sync, 2);
    }
  }
  ImGui::Dummy(ImVec2(avail, bottom + cell_h + fs * 1.3f - p0.y));
  dim("orange: x[dst] += x[src]; blue: the down-sweep's swap (old x[dst] goes to x[src]); red: cleared");
  if (cur == steps) {
    std::vector<double> want(x.size());
    if (sm.inclusive)
      std::inclusive_scan(x.begin(), x.end(), want.begin());
    else
      std::exclusive_scan(x.begin(), x.end(), want.begin(), 0.0);
    const bool ok = want == after;
    const std::string what = std::string(ok ? "matches " : "differs from ") +
                             (sm.inclusive ? "std::inclusive_scan" : "std::exclusive_scan") + " of the input";
    if (ok)
      wrapped_text(what, light_theme() ? ImVec4(0.1f, 0.5f, 0.1f, 1) : ImVec4(0.45f, 0.9f, 0.45f, 1));
    else
      error_text(what);
  }
}

void draw_ladder_chart(ReducePanelModel& m) {
  if (m.rows.empty()) {
    ImGui::TextDisabled("Run the ladder (GPU) or the CPU baselines: the bars of GB/s appear here.");
    return;
  }
  double top = 0;
  for (const red::Row& r : m.rows)
    top = std::max(top, r.gbs);
  const double ref = copy_reference_gbs(m.rows);
  top = std::max(top, ref);
  if (top <= 0) return;
  const float fs = ImGui::GetFontSize();
  const float w = ImGui::GetContentRegionAvail().x;
  float label_w = fs * 6;
  for (const red::Row& r : m.rows)
    label_w = std::max(label_w, ImGui::CalcTextSize(r.variant.c_str()).x + fs * 0.5f);
  const float bar_h = fs * 1.05f, gap = fs * 0.25f;
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float bar_w = std::max(w - label_w - fs * 9.0f, fs * 4);
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  for (size_t i = 0; i < m.rows.size(); ++i) {
    const red::Row& r = m.rows[i];
    const float y = p.y + static_cast<float>(i) * (bar_h + gap);
    dl->AddText(ImVec2(p.x, y), text, r.variant.c_str());
    const float len = std::max(static_cast<float>(r.gbs / top) * bar_w, 1.0f);
    dl->AddRectFilled(ImVec2(p.x + label_w, y), ImVec2(p.x + label_w + len, y + bar_h - 1),
                      im_col(row_rgba(r), 230), 2);
    std::string s = fmt("%.4g GB/s", r.gbs);
    if (r.copy_pct > 0) s += fmt("  (%.0f%% copy)", r.copy_pct);
    if (!r.check.passed) s += "  FAIL";
    dl->AddText(ImVec2(p.x + label_w + len + fs * 0.3f, y),
                r.check.passed ? text : tree_colours().divergent_edge, s.c_str());
  }
  const float h = static_cast<float>(m.rows.size()) * (bar_h + gap);
  if (ref > 0) {
    const float x = p.x + label_w + static_cast<float>(ref / top) * bar_w;
    dl->AddLine(ImVec2(x, p.y - 2), ImVec2(x, p.y + h), tree_colours().sync, 1.5f);
  }
  ImGui::Dummy(ImVec2(w, h));
  figure_export_menu("reduce-ladder",
                     [&] { return ladder_figure(m.rows, m.copy, m.rows_problem, m.gpu_name); });
  dim(std::string("GB/s; orange GPU kernels, blue CUB, grey CPU") +
      (ref > 0 ? "; blue line: the copy kernel" : "") + " (right-click: save)");
}

}  // namespace

void draw_reduce_views(ReducePanelModel& m, ReducePanelActions&) {
  const float fs = ImGui::GetFontSize();
  const float chart_h = m.rows.empty() ? fs * 3.0f
                                       : std::min(static_cast<float>(m.rows.size()) * fs * 1.3f + fs * 3.2f,
                                                  ImGui::GetContentRegionAvail().y * 0.45f);
  if (ImGui::BeginChild("##pictures", ImVec2(0, -chart_h), false)) {
    const WrapAtEdge wrap;
    if (ImGui::BeginTabBar("##reduce_tabs")) {
      const ImGuiTabItemFlags f0 = m.view_tab == 0 ? ImGuiTabItemFlags_SetSelected : 0;
      const ImGuiTabItemFlags f1 = m.view_tab == 1 ? ImGuiTabItemFlags_SetSelected : 0;
      if (ImGui::BeginTabItem("Reduction tree (one block)", nullptr, f0)) {
        draw_tree_view(m);
        ImGui::EndTabItem();
      }
      if (ImGui::BeginTabItem("Scan steps", nullptr, f1)) {
        draw_scan_view(m);
        ImGui::EndTabItem();
      }
      ImGui::EndTabBar();
    }
    m.view_tab = -1;
  }
  ImGui::EndChild();
  section_title(m.rows_problem.empty() ? "Ladder timing" : ("Ladder timing: " + m.rows_problem).c_str());
  draw_ladder_chart(m);
}

}  // namespace bs::ui
