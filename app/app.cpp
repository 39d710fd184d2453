// app.cpp: see app.h.
#include "app/app.h"

#include <glad/gl.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_internal.h>  // FindWindowByName: the lab view's rectangle for Shift+F12
#include <imgui_impl_opengl3.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "app/labs.h"
#include "app/record.h"
#include "gpu/common/fault.h"
#include "core/error.h"
#include "core/text.h"
#include "ui/device_panel.h"
#include "ui/plot_export.h"
#include "ui/widgets.h"

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
  // Testing hooks (environment, so the command line stays the user's): the layout of every frame as JSON,
  // and a slow frame loop (a key tap then falls between two frames).
  if (const char* dump = std::getenv("BLOCKSCOPE_LAYOUT_DUMP"); dump && *dump) m_layout_dump = dump;
  if (const char* ms = std::getenv("BLOCKSCOPE_DEBUG_FRAME_MS"); ms && *ms)
    m_debug_frame_ms = std::clamp(std::atoi(ms), 0, 2000);
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
  m_show_shortcuts = opt.show_shortcuts;
  if (opt.session) {
    if (auto err = apply_session(*opt.session)) throw InvalidRequest(*err);
  }
  // Command-line flags win over the session's UI settings.
  if (opt.ui_scale != 1.0f) m_presenter.set_scale(opt.ui_scale);
  if (opt.presenter) set_presenter_mode(true);
  m_presenter.apply_pending();
  m_sweep = std::make_unique<SweepWindow>(m_env);
  hand_over_sweep();
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
  trace("stopping the sweep");
  m_sweep.reset();
  trace("destroying labs");
  m_labs.clear();
  trace("labs destroyed");
  if (m_imgui_ready) {
    save_layout(true);
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
  // Before the first NewFrame, where ImGui reads the ini file (the layout's entries are in it).
  m_layout.install(ImGui::GetCurrentContext());
  ImGuiIO& io = ImGui::GetIO();
  // ImGui never touches the file itself (its own save truncates the file in place): the layout is read here
  // through the size limit and written back through write_file_atomic (save_layout), so a crash or a full disk
  // cannot leave half a layout behind. Headless runs are reproducible: no saved layout at all.
  io.IniFilename = nullptr;
  if (!m_opt.headless) {
    const std::string dir = config_dir();
    m_ini_path = dir.empty() ? std::string() : dir + "/imgui.ini";
    std::string text, err;
    if (!m_ini_path.empty() && std::filesystem::exists(m_ini_path)) {
      if (read_file_limited(m_ini_path, k_max_layout_bytes, &text, &err))
        ImGui::LoadIniSettingsFromMemory(text.data(), text.size());
      else
        std::fprintf(stderr, "blockscope: saved layout ignored: %s\n", err.c_str());
    }
  }
  ImGui::StyleColorsDark();
  // Fonts rasterized at UI scale x the monitor's content scale; the style scaled from this unscaled base.
  m_presenter.init(m_gl->content_scale(), m_opt.ui_scale);
  if (m_gl->window()) {
    ImGui_ImplGlfw_InitForOpenGL(m_gl->window(), true);
    // In front of ImGui's key callback (which it calls): a tap shorter than a frame is not lost.
    m_gl->install_key_queue();
  }
  ImGui_ImplOpenGL3_Init("#version 330 core");
  m_imgui_ready = true;
}

