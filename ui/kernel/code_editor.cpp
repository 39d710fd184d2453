// code_editor.cpp: the kernel editor's text widget (see code_editor.h for how it works).
#include "ui/kernel/code_editor.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>
#include <string_view>

namespace bs::ui {

namespace {

struct CallbackContext {
  CodeDocument* doc;
  CodeEditorState* st;
  double now_s;
  bool changed = false;
};

bool key_pressed(ImGuiKey key, bool repeat = true) {
  return ImGui::IsKeyPressed(ImGui::GetKeyIndex(key), repeat);
}

// Replaces the whole edit buffer (ImGui's own copy while it is active) with `text`, and places the cursor.
void set_buffer(ImGuiInputTextCallbackData* data, const std::string& text, int cursor, int sel_start,
                int sel_end) {
  data->DeleteChars(0, data->BufTextLen);
  data->InsertChars(0, text.data(), text.data() + text.size());
  const int n = data->BufTextLen;
  data->CursorPos = std::clamp(cursor, 0, n);
  data->SelectionStart = std::clamp(sel_start, 0, n);
  data->SelectionEnd = std::clamp(sel_end, 0, n);
}

int callback(ImGuiInputTextCallbackData* data) {
  auto* ctx = static_cast<CallbackContext*>(data->UserData);
  CodeEditorState& st = *ctx->st;
  CodeDocument& doc = *ctx->doc;
  if (data->EventFlag == ImGuiInputTextFlags_CallbackResize) {
    st.buffer.resize(static_cast<size_t>(data->BufTextLen));
    data->Buf = st.buffer.data();
    return 0;
  }
  if (data->EventFlag == ImGuiInputTextFlags_CallbackCharFilter) {
    // Tab and Enter typed (not pasted: pasted text passes here too) become the editor's own edits below.
    const ImGuiIO& io = ImGui::GetIO();
    if (data->EventChar == '\t' && key_pressed(ImGuiKey_Tab)) {
      st.pending_tab = true;
      return 1;
    }
    if (data->EventChar == '\n' && !io.KeyCtrl &&
        (key_pressed(ImGuiKey_Enter) || key_pressed(ImGuiKey_KeyPadEnter))) {
      st.pending_newline = true;
      return 1;
    }
    return 0;
  }
  if (data->EventFlag != ImGuiInputTextFlags_CallbackAlways) return 0;

  const ImGuiIO& io = ImGui::GetIO();
  const std::string_view cur(data->Buf, static_cast<size_t>(data->BufTextLen));
  // The document changed from outside (an undo from the menu, a template, a file): show it.
  if (doc.revision() != st.shown_revision && doc.text() != cur) {
    const int c = std::min(doc.cursor(), static_cast<int>(doc.text().size()));
    set_buffer(data, doc.text(), c, c, c);
    st.shown_revision = doc.revision();
  }
  std::optional<int> back;  // an undo or redo: where the cursor goes
  const bool ctrl = io.KeyCtrl && !io.KeyAlt;
  if (st.chords_queued) {
    for (; st.queued_undo > 0; --st.queued_undo)
      if (std::optional<int> b = doc.undo()) back = b;
    for (; st.queued_redo > 0; --st.queued_redo)
      if (std::optional<int> b = doc.redo()) back = b;
  } else if (ctrl && key_pressed(ImGuiKey_Z)) {
    back = io.KeyShift ? doc.redo() : doc.undo();
  } else if (ctrl && key_pressed(ImGuiKey_Y)) {
    back = doc.redo();
  }
  if (back) {
    set_buffer(data, doc.text(), *back, *back, *back);
    st.shown_revision = doc.revision();
    ctx->changed = true;
  }
  const std::string_view text(data->Buf, static_cast<size_t>(data->BufTextLen));
  std::optional<TextEdit> edit;
  if (st.pending_tab) {
    edit = indent(text, data->CursorPos, data->SelectionStart, data->SelectionEnd, st.indent_width);
  } else if (key_pressed(ImGuiKey_Tab) && io.KeyShift && !io.KeyCtrl) {
    edit = outdent(text, data->CursorPos, data->SelectionStart, data->SelectionEnd, st.indent_width);
  } else if (st.pending_newline) {
    edit =
        newline_keep_indent(text, data->CursorPos, data->SelectionStart, data->SelectionEnd, st.indent_width);
  }
  st.pending_tab = st.pending_newline = false;
  if (edit && edit->text != text) {
    set_buffer(data, edit->text, edit->cursor, edit->sel_start, edit->sel_end);
    data->BufDirty = true;
  } else if (edit) {
    data->CursorPos = edit->cursor;
    data->SelectionStart = edit->sel_start;
    data->SelectionEnd = edit->sel_end;
  }
  if (std::optional<int> line = doc.take_jump()) {
    const int at = line_start(std::string_view(data->Buf, static_cast<size_t>(data->BufTextLen)), *line);
    data->CursorPos = data->SelectionStart = data->SelectionEnd = at;
    st.scroll_to_line = *line;
  }
  st.cursor = data->CursorPos;
  st.sel_start = data->SelectionStart;
  st.sel_end = data->SelectionEnd;
  return 0;
}

ImU32 colour_u32(const ImVec4& c) {
  return ImGui::ColorConvertFloat4ToU32(c);
}

}  // namespace

ImVec4 token_colour(TokenKind kind, bool light) {
  if (light) {
    switch (kind) {
      case TokenKind::Keyword:
        return {0.05f, 0.20f, 0.70f, 1};
      case TokenKind::Type:
        return {0.00f, 0.45f, 0.55f, 1};
      case TokenKind::CudaKeyword:
        return {0.55f, 0.10f, 0.60f, 1};
      case TokenKind::CudaBuiltin:
        return {0.70f, 0.30f, 0.00f, 1};
      case TokenKind::Number:
        return {0.05f, 0.50f, 0.15f, 1};
      case TokenKind::String:
      case TokenKind::Char:
        return {0.65f, 0.10f, 0.10f, 1};
      case TokenKind::Comment:
        return {0.42f, 0.45f, 0.42f, 1};
      case TokenKind::Preprocessor:
        return {0.50f, 0.35f, 0.05f, 1};
      case TokenKind::Text:
        break;
    }
    return {0.08f, 0.08f, 0.08f, 1};
  }
  switch (kind) {
    case TokenKind::Keyword:
      return {0.45f, 0.65f, 1.00f, 1};
    case TokenKind::Type:
      return {0.35f, 0.85f, 0.85f, 1};
    case TokenKind::CudaKeyword:
      return {0.85f, 0.55f, 1.00f, 1};
    case TokenKind::CudaBuiltin:
      return {1.00f, 0.70f, 0.35f, 1};
    case TokenKind::Number:
      return {0.65f, 0.90f, 0.55f, 1};
    case TokenKind::String:
    case TokenKind::Char:
      return {0.95f, 0.60f, 0.50f, 1};
    case TokenKind::Comment:
      return {0.50f, 0.58f, 0.50f, 1};
    case TokenKind::Preprocessor:
      return {0.90f, 0.80f, 0.45f, 1};
    case TokenKind::Text:
      break;
  }
  return {0.90f, 0.90f, 0.90f, 1};
}

namespace {

// The widest line's width: it sets the text area's width (ImGui 1.86's multi-line input does not scroll
// sideways).
float widest_line(ImFont* font, float fs, const std::string& text) {
  float widest = 0;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t nl = text.find('\n', start);
    const size_t end = nl == std::string::npos ? text.size() : nl;
    widest = std::max(widest, font->CalcTextSizeA(fs, FLT_MAX, 0, text.data() + start, text.data() + end).x);
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return widest;
}

// Keeps the caret in view when it moved (typing, arrows, a jump): this child scrolls, not the input.
void keep_caret_in_view(CodeEditorState& st, int caret_line, float fs, float pad_y) {
  const float scroll_y = ImGui::GetScrollY(), view_h = ImGui::GetWindowHeight();
  if (st.scroll_to_line > 0) {
    const float y = (static_cast<float>(st.scroll_to_line) - 1) * fs;
    ImGui::SetScrollY(std::max(0.0f, y - view_h * 0.35f));
    st.scroll_to_line = 0;
  } else if ((st.active && caret_line != st.last_caret_line) || view_h != st.last_view_h) {
    // The caret moved, or the editor was resized (a smaller window, the PTX pane moved below): keep the
    // caret's line in view.
    const float y = (static_cast<float>(caret_line) - 1) * fs + pad_y;
    if (y < scroll_y)
      ImGui::SetScrollY(y);
    else if (y + fs * 2 > scroll_y + view_h)
      ImGui::SetScrollY(y + fs * 2 - view_h);
  }
  st.last_caret_line = caret_line;
  st.last_view_h = view_h;
}

// Where the editor's parts are on screen this frame.
struct EditorLayout {
  ImFont* font;
  float fs;
  int digits;         // of the line numbers
  float digit_w;      // one digit's width
  float gutter_w;     // numbers, then the marker dot
  ImVec2 gutter_pos;  // the gutter's top left
  ImVec2 item_pos;    // the text area's top left
  ImVec2 origin;      // where the first line's text starts
  float right;        // the text area's right edge
  float line_y(int line) const { return origin.y + (static_cast<float>(line) - 1) * fs; }
};

// Line `s` (`len` bytes) in its tokens' colours at y.
void draw_line_text(ImDrawList* dl, const EditorLayout& g, const char* s, size_t len,
                    const std::vector<Token>* tokens, bool light, float y) {
  const ImU32 text_col = colour_u32(token_colour(TokenKind::Text, light));
  float x = g.origin.x;
  size_t at = 0;
  auto draw = [&](size_t b, size_t e, ImU32 col) {
    if (e <= b) return;
    dl->AddText(g.font, g.fs, ImVec2(x, y), col, s + b, s + e);
    x += g.font->CalcTextSizeA(g.fs, FLT_MAX, 0, s + b, s + e).x;
  };
  if (tokens) {
    for (const Token& t : *tokens) {
      const size_t b = static_cast<size_t>(t.begin), e = std::min(static_cast<size_t>(t.end), len);
      if (b >= len) break;
      draw(at, b, text_col);
      draw(b, e, colour_u32(token_colour(t.kind, light)));
      at = e;
    }
  }
  draw(at, len, text_col);
}

// The messages of a line's markers, as a tooltip.
void marker_tooltip(const std::vector<const LineMarker*>& markers, int line, float fs) {
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(fs * 40);
  for (const LineMarker* m : markers) {
    ImGui::TextColored(
        m->level == LineMarker::Level::Error ? ImVec4(1, 0.45f, 0.4f, 1) : ImVec4(1, 0.8f, 0.3f, 1),
        "line %d: %s", line, m->level == LineMarker::Level::Error ? "error" : "warning");
    ImGui::TextUnformatted(m->message.c_str());
  }
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

// The overlay on the (transparent) input: the gutter, and for each visible line its bands (the PTX pane's
// line, then markers), its coloured text, its number (brighter on the caret's line) and its marker dot.
void draw_overlay(const CodeDocument& doc, CodeEditorState& st, const EditorLayout& g, int lines,
                  int caret_line, bool light) {
  const float fs = g.fs;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 win_pos = ImGui::GetWindowPos();
  const float clip_top = win_pos.y, clip_bottom = win_pos.y + ImGui::GetWindowHeight();
  const int first = std::max(1, static_cast<int>((clip_top - g.origin.y) / fs));
  const int last = std::min(lines, static_cast<int>((clip_bottom - g.origin.y) / fs) + 2);
  const ImU32 err_band =
      colour_u32(light ? ImVec4(0.95f, 0.35f, 0.30f, 0.22f) : ImVec4(0.90f, 0.20f, 0.20f, 0.22f));
  const ImU32 warn_band =
      colour_u32(light ? ImVec4(0.95f, 0.75f, 0.10f, 0.25f) : ImVec4(0.90f, 0.75f, 0.10f, 0.18f));
  const ImU32 hl_band =
      colour_u32(light ? ImVec4(0.20f, 0.45f, 0.95f, 0.20f) : ImVec4(0.30f, 0.55f, 1.00f, 0.22f));
  const ImU32 err_dot = colour_u32(ImVec4(0.92f, 0.22f, 0.20f, 1));
  const ImU32 warn_dot = colour_u32(ImVec4(0.95f, 0.70f, 0.10f, 1));

  // Gutter background, a shade off the text area.
  const ImVec2 g0(g.gutter_pos.x, win_pos.y);
  dl->AddRectFilled(g0, ImVec2(g.gutter_pos.x + g.gutter_w - fs * 0.3f, clip_bottom),
                    ImGui::GetColorU32(ImGuiCol_WindowBg, 0.6f));

  st.hovered_marker_line = 0;
  st.first_marker = ImVec2(-1, -1);
  size_t offset = line_start(st.buffer, first);
  for (int line = first; line <= last; ++line) {
    const size_t nl = st.buffer.find('\n', offset);
    const size_t end = nl == std::string::npos ? st.buffer.size() : nl;
    const float y = g.line_y(line);
    const auto markers = doc.markers_on(line);
    bool has_err = false, has_warn = false;
    for (const LineMarker* m : markers)
      (m->level == LineMarker::Level::Error ? has_err : has_warn) = true;
    const ImVec2 band0(g.item_pos.x, y), band1(g.right, y + fs);
    if (line == st.highlight_line) dl->AddRectFilled(band0, band1, hl_band);
    if (has_err || has_warn) dl->AddRectFilled(band0, band1, has_err ? err_band : warn_band);
    const bool tokenized = static_cast<size_t>(line - 1) < st.tokens.size();
    draw_line_text(dl, g, st.buffer.data() + offset, end - offset,
                   tokenized ? &st.tokens[static_cast<size_t>(line - 1)] : nullptr, light, y);
    std::string num = std::to_string(line);
    if (static_cast<int>(num.size()) < g.digits)
      num.insert(0, static_cast<size_t>(g.digits) - num.size(), ' ');
    const ImU32 num_col =
        ImGui::GetColorU32(line == caret_line && st.active ? ImGuiCol_Text : ImGuiCol_TextDisabled);
    dl->AddText(g.font, fs, ImVec2(g.gutter_pos.x + fs * 0.3f, y), num_col, num.c_str());
    if (has_err || has_warn) {
      const ImVec2 c(g.gutter_pos.x + g.digit_w * static_cast<float>(g.digits) + fs * 0.75f, y + fs * 0.5f);
      dl->AddCircleFilled(c, fs * 0.3f, has_err ? err_dot : warn_dot);
      if (st.first_marker.x < 0) st.first_marker = c;
      // Hover over the marker or the line's band: the messages.
      const bool over_gutter =
          ImGui::IsMouseHoveringRect(ImVec2(g.gutter_pos.x, y), ImVec2(g.gutter_pos.x + g.gutter_w, y + fs));
      const bool over_line = ImGui::IsMouseHoveringRect(band0, band1);
      if ((over_gutter || over_line) && ImGui::IsWindowHovered(ImGuiHoveredFlags_ChildWindows)) {
        st.hovered_marker_line = line;
        marker_tooltip(markers, line, fs);
      }
    }
    if (nl == std::string::npos) break;
    offset = nl + 1;
  }

  // The caret (ImGui's own is transparent with the text), blinking while the editor has the keyboard.
  if (st.active && std::fmod(ImGui::GetTime(), 1.2) < 0.8) {
    const int ls = line_start(st.buffer, caret_line);
    const float cx = g.origin.x + g.font
                                      ->CalcTextSizeA(fs, FLT_MAX, 0, st.buffer.data() + ls,
                                                      st.buffer.data() + std::max(ls, st.cursor))
                                      .x;
    const float cy = g.line_y(caret_line);
    dl->AddLine(ImVec2(cx, cy), ImVec2(cx, cy + fs - 1), colour_u32(token_colour(TokenKind::Text, light)),
                1.0f);
  }
}

}  // namespace

bool draw_code_editor(const char* id, CodeDocument& doc, CodeEditorState& st, ImVec2 size, double now_s,
                      bool light) {
  // Between frames the buffer follows the document (ImGui reads it when the widget is not active; while it
  // is, the callback hands the change over).
  if (!st.active && st.shown_revision != doc.revision()) {
    st.buffer = doc.text();
    st.shown_revision = doc.revision();
    st.cursor = st.sel_start = st.sel_end = std::min(doc.cursor(), static_cast<int>(st.buffer.size()));
  }
  if (doc.pending_jump()) st.focus = true;

  const ImGuiStyle& style = ImGui::GetStyle();
  EditorLayout g{};
  g.font = ImGui::GetFont();
  g.fs = ImGui::GetFontSize();
  const float fs = g.fs;
  const int lines = line_count(st.buffer);
  g.digit_w = ImGui::CalcTextSize("0").x;
  g.digits = std::max(3, static_cast<int>(std::log10(std::max(lines, 1))) + 1);
  g.gutter_w = g.digit_w * static_cast<float>(g.digits) + fs * 1.6f;

  ImGui::PushStyleColor(ImGuiCol_ChildBg, ImGui::GetStyleColorVec4(ImGuiCol_FrameBg));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
  st.top_y = ImGui::GetCursorScreenPos().y;
  ImGui::BeginChild(id, size, true, ImGuiWindowFlags_HorizontalScrollbar | ImGuiWindowFlags_NoMove);
  ImGui::PopStyleVar();
  ImGui::PopStyleColor();

  const float widest = widest_line(g.font, fs, st.buffer);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float text_w = std::max(avail.x - g.gutter_w, widest + fs * 4);
  const float text_h = std::max(avail.y, (static_cast<float>(lines) + 2) * fs + style.FramePadding.y * 2);

  g.gutter_pos = ImGui::GetCursorScreenPos();
  ImGui::SetCursorScreenPos(ImVec2(g.gutter_pos.x + g.gutter_w, g.gutter_pos.y));
  g.item_pos = ImGui::GetCursorScreenPos();
  g.right = g.item_pos.x + text_w;

  if (st.focus) {
    ImGui::SetKeyboardFocusHere();
    st.focus = false;
  }
  CallbackContext ctx{&doc, &st, now_s};
  const ImGuiInputTextFlags flags = ImGuiInputTextFlags_AllowTabInput | ImGuiInputTextFlags_NoUndoRedo |
                                    ImGuiInputTextFlags_CallbackAlways |
                                    ImGuiInputTextFlags_CallbackCharFilter |
                                    ImGuiInputTextFlags_CallbackResize;
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0, 0, 0, 0));
  ImGui::PushStyleColor(ImGuiCol_FrameBg, ImVec4(0, 0, 0, 0));
  ImGui::PushStyleColor(ImGuiCol_FrameBgHovered, ImVec4(0, 0, 0, 0));
  ImGui::PushStyleColor(ImGuiCol_FrameBgActive, ImVec4(0, 0, 0, 0));
  ImGui::PushStyleVar(ImGuiStyleVar_FrameBorderSize, 0.0f);
  const std::string input_id = std::string("##") + id + "_text";
  const bool typed = ImGui::InputTextMultiline(input_id.c_str(), st.buffer.data(), st.buffer.capacity() + 1,
                                               ImVec2(text_w, text_h), flags, callback, &ctx);
  ImGui::PopStyleVar();
  ImGui::PopStyleColor(4);
  st.active = ImGui::IsItemActive();
  // The text starts at the frame padding (the child ImGui makes for the input has no window padding when it
  // has no border; FrameBorderSize is 0 above).
  g.origin = ImVec2(g.item_pos.x + style.FramePadding.x, g.item_pos.y + style.FramePadding.y);

  bool changed = ctx.changed;
  if (typed && doc.edited(st.buffer, st.cursor, now_s)) changed = true;
  st.shown_revision = doc.revision();
  if (st.tokens_revision != doc.revision() || st.tokens.empty()) {
    st.tokens = tokenize(st.buffer);
    st.tokens_revision = doc.revision();
  }
  doc.set_cursor(st.cursor);

  const int caret_line = line_of(st.buffer, st.cursor);
  keep_caret_in_view(st, caret_line, fs, style.FramePadding.y);
  draw_overlay(doc, st, g, lines, caret_line, light);
  ImGui::EndChild();
  return changed;
}

}  // namespace bs::ui
