// app.cpp: see app.h.
#include "app/app.h"

#include <glad/gl.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "app/labs.h"
#include "gpu/common/fault.h"
#include "gpu/common/gpu_error.h"
#include "ui/device_panel.h"

namespace bs {

namespace {
std::string config_dir() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  std::filesystem::path p = xdg && *xdg ? std::filesystem::path(xdg)
                            : home      ? std::filesystem::path(home) / ".config"
                                        : "";
  if (p.empty()) return {};
  p /= "blockscope";
  std::error_code ec;
  std::filesystem::create_directories(p, ec);
  return ec ? std::string() : p.string();
}
}  // namespace

App::App(const AppOptions& opt) : m_opt(opt) {
  std::string err;
  m_gl = opt.headless ? gl::create_headless(opt.width, opt.height, &err)
                      : gl::create_window(opt.width, opt.height, "blockscope", &err);
  if (!m_gl) throw std::runtime_error(err);
  m_env.gl = m_gl.get();
  m_env.request = opt.render_path;
  m_env.device = opt.render_path == PathRequest::Cpu ? DeviceInfo{} : query_device();
  if (opt.render_path == PathRequest::Cpu) m_env.device.reason = "not queried (--render-path cpu)";
  m_env.path =
      decide_path(opt.render_path, m_env.device.available, m_env.device.reason, m_gl->info().renderer);
  init_imgui();
  // ImGui needs a frame begun before labs lay out anything; the first lab is built outside a frame.
  open_lab(opt.scene);
  std::fprintf(stderr, "blockscope: GL %s (%s); path: %s (%s)%s%s\n", m_gl->info().renderer.c_str(),
               m_gl->info().platform.c_str(), to_string(m_env.path.path), m_env.path.reason.c_str(),
               m_env.path.path == RenderPath::Interop ? "; " : "",
               m_env.path.path == RenderPath::Interop ? m_env.path.mechanism.c_str() : "");
}

namespace {
// BLOCKSCOPE_TRACE=1 prints the shutdown steps: a hang in a driver's teardown then shows where it is.
void trace(const char* what) {
  static const bool on = std::getenv("BLOCKSCOPE_TRACE") != nullptr;
  if (on) std::fprintf(stderr, "blockscope: trace: %s\n", what);
}
}  // namespace

App::~App() {
  trace("destroying labs");
  m_labs.clear();
  trace("labs destroyed");
  if (m_imgui_ready) {
    ImGui_ImplOpenGL3_Shutdown();
    if (m_gl->window()) ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
  }
  trace("ImGui shut down; destroying the GL context");
  m_gl.reset();
  trace("GL context destroyed");
}

void App::open_lab(const std::string& id) {
  for (size_t i = 0; i < m_labs.size(); ++i)
    if (m_labs[i].first == id) {
      m_active = i;
      return;
    }
  std::unique_ptr<Lab> lab;
  try {
    lab = make_lab(id, m_env, m_opt);
  } catch (const GpuError& e) {
    // The GPU cannot even build the lab (out of memory, broken device): run everything on the CPU instead.
    for (auto& l : m_labs)
      l.second->abandon_gpu();
    fall_back_to_cpu(e.what());
    for (auto& l : m_labs)
      l.second->rebuild();
    lab = make_lab(id, m_env, m_opt);
  }
  if (!lab) throw std::runtime_error("unknown lab '" + id + "'");
  m_labs.emplace_back(id, std::move(lab));
  m_active = m_labs.size() - 1;
}

void App::init_imgui() {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  if (m_opt.headless) {
    io.IniFilename = nullptr;  // headless runs are reproducible: no saved layout
  } else {
    const std::string dir = config_dir();
    m_ini_path = dir.empty() ? std::string() : dir + "/imgui.ini";
    io.IniFilename = m_ini_path.empty() ? nullptr : m_ini_path.c_str();
  }
  ImGui::StyleColorsDark();
  const float scale = m_gl->content_scale();
  const char* font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
  if (std::filesystem::exists(font)) io.Fonts->AddFontFromFileTTF(font, 15.0f * scale);
  ImGui::GetStyle().ScaleAllSizes(scale);
  if (m_gl->window()) ImGui_ImplGlfw_InitForOpenGL(m_gl->window(), true);
  ImGui_ImplOpenGL3_Init("#version 330 core");
  m_imgui_ready = true;
}

void App::fall_back_to_cpu(const std::string& why) {
  m_env.path.path = RenderPath::Cpu;
  m_env.path.reason = "GPU failed: " + why;
  m_env.device.available = false;
  m_env.device.reason = why;
}

