// app.cpp: see app.h.
#include "app/app.h"

#include <glad/gl.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
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
#include "app/sweep/record.h"
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
  m_env.user_kernels = &m_user_kernels;
  set_active_user_kernels(&m_user_kernels);  // the sweep targets' kernel=user
  m_env.runs = &m_runs;
  m_env.request = opt.render_path;
  m_env.device = opt.render_path == PathRequest::Cpu ? DeviceInfo{} : query_device();
  if (opt.render_path == PathRequest::Cpu) m_env.device.reason = "not queried (--render-path cpu)";
  m_env.path =
      decide_path(opt.render_path, m_env.device.available, m_env.device.reason, m_gl->info().renderer);
  init_imgui();
  m_kernel_bench = std::make_unique<KernelWorkbench>(m_user_kernels, kernel::default_cache_dir());
  m_kernel_bench->simulator().set_gpu(m_env.device.available, m_env.device.reason);
  m_kernel_bench->chords_from_queue(m_gl->window() != nullptr);  // a real window has the key queue
  if (const char* k = std::getenv("BLOCKSCOPE_KERNEL_EDITOR"); k && *k == '1') m_kernel_bench->open() = true;
  // "simulate": open on the Simulator tab and simulate the template once it has compiled (tests, demos).
  if (const char* k = std::getenv("BLOCKSCOPE_KERNEL_EDITOR"); k && std::string_view(k) == "simulate") {
    m_kernel_bench->open() = true;
    m_kernel_bench->show_tab(1);
    m_kernel_bench->simulate_when_compiled();
  }
  // ImGui needs a frame begun before labs lay out anything; the first lab is built outside a frame.
  m_labs.open(opt.scene.empty() ? std::string(lab_entries().front().id) : opt.scene);
  m_presenter.show_shortcuts(opt.show_shortcuts);
  if (opt.session) {
    if (auto err = apply_session(*opt.session)) throw InvalidRequest(*err);
  }
  // Command-line flags win over the session's UI settings.
  if (opt.ui_scale != 1.0f) m_presenter.set_scale(opt.ui_scale);
  if (opt.presenter) set_presenter_mode(true);
  m_presenter.apply_pending();
  m_sweep = std::make_unique<SweepWindow>(m_env);
  m_counters = std::make_unique<CountersWindow>(m_env);
  m_counters->open() = opt.show_counters;
  m_roofline = std::make_unique<RooflineWindow>(m_env);
  m_show_roofline = opt.show_roofline;
  m_exercises = std::make_unique<ExerciseWindow>();
  m_show_exercises = opt.show_exercises;
  hand_over_sweep();
  if (m_first_start) m_toasts.show(k_first_start_hint, false, 20.0);
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
  if (active_user_kernels() == &m_user_kernels) set_active_user_kernels(nullptr);
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

