// montecarlo_lab_test.cpp: the Monte Carlo lab's live run on the CPU path, through a real headless App: its
// batches run as a LabJob (app/shell/lab_jobs.h) drained one a frame when headless, each taken once, and a
// restart starts the count again, so the run counts exactly the paths it was asked for.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>

#include "app/app.h"
#include "app_util.h"
#include "ui/montecarlo/montecarlo_lab_panel.h"

namespace bs {
namespace {

// The "paths" read-out: the paths priced so far ("20.0" k) and "of <target>, <steps> steps each".
ui::Readout paths_readout(App& app) {
  for (const ui::Readout& r : app.active_lab()->readouts())
    if (r.label == "paths") return r;
  return {};
}

// The live run's batches for `paths` paths, one path a sample (antithetic off, the default).
int batches_for(int64_t paths) {
  return static_cast<int>(ui::mc::growing_batches(paths, montecarlo::k_ui_min_paths, 1.5).size());
}

TEST(MonteCarloLab, HeadlessCpuRunTakesOneBatchAFrameAndCountsEveryPathOnce) {
  App app(test::headless_cpu_app("montecarlo"));
  ASSERT_TRUE(app.frame());
  ASSERT_STREQ(app.active_lab()->id(), "montecarlo");
  ASSERT_EQ(app.active_lab()->save_state()["antithetic"], false);
  const int64_t target = app.active_lab()->save_state()["paths"].get<int64_t>();
  ASSERT_EQ(target, 20'000) << "the CPU path's lighter first run";
  // The first frame took the first batch (1000 paths): headless, a batch started in a frame ends in it.
  EXPECT_EQ(paths_readout(app).value, "1.0") << paths_readout(app).hint;
  for (int i = 1; i < batches_for(target) + 5; ++i)
    ASSERT_TRUE(app.frame());
  EXPECT_EQ(paths_readout(app).value, "20.0");
  EXPECT_EQ(paths_readout(app).hint, "of 20000, 64 steps each");

  // A restart in the middle of a run: the new run counts its own paths only.
  ASSERT_EQ(app.active_lab()->load_state({{"paths", 50'000}}), std::nullopt);
  ASSERT_TRUE(app.frame());
  EXPECT_EQ(paths_readout(app).value, "1.0");
  EXPECT_EQ(paths_readout(app).hint, "of 50000, 64 steps each");
  ASSERT_EQ(app.active_lab()->load_state({{"paths", 30'000}}), std::nullopt);
  for (int i = 0; i < batches_for(30'000) + 5; ++i)
    ASSERT_TRUE(app.frame());
  EXPECT_EQ(paths_readout(app).value, "30.0");
  EXPECT_EQ(paths_readout(app).hint, "of 30000, 64 steps each");
}

}  // namespace
}  // namespace bs