void App::save_layout(bool now) {
  ImGuiIO& io = ImGui::GetIO();
  if (m_ini_path.empty() || !(now || io.WantSaveIniSettings)) return;
  io.WantSaveIniSettings = false;
  size_t size = 0;
  const char* text = ImGui::SaveIniSettingsToMemory(&size);
  std::string err;
  if (!write_file_atomic(m_ini_path, std::string_view(text, size), &err))
    std::fprintf(stderr, "blockscope: layout not saved: %s\n", err.c_str());
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

  handle_shortcuts();
  std::string switch_to;
  draw_menu_bar(pv, &switch_to);
  m_labs[m_active].second->draw_ui();
  m_view_rect[2] = 0;
  if (const char* name = m_labs[m_active].second->view_window())
    if (const ImGuiWindow* w = ImGui::FindWindowByName(name); w && w->Active && !w->Collapsed) {
      m_view_rect[0] = w->Pos.x;
      m_view_rect[1] = w->Pos.y;
      m_view_rect[2] = w->Size.x;
      m_view_rect[3] = w->Size.y;
    }
  // Drawn every frame, open or not: it also collects a sweep that finished while the window was closed.
  m_sweep->draw(&m_show_sweep);
  draw_presenter_windows();
  draw_session_popups();
  if (m_show_device) {
    m_layout.place("Device", Slot::Device);
    if (ImGui::Begin("Device", &m_show_device)) {
      ui::draw_device_panel(m_env.device, pv);
      if (m_gl->window() && ImGui::Checkbox("full screen (F11)", &m_fullscreen))
        m_gl->set_fullscreen(m_fullscreen);
      ui::error_text(m_gpu_message);
    }
    ImGui::End();
  }
  if (!switch_to.empty()) {
    try {
      open_lab(switch_to);
    } catch (const std::exception& e) {
      m_gpu_message = std::string("cannot open ") + switch_to + ": " + e.what();
    }
  }
}

