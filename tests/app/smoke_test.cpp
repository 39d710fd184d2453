// smoke_test.cpp: the whole UI renders: headless through EGL, and in a real GLFW window under Xvfb. The
// screenshot must show the field (many distinct colours), not a blank or a single-colour frame.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "image_util.h"
#include "run_util.h"
#include "test_util.h"

namespace bs {

namespace {
std::string out_path(const std::string& name) {
  return test::output_path(name);
}

// Distinct RGB colours inside the field (left half of the window, below the lab bar).
size_t distinct_field_colours(const std::string& png, int* w_out = nullptr, int* h_out = nullptr) {
  const test::ImageStats s = test::image_stats(png, 1.0 / 16, 1.0 / 8, 0.5, 7.0 / 8);
  if (w_out) *w_out = s.width;
  if (h_out) *h_out = s.height;
  return s.distinct_colours;
}
}  // namespace

TEST(Smoke, HeadlessEglScreenshotShowsTheField) {
  const std::string png = out_path("headless.png");
  const auto r = test::run_blockscope(
      "--headless --scene heat --frames 12 --width 1280 --height 720 --screenshot " + png);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  int w = 0, h = 0;
  const size_t colours = distinct_field_colours(png, &w, &h);
  EXPECT_EQ(w, 1280);
  EXPECT_EQ(h, 720);
  EXPECT_GT(colours, 100u) << r.output;
}

TEST(Smoke, HeadlessForcedCpuPathSaysSo) {
  const std::string png = out_path("headless_cpu.png");
  const auto r = test::run_blockscope("--headless --render-path cpu --frames 5 --screenshot " + png);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("path: CPU (forced by --render-path cpu)"), std::string::npos) << r.output;
  EXPECT_GT(distinct_field_colours(png), 100u);
}

TEST(Smoke, WindowUnderXvfbScreenshotShowsTheField) {
  if (std::system("command -v xvfb-run >/dev/null 2>&1") != 0) GTEST_SKIP() << "xvfb-run not installed";
  const std::string png = out_path("window.png");
  const auto r =
      test::run_blockscope("--scene heat --frames 12 --width 1280 --height 720 --screenshot " + png,
                           "xvfb-run -a -s '-screen 0 1600x1000x24'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("GLFW window"), std::string::npos) << r.output;
  EXPECT_GT(distinct_field_colours(png), 100u) << r.output;
}

TEST(Smoke, HeadlessInteropPathOnTheGpu) {
  BS_REQUIRE_GPU();
  const std::string png = out_path("headless_interop.png");
  const auto r = test::run_blockscope("--headless --render-path interop --frames 12 --screenshot " + png);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("path: CUDA + interop"), std::string::npos) << r.output;
  EXPECT_GT(distinct_field_colours(png), 100u);
}

TEST(Smoke, HeadlessHostCopyPathOnTheGpu) {
  BS_REQUIRE_GPU();
  const std::string png = out_path("headless_host.png");
  const auto r = test::run_blockscope("--headless --render-path host --frames 12 --screenshot " + png);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("path: CUDA + host copy"), std::string::npos) << r.output;
  EXPECT_GT(distinct_field_colours(png), 100u);
}

TEST(SmokeFault, AppSurvivesAContextPoisoningErrorOnTheGpu) {
  BS_REQUIRE_GPU();
  const std::string png = out_path("after_fault.png");
  const auto r = test::run_blockscope(
      "--headless --render-path host --frames 20 --debug-fault-frame 5 --screenshot " + png);
  // The app keeps running and exits cleanly, saying what happened and what it did.
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("GPU error: cudaErrorIllegalAddress"), std::string::npos) << r.output;
  if (r.output.find("device reset, simulation restarted") != std::string::npos) {
    EXPECT_GT(distinct_field_colours(png), 100u) << r.output;
  } else {
    // Seen on the H200 (driver 580): the driver keeps the device from the process after the fault, and the
    // process's GL context on that GPU stops drawing too. The app must then say so and fall back, not crash.
    EXPECT_NE(r.output.find("running on the CPU. Restart blockscope to use the GPU again"), std::string::npos)
        << r.output;
  }
}

}  // namespace bs
