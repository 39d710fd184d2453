// code_document.cpp: the kernel editor's document model (see code_document.h).
#include "ui/kernel/code_document.h"

#include <algorithm>

namespace bs::ui {

int line_count(std::string_view text) {
  return 1 + static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

int line_start(std::string_view text, int line) {
  int off = 0;
  for (int l = 1; l < line; ++l) {
    const size_t nl = text.find('\n', static_cast<size_t>(off));
    if (nl == std::string_view::npos) break;
    off = static_cast<int>(nl) + 1;
  }
  return off;
}

int line_of(std::string_view text, int offset) {
  offset = std::clamp(offset, 0, static_cast<int>(text.size()));
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + offset, '\n'));
}

namespace {

int start_of_line_at(std::string_view text, int offset) {
  const size_t nl = offset > 0 ? text.rfind('\n', static_cast<size_t>(offset - 1)) : std::string_view::npos;
  return nl == std::string_view::npos ? 0 : static_cast<int>(nl) + 1;
}

// The selected lines' starts, first to last; a selection ending at a line's very start leaves that line out.
std::vector<int> selected_line_starts(std::string_view text, int a, int b) {
  if (a > b) std::swap(a, b);
  if (b > a && b > 0 && text[static_cast<size_t>(b) - 1] == '\n') --b;
  std::vector<int> starts;
  for (int s = start_of_line_at(text, a); s <= b;) {
    starts.push_back(s);
    const size_t nl = text.find('\n', static_cast<size_t>(s));
    if (nl == std::string_view::npos) break;
    s = static_cast<int>(nl) + 1;
  }
  return starts;
}

bool multi_line(std::string_view text, int a, int b) {
  if (a == b) return false;
  if (a > b) std::swap(a, b);
  return text.substr(static_cast<size_t>(a), static_cast<size_t>(b - a)).find('\n') != std::string_view::npos;
}

}  // namespace

TextEdit indent(std::string_view text, int cursor, int sel_start, int sel_end, int width) {
  const int n = static_cast<int>(text.size());
  cursor = std::clamp(cursor, 0, n);
  sel_start = std::clamp(sel_start, 0, n);
  sel_end = std::clamp(sel_end, 0, n);
  TextEdit out;
  if (!multi_line(text, sel_start, sel_end)) {
    // Replace a one-line selection, then pad to the next tab stop.
    const int a = std::min(sel_start, sel_end), b = std::max(sel_start, sel_end);
    const int at = a != b ? a : cursor;
    std::string t(text.substr(0, static_cast<size_t>(at)));
    const std::string_view rest = text.substr(static_cast<size_t>(a != b ? b : cursor));
    const int col = at - start_of_line_at(text, at);
    const int pad = width - col % width;
    t.append(static_cast<size_t>(pad), ' ');
    out.cursor = out.sel_start = out.sel_end = static_cast<int>(t.size());
    t.append(rest);
    out.text = std::move(t);
    return out;
  }
  const std::vector<int> starts = selected_line_starts(text, sel_start, sel_end);
  std::string t(text);
  const std::string pad(static_cast<size_t>(width), ' ');
  for (auto it = starts.rbegin(); it != starts.rend(); ++it)
    t.insert(static_cast<size_t>(*it), pad);
  // The selection grows to cover the same lines.
  const int a = std::min(sel_start, sel_end), b = std::max(sel_start, sel_end);
  const int added = width * static_cast<int>(starts.size());
  out.sel_start = a == starts.front() ? a : a + width;
  out.sel_end = b + added;
  out.cursor = cursor == b ? out.sel_end : out.sel_start;
  out.text = std::move(t);
  return out;
}

TextEdit outdent(std::string_view text, int cursor, int sel_start, int sel_end, int width) {
  const int n = static_cast<int>(text.size());
  cursor = std::clamp(cursor, 0, n);
  sel_start = std::clamp(sel_start, 0, n);
  sel_end = std::clamp(sel_end, 0, n);
  const std::vector<int> starts = sel_start == sel_end || !multi_line(text, sel_start, sel_end)
                                      ? std::vector<int>{start_of_line_at(text, cursor)}
                                      : selected_line_starts(text, sel_start, sel_end);
  std::string t(text);
  // Removed characters per line, applied from the last line up so earlier offsets stay valid.
  auto shift = [&](int off, const std::vector<std::pair<int, int>>& cuts) {
    int moved = 0;
    for (auto [at, k] : cuts)
      if (off > at) moved += std::min(k, off - at);
    return off - moved;
  };
  std::vector<std::pair<int, int>> cuts;
  for (auto it = starts.rbegin(); it != starts.rend(); ++it) {
    const size_t s = static_cast<size_t>(*it);
    int k = 0;
    if (s < t.size() && t[s] == '\t') {
      k = 1;
    } else {
      while (k < width && s + static_cast<size_t>(k) < t.size() && t[s + static_cast<size_t>(k)] == ' ')
        ++k;
    }
    if (k > 0) {
      t.erase(s, static_cast<size_t>(k));
      cuts.emplace_back(*it, k);
    }
  }
  TextEdit out;
  out.cursor = shift(cursor, cuts);
  out.sel_start = shift(sel_start, cuts);
  out.sel_end = shift(sel_end, cuts);
  out.text = std::move(t);
  return out;
}