void App::draw_menu_bar(const ui::PathView& pv, std::string* switch_to) {
  // The bar shortens itself to fit (presenter mode, 720p): level 0 has everything, level 1 drops the brand
  // and uses short lab names, level 2 gathers the labs into one "Lab" menu. The path status always stays.
  const ImGuiStyle& st = ImGui::GetStyle();
  const auto item_w = [&](const char* label) { return ImGui::CalcTextSize(label).x + st.ItemSpacing.x * 2; };
  const float bar_w = ImGui::GetMainViewport()->Size.x;
  const auto needed = [&](int level) {
    float w = st.WindowPadding.x * 2 + item_w("Session") + item_w("Edit") + item_w("View") + item_w("Sweep") +
              ui::path_status_min_width(pv);
    if (level == 0) w += item_w("blockscope");
    if (level < 2) {
      for (const LabEntry& e : lab_entries())
        w += item_w(level == 0 ? e.title : e.short_title);
    } else {
      w += item_w("Lab: Monte Carlo");
    }
    return w;
  };
  m_menu_level = needed(0) <= bar_w ? 0 : needed(1) <= bar_w ? 1 : 2;
  m_menu_overflow = 0;
  if (!ImGui::BeginMainMenuBar()) return;
  if (m_menu_level == 0) ImGui::TextDisabled("blockscope");
  draw_session_menu();
  draw_edit_menu();
  draw_view_menu();
  if (ImGui::MenuItem("Sweep", "F5", m_show_sweep)) m_show_sweep = !m_show_sweep;
  // The lab bar: one entry per lab, the open one checked.
  const std::string& active = m_labs[m_active].first;
  if (m_menu_level < 2) {
    for (const LabEntry& e : lab_entries())
      if (ImGui::MenuItem(m_menu_level == 0 ? e.title : e.short_title, nullptr, active == e.id))
        *switch_to = e.id;
  } else {
    const char* title = active.c_str();
    for (const LabEntry& e : lab_entries())
      if (active == e.id) title = e.title;
    const std::string label = std::string("Lab: ") + title + "###labmenu";
    if (ImGui::BeginMenu(label.c_str())) {
      for (const LabEntry& e : lab_entries())
        if (ImGui::MenuItem(e.title, nullptr, active == e.id)) *switch_to = e.id;
      ImGui::EndMenu();
    }
  }
  const float items_end = ImGui::GetItemRectMax().x;
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowWidth() - st.WindowPadding.x;
  const float path_w = ui::draw_path_status(pv, right);
  m_menu_overflow = std::max(0.0f, items_end - right) + (path_w > 0 ? 0.0f : ui::path_status_min_width(pv));
  ImGui::EndMainMenuBar();
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
  // Between frames: a session chosen in a menu, and fonts re-rasterized for a new UI scale.
  if (m_pending_session) {
    const Session s = std::move(*m_pending_session);
    m_pending_session.reset();
    try {
      if (auto err = apply_session(s))
        toast("session not loaded: " + *err, true);
      else
        toast("loaded session" + (s.description.empty() ? std::string() : ": " + s.description));
      hand_over_sweep();
    } catch (const GpuError& e) {
      recover_from(e);
    }
  }
  apply_undo_request();
  m_presenter.apply_pending();
  ImGui_ImplOpenGL3_NewFrame();
  if (m_gl->window()) {
    ImGui_ImplGlfw_NewFrame();
  } else {
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(static_cast<float>(m_gl->width()), static_cast<float>(m_gl->height()));
    io.DeltaTime = 1.0f / 60.0f;
  }
  ImGui::NewFrame();
  // Quick taps: ImGui saw them down in this NewFrame; their releases go in now.
  m_gl->release_deferred_keys();
  // The readouts strip's height comes from this frame's fonts and width; the layout then fits every window
  // into what is left (refitted every frame: resizes, F11, presenter mode and UI scale need nothing more).
  {
    const ImVec2 work = ImGui::GetMainViewport()->WorkSize;
    const std::vector<ui::Readout> r = m_labs[m_active].second->readouts();
    m_layout.begin_frame(m_show_readouts ? m_presenter.fit_readouts(r, work.x, work.y * 0.3f) : 0.0f);
  }
  // UI first (it changes parameters), then the simulation and the field's trip into GL, then ImGui draws.
  draw_main_ui();
  m_layout.end_frame();
  const bool editing = ImGui::IsAnyItemActive();
  m_layout_snapshot = m_layout.snapshot();
  ImGui::Render();
  try {
    if (m_frame == m_opt.debug_fault_frame && m_env.path.path != RenderPath::Cpu) inject_illegal_address();
    // A sweep that times anything (GPU or CPU) has the machine to itself: the live lab pauses meanwhile (its
    // view stays), so the live run disturbs no sample.
    if (!m_sweep->pauses_live_lab()) m_labs[m_active].second->update();
  } catch (const GpuError& e) {
    recover_from(e);
  }
  observe_undo(editing);
  if (const std::string& sticky = m_sweep->sticky_error(); !sticky.empty()) {
    recover_from(GpuError("during a sweep: " + sticky, 0, true));
    m_sweep->clear_sticky_error();
  }
  m_gl->bind_target();
  glViewport(0, 0, m_gl->width(), m_gl->height());
  if (m_presenter.theme() == ui::Theme::Light)
    glClearColor(0.94f, 0.94f, 0.94f, 1.0f);
  else
    glClearColor(0.08f, 0.08f, 0.1f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  save_layout(false);  // when ImGui asks (a window moved or resized, at most every few seconds)
  m_sweep->after_render();  // queued PNG exports render through their own ImGui context, outside the frame
  if (ui::plot_exports_pending()) export_plots();
  ++m_frame;
  const bool last = m_opt.frames > 0 && m_frame >= m_opt.frames;
  if (last && !m_opt.debug_capture.empty())
    m_capture = m_opt.debug_capture == "view" ? Capture::View : Capture::Window;
  // Captures read what ImGui just drew (F12: the window; Shift+F12: the lab's view).
  if (m_capture != Capture::None) capture(m_capture == Capture::View);
  m_capture = Capture::None;
  if (last && !m_opt.screenshot.empty()) take_screenshot();
  m_gl->present();
  if (!m_layout_dump.empty()) write_layout_dump();
  if (m_debug_frame_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(m_debug_frame_ms));
  return !last;
}

void App::write_layout_dump() {
  nlohmann::json j = m_layout_snapshot;
  j["frame"] = m_frame;
  j["presenter"] = m_presenter.presenter();
  j["scale"] = m_presenter.scale();
  j["theme"] = ui::to_string(m_presenter.theme());
  j["fullscreen"] = m_fullscreen;
  j["readouts"] = m_show_readouts;
  j["shortcuts"] = m_show_shortcuts;
  j["menu_level"] = m_menu_level;
  j["menu_overflow"] = m_menu_overflow;
  j["lab"] = m_labs[m_active].first;
  j["lab_state"] = m_labs[m_active].second->save_state();
  j["popup"] = ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId | ImGuiPopupFlags_AnyPopupLevel);
  j["overwrite_asked"] = !m_overwrite.empty();
  // Written whole, then renamed (write_file_atomic): a test reading it never sees half a file.
  std::string err;
  if (!write_file_atomic(m_layout_dump, j.dump(), &err))
    std::fprintf(stderr, "blockscope: layout dump not written: %s\n", err.c_str());
}

