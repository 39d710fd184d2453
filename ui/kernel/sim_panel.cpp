// sim_panel.cpp: see sim_panel.h.
#include "ui/kernel/sim_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ui/kernel/access_map_export.h"
#include "ui/memory/memory_picture.h"
#include "ui/memory/memory_trace.h"
#include "ui/widgets.h"

namespace bs::ui {

namespace {

const ImVec4 k_good(0.45f, 0.85f, 0.45f, 1.0f), k_bad(1.0f, 0.42f, 0.38f, 1.0f), k_warn(1.0f, 0.75f, 0.3f, 1.0f);

ImU32 to_u32(uint32_t rgba) {
  return IM_COL32(rgba >> 24, (rgba >> 16) & 0xff, (rgba >> 8) & 0xff, rgba & 0xff);
}

const char* const k_scope_names[] = {"thread", "warp", "block", "launch"};

void draw_controls(SimPanelModel& m, SimPanelActions& a) {
  const float fs = ImGui::GetFontSize();
  ImGui::PushItemWidth(fs * 4.5f);
  for (int i = 0; i < m.size_fields; ++i) {
    ImGui::PushID(i);
    long long v = m.size[i];
    if (i > 0) ImGui::SameLine();
    const char* labels[] = {"##s0", "##s1", "##s2"};
    if (ImGui::InputScalar(labels[i], ImGuiDataType_S64, &v, nullptr, nullptr, "%lld",
                           ImGuiInputTextFlags_EnterReturnsTrue) ||
        ImGui::IsItemDeactivatedAfterEdit()) {
      m.size[i] = v;
      a.settings_changed = true;
    }
    ImGui::PopID();
  }
  same_line_if_fits(ImGui::CalcTextSize(m.size_label.c_str()).x);
  ImGui::TextUnformatted(m.size_label.c_str());
  // "block" and its fields stay together.
  const int block_fields = m.block_2d ? 2 : 1;
  same_line_if_fits(ImGui::CalcTextSize("  block").x +
                    static_cast<float>(block_fields) * (fs * 4.5f + ImGui::GetStyle().ItemSpacing.x));
  ImGui::TextUnformatted("  block");
  for (int i = 0; i < block_fields; ++i) {
    ImGui::SameLine();
    ImGui::PushID(10 + i);
    if (ImGui::InputInt("##b", &m.block[i], 0, 0, ImGuiInputTextFlags_EnterReturnsTrue) ||
        ImGui::IsItemDeactivatedAfterEdit())
      a.settings_changed = true;
    ImGui::PopID();
  }
  ImGui::PopItemWidth();
  same_line_if_fits(button_width("Simulate"));
  ImGui::BeginDisabled(!m.can_simulate || m.running || !m.settings_error.empty());
  if (ImGui::Button("Simulate")) a.simulate = true;
  ImGui::EndDisabled();
  if (!m.can_simulate && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("%s", m.cannot_reason.c_str());
  if (m.running) {
    same_line_if_fits(button_width("Cancel"));
    if (ImGui::Button("Cancel")) a.cancel = true;
    ImGui::SameLine();
    char b[32];
    std::snprintf(b, sizeof b, "%.0f%% of the blocks", m.progress * 100);
    ImGui::ProgressBar(static_cast<float>(m.progress), ImVec2(fs * 9, 0), b);
  }
  const char* check_label = m.gpu_check_running ? "Checking on the GPU..." : "Check on the GPU";
  same_line_if_fits(button_width(check_label));
  ImGui::BeginDisabled(!m.gpu_check_enabled || m.gpu_check_running);
  if (ImGui::Button(check_label)) a.gpu_check = true;
  ImGui::EndDisabled();
  if (!m.gpu_check_enabled && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("%s", m.gpu_check_reason.c_str());
  same_line_if_fits(button_width("Export maps"));
  ImGui::BeginDisabled(!m.trace);
  if (ImGui::Button("Export maps")) a.export_maps = true;
  ImGui::EndDisabled();

  ImGui::PushTextWrapPos(0);
  if (!m.settings_error.empty())
    ImGui::TextColored(k_bad, "%s", m.settings_error.c_str());
  else
    ImGui::TextDisabled("%s", m.settings_text.c_str());
  if (!m.can_simulate) ImGui::TextColored(k_warn, "%s", m.cannot_reason.c_str());
  if (!m.status.empty()) ImGui::TextColored(m.status_error ? k_bad : ImVec4(0.8f, 0.8f, 0.8f, 1), "%s", m.status.c_str());
  if (m.trace) {
    ImGui::TextDisabled("%s%s", m.summary.c_str(), m.stale ? "  (the source changed since: simulate again)" : "");
    if (!m.failure.empty()) ImGui::TextColored(k_bad, "%s", m.failure.c_str());
    if (!m.check.empty()) ImGui::TextColored(m.passed ? k_good : k_bad, "%s", m.check.c_str());
  }
  if (!m.gpu_check_enabled) ImGui::TextDisabled("Check on the GPU: %s", m.gpu_check_reason.c_str());
  if (!m.export_message.empty()) ImGui::TextDisabled("%s", m.export_message.c_str());
  ImGui::PopTextWrapPos();
}

// Selection: scope, block (x, y) and thread (x, y) of the trace's launch.
void draw_selection(SimPanelModel& m) {
  const SimTrace& t = *m.trace;
  const float fs = ImGui::GetFontSize();
  for (int i = 0; i < 4; ++i) {
    if (i > 0) same_line_if_fits(labelled_width(ImGui::GetFrameHeight(), k_scope_names[i]));
    if (ImGui::RadioButton(k_scope_names[i], m.scope == i)) m.scope = i;
  }
  m.selection.scope = static_cast<Scope>(m.scope);
  if (m.selection.scope != Scope::Launch) {
    sim::Dim3 b = t.block_coords(m.selection.block), th = t.thread_coords(m.selection.thread);
    int bv[2] = {static_cast<int>(b.x), static_cast<int>(b.y)};
    int tv[2] = {static_cast<int>(th.x), static_cast<int>(th.y)};
    ImGui::PushItemWidth(fs * 7);
    same_line_if_fits(labelled_width(fs * 7, "block"));
    ImGui::InputInt2("block", bv);
    if (m.selection.scope != Scope::Block) {
      const char* label = m.selection.scope == Scope::Warp ? "a thread of the warp" : "thread";
      same_line_if_fits(labelled_width(fs * 7, label));
      ImGui::InputInt2(label, tv);
    }
    ImGui::PopItemWidth();
    b.x = static_cast<uint32_t>(std::clamp(bv[0], 0, static_cast<int>(t.grid.x) - 1));
    b.y = static_cast<uint32_t>(std::clamp(bv[1], 0, static_cast<int>(t.grid.y) - 1));
    th.x = static_cast<uint32_t>(std::clamp(tv[0], 0, static_cast<int>(t.block.x) - 1));
    th.y = static_cast<uint32_t>(std::clamp(tv[1], 0, static_cast<int>(t.block.y) - 1));
    m.selection.block = t.block_index(b);
    m.selection.thread = t.thread_index(th);
  }
}

void pick_element(SimPanelModel& m, int buffer, uint64_t e) {
  m.picked_buffer = buffer;
  m.picked_element = e;
  m.touches = who_touched(*m.trace, buffer, e);
  m.view_tab = 1;
}

// One buffer's map at the cursor, `w` x at most `max_h`; hover names the cell, a click picks it.
void draw_map(SimPanelModel& m, const BufferMap& map, float w, float max_h) {
  ImGui::TextUnformatted(map.caption().c_str());
  if (map.elements == 0 || map.rows == 0) return;
  const float cell = std::min({w / static_cast<float>(map.cols), max_h / static_cast<float>(map.rows), 18.0f});
  // Below 2 px a cell, draw groups of g x g elements (the OR of their bits) so every mark stays visible.
  const int g = cell >= 2.0f ? 1 : static_cast<int>(std::ceil(2.0f / std::max(cell, 1e-3f)));
  const float gs = cell * static_cast<float>(g);
  const uint32_t gcols = (map.cols + g - 1) / g, grows = (map.rows + g - 1) / g;
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const ImVec2 size(gs * static_cast<float>(gcols), gs * static_cast<float>(grows));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const bool light = false;
  const bool gap = gs >= 6;
  for (uint32_t gr = 0; gr < grows; ++gr)
    for (uint32_t gc = 0; gc < gcols; ++gc) {
      uint8_t bits = 0;
      bool any = false;
      for (int dy = 0; dy < g; ++dy)
        for (int dx = 0; dx < g; ++dx) {
          const uint64_t r = uint64_t{gr} * g + dy, c = uint64_t{gc} * g + dx;
          if (c >= map.cols) continue;
          const uint64_t e = r * map.cols + c;
          if (e >= map.elements) continue;
          bits |= map.cells[e];
          any = true;
        }
      if (!any) continue;
      const ImVec2 a(o.x + gs * gc, o.y + gs * gr), b(a.x + gs - (gap ? 1 : 0), a.y + gs - (gap ? 1 : 0));
      dl->AddRectFilled(a, b, to_u32(cell_fill(bits, light)));
      if (const uint32_t ol = cell_outline(bits)) dl->AddRect(a, b, to_u32(ol), 0, 0, std::max(1.0f, gs / 6));
    }
  if (m.picked_buffer == map.buffer && m.picked_element < map.elements) {
    const uint64_t e = m.picked_element;
    const ImVec2 a(o.x + gs * static_cast<float>((e % map.cols) / g), o.y + gs * static_cast<float>((e / map.cols) / g));
    dl->AddRect(a, ImVec2(a.x + gs, a.y + gs), IM_COL32(255, 255, 255, 255), 0, 0, 2);
  }
  ImGui::InvisibleButton(("##map" + std::to_string(map.buffer)).c_str(), ImVec2(std::max(size.x, 1.0f), std::max(size.y, 1.0f)));
  if (ImGui::IsItemHovered()) {
    const ImVec2 p = ImGui::GetIO().MousePos;
    const int64_t col = static_cast<int64_t>((p.x - o.x) / gs) * g, row = static_cast<int64_t>((p.y - o.y) / gs) * g;
    if (const auto e = element_at(map, row, col)) {
      const uint8_t bits = map.cells[*e];
      std::string s = map.name + (map.two_d ? index_text(static_cast<int64_t>(*e / map.cols), static_cast<int64_t>(*e % map.cols))
                                            : index_text(-1, static_cast<int64_t>(*e)));
      if (g > 1) s += " (and its " + std::to_string(g) + " x " + std::to_string(g) + " group)";
      s += (bits & k_cell_read) ? "\nread by the selection" : "";
      s += (bits & k_cell_write) ? "\nwritten by the selection" : "";
      s += (bits & k_cell_unwritten) ? "\nno thread of the launch wrote it" : "";
      s += (bits & k_cell_multi) ? "\nseveral threads wrote it" : "";
      s += (bits & k_cell_flagged) ? "\na diagnostic names it" : "";
      s += "\nclick: who read and who wrote it";
      ImGui::SetTooltip("%s", s.c_str());
      if (ImGui::IsItemClicked()) pick_element(m, map.buffer, *e);
    }
  }
}

void draw_legend() {
  const float fs = ImGui::GetFontSize();
  bool first = true;
  for (const LegendEntry& l : map_legend(false)) {
    // Each entry (swatch and text) stays whole; entries that do not fit go to the next line.
    if (!first) same_line_if_fits(fs + ImGui::GetStyle().ItemSpacing.x + ImGui::CalcTextSize(l.text).x);
    first = false;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(ImVec2(p.x, p.y + 2), ImVec2(p.x + fs * 0.8f, p.y + 2 + fs * 0.8f), to_u32(l.fill));
    if (l.outline) dl->AddRect(ImVec2(p.x, p.y + 2), ImVec2(p.x + fs * 0.8f, p.y + 2 + fs * 0.8f), to_u32(l.outline), 0, 0, 2);
    ImGui::Dummy(ImVec2(fs, fs));
    ImGui::SameLine();
    ImGui::TextDisabled("%s", l.text);
  }
}

void draw_maps(SimPanelModel& m, float w, float h) {
  ImGui::BeginChild("##maps", ImVec2(w, h), true);
  ImGui::PushTextWrapPos(0.0f);
  draw_selection(m);
  const AccessMaps& maps = current_maps(m);
  ImGui::TextUnformatted(("What " + maps.title + " read and wrote").c_str());
  if (!maps.note.empty()) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(k_warn, "%s", maps.note.c_str());
    ImGui::PopTextWrapPos();
  }
  draw_legend();
  const float avail_w = ImGui::GetContentRegionAvail().x;
  const float avail_h = ImGui::GetContentRegionAvail().y;
  const size_t n = std::max<size_t>(1, maps.maps.size());
  const float line = ImGui::GetTextLineHeightWithSpacing();
  // Two-dimensional shapes side by side where the width allows, else stacked.
  const bool side = n > 1 && avail_w > avail_h * 1.3f;
  const float each_w = side ? (avail_w - ImGui::GetStyle().ItemSpacing.x * static_cast<float>(n - 1)) / static_cast<float>(n) : avail_w;
  const float each_h = side ? avail_h - line * 1.5f : (avail_h - line * 1.5f * static_cast<float>(n)) / static_cast<float>(n);
  for (size_t i = 0; i < maps.maps.size(); ++i) {
    if (side && i > 0) ImGui::SameLine();
    ImGui::BeginGroup();
    ImGui::PushID(static_cast<int>(i));
    draw_map(m, maps.maps[i], each_w, std::max(each_h, line * 2));
    ImGui::PopID();
    ImGui::EndGroup();
  }
  ImGui::PopTextWrapPos();
  ImGui::EndChild();
}

void draw_diagnostics(SimPanelModel& m, SimPanelActions& a) {
  const SimTrace& t = *m.trace;
  if (t.result.diagnostics.empty() && m.failure.empty())
    ImGui::TextColored(k_good, "no diagnostics: no out-of-bounds access, race, divergent barrier, uninitialised "
                               "shared read, unwritten or doubly written output");
  for (size_t i = 0; i < t.result.diagnostics.size(); ++i) {
    const sim::Diagnostic& d = t.result.diagnostics[i];
    ImGui::PushID(static_cast<int>(i));
    std::string label = (d.line > 0 ? "line " + std::to_string(d.line) + ": " : std::string()) + sim::diag_name(d.kind) + ": " +
                        d.message;
    if (d.count > 1) label += " (x" + std::to_string(d.count) + ")";
    ImGui::PushStyleColor(ImGuiCol_Text, k_bad);
    ImGui::PushTextWrapPos(0);
    if (ImGui::Selectable(label.c_str())) {
      if (d.line > 0) a.jump_line = d.line;
      if (d.buffer >= 0 && d.kind != sim::DiagKind::GlobalOutOfBounds && static_cast<size_t>(d.buffer) < t.buffers.size() &&
          d.element < t.buffers[static_cast<size_t>(d.buffer)].bytes / std::max<uint32_t>(1, t.buffers[static_cast<size_t>(d.buffer)].elem_bytes))
        pick_element(m, d.buffer, d.element);
      m.selection.block = t.block_index(d.block);
      m.selection.thread = t.thread_index(d.thread);
      m.scope = static_cast<int>(Scope::Thread);
    }
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("click: go to the line and show this thread's accesses");
    ImGui::PopID();
  }
  if (!m.gpu_report.empty() || m.gpu_check_running) {
    ImGui::Separator();
    ImGui::TextUnformatted("On the GPU (compute-sanitizer):");
    ImGui::TextWrapped("%s", m.gpu_check_running ? "running..." : m.gpu_report.c_str());
  }
}

void draw_touches(SimPanelModel& m) {
  if (!m.touches) {
    ImGui::TextDisabled("click a cell of a map: who read it and who wrote it");
    return;
  }
  const ElementTouches& w = *m.touches;
  ImGui::Text("%s: read %llu times, written %llu times%s", w.element_text.c_str(),
              static_cast<unsigned long long>(w.reads), static_cast<unsigned long long>(w.writes),
              m.trace->all_blocks ? "" : " (in the recorded blocks)");
  const std::vector<std::string> lines = w.lines(*m.trace);
  for (size_t i = 0; i < lines.size(); ++i) {
    ImGui::PushID(static_cast<int>(i));
    if (ImGui::Selectable(lines[i].c_str())) {
      m.selection = {Scope::Thread, w.list[i].block, w.list[i].thread};
      m.scope = 0;
    }
    ImGui::PopID();
  }
  if (w.truncated) ImGui::TextDisabled("(the first %zu shown)", w.list.size());
}

void draw_memory(SimPanelModel& m) {
  const SimTrace& t = *m.trace;
  const std::vector<MemoryInstr> ins = memory_instructions(t);
  if (ins.empty()) {
    ImGui::TextDisabled("no global or shared memory instruction was recorded");
    return;
  }
  m.mem_instr = std::clamp(m.mem_instr, 0, static_cast<int>(ins.size()) - 1);
  ImGui::SetNextItemWidth(-1);
  if (ImGui::BeginCombo("##meminstr", ins[static_cast<size_t>(m.mem_instr)].label.c_str())) {
    for (size_t i = 0; i < ins.size(); ++i)
      if (ImGui::Selectable(ins[i].label.c_str(), static_cast<int>(i) == m.mem_instr)) {
        m.mem_instr = static_cast<int>(i);
        m.mem_occurrence = 0;
      }
    ImGui::EndCombo();
  }
  const MemoryInstr& mi = ins[static_cast<size_t>(m.mem_instr)];
  const uint32_t warp = m.selection.thread / 32;
  int execs = 0;
  const auto view = warp_memory_view(t, mi.pc, m.selection.block, warp, m.mem_occurrence, &execs);
  ImGui::Text("warp %u of block %s (pick it in the map's selection)", warp, sim::dim_text(t.block_coords(m.selection.block)).c_str());
  if (execs > 1) {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12);
    ImGui::SliderInt("execution", &m.mem_occurrence, 0, execs - 1);
  }
  const sim::InstrStats& s = t.result.instr[mi.pc];
  char b[200];
  if (mi.space == sim::Space::Global)
    std::snprintf(b, sizeof b, "whole launch: %llu requests, %.2f sectors per request, %.2f lines per request",
                  static_cast<unsigned long long>(s.requests), s.requests ? double(s.sectors) / double(s.requests) : 0.0,
                  s.requests ? double(s.lines) / double(s.requests) : 0.0);
  else
    std::snprintf(b, sizeof b, "whole launch: %llu requests, %llu bank conflicts (%.2f per request)",
                  static_cast<unsigned long long>(s.requests), static_cast<unsigned long long>(s.conflicts),
                  s.requests ? double(s.conflicts) / double(s.requests) : 0.0);
  ImGui::TextUnformatted(b);
  if (!view) {
    ImGui::TextDisabled("this warp did not run this instruction (or its block was not recorded)");
    return;
  }
  ImGui::TextUnformatted(memory::summarize(view->access).text.c_str());
  if (!view->note.empty()) ImGui::TextColored(k_warn, "%s", view->note.c_str());
  draw_warp_picture(view->access, ImGui::GetContentRegionAvail().x, ImGui::GetContentRegionAvail().y, view->row_width);
}

void draw_threads(SimPanelModel& m) {
  const SimTrace& t = *m.trace;
  const std::vector<ThreadScore> sc = thread_scores(t, m.selection.block);
  if (sc.empty()) {
    ImGui::TextDisabled("no per-thread counts in this run");
    return;
  }
  ImGui::Text("block %s: instructions, global reads and writes per thread (click a row: its map)",
              sim::dim_text(t.block_coords(m.selection.block)).c_str());
  // The heat strip: instructions per thread, one cell per thread.
  uint32_t most = 1;
  for (const ThreadScore& s : sc) most = std::max(most, s.instructions);
  const float w = ImGui::GetContentRegionAvail().x, fs = ImGui::GetFontSize();
  const float cw = w / static_cast<float>(sc.size());
  const ImVec2 o = ImGui::GetCursorScreenPos();
  for (size_t i = 0; i < sc.size(); ++i) {
    const float v = static_cast<float>(sc[i].instructions) / static_cast<float>(most);
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(o.x + cw * i, o.y), ImVec2(o.x + cw * (i + 1), o.y + fs),
                                              ImGui::GetColorU32(ImVec4(0.2f + 0.8f * v, 0.3f + 0.4f * v, 0.9f - 0.7f * v, 1)));
  }
  ImGui::Dummy(ImVec2(w, fs));
  if (ImGui::BeginTable("##scores", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV)) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("thread");
    ImGui::TableSetupColumn("instructions");
    ImGui::TableSetupColumn("global reads");
    ImGui::TableSetupColumn("global writes");
    ImGui::TableHeadersRow();
    ImGuiListClipper clip;
    clip.Begin(static_cast<int>(sc.size()));
    while (clip.Step())
      for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
        const ThreadScore& s = sc[static_cast<size_t>(i)];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        const std::string name = sim::dim_text(t.thread_coords(s.thread));
        if (ImGui::Selectable(name.c_str(), m.selection.thread == s.thread, ImGuiSelectableFlags_SpanAllColumns)) {
          m.selection.thread = s.thread;
          m.scope = 0;
        }
        ImGui::TableNextColumn();
        ImGui::Text("%u", s.instructions);
        ImGui::TableNextColumn();
        ImGui::Text("%u", s.global_reads);
        ImGui::TableNextColumn();
        ImGui::Text("%u", s.global_writes);
      }
    ImGui::EndTable();
  }
}

