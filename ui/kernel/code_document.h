// code_document.h: the kernel editor's document model, without ImGui: the text, its own undo history (so the
// Edit menu, Ctrl+Z / Ctrl+Y and a template loaded over the text all use one history; ImGui's InputText undo
// is turned off), the markers on lines (errors and warnings from the compiler), and the editing operations a
// programmer expects (Tab indents the line or the selected lines, Shift+Tab outdents, Enter keeps the line's
// indentation). Offsets are bytes into the text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bs::ui {

struct LineMarker {
  enum class Level { Error, Warning };
  int line = 0;  // 1-based
  Level level = Level::Error;
  std::string message;  // shown when the mouse is over the marker
};

// The text after an editing operation, with the cursor and selection to put back.
struct TextEdit {
  std::string text;
  int cursor = 0;
  int sel_start = 0, sel_end = 0;  // equal: no selection
};

// --- Pure helpers ------------------------------------------------------------------------------------------
int line_count(std::string_view text);
// The byte offset where 1-based `line` starts (clamped to the text: past the end gives the last line's
// start).
int line_start(std::string_view text, int line);
// The 1-based line that byte `offset` is on.
int line_of(std::string_view text, int offset);
// Tab: with no selection (or one inside one line), spaces up to the next multiple of `width` at the cursor;
// with a selection over several lines, every one of those lines indented by `width` spaces.
TextEdit indent(std::string_view text, int cursor, int sel_start, int sel_end, int width);
// Shift+Tab: the line of the cursor (or every selected line) loses up to `width` leading spaces (or a tab).
TextEdit outdent(std::string_view text, int cursor, int sel_start, int sel_end, int width);
// Enter: a line break at the cursor (replacing a selection), the new line starting with the indentation of
// the cursor's line, one level more after an opening brace.
TextEdit newline_keep_indent(std::string_view text, int cursor, int sel_start, int sel_end, int width);

class CodeDocument {
 public:
  explicit CodeDocument(std::string text = {});

  const std::string& text() const { return m_text; }
  // Changes on every change of the text (typing, undo, load), never repeats: for "compile after a pause".
  uint64_t revision() const { return m_revision; }

  // The text changed by typing at time `now_s` (seconds, any clock): typing in one burst (each change within
  // `k_group_s` of the last, on the same line) is one undo step. Returns false when nothing changed.
  bool edited(std::string text, int cursor, double now_s);
  // Replaces the whole text (a template, a file, a session) as one undo step; `label` says what it was.
  void replace(std::string text, std::string label);
  // Sets the text and forgets the history (the first document, a session's own text).
  void reset(std::string text);

  bool can_undo() const { return m_index > 0; }
  bool can_redo() const { return m_index + 1 < m_history.size(); }
  // What an undo / redo would change back ("typing", "template heat", ...), for the menu.
  std::string undo_label() const;
  std::string redo_label() const;
  // Return the cursor to put back (the edit's place), or nothing when there was nothing to undo / redo.
  std::optional<int> undo();
  std::optional<int> redo();
  size_t history_size() const { return m_history.size(); }

  // Markers (replaced after each compile) and the ones on a line.
  void set_markers(std::vector<LineMarker> markers) { m_markers = std::move(markers); }
  const std::vector<LineMarker>& markers() const { return m_markers; }
  std::vector<const LineMarker*> markers_on(int line) const;

  // "Jump to line": the editor takes it (puts its cursor at the line's start and scrolls there) next frame.
  void request_jump(int line) { m_jump = line; }
  std::optional<int> take_jump() {
    auto j = m_jump;
    m_jump.reset();
    return j;
  }
  std::optional<int> pending_jump() const { return m_jump; }

  // Where the cursor is (the editor reports it each frame), 1-based line.
  int cursor() const { return m_cursor; }
  void set_cursor(int offset) { m_cursor = offset; }
  int cursor_line() const { return line_of(m_text, m_cursor); }

  static constexpr double k_group_s = 1.0;
  static constexpr size_t k_max_history = 500;

 private:
  struct State {
    std::string text;
    int cursor = 0;
    std::string label;  // what produced this state from the previous one
  };
  void push(std::string text, int cursor, std::string label);

  std::string m_text;
  uint64_t m_revision = 1;
  std::vector<State> m_history;  // m_history[m_index] is the current text
  size_t m_index = 0;
  double m_last_edit_s = -1e9;
  int m_last_edit_line = 0;
  bool m_grouping = false;  // the current state is a typing group still open
  std::vector<LineMarker> m_markers;
  std::optional<int> m_jump;
  int m_cursor = 0;
};

}  // namespace bs::ui