void App::set_presenter_mode(bool on) {
  m_presenter.set_presenter(on);
  m_show_readouts = on;
}

bool App::can_undo() const {
  const auto it = m_undo.find(m_labs[m_active].first);
  return it != m_undo.end() && it->second.can_undo(m_labs[m_active].second->save_state());
}

bool App::can_redo() const {
  const auto it = m_undo.find(m_labs[m_active].first);
  return it != m_undo.end() && it->second.can_redo(m_labs[m_active].second->save_state());
}

void App::observe_undo(bool editing) {
  const auto& [id, lab] = m_labs[m_active];
  m_undo[id].observe(lab->save_state(), ImGui::GetTime(), editing);
}

void App::apply_undo_request() {
  if (m_undo_request == UndoRequest::None) return;
  const bool undo = m_undo_request == UndoRequest::Undo;
  m_undo_request = UndoRequest::None;
  auto& [id, lab] = m_labs[m_active];
  UndoHistory& h = m_undo[id];
  const nlohmann::json now = lab->save_state();
  const std::optional<nlohmann::json> target = undo ? h.undo(now) : h.redo(now);
  if (!target) {
    toast(undo ? "nothing to undo" : "nothing to redo");
    return;
  }
  try {
    if (auto err = lab->load_state(*target))
      toast(std::string(undo ? "undo" : "redo") + " failed: " + *err, true);
  } catch (const GpuError& e) {
    recover_from(e);
  }
  h.rebase(lab->save_state());
}

// --- Sessions, presenter mode and captures ----------------------------------------------------------------

Lab* App::find_or_make_lab(const std::string& id, bool* made) {
  *made = false;
  for (auto& l : m_labs)
    if (l.first == id) return l.second.get();
  const size_t active = m_active;
  open_lab(id);
  m_active = m_labs.size() > 1 ? active : 0;
  *made = true;
  return m_labs.back().second.get();
}

Session App::current_session() const {
  Session s;
  s.active_lab = m_labs[m_active].first;
  for (const auto& [id, lab] : m_labs) {
    s.open_labs.push_back(id);
    s.labs[id] = lab->save_state();
  }
  s.ui.scale = m_presenter.base_scale();
  s.ui.presenter = m_presenter.presenter();
  s.ui.readouts = m_show_readouts;
  s.ui.theme = ui::to_string(m_presenter.theme());
  s.sweep = m_pending_sweep;
  // The sweep as set up in the window, when it was used (a form that does not parse keeps the last good one).
  if (m_show_sweep || m_sweep->has_result()) {
    try {
      s.sweep = m_sweep->definition_json();
    } catch (const InvalidRequest&) {
    }
  }
  return s;
}

std::optional<std::string> App::apply_session(const Session& s) {
  // Everything is checked before anything changes: the labs' states against default labs first (no lab is
  // built for a file that fails), then each lab validates against itself in load_state.
  if (!is_lab(s.active_lab)) return "active_lab: unknown lab '" + s.active_lab + "'";
  for (const auto& [id, state] : s.labs.items())
    if (auto err = check_lab_state(id, state)) return err;
  const size_t labs_before = m_labs.size();
  const auto forget_new_labs = [&] {
    while (m_labs.size() > labs_before)
      m_labs.pop_back();
  };
  std::vector<std::string> ids = s.open_labs;
  for (const auto& [id, state] : s.labs.items())
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  if (std::find(ids.begin(), ids.end(), s.active_lab) == ids.end()) ids.push_back(s.active_lab);
  try {
    for (const std::string& id : ids) {
      bool made = false;
      find_or_make_lab(id, &made);
    }
  } catch (const std::exception& e) {
    forget_new_labs();
    return std::string("cannot open a lab of the session: ") + e.what();
  }
  std::string errors;
  for (auto& [id, lab] : m_labs)
    if (s.labs.contains(id))
      if (auto err = lab->load_state(s.labs[id])) errors += (errors.empty() ? "" : "; ") + *err;
  for (size_t i = 0; i < m_labs.size(); ++i)
    if (m_labs[i].first == s.active_lab) m_active = i;
  m_presenter.set_scale(s.ui.scale);
  m_presenter.set_presenter(s.ui.presenter);
  m_show_readouts = s.ui.readouts || s.ui.presenter;
  if (!s.ui.theme.empty())
    m_presenter.set_theme(ui::k_theme_names.parse(s.ui.theme).value_or(ui::Theme::Dark));
  m_pending_sweep = s.sweep;
  if (!errors.empty()) return errors;
  return std::nullopt;
}