void draw_instructions(SimPanelModel& m, SimPanelActions& a) {
  const SimTrace& t = *m.trace;
  // The heat strip: active lanes per source line (bright: every lane of every warp; dark: divergence).
  const std::vector<double> act = line_activity(t);
  const float w = ImGui::GetContentRegionAvail().x, fs = ImGui::GetFontSize();
  ImGui::TextDisabled("active lanes per source line (full: all 32 lanes; click: go to the line)");
  int lines = 0;
  for (double v : act) lines += v >= 0;
  if (lines > 0) {
    const float cw = w / static_cast<float>(lines);
    const ImVec2 o = ImGui::GetCursorScreenPos();
    int k = 0;
    for (size_t l = 0; l < act.size(); ++l) {
      if (act[l] < 0) continue;
      const float v = static_cast<float>(act[l]);
      const ImVec2 p0(o.x + cw * k, o.y), p1(o.x + cw * (k + 1) - 1, o.y + fs * 1.2f);
      ImGui::GetWindowDrawList()->AddRectFilled(p0, p1, ImGui::GetColorU32(ImVec4(0.15f + 0.2f * v, 0.2f + 0.65f * v, 0.25f + 0.2f * v, 1)));
      if (cw > fs * 1.6f)
        ImGui::GetWindowDrawList()->AddText(ImVec2(p0.x + 2, p0.y), IM_COL32(255, 255, 255, 220), std::to_string(l).c_str());
      ImGui::SetCursorScreenPos(p0);
      ImGui::PushID(static_cast<int>(l));
      ImGui::InvisibleButton("##line", ImVec2(std::max(cw - 1, 1.0f), fs * 1.2f));
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("line %zu: %.1f of 32 lanes active on average", l, act[l] * 32);
      if (ImGui::IsItemClicked()) a.jump_line = static_cast<int>(l);
      ImGui::PopID();
      ++k;
    }
    ImGui::SetCursorScreenPos(ImVec2(o.x, o.y + fs * 1.2f + ImGui::GetStyle().ItemSpacing.y));
  }
  const std::vector<InstrRow> rows = instruction_rows(t);
  if (ImGui::BeginTable("##instr", 6, ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_Resizable)) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("line", ImGuiTableColumnFlags_WidthFixed, fs * 3);
    ImGui::TableSetupColumn("PTX", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("warp execs", ImGuiTableColumnFlags_WidthFixed, fs * 5);
    ImGui::TableSetupColumn("active lanes", ImGuiTableColumnFlags_WidthFixed, fs * 5);
    ImGui::TableSetupColumn("sectors/req", ImGuiTableColumnFlags_WidthFixed, fs * 5);
    ImGui::TableSetupColumn("conflicts/req", ImGuiTableColumnFlags_WidthFixed, fs * 5);
    ImGui::TableHeadersRow();
    ImGui::PushTextWrapPos(0.0f);  // a long PTX line wraps in its column (the table is a window of its own)
    ImGuiListClipper clip;
    clip.Begin(static_cast<int>(rows.size()));
    while (clip.Step())
      for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
        const InstrRow& r = rows[static_cast<size_t>(i)];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::PushID(i);
        if (ImGui::Selectable(r.line > 0 ? std::to_string(r.line).c_str() : "-", false, ImGuiSelectableFlags_SpanAllColumns) && r.line > 0)
          a.jump_line = r.line;
        ImGui::PopID();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(r.text.c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%llu", static_cast<unsigned long long>(r.warp_execs));
        ImGui::TableNextColumn();
        ImGui::TextColored(r.active_lanes < 31.99 ? k_warn : ImVec4(0.8f, 0.8f, 0.8f, 1), "%.1f", r.active_lanes);
        ImGui::TableNextColumn();
        if (r.memory && r.space != sim::Space::Shared)
          ImGui::Text("%.2f", r.sectors_per_request());
        ImGui::TableNextColumn();
        if (r.memory && r.space == sim::Space::Shared)
          ImGui::TextColored(r.conflicts ? k_bad : ImVec4(0.8f, 0.8f, 0.8f, 1), "%.2f", r.conflicts_per_request());
      }
    ImGui::PopTextWrapPos();
    ImGui::EndTable();
  }
}