void App::init_imgui() {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  m_layout.install();
  // ImGui never touches the file itself (its own save truncates the file in place): imgui.ini is read here
  // through the size limit and written back through write_file_atomic (save_layout), so a crash or a full
  // disk cannot leave half a layout behind. Headless runs are reproducible: no saved layout at all.
  ImGui::GetIO().IniFilename = nullptr;
  if (!m_opt.headless) load_layout();
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

void App::load_layout() {
  const std::string dir = config_dir();
  if (dir.empty()) return;
  m_ini_path = dir + "/imgui.ini";
  m_layout_path = dir + "/layout.json";
  std::error_code ec;
  std::string text, err;
  m_first_start = !std::filesystem::exists(m_ini_path, ec) && !std::filesystem::exists(m_layout_path, ec);
  if (std::filesystem::exists(m_ini_path, ec)) {
    // Before the first NewFrame: ImGui's own settings (collapsed windows, table columns).
    if (read_file_limited(m_ini_path, k_max_layout_bytes, &text, &err))
      ImGui::LoadIniSettingsFromMemory(text.data(), text.size());
    else
      std::fprintf(stderr, "blockscope: saved ImGui settings ignored: %s\n", err.c_str());
  }
  if (std::filesystem::exists(m_layout_path, ec)) {
    if (!read_file_limited(m_layout_path, k_max_layout_bytes, &text, &err))
      std::fprintf(stderr, "blockscope: saved layout ignored: %s\n", err.c_str());
    else if (auto bad = m_layout.load(text, m_layout_path))
      std::fprintf(stderr, "blockscope: saved layout ignored (every window starts in its place): %s\n",
                   bad->c_str());
  }
}

void App::save_layout(bool now) {
  std::string err;
  ImGuiIO& io = ImGui::GetIO();
  if (!m_ini_path.empty() && (now || io.WantSaveIniSettings)) {
    io.WantSaveIniSettings = false;
    size_t size = 0;
    const char* text = ImGui::SaveIniSettingsToMemory(&size);
    if (!write_file_atomic(m_ini_path, std::string_view(text, size), &err))
      std::fprintf(stderr, "blockscope: ImGui settings not saved: %s\n", err.c_str());
  }
  // A window being dragged changes its place every frame: written once the mouse lets go.
  if (m_layout_path.empty() || !m_layout.dirty() || (!now && ImGui::IsMouseDown(ImGuiMouseButton_Left)))
    return;
  m_layout.take_dirty();
  if (!write_file_atomic(m_layout_path, m_layout.to_json().dump(2) + "\n", &err))
    std::fprintf(stderr, "blockscope: layout not saved: %s\n", err.c_str());
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
  // The active lab's newest run against the ceilings (known once measured or cached), in every mode.
  const std::optional<CeilingReadout> roofline = ceiling_readout(m_roofline->chart(), m_labs.active_id());
  const std::string switch_to = m_menu_bar.draw(
      pv, m_labs.active_id(),
      [this] {
        m_sessions.draw_menu(m_toasts);
        draw_edit_menu();
        draw_view_menu();
        if (ImGui::MenuItem("Sweep", "F5", m_show_sweep)) m_show_sweep = !m_show_sweep;
        m_help.draw_menu(m_presenter.shortcuts_flag());
      },
      roofline);
  m_labs.draw_ui(m_layout);
  m_kernel_bench->update(ImGui::GetTime());
  m_kernel_bench->draw(m_layout, ImGui::GetTime());
  // Drawn every frame, open or not: it also collects a sweep that finished while the window was closed.
  m_sweep->draw(&m_show_sweep);
  if (m_sweep->wants_ceilings()) m_roofline->request_ceilings();
  m_sweep->set_ceilings(m_roofline->chart().gpu, m_roofline->chart().cpu);
  m_counters->draw(m_labs.active());
  m_roofline->draw(m_layout, &m_show_roofline);
  m_exercises->draw(m_layout, &m_show_exercises);
  m_presenter.draw_windows(m_layout, readouts_now());
  m_help.draw_windows(m_layout);
  m_toasts.draw(m_layout.slot(Slot::View));
  m_sessions.draw_popups(
      m_layout, [this] { return current_session(); }, m_toasts);
  if (m_show_device) {
    if (m_layout.begin("Device", Slot::Device, &m_show_device)) {
      ui::draw_device_panel(m_env.device, pv);
      if (m_gl->window() && ImGui::Checkbox("full screen (F11)", &m_fullscreen))
        m_gl->set_fullscreen(m_fullscreen);
      ui::error_text(m_gpu.message());
    }
    ImGui::End();
  }
  if (!switch_to.empty()) {
    try {
      m_labs.open(switch_to);
    } catch (const std::exception& e) {
      m_gpu.set_message(std::string("cannot open ") + switch_to + ": " + e.what());
    }
  }
}

void App::apply_pending_session() {
  std::optional<Session> s = m_sessions.take_pending();
  if (!s) return;
  try {
    if (auto err = apply_session(*s))
      m_toasts.show("session not loaded: " + *err, true);
    else
      m_toasts.show("loaded session" + (s->description.empty() ? std::string() : ": " + s->description));
    hand_over_sweep();
  } catch (const GpuError& e) {
    m_gpu.recover_from(e, m_labs);
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
  apply_pending_session();
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
  {
    // A deferred release of Ctrl/Shift/Alt/Super changed io.KeyCtrl etc. after NewFrame computed io.KeyMods
    // from them; ImGui 1.86 asserts in an active text field that the two agree (a quick Ctrl+key tap while
    // typing aborted the app). Keep them in step.
    ImGuiIO& io = ImGui::GetIO();
    io.KeyMods = (io.KeyCtrl ? ImGuiKeyModFlags_Ctrl : 0) | (io.KeyShift ? ImGuiKeyModFlags_Shift : 0) |
                 (io.KeyAlt ? ImGuiKeyModFlags_Alt : 0) | (io.KeySuper ? ImGuiKeyModFlags_Super : 0);
  }
  // The readouts strip's height comes from this frame's fonts and width; the layout then fits every window
  // into what is left (refitted every frame: resizes, F11, presenter mode and UI scale need nothing more).
  {
    const ImVec2 work = ImGui::GetMainViewport()->WorkSize;
    const std::vector<ui::Readout> r = readouts_now();  // the same list the strip draws: nothing cut off
    m_layout.begin_frame(m_presenter.readouts_height(r, work.x, work.y * 0.3f));
  }
  // UI first (it changes parameters), then the simulation and the field's trip into GL, then ImGui draws.
  draw_main_ui();
  const bool editing = ImGui::IsAnyItemActive();
  m_layout_snapshot = m_layout.snapshot();
  ImGui::Render();
  try {
    if (m_frame == m_opt.debug_fault_frame && m_env.path.path != RenderPath::Cpu) inject_illegal_address();
    // A sweep that times anything (GPU or CPU) has the machine to itself: the live lab pauses meanwhile (its
    // view stays), so the live run disturbs no sample.
    // Counters see every kernel of the context: the live lab pauses while they are collected, too.
    if (!m_sweep->pauses_live_lab() && !m_counters->busy()) m_labs.active().update();
  } catch (const GpuError& e) {
    m_gpu.recover_from(e, m_labs);
  }
  observe_undo(editing);
  if (const std::string& sticky = m_sweep->sticky_error(); !sticky.empty()) {
    m_gpu.recover_from(GpuError("during a sweep: " + sticky, 0, true), m_labs);
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
  save_layout(false);       // when ImGui asks (at most every few seconds) or a window was moved
  m_sweep->after_render();  // queued PNG exports render through their own ImGui context, outside the frame
  if (ui::plot_exports_pending()) export_plots();
  ++m_frame;
  const bool last = m_opt.frames > 0 && m_frame >= m_opt.frames;
  if (last && !m_opt.debug_capture.empty())
    m_capture.request(m_opt.debug_capture == "view" ? Capture::Kind::View : Capture::Kind::Window);
  // Captures read what ImGui just drew (F12: the window; Shift+F12: the lab's view).
  m_capture.run(*m_gl, m_labs.view_rect(), m_labs.active_id(), m_toasts);
  if (last && !m_opt.screenshot.empty() && !Capture::write_screenshot(*m_gl, m_opt.screenshot))
    m_exit_code = 1;
  m_gl->present();
  if (!m_layout_dump.empty()) write_layout_dump();
  if (m_debug_frame_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(m_debug_frame_ms));
  return !last;
}

std::vector<ui::Readout> App::readouts_now() const {
  std::vector<ui::Readout> readouts = m_labs.active().readouts();
  // % of the nearer ceiling of the lab's newest run; its hint names the run, the device and when it ran.
  const std::optional<CeilingReadout> roofline = ceiling_readout(m_roofline->chart(), m_labs.active_id());
  if (roofline && !readouts.empty()) readouts.push_back({"roofline", roofline->pct, "%", roofline->tooltip});
  return readouts;
}

void App::write_layout_dump() {
  nlohmann::json j = m_layout_snapshot;
  j["frame"] = m_frame;
  j["presenter"] = m_presenter.presenter();
  j["scale"] = m_presenter.scale();
  j["theme"] = ui::to_string(m_presenter.theme());
  j["fullscreen"] = m_fullscreen;
  j["readouts"] = m_presenter.readouts_shown();
  j["shortcuts"] = m_presenter.shortcuts_shown();
  j["first_start_hint"] = m_first_start;
  j["help_overview"] = m_help.overview_open();
  j["help_menu_at"] = {m_help.menu_at().x, m_help.menu_at().y};
  j["help_labs_item_at"] = {m_help.labs_item_at().x, m_help.labs_item_at().y};
  j["menu_level"] = m_menu_bar.level();
  j["menu_overflow"] = m_menu_bar.overflow();
  j["lab"] = m_labs.active_id();
  j["lab_state"] = m_labs.active().save_state();
  j["popup"] = ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId | ImGuiPopupFlags_AnyPopupLevel);
  j["overwrite_asked"] = m_sessions.overwrite_asked();
  j["kernel_editor"] = m_kernel_bench->dump();
  if (const auto v = m_labs.view_rect())
    j["view_rect"] = {v->x, v->y, v->w, v->h};
  else
    j["view_rect"] = nullptr;
  // Written whole, then renamed (write_file_atomic): a test reading it never sees half a file.
  std::string err;
  if (!write_file_atomic(m_layout_dump, j.dump(), &err))
    std::fprintf(stderr, "blockscope: layout dump not written: %s\n", err.c_str());
}

bool App::can_undo() const {
  const auto it = m_undo.find(m_labs.active_id());
  return it != m_undo.end() && it->second.can_undo(m_labs.active().save_state());
}

bool App::can_redo() const {
  const auto it = m_undo.find(m_labs.active_id());
  return it != m_undo.end() && it->second.can_redo(m_labs.active().save_state());
}

void App::observe_undo(bool editing) {
  m_undo[m_labs.active_id()].observe(m_labs.active().save_state(), ImGui::GetTime(), editing);
}

void App::apply_undo_request() {
  if (m_undo_request == UndoRequest::None) return;
  const bool undo = m_undo_request == UndoRequest::Undo;
  m_undo_request = UndoRequest::None;
  Lab& lab = m_labs.active();
  UndoHistory& h = m_undo[m_labs.active_id()];
  const nlohmann::json now = lab.save_state();
  const std::optional<nlohmann::json> target = undo ? h.undo(now) : h.redo(now);
  if (!target) {
    m_toasts.show(undo ? "nothing to undo" : "nothing to redo");
    return;
  }
  try {
    if (auto err = lab.load_state(*target))
      m_toasts.show(std::string(undo ? "undo" : "redo") + " failed: " + *err, true);
  } catch (const GpuError& e) {
    m_gpu.recover_from(e, m_labs);
  }
  h.rebase(lab.save_state());
}

// --- Sessions ---------------------------------------------------------------------------------------------

Session App::current_session() const {
  Session s;
  s.active_lab = m_labs.active_id();
  for (const auto& [id, lab] : m_labs.labs()) {
    s.open_labs.push_back(id);
    s.labs[id] = lab->save_state();
  }
  s.ui.scale = m_presenter.base_scale();
  s.ui.presenter = m_presenter.presenter();
  s.ui.readouts = m_presenter.readouts_shown();
  s.ui.theme = ui::to_string(m_presenter.theme());
  s.sweep = m_pending_sweep;
  s.kernel = m_kernel_bench->save_state();
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
  if (!s.kernel.is_null())
    if (auto err = KernelWorkbench::check_state(s.kernel)) return err;
  const size_t labs_before = m_labs.size();
  std::vector<std::string> ids = s.open_labs;
  for (const auto& [id, state] : s.labs.items())
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  if (std::find(ids.begin(), ids.end(), s.active_lab) == ids.end()) ids.push_back(s.active_lab);
  try {
    for (const std::string& id : ids) {
      bool made = false;
      m_labs.find_or_make(id, &made);
    }
  } catch (const std::exception& e) {
    m_labs.truncate(labs_before);
    return std::string("cannot open a lab of the session: ") + e.what();
  }
  std::string errors;
  for (const auto& [id, lab] : m_labs.labs())
    if (s.labs.contains(id))
      if (auto err = lab->load_state(s.labs[id])) errors += (errors.empty() ? "" : "; ") + *err;
  m_labs.activate(s.active_lab);
  m_presenter.set_scale(s.ui.scale);
  m_presenter.set_presenter(s.ui.presenter);
  m_presenter.show_readouts(s.ui.readouts || s.ui.presenter);
  if (!s.ui.theme.empty())
    m_presenter.set_theme(ui::k_theme_names.parse(s.ui.theme).value_or(ui::Theme::Dark));
  m_pending_sweep = s.sweep;
  if (!s.kernel.is_null())
    if (auto err = m_kernel_bench->load_state(s.kernel)) errors += (errors.empty() ? "" : "; ") + *err;
  if (!errors.empty()) return errors;
  return std::nullopt;
}

void App::export_plots() {
  // The record of a lab plot: the machine and versions, and every parameter of the lab that drew it.
  nlohmann::json rec = record::environment_record(to_string(m_env.path.path));
  rec["lab"] = m_labs.active_id();
  rec["parameters"] = m_labs.active().save_state();
  if (nlohmann::json uk = m_user_kernels.record_json(); !uk.is_null()) rec["user_kernels"] = std::move(uk);
  const char* home = std::getenv("HOME");
  const std::string dir = std::string(home && *home ? home : ".") + "/blockscope-exports/" +
                          record::compact_timestamp() + "-" + m_labs.active_id();
  const std::string msg = ui::run_plot_exports(dir, rec.dump(2) + "\n");
  m_toasts.show(msg, msg.rfind("saved", 0) != 0);
}

void App::hand_over_sweep() {
  if (m_pending_sweep.is_null() || !m_sweep) return;
  try {
    m_sweep->load_definition(m_pending_sweep, false);
    m_show_sweep = true;
  } catch (const InvalidRequest& e) {
    m_toasts.show(std::string("the session's sweep was not loaded: ") + e.what(), true);
  }
  m_pending_sweep = nullptr;
}

// --- Keys and menus ---------------------------------------------------------------------------------------

void App::toggle_fullscreen() {
  m_fullscreen = !m_fullscreen;
  m_gl->set_fullscreen(m_fullscreen);
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
        m_presenter.show_shortcuts(!m_presenter.shortcuts_shown());
        break;
      case GLFW_KEY_F5:
        m_show_sweep = !m_show_sweep;
        break;
      case GLFW_KEY_F9:
        m_kernel_bench->open() = !m_kernel_bench->open();
        break;
      case GLFW_KEY_F11:
        toggle_fullscreen();
        break;
      case GLFW_KEY_F12:
        m_capture.request(shift ? Capture::Kind::View : Capture::Kind::Window);
        break;
      case GLFW_KEY_P:
        if (plain && !typing) set_presenter_mode(!m_presenter.presenter());
        break;
      case GLFW_KEY_S:
        if (ctrl) m_sessions.request_save();
        break;
      case GLFW_KEY_O:
        if (ctrl) m_sessions.request_load();
        break;
      // In the kernel editor the presses go to its own history, each one (ImGui's per-frame state would
      // merge two quick presses into one); in another text field they are the field's own.
      case GLFW_KEY_Z:
        if (ctrl && typing)
          m_kernel_bench->key_chord(shift);
        else if (ctrl)
          shift ? request_redo() : request_undo();
        break;
      case GLFW_KEY_Y:
        if (ctrl && typing)
          m_kernel_bench->key_chord(true);
        else if (ctrl)
          request_redo();
        break;
      default:
        break;
    }
  }
}