void App::export_plots() {
  // The record of a lab plot: the machine and versions, and every parameter of the lab that drew it.
  nlohmann::json rec = record::environment_record(to_string(m_env.path.path));
  rec["lab"] = m_labs[m_active].first;
  rec["parameters"] = m_labs[m_active].second->save_state();
  const char* home = std::getenv("HOME");
  const std::string dir = std::string(home && *home ? home : ".") + "/blockscope-exports/" +
                          record::compact_timestamp() + "-" + m_labs[m_active].first;
  const std::string msg = ui::run_plot_exports(dir, rec.dump(2) + "\n");
  toast(msg, msg.rfind("saved", 0) != 0);
}

void App::hand_over_sweep() {
  if (m_pending_sweep.is_null() || !m_sweep) return;
  try {
    m_sweep->load_definition(m_pending_sweep, false);
    m_show_sweep = true;
  } catch (const InvalidRequest& e) {
    toast(std::string("the session's sweep was not loaded: ") + e.what(), true);
  }
  m_pending_sweep = nullptr;
}

void App::toast(std::string text, bool error) {
  std::fprintf(stderr, "blockscope: %s\n", text.c_str());
  m_toast = std::move(text);
  m_toast_error = error;
  m_toast_until = ImGui::GetTime() + (error ? 8.0 : 4.0);
}

void App::handle_shortcuts() {
  const ImGuiIO& io = ImGui::GetIO();
  // Presses come from the window's key queue (ui/gl/context.h): ImGui 1.86 samples key state once a frame,
  // so a quick tap between two slow frames would be lost. Modifiers are the ones held at the press.
  for (const gl::KeyPress& k : m_gl->take_key_presses()) {
    const bool ctrl = (k.mods & GLFW_MOD_CONTROL) != 0, shift = (k.mods & GLFW_MOD_SHIFT) != 0;
    const bool plain = (k.mods & (GLFW_MOD_CONTROL | GLFW_MOD_ALT | GLFW_MOD_SUPER)) == 0;
    // Typing "p" into a field is not a shortcut, and Ctrl+Z there is the field's own undo.
    const bool typing = io.WantTextInput;
    switch (k.key) {
      case GLFW_KEY_F1:
        m_show_shortcuts = !m_show_shortcuts;
        break;
      case GLFW_KEY_F5:
        m_show_sweep = !m_show_sweep;
        break;
      case GLFW_KEY_F11:
        m_fullscreen = !m_fullscreen;
        m_gl->set_fullscreen(m_fullscreen);
        break;
      case GLFW_KEY_F12:
        m_capture = shift ? Capture::View : Capture::Window;
        break;
      case GLFW_KEY_P:
        if (plain && !typing) set_presenter_mode(!m_presenter.presenter());
        break;
      case GLFW_KEY_S:
        if (ctrl) m_open_popup = Popup::Save;
        break;
      case GLFW_KEY_O:
        if (ctrl) m_open_popup = Popup::Load;
        break;
      case GLFW_KEY_Z:
        if (ctrl && !typing) shift ? request_redo() : request_undo();
        break;
      case GLFW_KEY_Y:
        if (ctrl && !typing) request_redo();
        break;
      default:
        break;
    }
  }
}

void App::draw_edit_menu() {
  if (!ImGui::BeginMenu("Edit")) return;
  const std::string title = std::string("of ") + m_labs[m_active].second->title();
  ImGui::TextDisabled("parameters %s", title.c_str());
  if (ImGui::MenuItem("Undo", "Ctrl+Z", false, can_undo())) request_undo();
  if (ImGui::MenuItem("Redo", "Ctrl+Shift+Z / Ctrl+Y", false, can_redo())) request_redo();
  ImGui::EndMenu();
}

