// kernel_panel.cpp: the kernel editor window's contents (see kernel_panel.h).
#include "ui/kernel/kernel_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ui/widgets.h"

namespace bs::ui {

namespace {

// A small spinner: a dot going round (time-driven, so it moves while NVRTC works on its thread).
void spinner() {
  const float r = ImGui::GetFontSize() * 0.35f;
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const ImVec2 c(p.x + r + 2, p.y + ImGui::GetFontSize() * 0.5f + 1);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddCircle(c, r, ImGui::GetColorU32(ImGuiCol_TextDisabled), 16, 1.5f);
  const float a = static_cast<float>(ImGui::GetTime() * 6.0);
  dl->AddCircleFilled(ImVec2(c.x + std::cos(a) * r, c.y + std::sin(a) * r), r * 0.45f,
                      ImGui::GetColorU32(ImGuiCol_Text));
  ImGui::Dummy(ImVec2(2 * r + 6, ImGui::GetFontSize()));
  ImGui::SameLine();
}

void draw_toolbar(KernelPanelModel& m, CodeDocument& doc, KernelPanelActions& a) {
  const float fs = ImGui::GetFontSize();
  ImGui::SetNextItemWidth(fs * 6);
  if (ImGui::BeginCombo(
          "##target", m.target_names.empty() ? "" : m.target_names[static_cast<size_t>(m.target)].c_str())) {
    for (int i = 0; i < static_cast<int>(m.target_names.size()); ++i)
      if (ImGui::Selectable(m.target_names[static_cast<size_t>(i)].c_str(), i == m.target)) a.target = i;
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("the lab this kernel runs in (its contract: name and signature)");
  same_line_if_fits(button_width("Templates"));
  if (ImGui::Button("Templates")) ImGui::OpenPopup("templates");
  if (ImGui::BeginPopup("templates")) {
    ImGui::TextDisabled("loading a template replaces the text (Ctrl+Z brings yours back)");
    for (const auto& t : m.templates) {
      const std::string label = t.id + "  (" + m.target_names[static_cast<size_t>(t.target)] + ")";
      if (ImGui::MenuItem(label.c_str())) a.template_id = t.id;
      if (ImGui::IsItemHovered() && !t.summary.empty()) ImGui::SetTooltip("%s", t.summary.c_str());
    }
    ImGui::EndPopup();
  }
  same_line_if_fits(button_width("Compile"));
  ImGui::BeginDisabled(!m.nvrtc_available);
  if (ImGui::Button("Compile")) a.compile = true;
  ImGui::EndDisabled();
  same_line_if_fits(labelled_width(ImGui::GetFrameHeight(), "auto"));
  ImGui::Checkbox("auto", &m.auto_compile);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("compile after a pause in typing (400 ms)");
  same_line_if_fits(button_width("Undo"));
  ImGui::BeginDisabled(!doc.can_undo());
  if (ImGui::Button("Undo")) a.undo = true;
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("Ctrl+Z%s%s", doc.can_undo() ? ": " : "", doc.undo_label().c_str());
  ImGui::EndDisabled();
  same_line_if_fits(button_width("Redo"));
  ImGui::BeginDisabled(!doc.can_redo());
  if (ImGui::Button("Redo")) a.redo = true;
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("Ctrl+Y or Ctrl+Shift+Z%s%s", doc.can_redo() ? ": " : "", doc.redo_label().c_str());
  ImGui::EndDisabled();
  same_line_if_fits(labelled_width(ImGui::GetFrameHeight(), "PTX"));
  ImGui::Checkbox("PTX", &m.show_ptx);

  // File and options: folded away by default where the window is narrow (1280x720, presenter mode), so the
  // code keeps its height.
  ImGui::SetNextItemOpen(ImGui::GetContentRegionAvail().x >= fs * 50, ImGuiCond_FirstUseEver);
  if (!ImGui::TreeNodeEx("file and compile options", ImGuiTreeNodeFlags_NoTreePushOnOpen)) return;
  ImGui::SetNextItemWidth(std::max(fs * 8, ImGui::GetContentRegionAvail().x - fs * 7));
  ImGui::InputTextWithHint(
      "##path", "file.cu", m.path.data(), m.path.capacity() + 1, ImGuiInputTextFlags_CallbackResize,
      [](ImGuiInputTextCallbackData* d) {
        auto* s = static_cast<std::string*>(d->UserData);
        s->resize(static_cast<size_t>(d->BufTextLen));
        d->Buf = s->data();
        return 0;
      },
      &m.path);
  same_line_if_fits(button_width("Load"));
  if (ImGui::Button("Load")) a.load_file = true;
  same_line_if_fits(button_width("Save"));
  if (ImGui::Button("Save")) a.save_file = true;
  if (!m.file_message.empty()) {
    if (m.file_error)
      error_text(m.file_message);
    else
      ImGui::TextDisabled("%s", m.file_message.c_str());
  }

  // Options.
  bool changed = false;
  changed |= ImGui::Checkbox("-use_fast_math", &m.fast_math);
  same_line_if_fits(labelled_width(ImGui::GetFrameHeight(), "-lineinfo"));
  changed |= ImGui::Checkbox("-lineinfo", &m.lineinfo);
  same_line_if_fits(labelled_width(fs * 6, "-maxrregcount"));
  ImGui::SetNextItemWidth(fs * 6);
  if (ImGui::InputInt("-maxrregcount", &m.maxrregcount, 8, 32, ImGuiInputTextFlags_EnterReturnsTrue))
    changed = true;
  if (ImGui::IsItemDeactivatedAfterEdit()) changed = true;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("0 = no limit; 16..255 limits the registers per thread");
  same_line_if_fits(labelled_width(fs * 5, "arch"));
  ImGui::SetNextItemWidth(fs * 5);
  if (!m.arch_names.empty() &&
      ImGui::BeginCombo("arch", m.arch_names[static_cast<size_t>(std::clamp(
                                                 m.arch_index, 0, static_cast<int>(m.arch_names.size()) - 1))]
                                    .c_str())) {
    for (int i = 0; i < static_cast<int>(m.arch_names.size()); ++i)
      if (ImGui::Selectable(m.arch_names[static_cast<size_t>(i)].c_str(), i == m.arch_index)) {
        m.arch_index = i;
        changed = true;
      }
    ImGui::EndCombo();
  }
  if (changed) a.options_changed = true;
}

void draw_status_lines(const KernelPanelModel& m);

// In a box of fixed height (three lines; more scrolls inside it): the editor below never moves when the
// status, the last-good line or the resources change with a compile.
void draw_status(const KernelPanelModel& m) {
  ImGui::BeginChild("##status", ImVec2(0, ImGui::GetTextLineHeightWithSpacing() * 3), false);
  draw_status_lines(m);
  ImGui::EndChild();
}

void draw_status_lines(const KernelPanelModel& m) {
  if (!m.nvrtc_available) {
    error_text("compiling is unavailable: " + m.nvrtc_message);
    return;
  }
  ImGui::PushTextWrapPos(0);
  switch (m.status) {
    case KernelPanelModel::Status::Compiling:
      spinner();
      ImGui::TextUnformatted(m.status_text.c_str());
      break;
    case KernelPanelModel::Status::Ok:
      ImGui::TextColored(tone_colour(Tone::Pass), "%s", m.status_text.c_str());
      break;
    case KernelPanelModel::Status::Failed:
      ImGui::TextColored(tone_colour(Tone::Error), "%s", m.status_text.c_str());
      break;
    case KernelPanelModel::Status::None:
      ImGui::TextDisabled("%s", m.status_text.c_str());
      break;
  }
  ImGui::PopTextWrapPos();
  if (!m.last_good_text.empty()) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(m.status == KernelPanelModel::Status::Failed
                           ? tone_colour(Tone::Warning)
                           : ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled),
                       "%s", m.last_good_text.c_str());
    ImGui::PopTextWrapPos();
  }
  for (const std::string& r : m.resources)
    ImGui::TextWrapped("%s", r.c_str());
}

void draw_messages(const KernelPanelModel& m, CodeDocument& doc, float width, float height) {
  ImGui::BeginChild("##messages", ImVec2(width, height), true);
  for (size_t i = 0; i < m.messages.size(); ++i) {
    const auto& msg = m.messages[i];
    ImGui::PushID(static_cast<int>(i));
    ImGui::PushStyleColor(ImGuiCol_Text, msg.error ? tone_colour(Tone::Error) : tone_colour(Tone::Warning));
    char head[32];
    if (msg.line > 0)
      std::snprintf(head, sizeof head, "line %d: ", msg.line);
    else
      head[0] = 0;
    const std::string label = std::string(head) + (msg.error ? "error: " : "warning: ") + msg.text;
    if (ImGui::Selectable(label.c_str(), false) && msg.line > 0) doc.request_jump(msg.line);
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered() && msg.line > 0) ImGui::SetTooltip("click: go to line %d", msg.line);
    ImGui::PopID();
  }
  ImGui::EndChild();
}

