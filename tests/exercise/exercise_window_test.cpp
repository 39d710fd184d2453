// exercise_window_test.cpp: the Exercises window in the app (headless, CPU path): it opens on the pack's first
// exercise with the starter in the editor, reveals hints one at a time, runs the tests in the simulator on a
// background job (the starter fails a named test; the reference passes), and saves each run in the progress.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "app/app.h"
#include "gpu/exercise/gpu_runner.h"
#include "gpu/kernel/nvrtc_loader.h"

namespace bs {
namespace {

namespace fs = std::filesystem;

bool run_until_done(App& app) {
  const auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120)) {
    app.frame();
    if (!app.exercises().running() && app.exercises().last()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

TEST(ExerciseWindow, RunsTheTestsAndSavesProgress) {
  if (!kernel::nvrtc().ok()) GTEST_SKIP() << "NVRTC cannot be loaded: " << kernel::nvrtc().error;
  const fs::path dir = fs::temp_directory_path() / ("bs_exercise_window_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  ::setenv("BLOCKSCOPE_PROGRESS", (dir / "progress.json").c_str(), 1);
  ::setenv("BLOCKSCOPE_CACHE_DIR", (dir / "cache").c_str(), 1);
  ::setenv("BLOCKSCOPE_EXERCISES", (std::string(BS_SOURCE_DIR) + "/assets/exercises").c_str(), 1);
  AppOptions o;
  o.headless = true;
  o.render_path = PathRequest::Cpu;
  o.width = 1280;
  o.height = 720;
  o.show_exercises = true;
  App app(o);
  for (int i = 0; i < 3; ++i) app.frame();
  EXPECT_TRUE(app.layout().visible("Exercises").has_value());
  ExerciseWindow& w = app.exercises();
  ASSERT_TRUE(w.selected());
  EXPECT_EQ(w.selected()->id, "01_map");  // the first of the progression
  EXPECT_EQ(w.source(), w.selected()->starter);
  EXPECT_EQ(w.hints_shown(), 0);

  w.run_tests();
  ASSERT_TRUE(run_until_done(app));
  ASSERT_TRUE(w.last()->compiled.ok) << w.last()->compiled.message;
  ASSERT_GE(w.last()->first_failure, 0);
  EXPECT_EQ(w.last()->tests[static_cast<size_t>(w.last()->first_failure)].test.name, "n=1024");
  ASSERT_TRUE(w.picture());  // the failing test's accesses, for the Simulator panel's maps
  EXPECT_EQ(w.picture()->grid.x, 4u);
  EXPECT_FALSE(w.picture()->accesses.empty());

  // The student's own file: saved from the editor, loaded back; a FIFO or a missing file is a message.
  w.set_source(w.selected()->reference);
  fs::create_directories(dir);
  EXPECT_EQ(w.save_file((dir / "mine.cu").string()), "");
  w.set_source("// nothing\n");
  EXPECT_EQ(w.load_file((dir / "mine.cu").string()), "");
  EXPECT_EQ(w.source(), w.selected()->reference);
  EXPECT_NE(w.load_file((dir / "absent.cu").string()), "");
  EXPECT_EQ(w.source(), w.selected()->reference);
  w.run_tests();
  ASSERT_TRUE(run_until_done(app) && w.last()->passed()) << w.status();
  // "Run tests" takes the GPU where there is one and says which ran.
  const bs::exercise::GpuStatus& gpu = bs::exercise::gpu_status();
  EXPECT_EQ(w.last()->engine, gpu.available ? "GPU: " + gpu.device : "simulator (no GPU: " + gpu.reason + ")");
  EXPECT_EQ(w.last()->on_gpu, gpu.available);
  EXPECT_EQ(w.status(), "pass: every test (" + w.last()->engine + ")");
  for (int i = 0; i < 3; ++i) app.frame();
  EXPECT_TRUE(fs::exists(dir / "progress.json"));

  // A compile error and a wrong signature: markers on their lines in the editor, as the kernel editor shows them.
  EXPECT_TRUE(w.markers().empty());
  w.set_source("// mine\nextern \"C\" __global__ void add_ten(const float* a, float* out) {\n"
               "  out[0] = undeclared_name;\n}\n");
  w.run_tests();
  ASSERT_TRUE(run_until_done(app));
  ASSERT_FALSE(w.last()->compiled.ok);
  ASSERT_EQ(w.markers().size(), 1u);
  EXPECT_EQ(w.markers()[0].line, 3);
  EXPECT_EQ(w.markers()[0].level, ui::LineMarker::Level::Error);
  EXPECT_NE(w.markers()[0].message.find("undeclared_name"), std::string::npos) << w.markers()[0].message;
  w.set_source("// mine\n\nextern \"C\" __global__ void add_ten(const float* a, float* out, int n) {\n  out[0] = a[0];\n}\n");
  w.run_tests();
  ASSERT_TRUE(run_until_done(app));
  ASSERT_FALSE(w.last()->compiled.ok);
  ASSERT_GE(w.markers().size(), 1u);
  EXPECT_EQ(w.markers()[0].line, 3);
  EXPECT_NE(w.markers()[0].message.find("the exercise expects"), std::string::npos) << w.markers()[0].message;

  // Another exercise: its starter in the editor, the last run forgotten.
  ASSERT_TRUE(w.select("08_shared"));
  EXPECT_EQ(w.source(), w.selected()->starter);
  EXPECT_FALSE(w.last());
  EXPECT_TRUE(w.markers().empty());
  ::unsetenv("BLOCKSCOPE_EXERCISES");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace bs