void App::draw_edit_menu() {
  if (!ImGui::BeginMenu("Edit")) return;
  const std::string title = std::string("of ") + m_labs.active().title();
  ImGui::TextDisabled("parameters %s", title.c_str());
  if (ImGui::MenuItem("Undo", "Ctrl+Z", false, can_undo())) request_undo();
  if (ImGui::MenuItem("Redo", "Ctrl+Shift+Z / Ctrl+Y", false, can_redo())) request_redo();
  if (m_kernel_bench->open()) {
    // The editor has its own history (the same keys while it has the keyboard).
    ui::CodeDocument& doc = m_kernel_bench->document(m_kernel_bench->target());
    ImGui::Separator();
    ImGui::TextDisabled("kernel editor");
    if (ImGui::MenuItem(("Undo " + doc.undo_label()).c_str(), "Ctrl+Z in the editor", false, doc.can_undo()))
      doc.undo();
    if (ImGui::MenuItem(("Redo " + doc.redo_label()).c_str(), "Ctrl+Y in the editor", false, doc.can_redo()))
      doc.redo();
  }
  ImGui::EndMenu();
}

void App::draw_view_menu() {
  if (!ImGui::BeginMenu("View")) return;
  m_presenter.draw_menu_items();
  if (ImGui::MenuItem("Reset layout")) reset_layout();
  if (m_gl->window() && ImGui::MenuItem("Full screen", "F11", m_fullscreen)) toggle_fullscreen();
  ImGui::MenuItem("Keyboard shortcuts", "F1", m_presenter.shortcuts_flag());
  ImGui::MenuItem("Device window", nullptr, &m_show_device);
  ImGui::MenuItem("Kernel editor", "F9", &m_kernel_bench->open());
  ImGui::MenuItem("Hardware counters", nullptr, &m_counters->open());
  ImGui::MenuItem("Roofline", nullptr, &m_show_roofline);
  ImGui::MenuItem("Exercises", nullptr, &m_show_exercises);
  ImGui::Separator();
  if (ImGui::MenuItem("Screenshot of the window", "F12")) m_capture.request(Capture::Kind::Window);
  if (ImGui::MenuItem("Screenshot of the lab view", "Shift+F12")) m_capture.request(Capture::Kind::View);
  ImGui::EndMenu();
}

}  // namespace bs