void draw_views(SimPanelModel& m, SimPanelActions& a, float w, float h) {
  ImGui::BeginChild("##views", ImVec2(w, h), true);
  ImGui::PushTextWrapPos(0.0f);
  if (ImGui::BeginTabBar("##simviews")) {
    // Short names: the five tabs fit the editor's width at 1600x900 in presenter mode (hover says more).
    const char* names[] = {"Diagnostics", "Who touched", "Memory", "Threads", "Lines"};
    const char* tips[] = {"out-of-bounds accesses, races, divergent barriers and uninitialised reads found",
                          "who read and who wrote the element picked in a map",
                          "the selection's memory accesses, lane by lane",
                          "instructions and global accesses per thread",
                          "the PTX instructions per source line: executions, active lanes, sectors, conflicts"};
    for (int i = 0; i < 5; ++i) {
      const bool force = m.view_tab == i && m.view_tab >= 0;
      const bool open = ImGui::BeginTabItem(names[i], nullptr, force ? ImGuiTabItemFlags_SetSelected : 0);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tips[i]);
      if (open) {
        switch (i) {
          case 0: draw_diagnostics(m, a); break;
          case 1: draw_touches(m); break;
          case 2: draw_memory(m); break;
          case 3: draw_threads(m); break;
          case 4: draw_instructions(m, a); break;
        }
        ImGui::EndTabItem();
      }
    }
    m.view_tab = -1;  // forced once
    ImGui::EndTabBar();
  }
  ImGui::PopTextWrapPos();
  ImGui::EndChild();
}

}  // namespace