void draw_ptx(KernelPanelModel& m, CodeEditorState& editor, int caret_line) {
  if (!m.ptx_note.empty()) ImGui::TextDisabled("%s", m.ptx_note.c_str());
  if (m.ptx.empty()) {
    ImGui::TextDisabled("no PTX yet (compile first)");
    return;
  }
  ImGui::BeginChild("##ptx", ImVec2(0, 0), true, ImGuiWindowFlags_HorizontalScrollbar);
  // The PTX's lines (split once per frame: a few hundred lines).
  std::vector<std::pair<size_t, size_t>> lines;
  for (size_t s = 0; s <= m.ptx.size();) {
    const size_t nl = m.ptx.find('\n', s);
    lines.emplace_back(s, nl == std::string::npos ? m.ptx.size() : nl);
    if (nl == std::string::npos) break;
    s = nl + 1;
  }
  std::vector<int> source_of(lines.size() + 1, 0);
  std::vector<bool> block_start(lines.size() + 1, false);
  for (const auto& b : m.ptx_blocks)
    for (int l = b.first; l <= b.last && l <= static_cast<int>(lines.size()); ++l) {
      source_of[static_cast<size_t>(l)] = b.source_line;
      block_start[static_cast<size_t>(l)] = l == b.first;
    }
  const float fs = ImGui::GetFontSize();
  const float num_w = ImGui::CalcTextSize("L0000 ").x;
  ImGuiListClipper clip;
  clip.Begin(static_cast<int>(lines.size()));
  while (clip.Step()) {
    for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
      const int pl = i + 1;
      const int src = source_of[static_cast<size_t>(pl)];
      const bool picked = src > 0 && src == m.ptx_selected_line;
      const bool at_caret = src > 0 && src == caret_line;
      ImGui::PushID(i);
      const ImVec2 p = ImGui::GetCursorScreenPos();
      if (picked || at_caret) {
        ImGui::GetWindowDrawList()->AddRectFilled(
            p, ImVec2(p.x + ImGui::GetWindowWidth() + ImGui::GetScrollX(), p.y + fs),
            ImGui::GetColorU32(picked ? ImVec4(0.3f, 0.55f, 1.0f, 0.25f) : ImVec4(0.5f, 0.5f, 0.5f, 0.15f)));
      }
      if (src > 0 && block_start[static_cast<size_t>(pl)])
        ImGui::TextDisabled("L%-4d", src);
      else
        ImGui::Dummy(ImVec2(num_w - ImGui::GetStyle().ItemSpacing.x, fs));
      ImGui::SameLine(num_w);
      const auto [b, e] = lines[static_cast<size_t>(i)];
      ImGui::TextUnformatted(m.ptx.data() + b, m.ptx.data() + e);
      if (src > 0 && ImGui::IsItemHovered()) {
        ImGui::SetTooltip("from line %d of your kernel (click: show it)", src);
        if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
          m.ptx_selected_line = src;
          editor.highlight_line = src;
          editor.scroll_to_line = src;
        }
      }
      ImGui::PopID();
    }
  }
  ImGui::EndChild();
}

}  // namespace

