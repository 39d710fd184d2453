// app.h: the application: owns the GL context, ImGui and the shared LabEnv, and runs one frame at a time
// (main.cpp: `while (app.frame()) {}`), wiring the shell's parts (app/shell/): the lab host, GPU recovery,
// the menu bar, the session menu, presenter view, captures and toasts, and the layout (app/layout.h).
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/counters_window.h"
#include "app/kernel/kernel_workbench.h"
#include "app/kernel/user_kernels.h"
#include "app/lab.h"
#include "app/layout.h"
#include "app/session.h"
#include "app/shell/capture.h"
#include "app/shell/gpu_recovery.h"
#include "app/shell/help.h"
#include "app/shell/lab_host.h"
#include "app/shell/menu_bar.h"
#include "app/shell/presenter_view.h"
#include "app/shell/session_menu.h"
#include "app/shell/toasts.h"
#include "app/exercise/exercise_window.h"
#include "app/roofline/roofline_window.h"
#include "app/sweep/sweep_window.h"
#include "app/undo.h"
#include "core/error.h"
#include "ui/device_panel.h"
#include "ui/presenter.h"

namespace bs {

struct AppOptions {
  bool headless = false;
  std::string scene;  // the lab opened first; empty: the first in the registry (app/lab_list.inc)
  int frames = -1;         // stop after this many frames (-1: until the window closes)
  std::string screenshot;  // written after the last frame
  PathRequest render_path = PathRequest::Auto;
  int width = 1600, height = 900;
  // Each lab's start state (lab id -> members of its saved state), from the app's lab flags (--size, --block,
  // ...: app/lab_start_flags.h); applied when the lab opens, before a session.
  std::map<std::string, nlohmann::json> start_states;
  int debug_fault_frame = -1;      // testing: poison the CUDA context in this frame
  float ui_scale = 1.0f;           // --ui-scale (times the monitor's content scale)
  bool presenter = false;          // --presenter
  std::optional<Session> session;  // --session / --preset: applied before the first frame
  bool show_shortcuts = false;     // testing: the F1 overlay open from the start
  bool show_counters = false;      // testing: View > Hardware counters open from the start
  bool show_roofline = false;      // testing: the Roofline window open from the start
  bool show_exercises = false;     // testing: the Exercises window open from the start
  std::string debug_capture;  // testing: "window" or "view": an F12 / Shift+F12 capture in the last frame
};

class App {
 public:
  // Throws std::runtime_error when no GL context can be made at all.
  explicit App(const AppOptions& opt);
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // One frame: poll, UI, simulate, draw, present. False when the app should exit.
  bool frame();
  int exit_code() const { return m_exit_code; }
  const LabEnv& env() const { return m_env; }
  KernelWorkbench& kernel_workbench() { return *m_kernel_bench; }
  CountersWindow& counters_window() { return *m_counters; }
  UserKernels& user_kernels() { return m_user_kernels; }
  work::RunLog& runs() { return m_runs; }
  ExerciseWindow& exercises() { return *m_exercises; }

  // Sessions (app/session.h). apply_session validates every lab's state before it changes anything; on error
  // the running state is untouched and the message names the field. Call between frames.
  Session current_session() const;
  std::optional<std::string> apply_session(const Session& s);
  // The sweep definition of the last session loaded (null when it had none), for the sweep window.
  nlohmann::json& pending_sweep() { return m_pending_sweep; }
  Lab* active_lab() { return m_labs.empty() ? nullptr : &m_labs.active(); }
  float ui_scale() const { return m_presenter.scale(); }
  bool presenter_mode() const { return m_presenter.presenter(); }
  void set_presenter_mode(bool on) { m_presenter.set_presenter(on); }
  ui::Theme theme() const { return m_presenter.theme(); }
  void set_theme(ui::Theme t) { m_presenter.set_theme(t); }

