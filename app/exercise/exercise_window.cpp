// exercise_window.cpp: see exercise_window.h.
#include "app/exercise/exercise_window.h"

#include <imgui.h>

#include "app/exercise/exercise_cli.h"
#include "app/exercise/exercise_progress.h"
#include "app/exercise/exercise_trace.h"
#include "app/kernel/kernel_workbench.h"
#include "core/text.h"
#include "gpu/kernel/kernel_cache.h"
#include "gpu/kernel/source_file.h"
#include "ui/widgets.h"

namespace bs {

namespace {

void refresh_status(const exercise::Pack& p, std::vector<std::string>& out) {
  cli::Progress pr;
  std::string err;
  cli::load_progress(cli::progress_path(), &pr, &err);
  out.clear();
  for (const exercise::Exercise& e : p.exercises) out.push_back(cli::status_text(pr.find(e.id)));
}

}  // namespace

const exercise::Pack& ExerciseWindow::pack() {
  if (!m_pack) {
    m_pack = exercise::load_pack(cli::default_exercise_pack());
    refresh_status(*m_pack, m_status_of);
    if (!m_pack->errors.empty()) m_status = "refused: " + m_pack->errors.front();
  }
  return *m_pack;
}

bool ExerciseWindow::select(const std::string& id) {
  const exercise::Pack& p = pack();
  for (size_t i = 0; i < p.exercises.size(); ++i) {
    if (p.exercises[i].id != id) continue;
    if (static_cast<int>(i) != m_selected) {
      m_selected = static_cast<int>(i);
      m_hints = 0;
      m_show_solution = false;
      m_last.reset();
      m_doc.reset(p.exercises[i].starter);
      m_doc.set_markers({});
    }
    return true;
  }
  return false;
}

const exercise::Exercise* ExerciseWindow::selected() {
  const exercise::Pack& p = pack();
  return m_selected >= 0 && m_selected < static_cast<int>(p.exercises.size()) ? &p.exercises[static_cast<size_t>(m_selected)]
                                                                              : nullptr;
}

std::string ExerciseWindow::load_file(const std::string& path) {
  std::string text, err;
  if (!kernel::read_kernel_source(path, &text, &err)) return err;
  m_doc.replace(std::move(text), "load " + path);
  m_status = "loaded " + path;
  return "";
}

std::string ExerciseWindow::save_file(const std::string& path) {
  std::string err;
  if (!write_text_file(path, m_doc.text(), &err)) return err;
  m_status = "saved " + path;
  return "";
}

void ExerciseWindow::run_tests() {
  const exercise::Exercise* e = selected();
  if (!e || m_job.running()) return;
  m_run_source = m_doc.text();
  m_run_exercise = e->id;
  auto outcome = std::make_shared<Outcome>();
  m_outcome = outcome;
  const exercise::Exercise ex = *e;
  const std::string source = m_run_source;
  m_status = "running the tests of " + e->id + "...";
  m_last.reset();  // the results shown are always the current run's
  m_job.start("exercise " + e->id, [outcome, ex, source](JobControl&) {
    kernel::KernelCache cache(kernel::default_cache_dir());
    exercise::RunOptions o;
    o.cache = &cache;
    o.engine = exercise::Engine::Auto;  // the GPU where there is one; the result says which ran
    exercise::CheckResult r = exercise::check_source(ex, source, ex.id + ".cu", o);
    ExerciseTrace t;
    if (r.compiled.ok && r.error.empty() && !r.tests.empty()) t = trace_of_check(ex, r, o);
    std::lock_guard<std::mutex> lock(outcome->mu);
    outcome->result = std::move(r);
    outcome->trace = std::move(t.trace);
    outcome->trace_test = t.test;
    outcome->selections = std::move(t.selections);
  });
}

void ExerciseWindow::poll() {
  if (m_job.running() || !m_outcome) return;
  finish_job(m_job, m_status);
  std::optional<exercise::CheckResult> r;
  {
    std::lock_guard<std::mutex> lock(m_outcome->mu);
    r = std::move(m_outcome->result);
    m_picture = {};
    m_picture.cannot_reason = m_outcome->trace_test.empty()
                                  ? "Run tests first"
                                  : "the accesses of test " + m_outcome->trace_test + "; Run tests makes a new picture";
    m_picture.trace = m_outcome->trace;
    if (!m_outcome->selections.empty()) {
      m_picture.selection = m_outcome->selections.size() > 1 ? m_outcome->selections[1] : m_outcome->selections[0];
      m_picture.scope = static_cast<int>(m_picture.selection.scope);
    }
  }
  m_outcome.reset();
  if (!r) return;
  m_last = std::move(r);
  // The compile's errors and warnings as markers on the editor's lines (the kernel editor's code), while the
  // text is the one that ran.
  if (m_doc.text() == m_run_source) m_doc.set_markers(KernelWorkbench::markers_from(m_last->compiled.diagnostics));
  const exercise::Exercise* e = pack().find(m_run_exercise);
  if (!e) return;
  m_status = m_last->passed() ? "pass: every test (" + m_last->engine + ")" : "";
  if (m_last->error.empty()) {
    const std::string warning = cli::save_check(*e, *m_last, m_run_source);
    if (!warning.empty()) m_status = warning;
  }
  refresh_status(*m_pack, m_status_of);
}

void ExerciseWindow::draw_list() {
  const exercise::Pack& p = pack();
  for (size_t i = 0; i < p.exercises.size(); ++i) {
    const exercise::Exercise& e = p.exercises[i];
    const std::string& st = i < m_status_of.size() ? m_status_of[i] : std::string();
    const std::string label = e.title + (st.empty() ? "" : "  [" + st + "]") + "##" + e.id;
    if (ImGui::Selectable(label.c_str(), static_cast<int>(i) == m_selected)) select(e.id);
  }
  if (p.exercises.empty()) ImGui::TextWrapped("No exercise in %s.", p.dir.c_str());
  for (const std::string& err : p.errors) ImGui::TextWrapped("refused: %s", err.c_str());
}

void ExerciseWindow::draw_results() {
  if (!m_last) return;
  const exercise::CheckResult& r = *m_last;
  if (!r.compiled.ok) {
    ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", r.compiled.message.c_str());
    for (const std::string& e : r.compiled.errors) ImGui::TextWrapped("%s", e.c_str());
    return;
  }
  if (!r.error.empty()) {
    ImGui::TextWrapped("%s", r.error.c_str());
    return;
  }
  ImGui::TextDisabled("ran on: %s", r.engine.c_str());
  if (r.timing)
    ImGui::TextWrapped("GPU time: %s", exercise::timing_text(*r.timing).c_str());
  else if (!r.on_gpu)
    ImGui::TextDisabled("no time, no roofline: they need a GPU");
  for (const exercise::TestResult& t : r.tests) {
    const std::string name = t.test.name + (t.test.hidden ? " (hidden)" : "");
    ImGui::TextColored(t.passed ? ImVec4(0.4f, 0.85f, 0.4f, 1) : ImVec4(1, 0.4f, 0.4f, 1), "%s  %s",
                       t.passed ? "pass" : "FAIL", name.c_str());
    ImGui::SameLine();
    ImGui::TextWrapped("%s", t.stopped.empty() ? t.check.c_str() : ("stopped: " + t.stopped).c_str());
    for (const std::string& d : t.diagnostics) ImGui::TextWrapped("    %s", d.c_str());
  }
  if (!r.tests.empty() && !r.tests.front().score.empty())
    ImGui::TextWrapped("score: %s", exercise::score_line(r.tests.front().score).c_str());
}

void ExerciseWindow::draw_exercise(double now_s, bool light) {
  const exercise::Exercise* e = selected();
  if (!e) {
    ImGui::TextWrapped("Pick an exercise on the left.");
    return;
  }
  ImGui::Text("%s", e->title.c_str());
  ImGui::TextDisabled("%s", e->signature().c_str());
  if (ImGui::BeginChild("statement", ImVec2(0, ImGui::GetContentRegionAvail().y * 0.28f), true))
    ImGui::TextWrapped("%s", e->statement.c_str());
  ImGui::EndChild();
  for (int i = 0; i < m_hints && i < static_cast<int>(e->hints.size()); ++i)
    ImGui::TextWrapped("hint %d: %s", i + 1, e->hints[static_cast<size_t>(i)].c_str());
  if (m_hints < static_cast<int>(e->hints.size()) && ImGui::Button("Next hint")) ++m_hints;
  ImGui::SameLine();
  if (ImGui::Button("Starter")) m_doc.replace(e->starter, "starter");
  ImGui::SameLine();
  ImGui::Checkbox("Show the solution", &m_show_solution);
  ImGui::SameLine();
  ImGui::BeginDisabled(m_job.running());
  if (ImGui::Button(m_job.running() ? "Running..." : "Run tests")) run_tests();
  ImGui::EndDisabled();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 24);
  ImGui::InputTextWithHint("##file", "your file (.cu)", m_path, sizeof m_path);
  ImGui::SameLine();
  if (ImGui::Button("Load") && m_path[0]) {
    const std::string err = load_file(m_path);
    if (!err.empty()) m_status = err;
  }
  ImGui::SameLine();
  if (ImGui::Button("Save") && m_path[0]) {
    const std::string err = save_file(m_path);
    if (!err.empty()) m_status = err;
  }
  if (!m_status.empty()) ImGui::TextWrapped("%s", m_status.c_str());
  const float results_h = ImGui::GetContentRegionAvail().y * 0.35f;
  if (m_show_solution) {
    if (ImGui::BeginChild("solution", ImVec2(0, ImGui::GetContentRegionAvail().y - results_h), true))
      ImGui::TextUnformatted(e->reference.c_str());
    ImGui::EndChild();
  } else {
    ui::draw_code_editor("##exercise_source", m_doc, m_editor,
                         ImVec2(0, ImGui::GetContentRegionAvail().y - results_h), now_s, light);
  }
  if (ImGui::BeginChild("results", ImVec2(0, 0), true)) {
    if (m_picture.trace) ImGui::Checkbox("Access picture of the failing test", &m_show_picture);
    if (m_show_picture && m_picture.trace) {
      ui::SimPanelActions act;
      ui::draw_sim_panel(m_picture, act);
      if (act.jump_line > 0) {  // a diagnostic clicked: show its line in the editor
        m_show_solution = false;
        m_editor.highlight_line = act.jump_line;
        m_editor.scroll_to_line = act.jump_line;
      }
    } else {
      draw_results();
    }
  }
  ImGui::EndChild();
}

void ExerciseWindow::draw(Layout& layout, bool* open) {
  poll();
  if (!*open) return;
  ImGui::SetNextWindowBgAlpha(1.0f);  // over the lab's view: the lab's labels must not show through the code
  if (layout.begin("Exercises", Slot::Editor, open)) {
    pack();
    if (m_selected < 0 && !m_pack->exercises.empty()) select(m_pack->exercises.front().id);
    if (ImGui::BeginChild("list", ImVec2(ImGui::GetFontSize() * 16, 0), true)) draw_list();
    ImGui::EndChild();
    ImGui::SameLine();
    if (ImGui::BeginChild("exercise", ImVec2(0, 0), false)) draw_exercise(ImGui::GetTime(), ui::light_theme());
    ImGui::EndChild();
  }
  ImGui::End();
}

}  // namespace bs
