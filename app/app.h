// app.h: the application: owns the GL context, ImGui, the labs and the shared LabEnv, and runs one frame at a
// time (main.cpp: `while (app.frame()) {}`).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/heat_lab.h"
#include "app/lab.h"
#include "gpu/common/gpu_error.h"

namespace bs {

struct AppOptions {
  bool headless = false;
  std::string scene = "heat";
  int frames = -1;         // stop after this many frames (-1: until the window closes)
  std::string screenshot;  // written after the last frame
  PathRequest render_path = PathRequest::Auto;
  int width = 1600, height = 900;
  HeatLabOptions heat;
  int debug_fault_frame = -1;  // testing: poison the CUDA context in this frame
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

 private:
  void init_imgui();
  void draw_main_ui();
  void recover_from(const GpuError& e);
  void fall_back_to_cpu(const std::string& why);
  void take_screenshot();

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
};

}  // namespace bs
