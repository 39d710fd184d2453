// session_cli_test.cpp: the binary as a user runs it: --session / --preset refused before any window when the
// file is bad (exit 2, a message naming the problem), presenter mode and --ui-scale in headless screenshots,
// the F1 list, and captures into ~/blockscope-captures.
#define STB_IMAGE_IMPLEMENTATION
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "image_util.h"
#include "run_util.h"

namespace bs::test {
namespace {

namespace fs = std::filesystem;

std::string write_file(const std::string& name, const std::string& text) {
  const std::string p = output_path(name);
  std::ofstream(p) << text;
  return p;
}

// Pixels of light grey text (ImGui's text colour, anti-aliased edges included) in a region of the image.
size_t text_pixels(const std::string& png, double x0, double y0, double x1, double y1) {
  int w = 0, h = 0, n = 0;
  unsigned char* px = stbi_load(png.c_str(), &w, &h, &n, 3);
  if (!px) return 0;
  size_t count = 0;
  for (int y = static_cast<int>(h * y0); y < static_cast<int>(h * y1); ++y)
    for (int x = static_cast<int>(w * x0); x < static_cast<int>(w * x1); ++x) {
      const unsigned char* p = px + 3 * (static_cast<size_t>(y) * w + x);
      const int lo = std::min({p[0], p[1], p[2]}), hi = std::max({p[0], p[1], p[2]});
      if (lo > 170 && hi - lo < 24) ++count;
    }
  stbi_image_free(px);
  return count;
}

// Pixels that differ clearly (by more than 40 in a channel) between two images of the same size.
size_t changed_pixels(const std::string& a_png, const std::string& b_png) {
  int w = 0, h = 0, n = 0, w2 = 0, h2 = 0;
  unsigned char* a = stbi_load(a_png.c_str(), &w, &h, &n, 3);
  unsigned char* b = stbi_load(b_png.c_str(), &w2, &h2, &n, 3);
  size_t count = 0;
  if (a && b && w == w2 && h == h2)
    for (size_t i = 0; i < 3 * static_cast<size_t>(w) * h; i += 3)
      if (std::abs(a[i] - b[i]) > 40 || std::abs(a[i + 1] - b[i + 1]) > 40 ||
          std::abs(a[i + 2] - b[i + 2]) > 40)
        ++count;
  stbi_image_free(a);
  stbi_image_free(b);
  return count;
}

TEST(SessionCli, MissingSessionExitsTwo) {
  const RunResult r = run_blockscope("--headless --session /nonexistent/missing.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("missing.json: no such file"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("GL "), std::string::npos) << "no window (GL context) before the check:\n"
                                                     << r.output;
}

TEST(SessionCli, BadSessionsExitTwoNamingTheField) {
  const std::pair<const char*, const char*> cases[] = {
      {"{\"blockscope_session\": 1, \"active_lab\": ", "not valid JSON"},
      {"{\"blockscope_session\": 7, \"active_lab\": \"heat\"}", "version 7"},
      {"{\"blockscope_session\": 1, \"active_lab\": \"heat\", \"labs\": {\"heat\": {\"block\": [0, 4]}}}",
       "labs.heat.block"},
  };
  int i = 0;
  for (const auto& [text, expect] : cases) {
    const std::string p = write_file("bad" + std::to_string(i++) + ".json", text);
    const RunResult r = run_blockscope("--headless --frames 1 --session " + p);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(expect), std::string::npos) << r.output;
  }
  const RunResult r = run_blockscope("--headless --preset no-such-preset");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no preset called 'no-such-preset'"), std::string::npos) << r.output;
}

TEST(SessionCli, GoodSessionAndPresetRun) {
  const std::string p = write_file(
      "good.json",
      R"({"blockscope_session": 1, "active_lab": "heat", "labs": {"heat": {"size": [128, 128], "block": [32, 8]}}})");
  RunResult r = run_blockscope("--headless --render-path cpu --frames 2 --session " + p);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = run_blockscope("--headless --render-path cpu --frames 2 --preset heat-block-sweep");
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST(SessionCli, PresenterScreenshot) {
  const std::string png = output_path("presenter.png");
  const RunResult r =
      run_blockscope("--headless --render-path cpu --presenter --frames 3 --screenshot " + png);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GT(image_stats(png).distinct_colours, 50u);
}

TEST(SessionCli, UiScaleMakesLargerText) {
  const std::string small = output_path("scale1.png"), large = output_path("scale2.png");
  ASSERT_EQ(
      run_blockscope("--headless --render-path cpu --frames 3 --size 128 --screenshot " + small).exit_code,
      0);
  ASSERT_EQ(
      run_blockscope("--headless --render-path cpu --frames 3 --size 128 --ui-scale 2 --screenshot " + large)
          .exit_code,
      0);
  // The lab bar across the top: the same words, twice the size, cover several times the pixels.
  const size_t a = text_pixels(small, 0, 0, 0.5, 0.05), b = text_pixels(large, 0, 0, 0.5, 0.05);
  EXPECT_GT(b, a * 3 / 2) << "text pixels at scale 1: " << a << ", at scale 2: " << b;
  EXPECT_GT(a, 100u);
  const RunResult bad = run_blockscope("--headless --ui-scale 9");
  EXPECT_NE(bad.exit_code, 0);
}

TEST(SessionCli, ShortcutOverlayShows) {
  const std::string off = output_path("f1-off.png"), on = output_path("f1-on.png");
  ASSERT_EQ(
      run_blockscope("--headless --render-path cpu --frames 2 --size 128 --screenshot " + off).exit_code, 0);
  ASSERT_EQ(
      run_blockscope("--headless --render-path cpu --frames 2 --size 128 --show-shortcuts --screenshot " + on)
          .exit_code,
      0);
  // The CPU path is deterministic, so the two frames differ only where the list was drawn: a window of a
  // dozen rows covers well over 1% of a 1600x900 frame (whatever font the machine has).
  const size_t changed = changed_pixels(off, on);
  EXPECT_GT(changed, 1600u * 900u / 100u) << changed << " pixels changed";
}

TEST(SessionCli, CapturesGoToHomeFolder) {
  const fs::path home =
      fs::path(output_path("home.marker")).parent_path() / "home";  // a folder: not output_path
  fs::remove_all(home);
  fs::create_directories(home);
  const std::string env = "HOME=" + home.string();
  RunResult r =
      run_blockscope("--headless --render-path cpu --frames 2 --size 128 --debug-capture window", env);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_blockscope("--headless --render-path cpu --frames 2 --size 128 --debug-capture view", env);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("saved "), std::string::npos) << r.output;
  int windows = 0, views = 0;
  for (const auto& e : fs::directory_iterator(home / "blockscope-captures")) {
    const ImageStats s = image_stats(e.path().string());
    if (e.path().filename().string().find("-view") != std::string::npos) {
      ++views;
      EXPECT_LT(s.width, 1600);  // cropped to the lab's view window
      EXPECT_GT(s.width, 100);
    } else {
      ++windows;
      EXPECT_EQ(s.width, 1600);
      EXPECT_EQ(s.height, 900);
    }
  }
  EXPECT_EQ(windows, 1);
  EXPECT_EQ(views, 1);
  // No HOME: an error message, not a crash.
  r = run_blockscope("--headless --render-path cpu --frames 2 --size 128 --debug-capture window",
                     "env -u HOME");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("screenshot not saved"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace bs::test