void App::recover_from(const GpuError& e) {
  struct Report {
    const std::string& msg;
    ~Report() { std::fprintf(stderr, "blockscope: %s\n", msg.c_str()); }
  } report{m_gpu_message};
  if (!e.sticky()) {
    // The error was cleared by the check; the context is fine. Show it and carry on.
    m_gpu_message = std::string("GPU error (recovered): ") + e.what();
    return;
  }
  // The context is poisoned: forget every GPU handle, reset the device, rebuild; or give up on the GPU.
  for (auto& lab : m_labs)
    lab.second->abandon_gpu();
  std::string err;
  if (m_env.device.available && reset_cuda_device(m_env.device.index, &err)) {
    m_gpu_message = std::string("GPU error: ") + e.what() + " - device reset, simulation restarted";
    try {
      for (auto& lab : m_labs)
        lab.second->rebuild();
      return;
    } catch (const GpuError& again) {
      err = again.what();
      for (auto& lab : m_labs)
        lab.second->abandon_gpu();
    }
  }
  m_gpu_message =
      std::string("GPU error: ") + e.what() + " - the device could not be reset (" + err +
      "); running on the CPU. Restart blockscope to use the GPU again (drawing on that GPU may stop too).";
  fall_back_to_cpu(err.empty() ? e.what() : err);
  for (auto& lab : m_labs)
    lab.second->rebuild();
}

void App::draw_main_ui() {
  ui::PathView pv;
  pv.path = to_string(m_env.path.path);
  pv.reason = m_env.path.reason + (m_env.path.mechanism.empty() || m_env.path.path != RenderPath::Interop
                                       ? ""
                                       : "; " + m_env.path.mechanism);
  pv.gl_renderer = m_gl->info().renderer;
  pv.gl_version = m_gl->info().version;
  pv.gl_platform = m_gl->info().platform;
  pv.fps = ImGui::GetIO().Framerate;

  // ImGui 1.86 indexes keys by the GLFW key code.
  if (m_gl->window() && ImGui::IsKeyPressed(GLFW_KEY_F11)) {
    m_fullscreen = !m_fullscreen;
    m_gl->set_fullscreen(m_fullscreen);
  }
  // The lab bar: one entry per lab, the open one checked.
  std::string switch_to;
  if (ImGui::BeginMainMenuBar()) {
    ImGui::TextDisabled("blockscope");
    for (const LabEntry& e : lab_entries())
      if (ImGui::MenuItem(e.title, nullptr, m_labs[m_active].first == e.id)) switch_to = e.id;
    ImGui::EndMainMenuBar();
  }
  m_labs[m_active].second->draw_ui();
  if (m_show_device) {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const float w = std::min(vp->WorkSize.x * 0.42f, ImGui::GetFontSize() * 36);
    ImGui::SetNextWindowPos(
        ImVec2(vp->Pos.x + vp->Size.x - w, vp->Pos.y + vp->Size.y - ImGui::GetFrameHeight()),
        ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(w, vp->WorkSize.y * 0.2f), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowCollapsed(true, ImGuiCond_FirstUseEver);
    if (ImGui::Begin("Device", &m_show_device)) {
      ui::draw_device_panel(m_env.device, pv);
      if (m_gl->window() && ImGui::Checkbox("full screen (F11)", &m_fullscreen))
        m_gl->set_fullscreen(m_fullscreen);
      if (!m_gpu_message.empty()) ImGui::TextColored(ImVec4(1, 0.5f, 0.4f, 1), "%s", m_gpu_message.c_str());
    }
    ImGui::End();
  }
  ui::draw_path_overlay(pv);
  if (!switch_to.empty()) {
    try {
      open_lab(switch_to);
    } catch (const std::exception& e) {
      m_gpu_message = std::string("cannot open ") + switch_to + ": " + e.what();
    }
  }
}

void App::take_screenshot() {
  const auto px = gl::read_pixels(m_gl->width(), m_gl->height());
  std::string err;
  if (!gl::write_png(m_opt.screenshot, m_gl->width(), m_gl->height(), px, &err)) {
    std::fprintf(stderr, "blockscope: %s\n", err.c_str());
    m_exit_code = 1;
  } else {
    std::fprintf(stderr, "blockscope: wrote %s (%dx%d)\n", m_opt.screenshot.c_str(), m_gl->width(),
                 m_gl->height());
  }
}

bool App::frame() {
  m_gl->poll_events();
  if (m_gl->should_close()) return false;
  if (m_gl->minimized()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return true;
  }
  ImGui_ImplOpenGL3_NewFrame();
  if (m_gl->window()) {
    ImGui_ImplGlfw_NewFrame();
  } else {
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(static_cast<float>(m_gl->width()), static_cast<float>(m_gl->height()));
    io.DeltaTime = 1.0f / 60.0f;
  }
  ImGui::NewFrame();
  // UI first (it changes parameters), then the simulation and the field's trip into GL, then ImGui draws.
  draw_main_ui();
  ImGui::Render();
  try {
    if (m_frame == m_opt.debug_fault_frame && m_env.path.path != RenderPath::Cpu) inject_illegal_address();
    m_labs[m_active].second->update();
  } catch (const GpuError& e) {
    recover_from(e);
  }
  m_gl->bind_target();
  glViewport(0, 0, m_gl->width(), m_gl->height());
  glClearColor(0.08f, 0.08f, 0.1f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  ++m_frame;
  const bool last = m_opt.frames > 0 && m_frame >= m_opt.frames;
  if (last && !m_opt.screenshot.empty()) take_screenshot();
  m_gl->present();
  return !last;
}

}  // namespace bs