  // The window layout (app/layout.h); View > Reset layout calls reset_layout().
  Layout& layout() { return m_layout; }
  void reset_layout() { m_layout.reset(); }
  // The last frame's windows and display (what BLOCKSCOPE_LAYOUT_DUMP writes).
  const nlohmann::json& layout_snapshot() const { return m_layout_snapshot; }
  // Pixels the menu bar's items ran past its right end in the last frame (0: everything fits).
  float menu_overflow() const { return m_menu_bar.overflow(); }
  // Where the user's window places are saved (layout.json next to imgui.ini; empty: not saved, headless).
  const std::string& layout_path() const { return m_layout_path; }

  // Undo / redo of the active lab's parameters (Ctrl+Z, Ctrl+Shift+Z or Ctrl+Y, the Edit menu): applied
  // before the next frame, as loading a session is.
  void request_undo() { m_undo_request = UndoRequest::Undo; }
  void request_redo() { m_undo_request = UndoRequest::Redo; }
  bool can_undo() const;
  bool can_redo() const;

 private:
  void init_imgui();
  // Reads imgui.ini and layout.json (a corrupt layout is ignored with a message).
  void load_layout();
  // Writes imgui.ini when ImGui asks for it and layout.json when a window's place changed (not in the middle
  // of a drag), or both at once with now = true (on exit); atomically (write_file_atomic).
  void save_layout(bool now);
  static constexpr size_t k_max_layout_bytes = 1 << 20;  // a saved layout is a few KiB
  void draw_main_ui();
  // Presenter mode, sessions and captures (F1, P, F12, Ctrl+S / Ctrl+O).
  void handle_shortcuts();
  void draw_view_menu();
  void draw_edit_menu();
  void apply_pending_session();
  void apply_undo_request();
  void observe_undo(bool editing);
  void write_layout_dump();
  // The presenter strip's read-outs: the lab's, and its newest run's roofline % (sized and drawn alike).
  std::vector<ui::Readout> readouts_now() const;
  void toggle_fullscreen();

  AppOptions m_opt;
  std::unique_ptr<gl::Context> m_gl;
  UserKernels m_user_kernels;  // before m_env and the labs: they hold its address
  work::RunLog m_runs;         // every lab's timed runs (the roofline); before m_env, which holds its address
  LabEnv m_env;
  GpuRecovery m_gpu{m_env};
  LabHost m_labs{m_env, m_opt, m_gpu};
  std::string m_ini_path;     // ImGui's own settings (imgui.ini)
  std::string m_layout_path;  // the layout's places (layout.json)
  int m_frame = 0;
  int m_exit_code = 0;
  bool m_imgui_ready = false;
  bool m_show_device = true;
  bool m_fullscreen = false;

  PresenterView m_presenter;
  SessionMenu m_sessions;
  MenuBar m_menu_bar;
  Capture m_capture;
  Toasts m_toasts;
  HelpMenu m_help;
  bool m_first_start = false;  // no saved layout was found: the first-start hint is shown
  nlohmann::json m_pending_sweep;
  // The sweep window (any lab, one or two parameters, in the background); a session's sweep goes into it.
  std::unique_ptr<SweepWindow> m_sweep;
  std::unique_ptr<CountersWindow> m_counters;  // View > Hardware counters
  std::unique_ptr<RooflineWindow> m_roofline;
  bool m_show_roofline = false;
  std::unique_ptr<ExerciseWindow> m_exercises;
  bool m_show_exercises = false;
  // The kernel editor (View > Kernel editor, F9): the user's kernels, compiled and published to
  // m_user_kernels.
  std::unique_ptr<KernelWorkbench> m_kernel_bench;
  bool m_show_sweep = false;
  void hand_over_sweep();
  void export_plots();  // plots saved from their right-click menu, with a record of the lab's parameters

  // Layout (app/layout.h) and the BLOCKSCOPE_LAYOUT_DUMP file tests read.
  Layout m_layout;
  nlohmann::json m_layout_snapshot;
  std::string m_layout_dump;  // BLOCKSCOPE_LAYOUT_DUMP: write the layout here every frame (tests)
  int m_debug_frame_ms = 0;   // BLOCKSCOPE_DEBUG_FRAME_MS: a slow frame (tests of the key queue)

  // Undo history per lab id.
  std::map<std::string, UndoHistory> m_undo;
  enum class UndoRequest { None, Undo, Redo } m_undo_request = UndoRequest::None;
};

}  // namespace bs