void App::draw_view_menu() {
  if (!ImGui::BeginMenu("View")) return;
  if (!m_scale_editing) m_scale_edit = m_presenter.scale();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
  ImGui::SliderFloat("UI scale", &m_scale_edit, ui::k_min_ui_scale, ui::k_max_ui_scale, "%.2f");
  m_scale_editing = ImGui::IsItemActive();
  // Fonts are re-rasterized when the slider is let go (rebuilding the atlas on every drag step is slow).
  if (ImGui::IsItemDeactivatedAfterEdit()) m_presenter.set_scale(m_scale_edit);
  for (float preset : {1.0f, 1.25f, 1.5f, 2.0f}) {
    char label[16];
    std::snprintf(label, sizeof label, "%.2gx", static_cast<double>(preset));
    ImGui::SameLine();
    if (ImGui::SmallButton(label)) m_presenter.set_scale(preset);
  }
  if (ImGui::MenuItem("Presenter mode", "P", m_presenter.presenter()))
    set_presenter_mode(!m_presenter.presenter());
  ImGui::MenuItem("Big readouts", nullptr, &m_show_readouts);
  if (ImGui::BeginMenu("Theme")) {
    if (ImGui::MenuItem("Dark", nullptr, m_presenter.theme() == ui::Theme::Dark)) set_theme(ui::Theme::Dark);
    if (ImGui::MenuItem("Light (projectors)", nullptr, m_presenter.theme() == ui::Theme::Light))
      set_theme(ui::Theme::Light);
    ImGui::EndMenu();
  }
  if (ImGui::MenuItem("Reset layout")) reset_layout();
  if (m_gl->window() && ImGui::MenuItem("Full screen", "F11", m_fullscreen)) {
    m_fullscreen = !m_fullscreen;
    m_gl->set_fullscreen(m_fullscreen);
  }
  ImGui::MenuItem("Keyboard shortcuts", "F1", &m_show_shortcuts);
  ImGui::MenuItem("Device window", nullptr, &m_show_device);
  ImGui::Separator();
  if (ImGui::MenuItem("Screenshot of the window", "F12")) m_capture = Capture::Window;
  if (ImGui::MenuItem("Screenshot of the lab view", "Shift+F12")) m_capture = Capture::View;
  ImGui::EndMenu();
}

void App::draw_session_menu() {
  if (!ImGui::BeginMenu("Session")) return;
  if (ImGui::MenuItem("Save...", "Ctrl+S")) m_open_popup = Popup::Save;
  if (ImGui::MenuItem("Load...", "Ctrl+O")) m_open_popup = Popup::Load;
  if (ImGui::BeginMenu("Presets")) {
    for (const Preset& p : presets()) {
      if (ImGui::MenuItem(p.name.c_str())) {
        SessionResult r = load_preset(p.name);
        if (r.session)
          m_pending_session = std::move(r.session);
        else
          toast(r.error, true);
      }
      if (!p.description.empty() && ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
        ImGui::TextUnformatted(p.description.c_str());
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
      }
    }
    ImGui::EndMenu();
  }
  ImGui::EndMenu();
}

namespace {
// The session files in session_dir(), newest first, as a list box; the path picked this frame (or empty).
std::string session_file_list(const char* current) {
  const std::string dir = session_dir();
  std::error_code ec;
  if (dir.empty() || !std::filesystem::is_directory(dir, ec)) return {};
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  std::sort(files.rbegin(), files.rend());  // newest (timestamped) first
  if (files.empty()) return {};
  std::string picked;
  const float rows = static_cast<float>(std::min<size_t>(files.size(), 8));
  if (ImGui::BeginListBox("##saved", ImVec2(-1, ImGui::GetTextLineHeightWithSpacing() * rows +
                                                    ImGui::GetStyle().FramePadding.y * 2))) {
    for (const std::string& f : files) {
      const std::string name = std::filesystem::path(f).filename().string();
      if (ImGui::Selectable(name.c_str(), f == current)) picked = f;
    }
    ImGui::EndListBox();
  }
  return picked;
}
}  // namespace