void draw_kernel_panel(KernelPanelModel& m, CodeDocument& doc, CodeEditorState& editor, KernelPanelActions& a,
                       double now_s) {
  draw_toolbar(m, doc, a);
  draw_status(m);
  const float fs = ImGui::GetFontSize();
  const ImVec2 spacing = ImGui::GetStyle().ItemSpacing;
  const float avail_h = ImGui::GetContentRegionAvail().y;
  const float avail_w = ImGui::GetContentRegionAvail().x;
  // The PTX pane beside the editor where the window is wide enough for both (about 60 characters of code
  // and 40 of PTX), below it otherwise (1280x720, presenter mode), so the code keeps its width.
  const bool beside = avail_w >= fs * 62;
  // The messages list: up to 5 lines (3 where the PTX pane goes below).
  const float msg_lines = std::min(static_cast<float>(m.messages.size()), beside ? 5.0f : 3.0f);
  const float msg_h = m.messages.empty() ? 0.0f
                                         : msg_lines * ImGui::GetTextLineHeightWithSpacing() +
                                               ImGui::GetStyle().WindowPadding.y * 2;
  const float msg_total = msg_h > 0 ? msg_h + spacing.y : 0.0f;
  // Below the editor only while the code keeps at least 12 lines; otherwise the code keeps the height.
  const float below_h = std::max(fs * 6, avail_h * 0.32f);
  const bool hidden_ptx = m.show_ptx && !beside && avail_h - below_h - spacing.y - msg_total < fs * 12;
  const bool show_ptx = m.show_ptx && !hidden_ptx;
  const float ptx_w = !show_ptx ? 0.0f : beside ? std::max(fs * 22, avail_w * 0.36f) : avail_w;
  const float ptx_h = !show_ptx ? 0.0f : beside ? 0.0f : below_h;
  const float editor_w = show_ptx && beside ? avail_w - ptx_w - spacing.x : avail_w;
  const float column_h = show_ptx && !beside
                             ? avail_h - ptx_h - spacing.y
                             : avail_h - (hidden_ptx ? ImGui::GetTextLineHeightWithSpacing() : 0.0f);
  const float editor_h = std::max(fs * 6, column_h - msg_total);

  ImGui::BeginGroup();
  if (draw_code_editor("kernel_source", doc, editor, ImVec2(editor_w, editor_h), now_s, light_theme()))
    a.text_changed = true;
  if (msg_h > 0) draw_messages(m, doc, editor_w, msg_h);
  ImGui::EndGroup();
  if (hidden_ptx) ImGui::TextDisabled("PTX hidden: the window is too small");
  if (show_ptx) {
    if (beside) ImGui::SameLine();
    ImGui::BeginChild("##ptx_pane", ImVec2(ptx_w, ptx_h), false);
    ImGui::TextDisabled("PTX (L = your line)");
    draw_ptx(m, editor, doc.cursor_line());
    ImGui::EndChild();
  }
}

}  // namespace bs::ui
