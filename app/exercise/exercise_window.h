// exercise_window.h: the Exercises window (View > Exercises): the course pack's list with each exercise's
// status from the saved progress, the statement, hints revealed one at a time, the kernel editor's text widget
// holding the starter (or the student's edits), "Run tests" on a background job (on the GPU where there is one, else in
// the PTX simulator; it says which), the first failing test named with its first wrong element, expected and actual values
// and the thread that wrote it, the simulator's diagnostics, the score against par, and the reference shown
// only on request, the access picture of the failing test (the Simulator panel's maps). Each run is saved in the user's progress (`blockscope exercise report` exports it).
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "app/layout.h"
#include "core/cpu_job.h"
#include "gpu/exercise/runner.h"
#include "ui/kernel/code_document.h"
#include "ui/kernel/code_editor.h"
#include "ui/kernel/sim_panel.h"

namespace bs {

class ExerciseWindow {
 public:
  ExerciseWindow() = default;
  // Every frame; draws only while `open` (loads the pack the first time it is open).
  void draw(Layout& layout, bool* open);

  // For tests and the frame: the pack (loaded on first use), the selection, the editor's text, a run.
  const exercise::Pack& pack();
  bool select(const std::string& id);
  const exercise::Exercise* selected();
  void set_source(const std::string& text) { m_doc.reset(text); }
  const std::string& source() const { return m_doc.text(); }
  // The student's file into the editor / the editor's text into it ("" when done, else the message).
  std::string load_file(const std::string& path);
  std::string save_file(const std::string& path);
  void run_tests();
  bool running() const { return m_job.running(); }
  // The last finished run (collected by draw, or by poll()).
  const std::optional<exercise::CheckResult>& last() const { return m_last; }
  void poll();
  const std::string& status() const { return m_status; }
  // The last run's access picture (null before a run, or when the submission did not compile).
  std::shared_ptr<const ui::SimTrace> picture() const { return m_picture.trace; }
  int hints_shown() const { return m_hints; }
  // The editor's line markers: the last run's compile errors and warnings (as the kernel editor shows them).
  const std::vector<ui::LineMarker>& markers() const { return m_doc.markers(); }

 private:
  void draw_list();
  void draw_exercise(double now_s, bool light);
  void draw_results();

  std::optional<exercise::Pack> m_pack;
  int m_selected = -1;
  int m_hints = 0;
  bool m_show_solution = false;
  char m_path[512] = {};  // the student's file (Load / Save)
  ui::CodeDocument m_doc;
  ui::CodeEditorState m_editor;
  CpuJob m_job;
  struct Outcome {
    std::mutex mu;
    std::optional<exercise::CheckResult> result;
    std::shared_ptr<const ui::SimTrace> trace;  // the failing (else the first) test, for the access picture
    std::string trace_test;
    std::vector<ui::Selection> selections;
  };
  std::shared_ptr<Outcome> m_outcome;
  std::string m_run_source, m_run_exercise;  // what the job runs
  std::optional<exercise::CheckResult> m_last;
  bool m_show_picture = false;
  ui::SimPanelModel m_picture;  // the kernel editor's Simulator panel, showing the last run's trace
  std::string m_status;
  std::vector<std::string> m_status_of;
};

}  // namespace bs
