// app.h: the application: owns the GL context, ImGui, the labs and the shared LabEnv, and runs one frame at a
// time (main.cpp: `while (app.frame()) {}`).
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/heat/heat_lab.h"
#include "app/lab.h"
#include "app/layout.h"
#include "app/session.h"
#include "app/sweep/sweep_window.h"
#include "app/undo.h"
#include "core/error.h"
#include "ui/device_panel.h"
#include "ui/presenter.h"

namespace bs {

struct AppOptions {
  bool headless = false;
  std::string scene = "heat";
  int frames = -1;         // stop after this many frames (-1: until the window closes)
  std::string screenshot;  // written after the last frame
  PathRequest render_path = PathRequest::Auto;
  int width = 1600, height = 900;
  HeatLabOptions heat;
  int debug_fault_frame = -1;      // testing: poison the CUDA context in this frame
  float ui_scale = 1.0f;           // --ui-scale (times the monitor's content scale)
  bool presenter = false;          // --presenter
  std::optional<Session> session;  // --session / --preset: applied before the first frame
  bool show_shortcuts = false;     // testing: the F1 overlay open from the start
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

  // Sessions (app/session.h). apply_session validates every lab's state before it changes anything; on error
  // the running state is untouched and the message names the field. Call between frames.
  Session current_session() const;
  std::optional<std::string> apply_session(const Session& s);
  // The sweep definition of the last session loaded (null when it had none), for the sweep window.
  nlohmann::json& pending_sweep() { return m_pending_sweep; }
  Lab* active_lab() { return m_labs.empty() ? nullptr : m_labs[m_active].second.get(); }
  float ui_scale() const { return m_presenter.scale(); }
  bool presenter_mode() const { return m_presenter.presenter(); }
  void set_presenter_mode(bool on);
  ui::Theme theme() const { return m_presenter.theme(); }
  void set_theme(ui::Theme t) { m_presenter.set_theme(t); }

  // The window layout (app/layout.h); View > Reset layout calls reset_layout().
  Layout& layout() { return m_layout; }
  void reset_layout() { m_layout.reset(); }
  // The last frame's windows and display (what BLOCKSCOPE_LAYOUT_DUMP writes).
  const nlohmann::json& layout_snapshot() const { return m_layout_snapshot; }
  // Pixels the menu bar's items ran past its right end in the last frame (0: everything fits).
  float menu_overflow() const { return m_menu_overflow; }

  // Undo / redo of the active lab's parameters (Ctrl+Z, Ctrl+Shift+Z or Ctrl+Y, the Edit menu): applied
  // before the next frame, as loading a session is.
  void request_undo() { m_undo_request = UndoRequest::Undo; }
  void request_redo() { m_undo_request = UndoRequest::Redo; }
  bool can_undo() const;
  bool can_redo() const;

 private:
  void init_imgui();
  // Writes the layout (imgui.ini) atomically when ImGui asks for it, or at once with now = true (on exit).
  void save_layout(bool now);
  static constexpr size_t k_max_layout_bytes = 1 << 20;  // a saved layout is a few KiB
  void draw_main_ui();
  void recover_from(const GpuError& e);
  void fall_back_to_cpu(const std::string& why);
  void take_screenshot();
  // Presenter mode, sessions and captures (F1, P, F12, Ctrl+S / Ctrl+O).
  void handle_shortcuts();
  void draw_menu_bar(const ui::PathView& pv, std::string* switch_to);
  void draw_view_menu();
  void draw_edit_menu();
  void draw_session_menu();
  void draw_session_popups();
  void draw_presenter_windows();
  void capture(bool view_only);
  void apply_undo_request();
  void observe_undo(bool editing);
  void write_layout_dump();
  void toast(std::string text, bool error = false);
  Lab* find_or_make_lab(const std::string& id, bool* made);

  AppOptions m_opt;
  std::unique_ptr<gl::Context> m_gl;
  LabEnv m_env;
  // Labs are built when first opened and kept (paused) while another one is shown.
  std::vector<std::pair<std::string, std::unique_ptr<Lab>>> m_labs;
  size_t m_active = 0;
  void open_lab(const std::string& id);
  std::string m_ini_path;
  std::string m_gpu_message;  // last GPU failure and what was done about it
  int m_frame = 0;
  int m_exit_code = 0;
  bool m_imgui_ready = false;
  bool m_show_device = true;
  bool m_fullscreen = false;

  // Presenter mode, sessions and captures.
  ui::Presenter m_presenter;
  bool m_show_readouts = false;
  bool m_show_shortcuts = false;
  std::optional<Session> m_pending_session;  // chosen in a menu; applied before the next frame
  nlohmann::json m_pending_sweep;
  // The sweep window (any lab, one or two parameters, in the background); a session's sweep goes into it.
  std::unique_ptr<SweepWindow> m_sweep;
  bool m_show_sweep = false;
  void hand_over_sweep();
  void export_plots();  // plots saved from their right-click menu, with a record of the lab's parameters
  enum class Popup { None, Save, Load } m_open_popup = Popup::None;
  char m_session_path[512] = "";
  std::string m_session_error;  // shown in the Save / Load popup
  enum class Capture { None, Window, View } m_capture = Capture::None;
  float m_view_rect[4] = {0, 0, 0, 0};  // the active lab's view window this frame (x, y, w, h), w = 0: none
  std::string m_overwrite;              // the Save popup: the existing file the user is asked to overwrite
  float m_scale_edit = 1.0f;            // the View menu's slider while it is dragged
  bool m_scale_editing = false;
  std::string m_toast;
  bool m_toast_error = false;
  double m_toast_until = 0;

  // Layout (app/layout.h) and the BLOCKSCOPE_LAYOUT_DUMP file tests read.
  Layout m_layout;
  nlohmann::json m_layout_snapshot;
  std::string m_layout_dump;  // BLOCKSCOPE_LAYOUT_DUMP: write the layout here every frame (tests)
  int m_debug_frame_ms = 0;   // BLOCKSCOPE_DEBUG_FRAME_MS: a slow frame (tests of the key queue)
  int m_menu_level = 0;       // how much the menu bar is shortened to fit (0: not at all)
  float m_menu_overflow = 0;  // pixels the menu bar's items ran past its right end (0 when they fit)

  // Undo history per lab id.
  std::map<std::string, UndoHistory> m_undo;
  enum class UndoRequest { None, Undo, Redo } m_undo_request = UndoRequest::None;
};

}  // namespace bs