const AccessMaps& current_maps(SimPanelModel& m) {
  m.selection.scope = static_cast<Scope>(std::clamp(m.scope, 0, 3));
  if (!m.trace) {
    m.maps = {};
    m.maps_valid = false;
    return m.maps;
  }
  m.selection = clamp_selection(*m.trace, m.selection);
  if (!m.maps_valid || m.maps_trace != m.trace.get() || !(m.maps_for == m.selection)) {
    m.maps = access_maps(*m.trace, m.selection);
    m.maps_trace = m.trace.get();
    m.maps_for = m.selection;
    m.maps_valid = true;
  }
  return m.maps;
}

void draw_sim_panel(SimPanelModel& m, SimPanelActions& a) {
  draw_controls(m, a);
  if (!m.trace) {
    ImGui::Spacing();
    ImGui::TextWrapped(
        "The simulator runs your kernel's PTX thread by thread on the CPU, on the lab's own inputs: no GPU "
        "needed. Press Simulate, then pick a thread, a warp or a block to see what it read and wrote.");
    return;
  }
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float sp = ImGui::GetStyle().ItemSpacing.x;
  const bool beside = avail.x > ImGui::GetFontSize() * 50;
  if (beside) {
    const float left = std::floor(avail.x * 0.55f);
    draw_maps(m, left, avail.y);
    ImGui::SameLine();
    draw_views(m, a, avail.x - left - sp, avail.y);
  } else {
    const float top = std::floor(avail.y * 0.55f);
    draw_maps(m, avail.x, top);
    draw_views(m, a, avail.x, avail.y - top - ImGui::GetStyle().ItemSpacing.y);
  }
}

}  // namespace bs::ui
