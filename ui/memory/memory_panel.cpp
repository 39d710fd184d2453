// memory_panel.cpp: see memory_panel.h.
#include "ui/memory/memory_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/text.h"
#include "ui/figure_view.h"
#include "ui/memory/memory_picture.h"
#include "ui/memory/memory_schema.h"
#include "ui/plot_export.h"
#include "ui/widgets.h"

namespace bs::ui {

namespace mem = bs::memory;

namespace {

template <class Table>
int index_in(const Table& t, mem::Variant v) {
  const auto vals = t.values();
  for (size_t i = 0; i < vals.size(); ++i)
    if (vals[i] == v) return static_cast<int>(i);
  return 0;
}

template <class Table>
mem::Variant at_index(const Table& t, int i) {
  const auto vals = t.values();
  return vals[static_cast<size_t>(std::clamp(i, 0, static_cast<int>(vals.size()) - 1))];
}

template <class Table>
bool combo(const char* label, int* index, const Table& t) {
  bool changed = false;
  const auto names = t.names();
  const int cur = std::clamp(*index, 0, static_cast<int>(names.size()) - 1);
  if (ImGui::BeginCombo(label, names[static_cast<size_t>(cur)].data())) {
    for (size_t i = 0; i < names.size(); ++i) {
      const bool sel = static_cast<int>(i) == cur;
      if (ImGui::Selectable(names[i].data(), sel)) {
        *index = static_cast<int>(i);
        changed = true;
      }
      if (sel) ImGui::SetItemDefaultFocus();
    }
    ImGui::EndCombo();
  }
  return changed;
}

std::string fmt_ms(double ms) {
  if (ms < 0.01) return fmt_fixed(ms * 1000.0, 2) + " us";
  if (ms < 1) return fmt_fixed(ms * 1000.0, 1) + " us";
  return fmt_fixed(ms, ms < 10 ? 3 : 1) + " ms";
}

}  // namespace

// --- The view's window (pure)
// ---------------------------------------------------------------------------------

BufferWindow buffer_window(const mem::BufferView& bv, const std::vector<int64_t>& highlighted, float avail_w,
                           float avail_h, float min_cell, float max_cell) {
  BufferWindow w;
  const int64_t width = std::max<int64_t>(bv.width, 1);
  const int64_t total_rows = (bv.length + width - 1) / width;
  if (bv.length <= 0 || avail_w <= 0 || avail_h <= 0) return w;
  // The highlighted elements' bounding box.
  int64_t r_lo = INT64_MAX, r_hi = -1, c_lo = INT64_MAX, c_hi = -1;
  for (int64_t e : highlighted) {
    if (e < 0 || e >= bv.length) continue;
    r_lo = std::min(r_lo, e / width);
    r_hi = std::max(r_hi, e / width);
    c_lo = std::min(c_lo, e % width);
    c_hi = std::max(c_hi, e % width);
  }
  if (r_hi < 0) r_lo = r_hi = c_lo = c_hi = 0;
  // Cells: large enough to click, small enough that the box (and some context) fits.
  // A matrix shows at least two tiles across and one down (the tile borders are part of the story); a 1-D
  // buffer one line (32 floats) across.
  const bool matrix = width > 32;
  const int64_t want_cols = std::min(width, std::max<int64_t>(c_hi - c_lo + 1, matrix ? 64 : 32));
  const int64_t want_rows = std::min(total_rows, std::max<int64_t>(r_hi - r_lo + 1, matrix ? 32 : 1));
  float cell = std::min(avail_w / static_cast<float>(want_cols),
                        avail_h / static_cast<float>(std::max<int64_t>(want_rows, 1)));
  cell = std::clamp(std::floor(cell), min_cell, max_cell);
  w.cell = cell;
  w.cols = std::min(width, std::max<int64_t>(1, static_cast<int64_t>(avail_w / cell)));
  w.rows = std::min(total_rows, std::max<int64_t>(1, static_cast<int64_t>(avail_h / cell)));
  // Columns: centred on the box, starting on a 32-column boundary when the window is at least that wide.
  int64_t c0 = (c_lo + c_hi + 1) / 2 - w.cols / 2;
  if (w.cols >= 32 && c_lo - (c0 / 32) * 32 < w.cols && c_hi < (c0 / 32) * 32 + w.cols) c0 = (c0 / 32) * 32;
  if (c0 > c_lo) c0 = c_lo;
  if (c0 + w.cols <= c_hi) c0 = c_hi - w.cols + 1;
  w.col0 = std::clamp<int64_t>(c0, 0, width - w.cols);
  int64_t r0 = (r_lo + r_hi + 1) / 2 - w.rows / 2;
  if (r0 > r_lo) r0 = r_lo;
  if (r0 + w.rows <= r_hi) r0 = r_hi - w.rows + 1;
  w.row0 = std::clamp<int64_t>(r0, 0, std::max<int64_t>(total_rows - w.rows, 0));
  w.cell_w = w.cols == width
                 ? std::max(cell, std::min(std::floor(avail_w / static_cast<float>(w.cols)), max_cell))
                 : cell;
  w.all_inside = r_lo >= w.row0 && r_hi < w.row0 + w.rows && c_lo >= w.col0 && c_hi < w.col0 + w.cols;
  return w;
}

std::optional<int64_t> element_at(const mem::BufferView& bv, const BufferWindow& w, float x, float y) {
  if (x < 0 || y < 0 || w.cell <= 0 || w.cell_w <= 0) return std::nullopt;
  const int64_t c = static_cast<int64_t>(x / w.cell_w), r = static_cast<int64_t>(y / w.cell);
  if (c >= w.cols || r >= w.rows) return std::nullopt;
  const int64_t e = (w.row0 + r) * bv.width + w.col0 + c;
  if (w.col0 + c >= bv.width || e >= bv.length) return std::nullopt;
  return e;
}

// --- Model ------------------------------------------------------------------------------------------------

MemoryPanelModel::MemoryPanelModel() {
  set_params(*this, memory_params_from(nlohmann::json::object()));
  params = params_of(*this);
}

mem::Variant variant_of(const MemoryPanelModel& m) {
  switch (static_cast<mem::Kernel>(m.kernel)) {
    case mem::Kernel::Transpose:
      return at_index(mem::k_transpose_names, m.transpose_variant);
    case mem::Kernel::Stride:
      return at_index(mem::k_stride_names, m.stride_variant);
    case mem::Kernel::Banks:
      return at_index(mem::k_banks_names, m.banks_variant);
    case mem::Kernel::Aos:
      return at_index(mem::k_aos_names, m.aos_variant);
  }
  return mem::Variant::Copy;
}

mem::Params params_of(const MemoryPanelModel& m) {
  mem::Params p;
  p.kernel = static_cast<mem::Kernel>(std::clamp(m.kernel, 0, 3));
  p.transpose = at_index(mem::k_transpose_names, m.transpose_variant);
  p.stride_pattern = at_index(mem::k_stride_names, m.stride_variant);
  p.banks = at_index(mem::k_banks_names, m.banks_variant);
  p.aos = at_index(mem::k_aos_names, m.aos_variant);
  p.rows = m.rows;
  p.cols = m.cols;
  const mem::ParsedCount n = mem::parse_count(m.n_text, "n");
  p.n = n.value.value_or(-1);
  p.stride = m.stride;
  p.bank_stride = m.bank_stride;
  p.block = Dim2{m.block[0], m.block[1]};
  p.threads = m.threads;
  return p;
}

void set_params(MemoryPanelModel& m, const mem::Params& p) {
  m.kernel = static_cast<int>(p.kernel);
  m.transpose_variant = index_in(mem::k_transpose_names, p.transpose);
  m.stride_variant = index_in(mem::k_stride_names, p.stride_pattern);
  m.banks_variant = index_in(mem::k_banks_names, p.banks);
  m.aos_variant = index_in(mem::k_aos_names, p.aos);
  m.rows = static_cast<int>(p.rows);
  m.cols = static_cast<int>(p.cols);
  std::snprintf(m.n_text, sizeof m.n_text, "%s", mem::format_count(p.n).c_str());
  m.stride = p.stride;
  m.bank_stride = p.bank_stride;
  m.block[0] = static_cast<int>(p.block.x);
  m.block[1] = static_cast<int>(p.block.y);
  m.threads = p.threads;
}

// --- The controls
// -------------------------------------------------------------------------------------------

namespace {

void results_table(const char* id, const std::vector<MemoryResultRow>& rows) {
  if (rows.empty()) return;
  if (!ImGui::BeginTable(id, 5, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) return;
  ImGui::PushTextWrapPos(0.0f);  // cells wrap in their column (stretch columns share the width: no feedback)
  ImGui::TableSetupColumn("variant", ImGuiTableColumnFlags_WidthStretch, 3.0f);
  ImGui::TableSetupColumn("time", ImGuiTableColumnFlags_WidthStretch, 1.4f);
  ImGui::TableSetupColumn("GB/s", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("% of ref", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("check", ImGuiTableColumnFlags_WidthStretch, 1.2f);
  ImGui::TableHeadersRow();
  for (const MemoryResultRow& r : rows) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted((r.name.empty() ? r.label : r.name).c_str());
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s\n%s\nmedian %s, p10 %s, p90 %s over %zu runs", r.label.c_str(), r.device.c_str(),
                        fmt_ms(r.ms.median).c_str(), fmt_ms(r.ms.p10).c_str(), fmt_ms(r.ms.p90).c_str(),
                        r.ms.count);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(fmt_ms(r.ms.median).c_str());
    ImGui::TableNextColumn();
    ImGui::Text(r.gbs < 10 ? "%.2f" : "%.0f", r.gbs);
    ImGui::TableNextColumn();
    if (r.pct_of_copy > 0)
      ImGui::Text("%.0f%%", r.pct_of_copy);
    else
      ImGui::TextDisabled("-");
    ImGui::TableNextColumn();
    if (r.check_passed)
      ImGui::TextUnformatted(r.check.c_str());
    else
      ImGui::TextColored(tone_colour(Tone::Error), "FAILED");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.check.c_str());
  }
  ImGui::PopTextWrapPos();
  ImGui::EndTable();
}

void prediction_table(const MemoryPanelModel& m) {
  if (m.predictions.empty()) return;
  const bool shared = m.params.kernel == mem::Kernel::Transpose || m.params.kernel == mem::Kernel::Banks;
  if (!ImGui::BeginTable("##pred", shared ? 6 : 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp))
    return;
  ImGui::PushTextWrapPos(0.0f);  // cells wrap in their column (stretch columns share the width: no feedback)
  ImGui::TableSetupColumn("variant", ImGuiTableColumnFlags_WidthStretch, 2.2f);
  // Two-line headers: six columns fit the panel at 1280x720 in presenter mode.
  ImGui::TableSetupColumn("ld\nsect/req", ImGuiTableColumnFlags_WidthStretch, 1.2f);
  ImGui::TableSetupColumn("st\nsect/req", ImGuiTableColumnFlags_WidthStretch, 1.2f);
  if (shared) {
    ImGui::TableSetupColumn("ld\nconfl.", ImGuiTableColumnFlags_WidthStretch, 1.2f);
    ImGui::TableSetupColumn("st\nconfl.", ImGuiTableColumnFlags_WidthStretch, 1.2f);
  }
  ImGui::TableSetupColumn("measured", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableHeadersRow();
  for (const MemoryPredictionRow& r : m.predictions) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.label.c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%.2f", r.p.ld_sectors_per_request());
    ImGui::TableNextColumn();
    if (r.p.st_requests)
      ImGui::Text("%.2f", r.p.st_sectors_per_request());
    else
      ImGui::TextDisabled("-");
    if (shared) {
      // Loads and stores apart: the plain tile's reads are 32-way while its writes are conflict-free, and an
      // average over both would hide that.
      ImGui::TableNextColumn();
      const auto per_request = [](int64_t conflicts, int64_t requests) {
        if (requests)
          ImGui::Text("%.1f", static_cast<double>(conflicts) / static_cast<double>(requests));
        else
          ImGui::TextDisabled("-");
        if (ImGui::IsItemHovered() && requests)
          ImGui::SetTooltip("extra wavefronts caused by bank conflicts: %lld over %lld shared requests",
                            static_cast<long long>(conflicts), static_cast<long long>(requests));
      };
      per_request(r.p.shared_ld_conflicts, r.p.shared_ld_requests);
      ImGui::TableNextColumn();
      per_request(r.p.shared_st_conflicts, r.p.shared_st_requests);
    }
    ImGui::TableNextColumn();
    if (const auto it = m.measured.find(r.variant); it != m.measured.end()) {
      ImGui::TextUnformatted(it->second.c_str());
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("measured with CUPTI (View > Hardware counters): global load / store sectors per request "
                          "and shared-memory bank conflicts (extra wavefronts) of the whole launch");
    } else {
      ImGui::TextDisabled("n/a");
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("not measured yet: choose this variant, then View > Hardware counters > Collect counters");
    }
  }
  ImGui::PopTextWrapPos();
  ImGui::EndTable();
}

}  // namespace

void draw_memory_panel(MemoryPanelModel& m, MemoryPanelActions& a) {
  ImGui::PushItemWidth(-ImGui::GetFontSize() * 9);
  wrapped_text(m.compute_label, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  section_title("Kernel");
  bool changed = combo("kernel", &m.kernel, mem::k_kernel_names);
  switch (static_cast<mem::Kernel>(m.kernel)) {
    case mem::Kernel::Transpose:
      changed |= combo("variant", &m.transpose_variant, mem::k_transpose_names);
      // x first, as in every lab: cols (x), then rows (y).
      changed |= ImGui::InputInt("cols (x)", &m.cols, 0, 0, ImGuiInputTextFlags_EnterReturnsTrue);
      changed |= ImGui::InputInt("rows (y)", &m.rows, 0, 0, ImGuiInputTextFlags_EnterReturnsTrue);
      if (variant_of(m) != mem::Variant::Tiled && variant_of(m) != mem::Variant::TiledPadded)
        changed |= ImGui::InputInt2("block (x, y)", m.block, ImGuiInputTextFlags_EnterReturnsTrue);
      else
        ImGui::TextDisabled("block 32 x 32 (one thread per tile element)");
      break;
    case mem::Kernel::Stride:
      changed |= combo("variant", &m.stride_variant, mem::k_stride_names);
      changed |=
          ImGui::InputText("n (floats)", m.n_text, sizeof m.n_text, ImGuiInputTextFlags_EnterReturnsTrue);
      if (variant_of(m) == mem::Variant::Strided)
        changed |= ImGui::SliderInt("stride (floats)", &m.stride, 1, mem::k_max_stride);
      changed |=
          ImGui::InputInt("threads / block", &m.threads, 32, 128, ImGuiInputTextFlags_EnterReturnsTrue);
      break;
    case mem::Kernel::Banks:
      changed |= combo("variant", &m.banks_variant, mem::k_banks_names);
      changed |= ImGui::SliderInt("bank stride (words)", &m.bank_stride, 1, mem::k_max_bank_stride);
      changed |=
          ImGui::InputText("n (threads)", m.n_text, sizeof m.n_text, ImGuiInputTextFlags_EnterReturnsTrue);
      changed |=
          ImGui::InputInt("threads / block", &m.threads, 32, 128, ImGuiInputTextFlags_EnterReturnsTrue);
      break;
    case mem::Kernel::Aos:
      changed |= combo("variant", &m.aos_variant, mem::k_aos_names);
      changed |=
          ImGui::InputText("n (particles)", m.n_text, sizeof m.n_text, ImGuiInputTextFlags_EnterReturnsTrue);
      changed |=
          ImGui::InputInt("threads / block", &m.threads, 32, 128, ImGuiInputTextFlags_EnterReturnsTrue);
      break;
  }
  if (changed) a.params_changed = true;
  error_text(m.param_error);
  wrapped_text(mem::describe(m.params.variant(), m.params), ImGui::GetStyleColorVec4(ImGuiCol_Text));

  section_title("Run");
  ImGui::BeginDisabled(!m.gpu || m.gpu_running);
  if (ImGui::Button(m.gpu_running ? "GPU running..." : "Run GPU ladder")) a.run_gpu = true;
  ImGui::EndDisabled();
  if (!m.gpu && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("GPU runs need a CUDA device: %s", m.gpu_missing.c_str());
  ImGui::SameLine();
  const bool cpu_kernel = !mem::cpu_variants_of(m.params.kernel).empty();
  ImGui::BeginDisabled(m.cpu_running || !cpu_kernel);
  if (ImGui::Button("Run CPU")) a.run_cpu = true;
  ImGui::EndDisabled();
  if (!cpu_kernel && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("shared-memory banks have no CPU counterpart");
  if (m.cpu_running) {
    same_line_if_fits(button_width("Cancel CPU"));
    if (ImGui::Button("Cancel CPU")) a.cancel_cpu = true;
    ImGui::ProgressBar(static_cast<float>(m.cpu_progress), ImVec2(-1, 0), m.cpu_stage.c_str());
  }
  if (!m.gpu) advice_text("GPU runs need a CUDA device: " + m.gpu_missing);
  error_text(m.gpu_status);
  error_text(m.cpu_status);
  if (!m.gpu_rows.empty()) {
    // What "% of ref" compares with, kernel by kernel (memory::GpuRunner::run_ladder measures it in the
    // same call).
    const char* ref = "";
    switch (m.params.kernel) {
      case mem::Kernel::Transpose:
        ref = "the copy of the same bytes";
        break;
      case mem::Kernel::Stride:
        ref = "the stride-1 read";
        break;
      case mem::Kernel::Banks:
        ref = "bank stride 1 (no conflict)";
        break;
      case mem::Kernel::Aos:
        ref = "the structure of arrays";
        break;
    }
    wrapped_text("GPU: " + m.gpu_rows.front().device + "; % of ref: against " + ref + ", same run",
                 ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    results_table("##gpu", m.gpu_rows);
  }
  if (!m.cpu_rows.empty()) {
    wrapped_text(m.params.kernel == mem::Kernel::Transpose
                     ? "CPU: the same bytes; % of ref: against the CPU copy on as many threads"
                     : "CPU: the same bytes",
                 ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    results_table("##cpu", m.cpu_rows);
  }

  section_title("Predicted counts (from the kernels' index expressions)");
  if (m.predicting)
    ImGui::ProgressBar(static_cast<float>(m.predict_progress), ImVec2(-1, 0), "counting every warp...");
  error_text(m.predict_status);
  if (!m.predicted_for.empty())
    wrapped_text(m.predicted_for, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  prediction_table(m);
  wrapped_text(
      "measured: View > Hardware counters collects the chosen variant's counters (CUPTI) and fills its row "
      "(docs/PERFORMANCE.md also compares these predictions with Nsight Compute's counts)",
      ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));

  if (m.params.kernel == mem::Kernel::Stride) {
    section_title("Bandwidth against stride");
    ImGui::BeginDisabled(m.stride_running);
    if (ImGui::Button(m.gpu ? "Run stride sweep (GPU)" : "Run stride sweep (CPU)")) a.run_stride = true;
    ImGui::EndDisabled();
    if (m.stride_running) {
      same_line_if_fits(button_width("Cancel##stride"));
      if (ImGui::Button("Cancel##stride")) a.cancel_stride = true;
      ImGui::ProgressBar(static_cast<float>(m.stride_progress), ImVec2(-1, 0));
    }
    error_text(m.stride_status);
    if (!m.stride_points.empty()) {
      const float h = std::max(ImGui::GetFontSize() * 9, ImGui::GetContentRegionAvail().x * 0.42f);
      const fig::Figure bw = stride_bandwidth_figure(m);
      draw_figure("##stride_gbs", ImVec2(0, h), bw, false, HoverPick::Nearest);
      figure_export_menu("memory-stride-bandwidth", [&] { return stride_bandwidth_figure(m); });
      const fig::Figure sp = stride_sectors_figure(m);
      draw_figure("##stride_spr", ImVec2(0, h * 0.8f), sp, false, HoverPick::Nearest);
      figure_export_menu("memory-stride-sectors", [&] { return stride_sectors_figure(m); });
    }
  }
  ImGui::PopItemWidth();
}

namespace {

// A compact line plot of one value of the stride points against the stride (log axis), one series.
template <class Value>
fig::Figure stride_figure(const MemoryPanelModel& m, std::string title, std::string subtitle,
                          std::string y_label, std::string series, size_t colour, Value&& value_of) {
  fig::Figure f;
  f.kind = fig::Kind::Lines;
  f.compact = true;
  f.title = std::move(title);
  f.subtitle = std::move(subtitle);
  f.x_label = "stride (floats between lanes)";
  f.y_label = std::move(y_label);
  f.log_x = true;
  fig::Series s;
  s.label = std::move(series);
  s.rgba = fig::palette(colour);
  for (const StridePoint& p : m.stride_points)
    if (p.stride > 0) {
      s.x.push_back(p.stride);
      s.y.push_back(value_of(p));
    }
  f.series.push_back(std::move(s));
  return f;
}

}  // namespace

fig::Figure stride_bandwidth_figure(const MemoryPanelModel& m) {
  return stride_figure(m, "strided read: bandwidth against stride",
                       m.stride_device + ", n = " + mem::format_count(m.stride_n) + " floats, median",
                       "GB/s (read + write)", m.stride_device, 0, [](const StridePoint& p) { return p.gbs; });
}

fig::Figure stride_sectors_figure(const MemoryPanelModel& m) {
  return stride_figure(
      m, "strided read: sectors per load request (predicted)",
      "the model's count over the launch; 4 = perfectly coalesced floats, 32 = one sector per lane",
      "sectors / request (predicted)", "predicted", 1,
      [](const StridePoint& p) { return p.sectors_per_request; });
}

// --- The view
// -------------------------------------------------------------------------------------------------

namespace {

// The colour of lane i in instruction a: its sector's (global) or green / red by its bank's conflict
// (shared).
ImU32 lane_colour(const mem::WarpAccess& a, int lane, const mem::GlobalDetail& g,
                  const mem::SharedDetail& s) {
  if (a.space == mem::Space::Global) return group_colour(g.lane_sector[static_cast<size_t>(lane)]);
  const int b = s.lane_bank[static_cast<size_t>(lane)];
  return b >= 0 && s.words_in_bank[static_cast<size_t>(b)] > 1 ? IM_COL32(235, 70, 60, 255)
                                                               : IM_COL32(80, 190, 110, 255);
}

// The buffer of the current instruction with the warp's elements highlighted; a click reports the element.
void buffer_view_widget(MemoryPanelModel& m, MemoryPanelActions& a, const mem::WarpAccess& op, float height) {
  const mem::Variant v = m.trace->variant;
  const mem::BufferView bv = mem::buffer_view(m.params, v, op.buffer);
  std::vector<int64_t> hl;
  for (const mem::LaneAccess& l : op.lanes)
    if (l.active) hl.push_back(l.element);
  ImGui::TextUnformatted(bv.title.c_str());
  const float avail_w = ImGui::GetContentRegionAvail().x;
  const float avail_h =
      std::max(height - ImGui::GetTextLineHeightWithSpacing() * 2, ImGui::GetFontSize() * 4);
  const BufferWindow w = buffer_window(bv, hl, avail_w, avail_h, 3.0f, ImGui::GetFontSize() * 1.6f);
  const ImVec2 o = ImGui::GetCursorScreenPos();
  m.view_x = o.x;
  m.view_y = o.y;
  m.view_window = w;
  m.view_buffer = bv;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const mem::GlobalDetail g = mem::global_detail(op);
  const mem::SharedDetail s = mem::shared_detail(op);
  const bool one_d = mem::kernel_of(v) != mem::Kernel::Transpose || op.buffer == mem::Buffer::Tile;
  for (int64_t r = 0; r < w.rows; ++r)
    for (int64_t c = 0; c < w.cols; ++c) {
      const int64_t e = (w.row0 + r) * bv.width + w.col0 + c;
      if (e >= bv.length) continue;
      const ImVec2 p0(o.x + static_cast<float>(c) * w.cell_w, o.y + static_cast<float>(r) * w.cell);
      dl->AddRectFilled(
          p0, ImVec2(p0.x + w.cell_w - (w.cell_w > 5 ? 1 : 0), p0.y + w.cell - (w.cell > 5 ? 1 : 0)),
          light_theme() ? IM_COL32(218, 220, 226, 255) : IM_COL32(55, 58, 66, 255));
    }
  for (int i = 0; i < mem::k_warp; ++i) {
    const mem::LaneAccess& l = op.lanes[static_cast<size_t>(i)];
    if (!l.active) continue;
    const int64_t r = l.element / bv.width - w.row0, c = l.element % bv.width - w.col0;
    if (r < 0 || c < 0 || r >= w.rows || c >= w.cols) continue;
    const ImVec2 p0(o.x + static_cast<float>(c) * w.cell_w, o.y + static_cast<float>(r) * w.cell);
    dl->AddRectFilled(p0, ImVec2(p0.x + w.cell_w, p0.y + w.cell), lane_colour(op, i, g, s));
    if (w.cell >= ImGui::GetFontSize() * 1.2f) {
      const std::string t = std::to_string(i);
      dl->AddText(ImVec2(p0.x + 2, p0.y + 1), IM_COL32(15, 15, 20, 255), t.c_str());
    }
  }
  // Boundaries: every 32 columns (a tile, or a 128-byte line's end); in 1-D views every 8 (a 32-byte sector).
  const ImU32 boundary = light_theme() ? IM_COL32(30, 30, 40, 220) : IM_COL32(220, 220, 230, 200);
  const ImU32 sector_line = light_theme() ? IM_COL32(90, 90, 100, 140) : IM_COL32(150, 150, 160, 120);
  const float wpx = static_cast<float>(w.cols) * w.cell_w, hpx = static_cast<float>(w.rows) * w.cell;
  for (int64_t c = 0; c <= w.cols; ++c) {
    const int64_t col = w.col0 + c;
    if (col % 32 == 0 || c == w.cols)
      dl->AddLine(ImVec2(o.x + static_cast<float>(c) * w.cell_w, o.y),
                  ImVec2(o.x + static_cast<float>(c) * w.cell_w, o.y + hpx), boundary, 1.5f);
    else if (one_d && col % 8 == 0 && w.cell >= 4)
      dl->AddLine(ImVec2(o.x + static_cast<float>(c) * w.cell_w, o.y),
                  ImVec2(o.x + static_cast<float>(c) * w.cell_w, o.y + hpx), sector_line, 1.0f);
  }
  if (!one_d)
    for (int64_t r = 0; r <= w.rows; ++r)
      if ((w.row0 + r) % 32 == 0)
        dl->AddLine(ImVec2(o.x, o.y + static_cast<float>(r) * w.cell),
                    ImVec2(o.x + wpx, o.y + static_cast<float>(r) * w.cell), boundary, 1.5f);
  ImGui::InvisibleButton("##buffer", ImVec2(std::max(wpx, 1.0f), std::max(hpx, 1.0f)));
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (ImGui::IsItemHovered()) {
    if (const auto e = element_at(bv, w, mouse.x - o.x, mouse.y - o.y)) {
      const std::string where = one_d ? index_text(-1, *e) : index_text(*e / bv.width, *e % bv.width);
      // The warp is found on a click only: the random gather's inverse is a search over the whole array.
      const bool pickable = op.buffer != mem::Buffer::Tile && mem::kernel_of(v) != mem::Kernel::Banks;
      ImGui::SetTooltip(
          pickable ? "%s%s: click to show the warp that touches it"
                   : "%s%s (every warp of a block reads this array: pick the warp with the fields above)",
          mem::buffer_name(op.buffer), where.c_str());
      const auto wid = ImGui::IsItemClicked(ImGuiMouseButton_Left) ? mem::warp_at(m.params, v, op.buffer, *e)
                                                                   : std::nullopt;
      if (wid) {
        m.warp = *wid;
        a.warp_changed = true;
        a.clicked = true;
        a.clicked_buffer = op.buffer;
        a.clicked_element = *e;
      }
    }
  }
  ImGui::TextDisabled("rows %lld..%lld, columns %lld..%lld of %lld x %lld%s", static_cast<long long>(w.row0),
                      static_cast<long long>(w.row0 + w.rows - 1), static_cast<long long>(w.col0),
                      static_cast<long long>(w.col0 + w.cols - 1),
                      static_cast<long long>((bv.length + bv.width - 1) / bv.width),
                      static_cast<long long>(bv.width),
                      w.all_inside ? "" : " (some of the warp's elements are outside this window)");
}

}  // namespace

void draw_memory_view(MemoryPanelModel& m, MemoryPanelActions& a) {
  if (!m.trace) {
    error_text(m.param_error.empty() ? "no warp to show" : m.param_error);
    return;
  }
  const mem::WarpTrace& t = *m.trace;
  ImGui::Text("%s", mem::describe(t.variant, t.params).c_str());
  // The warp: block and warp fields (and the click in the view below).
  {
    int bx = static_cast<int>(t.warp.bx), by = static_cast<int>(t.warp.by), wi = t.warp.warp;
    ImGui::PushItemWidth(ImGui::GetFontSize() * 5);
    bool changed = ImGui::InputInt("block x", &bx, 1, 8);
    same_line_if_fits(labelled_width(ImGui::GetFontSize() * 5, "block y"));
    changed |= ImGui::InputInt("block y", &by, 1, 8);
    same_line_if_fits(labelled_width(ImGui::GetFontSize() * 5, "warp"));
    changed |= ImGui::InputInt("warp", &wi, 1, 1);
    ImGui::PopItemWidth();
    if (changed) {
      m.warp = mem::WarpId{bx, by, wi};
      a.warp_changed = true;
    }
  }
  wrapped_text(t.warp_text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  if (t.ops.empty()) return;
  m.step = std::clamp(m.step, 0, static_cast<int>(t.ops.size()) - 1);
  // The stepper.
  ImGui::BeginDisabled(m.step == 0);
  if (ImGui::ArrowButton("##prev", ImGuiDir_Left)) {
    --m.step;
    a.warp_changed = true;
  }
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(m.step + 1 >= static_cast<int>(t.ops.size()));
  if (ImGui::ArrowButton("##next", ImGuiDir_Right)) {
    ++m.step;
    a.warp_changed = true;
  }
  ImGui::EndDisabled();
  same_line_if_fits(button_width("worst"));
  if (ImGui::SmallButton("worst")) {
    // The instruction that costs most: the most sectors (global) or the highest conflict degree (shared).
    int best = 0;
    double worst = -1;
    for (size_t i = 0; i < t.ops.size(); ++i) {
      const mem::OpSummary s = mem::summarize(t.ops[i]);
      const double cost = t.ops[i].space == mem::Space::Global ? s.sectors / 4.0 : s.conflict_degree;
      if (cost > worst) {
        worst = cost;
        best = static_cast<int>(i);
      }
    }
    m.step = best;
    a.warp_changed = true;
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("jump to this warp's costliest instruction (most sectors, or the worst bank conflict)");
  ImGui::SameLine();
  const mem::WarpAccess& op = t.ops[static_cast<size_t>(m.step)];
  wrapped_text("instruction " + std::to_string(m.step + 1) + " of " + std::to_string(t.ops.size()) +
                   (t.cut_short ? "+: " : ": ") + mem::op_title(op),
               ImGui::GetStyleColorVec4(ImGuiCol_Text));
  if (t.cut_short)
    wrapped_text("(the loop repeats the read " + std::to_string(mem::k_bank_iterations) +
                     " times at the same addresses; the first " + std::to_string(mem::k_trace_max_steps) +
                     " are shown)",
                 ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  const mem::OpSummary sum = mem::summarize(op);
  const bool bad = op.space == mem::Space::Global ? sum.efficiency < 0.99 && sum.active_lanes > 0
                                                  : sum.conflict_degree > 1;
  if (bad)
    wrapped_text(sum.text, light_theme() ? ImVec4(0.75f, 0.2f, 0.1f, 1) : ImVec4(1, 0.55f, 0.4f, 1));
  else
    wrapped_text(sum.text, light_theme() ? ImVec4(0.1f, 0.5f, 0.2f, 1) : ImVec4(0.5f, 0.9f, 0.55f, 1));
  // How to read the picture: on hover, so that the picture keeps the room on a projector.
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "%s", op.space == mem::Space::Global
                  ? "The picture: lanes -> 128-byte lines (boxes) and their 32-byte sectors; a lane "
                    "takes its sector's colour. Grey sectors are not moved."
                  : "The picture: lanes -> the 32 banks; a bank asked for several different words "
                    "serves them one after another (red); one word for several lanes is a broadcast.");

  const float total_h = ImGui::GetContentRegionAvail().y;
  // The picture first (fixed height), then the buffer with the rest.
  const float pic_h = std::min(total_h * 0.5f, ImGui::GetFontSize() * 16);
  const mem::BufferView bv = mem::buffer_view(m.params, t.variant, op.buffer);
  draw_warp_picture(
      op, ImGui::GetContentRegionAvail().x, pic_h,
      mem::kernel_of(t.variant) == mem::Kernel::Transpose && op.buffer != mem::Buffer::Tile ? bv.width : 0);
  ImGui::Separator();
  buffer_view_widget(m, a, op, ImGui::GetContentRegionAvail().y);
}

}  // namespace bs::ui
