// sweep_window_test.cpp: the Sweep window driven headless: a definition loaded and run on the worker thread
// while frames keep coming (the UI stays live), the finished result shown as a figure, and an export of every
// file (PNG included) from after_render(), outside the ImGui frame, with record.json next to them.
#include <glad/gl.h>
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "app/sweep/sweep_window.h"
#include "image_util.h"
#include "ui/gl/context.h"

namespace {

namespace fs = std::filesystem;

TEST(SweepWindow, RunsHeadlessAndExportsEveryFile) {
  std::string err;
  auto gl = bs::gl::create_headless(1600, 900, &err);
  if (!gl) GTEST_SKIP() << "no headless GL context: " << err;
  ImGuiContext* ctx = ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(1600, 900);
  io.IniFilename = nullptr;
  unsigned char* px = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&px, &w, &h);
  ImGui::StyleColorsDark();
  ASSERT_TRUE(ImGui_ImplOpenGL3_Init("#version 330 core"));

  bs::LabEnv env;
  env.device = bs::query_device();
  env.gl = gl.get();
  {
    bs::SweepWindow win(env);
    EXPECT_FALSE(win.has_result());
    win.load_definition(
        nlohmann::json::parse(R"({"lab":"heat","params":[{"name":"size","values":["256","384","512"]}],
      "fixed":{"steps":"20"},"warmup":1,"repetitions":3,"device":"cpu"})"),
        true);
    EXPECT_TRUE(win.busy());
    bool open = true;
    int frames = 0;
    const auto t0 = std::chrono::steady_clock::now();
    auto frame = [&] {
      io.DeltaTime = 1.0f / 60;
      ImGui_ImplOpenGL3_NewFrame();
      ImGui::NewFrame();
      ImGui::SetNextWindowPos(ImVec2(0, 0), ImGuiCond_Always);
      ImGui::SetNextWindowSize(ImVec2(1600, 900), ImGuiCond_Always);
      win.draw(&open);
      ImGui::Render();
      gl->bind_target();
      glViewport(0, 0, 1600, 900);
      glClearColor(0.08f, 0.08f, 0.1f, 1.0f);
      glClear(GL_COLOR_BUFFER_BIT);
      ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
      win.after_render();
      ++frames;
    };
    while (win.busy() && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(30)) {
      frame();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    frame();  // collects the result
    ASSERT_TRUE(win.has_result());
    EXPECT_GT(frames, 1);
    EXPECT_EQ(win.definition_json()["params"][0]["values"].size(), 3u);
    const fs::path dir = fs::path(BS_TEST_OUT) / "sweep" / "window";
    fs::remove_all(dir);
    ASSERT_TRUE(win.queue_export_all(dir.string()));
    frame();
    for (const char* f :
         {"sweep.csv", "summary.csv", "sweep.json", "figure.svg", "figure.png", "record.json"})
      EXPECT_TRUE(fs::exists(dir / f)) << f << ": " << win.export_message();
    EXPECT_NE(win.export_message().find("wrote"), std::string::npos) << win.export_message();
    // A screenshot of the window with its figure: real content, not a blank panel.
    frame();
    const std::string shot = bs::test::output_path("sweep_window.png");
    ASSERT_TRUE(bs::gl::write_png(shot, 1600, 900, bs::gl::read_pixels(1600, 900), &err)) << err;
    EXPECT_GT(bs::test::image_stats(shot, 0.3, 0.0, 1.0, 1.0).distinct_colours, 50u) << shot;

    // The roofline button: the same result under the CPU ceilings the app hands over, and its files.
    win.set_metric(2);
    EXPECT_TRUE(win.wants_ceilings());
    ASSERT_NE(win.figure(), nullptr);
    EXPECT_NE(win.figure()->subtitle.find("CPU ceilings missing"), std::string::npos)
        << "none known yet: " << win.figure()->subtitle;
    win.set_ceilings(std::nullopt, bs::roofline::measure_cpu(size_t{16} << 20, 0.05));
    ASSERT_NE(win.figure(), nullptr);
    EXPECT_NE(win.figure()->title.find("heat: roofline"), std::string::npos) << win.figure()->title;
    EXPECT_EQ(win.figure()->subtitle.find("missing"), std::string::npos) << win.figure()->subtitle;
    const fs::path roof = fs::path(BS_TEST_OUT) / "sweep" / "window-roofline";
    fs::remove_all(roof);
    ASSERT_TRUE(win.queue_export_all(roof.string()));
    frame();
    for (const char* f : {"roofline.csv", "roofline.json", "figure.svg", "figure.png", "record.json"})
      EXPECT_TRUE(fs::exists(roof / f)) << f << ": " << win.export_message();
  }
  ImGui_ImplOpenGL3_Shutdown();
  ImGui::DestroyContext(ctx);
}

}  // namespace