void App::draw_session_popups() {
  if (m_open_popup != Popup::None) {
    const std::string dir = session_dir();
    const std::string file = m_open_popup == Popup::Save ? timestamped_name("session", ".json") : "";
    const std::string path = dir.empty() ? file : dir + "/" + file;
    std::snprintf(m_session_path, sizeof m_session_path, "%s", path.c_str());
    m_session_error.clear();
    m_overwrite.clear();
    ImGui::OpenPopup(m_open_popup == Popup::Save ? "Save session" : "Load session");
    m_open_popup = Popup::None;
  }
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const ImVec2 centre(vp->Pos.x + vp->Size.x * 0.5f, vp->Pos.y + vp->Size.y * 0.5f);
  const float width = std::min(ImGui::GetFontSize() * 36, vp->WorkSize.x * 0.9f);
  ImGui::SetNextWindowPos(centre, ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  // As tall as its content (a question or an error appears below the path): the buttons never scroll away.
  ImGui::SetNextWindowSizeConstraints(ImVec2(width, 0), ImVec2(width, vp->WorkSize.y * 0.9f));
  if (ImGui::BeginPopupModal("Save session", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
    ImGui::TextWrapped("Saves the open labs, every lab's parameters, the UI scale and theme as JSON.");
    ImGui::SetNextItemWidth(-1);
    if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
    const bool enter = ImGui::InputText("##path", m_session_path, sizeof m_session_path,
                                        ImGuiInputTextFlags_EnterReturnsTrue);
    if (ImGui::IsItemEdited()) m_overwrite.clear();
    // The sessions saved before: picking one overwrites it (after asking).
    if (const std::string picked = session_file_list(m_session_path); !picked.empty()) {
      std::snprintf(m_session_path, sizeof m_session_path, "%s", picked.c_str());
      m_overwrite.clear();
    }
    if (!m_session_error.empty()) ui::error_text(m_session_error);
    std::error_code ec;
    const bool exists = m_session_path[0] && std::filesystem::exists(m_session_path, ec);
    const bool asking = exists && m_overwrite == m_session_path;
    if (asking) ui::advice_text(std::string(m_session_path) + " exists. Replace it? (Enter: replace)");
    // While asking, Enter answers (the path field has let go of the keyboard after the first Enter).
    const bool confirm = asking && !ImGui::IsAnyItemActive() && ImGui::IsKeyPressed(GLFW_KEY_ENTER, false);
    if (ImGui::Button(asking ? "Replace" : "Save") || enter || confirm) {
      if (exists && !asking) {
        m_overwrite = m_session_path;  // ask first; a second Save / Enter replaces it
      } else {
        std::string err;
        if (save_session(current_session(), m_session_path, &err)) {
          toast(std::string("saved ") + m_session_path);
          m_overwrite.clear();
          ImGui::CloseCurrentPopup();
        } else {
          m_session_error = err;
        }
      }
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false)) {
      m_overwrite.clear();
      ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
  }
  ImGui::SetNextWindowPos(centre, ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  // As tall as its content (a question or an error appears below the path): the buttons never scroll away.
  ImGui::SetNextWindowSizeConstraints(ImVec2(width, 0), ImVec2(width, vp->WorkSize.y * 0.9f));
  if (ImGui::BeginPopupModal("Load session", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
    ImGui::TextWrapped(
        "A session file (or pick one saved before). Nothing changes unless the whole file is valid.");
    ImGui::SetNextItemWidth(-1);
    if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
    const bool enter = ImGui::InputText("##path", m_session_path, sizeof m_session_path,
                                        ImGuiInputTextFlags_EnterReturnsTrue);
    if (const std::string picked = session_file_list(m_session_path); !picked.empty())
      std::snprintf(m_session_path, sizeof m_session_path, "%s", picked.c_str());
    if (!m_session_error.empty()) ui::error_text(m_session_error);
    if (ImGui::Button("Load") || enter) {
      SessionResult r = load_session_file(m_session_path);
      if (r.session) {
        m_pending_session = std::move(r.session);
        ImGui::CloseCurrentPopup();
      } else {
        m_session_error = r.error;
      }
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false)) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
  }
}

void App::draw_presenter_windows() {
  const Lab& lab = *m_labs[m_active].second;
  if (m_show_readouts) {
    const std::vector<ui::Readout> r = lab.readouts();
    const Rect strip = m_layout.slot(Slot::Readouts);
    m_presenter.draw_readouts(r, ImVec4(strip.x, strip.y, strip.w, strip.h));
  }
  if (m_show_shortcuts) {
    static const ui::Shortcut k_shortcuts[] = {
        {"F1", "show / hide this list"},
        {"F11", "full screen"},
        {"P", "presenter mode: larger UI and big read-outs"},
        {"F5", "sweep window: time any lab over one or two parameters"},
        {"F12", "screenshot of the window (~/blockscope-captures/)"},
        {"Shift+F12", "screenshot of the lab's view only"},
        {"Ctrl+S", "save the session (labs, parameters, UI scale)"},
        {"Ctrl+O", "load a session"},
        {"Ctrl+Z", "undo a parameter change (Ctrl+Shift+Z or Ctrl+Y: redo)"},
        {"O", "anatomy overlay: next mode (heat, matmul)"},
        {"A", "anatomy window: show / hide"},
        {"left / right drag", "heat field: paint hot / cold"},
        {"Space / R", "heat lab: pause or run / reset the field"},
    };
    m_presenter.draw_shortcuts(k_shortcuts, &m_show_shortcuts);
  }
  if (!m_toast.empty() && ImGui::GetTime() < m_toast_until) {
    // Centred over the lab's view, just above the readouts strip (or the bottom edge): over the field, not
    // over the panel's controls.
    const Rect view = m_layout.slot(Slot::View);
    const float gap = ImGui::GetFrameHeight() * 0.5f;
    ui::Presenter::draw_toast(m_toast, m_toast_error, ImVec2(view.x + view.w * 0.5f, view.y + view.h - gap),
                              view.w * 0.9f);
  }
}

void App::capture(bool view_only) {
  try {
    const char* home = std::getenv("HOME");
    if (!home || !*home) throw std::runtime_error("HOME is not set: nowhere to put ~/blockscope-captures");
    const std::filesystem::path dir = std::filesystem::path(home) / "blockscope-captures";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw std::runtime_error("cannot create " + dir.string() + ": " + ec.message());
    const int fw = m_gl->width(), fh = m_gl->height();
    int x = 0, y = 0, w = fw, h = fh;
    if (view_only) {
      if (m_view_rect[2] <= 0)
        throw std::runtime_error("this lab's view is not on screen (collapsed or closed)");
      // ImGui works in window coordinates; the framebuffer may have more pixels (HiDPI).
      const ImVec2 fb = ImGui::GetIO().DisplayFramebufferScale;
      const float sx = fb.x > 0 ? fb.x : 1.0f, sy = fb.y > 0 ? fb.y : 1.0f;
      x = std::clamp(static_cast<int>(m_view_rect[0] * sx), 0, fw);
      y = std::clamp(static_cast<int>(m_view_rect[1] * sy), 0, fh);
      w = std::clamp(static_cast<int>(m_view_rect[2] * sx), 0, fw - x);
      h = std::clamp(static_cast<int>(m_view_rect[3] * sy), 0, fh - y);
      if (w <= 0 || h <= 0) throw std::runtime_error("the lab's view is outside the window");
    }
    const std::vector<unsigned char> full = gl::read_pixels(fw, fh);
    std::vector<unsigned char> px;
    if (view_only) {
      px.resize(static_cast<size_t>(w) * h * 4);
      for (int row = 0; row < h; ++row)
        std::copy_n(full.data() + (static_cast<size_t>(y + row) * fw + x) * 4, static_cast<size_t>(w) * 4,
                    px.data() + static_cast<size_t>(row) * w * 4);
    }
    const std::string stem =
        timestamped_name("blockscope-" + m_labs[m_active].first + (view_only ? "-view" : ""), "");
    std::filesystem::path path = dir / (stem + ".png");
    for (int n = 2; std::filesystem::exists(path, ec); ++n)  // two captures within a second
      path = dir / (stem + "-" + std::to_string(n) + ".png");
    std::string err;
    if (!gl::write_png(path.string(), w, h, view_only ? px : full, &err)) throw std::runtime_error(err);
    toast("saved " + path.string());
  } catch (const std::exception& e) {
    toast(std::string("screenshot not saved: ") + e.what(), true);
  }
}

}  // namespace bs