TextEdit newline_keep_indent(std::string_view text, int cursor, int sel_start, int sel_end, int width) {
  const int n = static_cast<int>(text.size());
  int a = std::clamp(std::min(sel_start, sel_end), 0, n), b = std::clamp(std::max(sel_start, sel_end), 0, n);
  if (a == b) a = b = std::clamp(cursor, 0, n);
  const int ls = start_of_line_at(text, a);
  int indent_end = ls;
  while (indent_end < a &&
         (text[static_cast<size_t>(indent_end)] == ' ' || text[static_cast<size_t>(indent_end)] == '\t'))
    ++indent_end;
  std::string indent_text(text.substr(static_cast<size_t>(ls), static_cast<size_t>(indent_end - ls)));
  // One level more after an opening brace (ignoring trailing blanks before the cursor).
  int k = a;
  while (k > ls && (text[static_cast<size_t>(k) - 1] == ' ' || text[static_cast<size_t>(k) - 1] == '\t'))
    --k;
  if (k > ls && text[static_cast<size_t>(k) - 1] == '{') indent_text.append(static_cast<size_t>(width), ' ');
  std::string t(text.substr(0, static_cast<size_t>(a)));
  t += '\n';
  t += indent_text;
  TextEdit out;
  out.cursor = out.sel_start = out.sel_end = static_cast<int>(t.size());
  t.append(text.substr(static_cast<size_t>(b)));
  out.text = std::move(t);
  return out;
}

// --- CodeDocument
// --------------------------------------------------------------------------------------------

CodeDocument::CodeDocument(std::string text) {
  reset(std::move(text));
}

void CodeDocument::reset(std::string text) {
  m_text = std::move(text);
  m_history.assign(1, State{m_text, 0, {}});
  m_index = 0;
  m_grouping = false;
  m_cursor = 0;
  ++m_revision;
}

void CodeDocument::push(std::string text, int cursor, std::string label) {
  m_history.resize(m_index + 1);  // a new edit drops what could be redone
  m_history.push_back(State{std::move(text), cursor, std::move(label)});
  if (m_history.size() > k_max_history) m_history.erase(m_history.begin());
  m_index = m_history.size() - 1;
}

bool CodeDocument::edited(std::string text, int cursor, double now_s) {
  if (text == m_text) return false;
  const int line = line_of(text, cursor);
  const bool group = m_grouping && m_index + 1 == m_history.size() && now_s - m_last_edit_s <= k_group_s &&
                     line == m_last_edit_line;
  m_text = text;
  if (group) {
    m_history[m_index].text = std::move(text);
    m_history[m_index].cursor = cursor;
  } else {
    push(std::move(text), cursor, "typing");
  }
  m_grouping = true;
  m_last_edit_s = now_s;
  m_last_edit_line = line;
  m_cursor = cursor;
  ++m_revision;
  return true;
}

void CodeDocument::replace(std::string text, std::string label) {
  m_grouping = false;
  if (text == m_text) return;
  m_text = text;
  push(std::move(text), 0, std::move(label));
  m_cursor = 0;
  ++m_revision;
}

std::string CodeDocument::undo_label() const {
  return can_undo() ? m_history[m_index].label : std::string();
}
std::string CodeDocument::redo_label() const {
  return can_redo() ? m_history[m_index + 1].label : std::string();
}

std::optional<int> CodeDocument::undo() {
  if (!can_undo()) return std::nullopt;
  const int at = m_history[m_index].cursor;
  --m_index;
  m_text = m_history[m_index].text;
  m_grouping = false;
  m_cursor = std::min(at, static_cast<int>(m_text.size()));
  ++m_revision;
  return m_cursor;
}

std::optional<int> CodeDocument::redo() {
  if (!can_redo()) return std::nullopt;
  ++m_index;
  m_text = m_history[m_index].text;
  m_grouping = false;
  m_cursor = std::min(m_history[m_index].cursor, static_cast<int>(m_text.size()));
  ++m_revision;
  return m_cursor;
}

std::vector<const LineMarker*> CodeDocument::markers_on(int line) const {
  std::vector<const LineMarker*> out;
  for (const LineMarker& m : m_markers)
    if (m.line == line) out.push_back(&m);
  return out;
}

}  // namespace bs::ui
