// code_document_test.cpp: the kernel editor's model: its own undo history (typing grouped, a template load
// one step, redo dropped by a new edit), markers, jump to line, and the Tab / Shift+Tab / Enter edits.
#include <gtest/gtest.h>

#include "ui/kernel/code_document.h"

namespace bs::ui {
namespace {

TEST(CodeDocument, Lines) {
  const std::string t = "ab\ncd\n\nef";
  EXPECT_EQ(line_count(t), 4);
  EXPECT_EQ(line_start(t, 1), 0);
  EXPECT_EQ(line_start(t, 2), 3);
  EXPECT_EQ(line_start(t, 3), 6);
  EXPECT_EQ(line_start(t, 4), 7);
  EXPECT_EQ(line_start(t, 99), 7);  // clamped to the last line
  EXPECT_EQ(line_of(t, 0), 1);
  EXPECT_EQ(line_of(t, 2), 1);
  EXPECT_EQ(line_of(t, 3), 2);
  EXPECT_EQ(line_of(t, 9), 4);
  EXPECT_EQ(line_of(t, 1000), 4);
}

TEST(CodeDocument, TypingInOneBurstIsOneUndoStep) {
  CodeDocument d("int");
  const auto r0 = d.revision();
  EXPECT_TRUE(d.edited("int ", 4, 10.0));
  EXPECT_TRUE(d.edited("int x", 5, 10.2));
  EXPECT_TRUE(d.edited("int x;", 6, 10.4));
  EXPECT_NE(d.revision(), r0);
  EXPECT_FALSE(d.edited("int x;", 6, 10.5));  // no change, no step
  // A pause starts a new step.
  EXPECT_TRUE(d.edited("int x; int", 10, 20.0));
  EXPECT_EQ(d.history_size(), 3u);
  EXPECT_EQ(d.undo_label(), "typing");
  ASSERT_TRUE(d.undo());
  EXPECT_EQ(d.text(), "int x;");
  ASSERT_TRUE(d.undo());
  EXPECT_EQ(d.text(), "int");
  EXPECT_FALSE(d.can_undo());
  EXPECT_FALSE(d.undo());
  ASSERT_TRUE(d.redo());
  EXPECT_EQ(d.text(), "int x;");
  EXPECT_EQ(d.cursor(), 6);
}

TEST(CodeDocument, TypingOnAnotherLineIsANewStep) {
  CodeDocument d("a\nb");
  d.edited("ax\nb", 2, 1.0);
  d.edited("ax\nby", 5, 1.1);
  EXPECT_EQ(d.history_size(), 3u);
}

TEST(CodeDocument, TemplateLoadIsUndoableAndANewEditDropsRedo) {
  CodeDocument d("my kernel");
  d.edited("my kernel!", 10, 1.0);
  d.replace("template text", "template heat");
  EXPECT_EQ(d.text(), "template text");
  EXPECT_EQ(d.undo_label(), "template heat");
  ASSERT_TRUE(d.undo());
  EXPECT_EQ(d.text(), "my kernel!");  // the student's edits are back
  EXPECT_EQ(d.redo_label(), "template heat");
  d.edited("my kernel!?", 11, 5.0);
  EXPECT_FALSE(d.can_redo());
  // Typing right after a replace does not merge into it.
  d.replace("T", "file a.cu");
  d.edited("TT", 2, 5.1);
  ASSERT_TRUE(d.undo());
  EXPECT_EQ(d.text(), "T");
}

TEST(CodeDocument, ResetForgetsHistoryAndHistoryIsBounded) {
  CodeDocument d("a");
  d.replace("b", "x");
  d.reset("c");
  EXPECT_FALSE(d.can_undo());
  for (int i = 0; i < 700; ++i)
    d.replace(std::to_string(i), "n");
  EXPECT_EQ(d.history_size(), CodeDocument::k_max_history);
}

TEST(CodeDocument, MarkersAndJump) {
  CodeDocument d("a\nb\nc");
  d.set_markers({{2, LineMarker::Level::Error, "identifier \"b\" is undefined"},
                 {2, LineMarker::Level::Warning, "unused"},
                 {3, LineMarker::Level::Warning, "w"}});
  EXPECT_EQ(d.markers_on(1).size(), 0u);
  ASSERT_EQ(d.markers_on(2).size(), 2u);
  EXPECT_EQ(d.markers_on(2)[0]->message, "identifier \"b\" is undefined");
  EXPECT_FALSE(d.take_jump());
  d.request_jump(3);
  EXPECT_EQ(d.pending_jump(), 3);
  EXPECT_EQ(d.take_jump(), 3);
  EXPECT_FALSE(d.take_jump());  // taken once
}

TEST(CodeEdits, TabPadsToTheNextStop) {
  TextEdit e = indent("ab", 1, 1, 1, 2);
  EXPECT_EQ(e.text, "a b");
  EXPECT_EQ(e.cursor, 2);
  e = indent("x\nabc", 5, 5, 5, 4);
  EXPECT_EQ(e.text, "x\nabc ");
  e = indent("", 0, 0, 0, 2);
  EXPECT_EQ(e.text, "  ");
}

TEST(CodeEdits, TabIndentsSelectedLines) {
  const std::string t = "a\nb\nc\nd";
  TextEdit e = indent(t, 4, 0, 4, 2);  // lines 1-2 fully, line 3 touched only at its start: left out
  EXPECT_EQ(e.text, "  a\n  b\nc\nd");
  EXPECT_EQ(e.sel_start, 0);
  EXPECT_EQ(e.sel_end, 8);
  e = indent(t, 3, 1, 5, 2);  // from the end of line 1 into line 3
  EXPECT_EQ(e.text, "  a\n  b\n  c\nd");
}

TEST(CodeEdits, ShiftTabOutdents) {
  TextEdit e = outdent("    x", 5, 5, 5, 2);
  EXPECT_EQ(e.text, "  x");
  EXPECT_EQ(e.cursor, 3);
  e = outdent(" x\n\ty\nz", 0, 0, 6, 2);
  EXPECT_EQ(e.text, "x\ny\nz");
  EXPECT_EQ(e.sel_end, 4);
  e = outdent("x", 1, 1, 1, 2);  // nothing to remove
  EXPECT_EQ(e.text, "x");
  EXPECT_EQ(e.cursor, 1);
}

TEST(CodeEdits, EnterKeepsIndentation) {
  TextEdit e = newline_keep_indent("  int a;", 8, 8, 8, 2);
  EXPECT_EQ(e.text, "  int a;\n  ");
  EXPECT_EQ(e.cursor, 11);
  e = newline_keep_indent("  if (x) {", 10, 10, 10, 2);
  EXPECT_EQ(e.text, "  if (x) {\n    ");
  e = newline_keep_indent("  ab", 3, 3, 3, 2);  // split a line
  EXPECT_EQ(e.text, "  a\n  b");
  EXPECT_EQ(e.cursor, 6);
  e = newline_keep_indent("abcd", 3, 1, 3, 2);  // replaces the selection
  EXPECT_EQ(e.text, "a\nd");
}

}  // namespace
}  // namespace bs::ui
