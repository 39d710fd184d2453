// roofline_window_test.cpp: the Roofline window in the app (headless GL, CPU path): a lab's timed run reaches
// the run log, the window measures the CPU ceilings in the background and shows.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "app/app.h"

namespace bs {
namespace {

TEST(RooflineWindow, LabRunsReachTheLogAndTheWindowShows) {
  const auto cache =
      std::filesystem::temp_directory_path() / ("bs_roofline_xdg_" + std::to_string(::getpid()));
  std::filesystem::remove_all(cache);
  ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);  // the ceilings cache of this test only
  AppOptions o;
  o.headless = true;
  o.render_path = PathRequest::Cpu;
  o.width = 1280;
  o.height = 720;
  o.scene = "matmul";  // the CPU path times a small cpu_blocked run in the frame
  o.show_roofline = true;
  App app(o);
  const auto has_cache = [&] {
    std::error_code ec;
    if (!std::filesystem::exists(cache / "blockscope", ec)) return false;
    for (const auto& e : std::filesystem::directory_iterator(cache / "blockscope", ec))
      if (e.path().filename().string().rfind("ceilings-", 0) == 0 && e.path().extension() == ".json")
        return true;
    return false;
  };
  const auto t0 = std::chrono::steady_clock::now();
  bool shown = false;
  while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60)) {
    app.frame();
    shown = app.layout().visible("Roofline").has_value();
    if (shown && app.runs().size() > 0 && has_cache()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(shown);
  const auto runs = app.runs().snapshot();
  ASSERT_FALSE(runs.empty());
  EXPECT_EQ(runs[0].lab, "matmul");
  EXPECT_EQ(runs[0].where, work::Where::Cpu);
  EXPECT_GT(runs[0].work.flops, 0);
  EXPECT_GT(runs[0].seconds, 0);
  // The CPU ceilings were measured and cached for the next time.
  EXPECT_TRUE(has_cache());
  std::filesystem::remove_all(cache);
}

}  // namespace
}  // namespace bs
