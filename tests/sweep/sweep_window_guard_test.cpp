// sweep_window_guard_test.cpp: the Sweep window driven headless: the live lab pauses during a CPU sweep too,
// exports made one button at a time leave a record.json listing every file written, and a sweep estimated
// above the limit waits for "Run anyway" instead of starting.
#include <glad/gl.h>
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "app/sweep/sweep_window.h"
#include "ui/gl/context.h"

namespace {

namespace fs = std::filesystem;

// A headless GL context and an ImGui context with the OpenGL3 backend, for the window's frames.
class SweepWindowGuard : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string err;
    m_gl = bs::gl::create_headless(800, 600, &err);
    if (!m_gl) GTEST_SKIP() << "no headless GL context: " << err;
    m_ctx = ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(800, 600);
    io.IniFilename = nullptr;
    unsigned char* px = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&px, &w, &h);
    ASSERT_TRUE(ImGui_ImplOpenGL3_Init("#version 330 core"));
    m_env.device = bs::query_device();
    m_env.gl = m_gl.get();
  }
  void TearDown() override {
    if (!m_ctx) return;
    ImGui_ImplOpenGL3_Shutdown();
    ImGui::DestroyContext(m_ctx);
  }
  void frame(bs::SweepWindow& win) {
    bool open = true;
    ImGui::GetIO().DeltaTime = 1.0f / 60;
    ImGui_ImplOpenGL3_NewFrame();
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(800, 600), ImGuiCond_Always);
    win.draw(&open);
    ImGui::Render();
    m_gl->bind_target();
    glViewport(0, 0, 800, 600);
    glClearColor(0.08f, 0.08f, 0.1f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    win.after_render();
  }
  // Frames until the sweep ends; `during` is checked on every frame while it runs.
  void run_to_end(bs::SweepWindow& win, const std::function<void()>& during = {}) {
    const auto t0 = std::chrono::steady_clock::now();
    while (win.busy() && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60)) {
      if (during) during();
      frame(win);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    frame(win);
  }

  std::unique_ptr<bs::gl::Context> m_gl;
  ImGuiContext* m_ctx = nullptr;
  bs::LabEnv m_env;
};

// Long enough (tens of milliseconds per sample on one core) that the sweep is still running when the test looks
// right after starting it, however the threads are scheduled on a loaded machine.
const char* k_cpu_sweep = R"({"lab":"heat","params":[{"name":"size","values":["384","512"]}],
  "fixed":{"steps":"40"},"warmup":0,"repetitions":2,"device":"cpu"})";

TEST_F(SweepWindowGuard, LiveLabPausesDuringACpuSweep) {
  bs::SweepWindow win(m_env);
  EXPECT_FALSE(win.pauses_live_lab());
  win.load_definition(nlohmann::json::parse(k_cpu_sweep), true);
  ASSERT_TRUE(win.busy());
  // The sweep times CPU series only: the old rule (pause only for GPU sweeps) let the live lab run.
  EXPECT_FALSE(win.gpu_busy());
  int checked = 0;
  run_to_end(win, [&] {
    if (!win.busy()) return;
    EXPECT_TRUE(win.pauses_live_lab());
    ++checked;
  });
  EXPECT_GT(checked, 0);
  ASSERT_TRUE(win.has_result());
  EXPECT_FALSE(win.pauses_live_lab());
}

TEST_F(SweepWindowGuard, ExportsOneAtATimeAllListedInTheRecord) {
  bs::SweepWindow win(m_env);
  win.load_definition(nlohmann::json::parse(k_cpu_sweep), true);
  run_to_end(win);
  ASSERT_TRUE(win.has_result());
  const fs::path dir = fs::path(BS_TEST_OUT) / "sweep-guard" / "window-exports";
  fs::remove_all(dir);
  ASSERT_TRUE(win.queue_export(dir.string(), true, false, false, false));  // the CSV button
  frame(win);
  ASSERT_TRUE(win.queue_export(dir.string(), false, false, true, false));  // then the SVG button
  frame(win);
  ASSERT_TRUE(fs::exists(dir / "record.json")) << win.export_message();
  std::ifstream f(dir / "record.json");
  std::stringstream ss;
  ss << f.rdbuf();
  const nlohmann::json rec = nlohmann::json::parse(ss.str());
  EXPECT_EQ(rec["files"], nlohmann::json::array({"sweep.csv", "summary.csv", "figure.svg", "record.json"}))
      << rec["files"].dump();
  EXPECT_TRUE(rec["export"]["csv"].get<bool>());
  EXPECT_TRUE(rec["export"]["svg"].get<bool>());
  EXPECT_FALSE(rec["export"]["png"].get<bool>());
  EXPECT_FALSE(fs::exists(dir / ".blockscope-lock"));
  // A session or preset loads another set-up: the old figure goes with the old set-up.
  win.load_definition(nlohmann::json::parse(R"({"lab":"heat","params":[{"name":"size","values":["256"]}],
    "fixed":{"steps":"10"},"warmup":0,"repetitions":1,"device":"cpu"})"),
                      false);
  frame(win);
  EXPECT_FALSE(win.has_result()) << "the previous sweep's figure stayed beside the loaded set-up";
  EXPECT_EQ(win.definition_json()["params"][0]["values"], nlohmann::json::array({"256"}));
}

TEST_F(SweepWindowGuard, LongSweepWaitsForConfirmation) {
  bs::SweepWindow win(m_env);
  win.load_definition(nlohmann::json::parse(R"({"lab":"heat","params":[{"name":"size","values":["8192"]}],
    "fixed":{"steps":"100000"},"warmup":0,"repetitions":1000,"device":"cpu"})"),
                      true);
  EXPECT_FALSE(win.busy()) << "a sweep of hours started without asking";
  EXPECT_NE(win.pending_confirmation().find("estimated at about"), std::string::npos)
      << win.pending_confirmation();
  frame(win);  // the question is drawn with its buttons
  std::string err;
  fs::create_directories(fs::path(BS_TEST_OUT) / "sweep-guard");
  const std::string shot = (fs::path(BS_TEST_OUT) / "sweep-guard" / "window_confirm.png").string();
  EXPECT_TRUE(bs::gl::write_png(shot, 800, 600, bs::gl::read_pixels(800, 600), &err)) << err;
  win.confirm_run(false);
  EXPECT_TRUE(win.pending_confirmation().empty());
  EXPECT_FALSE(win.busy());
}

}  // namespace
