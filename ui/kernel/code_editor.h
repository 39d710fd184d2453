// code_editor.h: the kernel editor's text widget for Dear ImGui 1.86: line numbers, CUDA syntax colouring,
// error / warning markers (hover shows the message), a highlighted line (the PTX pane's source line), and the
// keys a programmer expects (Tab / Shift+Tab indent, Enter keeps the indentation, Ctrl+Z / Ctrl+Y /
// Ctrl+Shift+Z undo and redo through the document's own history).
//
// How: an InputTextMultiline (ImGui's own cursor, selection, clipboard and IME) whose text and frame are
// drawn transparent, sized to hold every line so it never scrolls itself, inside a child window that scrolls;
// the coloured text, the gutter and the caret are drawn in that child with the same font and origin, so they
// scroll together by construction. ImGui's undo is off (NoUndoRedo): one history (CodeDocument) serves
// typing, templates, files and the menu. Changes made from outside (undo, a template) reach ImGui's active
// edit buffer through the InputText callback, the supported way to change the text while it is being edited.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ui/kernel/code_document.h"
#include "ui/kernel/cuda_tokenizer.h"

namespace bs::ui {

struct CodeEditorState {
  std::string buffer;           // what ImGui edits (kept equal to the document between frames)
  uint64_t shown_revision = 0;  // the document revision the buffer holds
  bool active = false;          // ImGui's InputText had the keyboard last frame
  bool pending_tab = false, pending_newline = false;
  int cursor = 0, sel_start = 0, sel_end = 0;  // last frame's, byte offsets
  int last_caret_line = 0;
  float last_view_h = 0;
  bool focus = false;      // give the editor the keyboard next frame
  int highlight_line = 0;  // a line shown with a band (the PTX pane's source line); 0 = none
  int scroll_to_line = 0;  // scroll there next frame (without moving the cursor)
  std::vector<std::vector<Token>> tokens;
  uint64_t tokens_revision = 0;
  int indent_width = 2;
  int hovered_marker_line = 0;  // the line whose marker the mouse is over this frame (tests)
  ImVec2 first_marker{-1, -1};  // the first visible marker dot's centre on screen this frame (tests)
  float top_y = 0;              // the editor's top edge on screen this frame (tests: it never moves)
  // Ctrl+Z / Ctrl+Y from the app's key queue (every press, in order, however slow the frames): when
  // `chords_queued`, the editor applies these counts and never polls ImGui's once-a-frame key state for them
  // (which sees two quick presses between frames as one).
  bool chords_queued = false;
  int queued_undo = 0, queued_redo = 0;
};

// Draws the editor filling `size` (0: the rest of the window). `now_s` is the clock for grouping typing into
// undo steps (ImGui::GetTime()). `light` picks the colours for the light (projector) theme. Returns true when
// the text changed this frame (typing or an undo).
bool draw_code_editor(const char* id, CodeDocument& doc, CodeEditorState& st, ImVec2 size, double now_s,
                      bool light);

// The colour of a token kind (RGBA, 0..1) in the dark or light theme.
ImVec4 token_colour(TokenKind kind, bool light);

}  // namespace bs::ui
