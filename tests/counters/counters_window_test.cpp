// counters_window_test.cpp: View > Hardware counters driven headless (CPU machine: no GPU): the memory lab's
// current run shows the models' values, labelled, and "Collect counters" says exactly why nothing is
// measured; the panel's rows from a made-up result; a lab without a target says so.
#include <gtest/gtest.h>

#include "app/memory/memory_sim.h"
#include "gpu/kernel/nvrtc_loader.h"
#include "gpu/memory/memory_model.h"

#include <cstdio>
#include <string>

#include "app/app.h"
#include "app/counters_window.h"
#include "app/session.h"
#include "gpu/common/device_info.h"

namespace bs {
namespace {

AppOptions headless(const std::string& scene) {
  AppOptions o;
  o.headless = true;
  o.render_path = PathRequest::Cpu;
  o.width = 1280;
  o.height = 720;
  o.scene = scene;
  o.show_counters = true;
  return o;
}

TEST(CountersWindow, MemoryLabModelValuesStayAndNoGpuIsExplained) {
  App app(headless("memory"));
  for (int i = 0; i < 6; ++i)
    app.frame();
  CountersWindow& w = app.counters_window();
  // No GPU here: nothing can be collected, the window says why, and the model values stay, labelled.
  const auto& m = w.model();
  EXPECT_FALSE(m.can_collect);
  EXPECT_NE(m.target.find("memory: "), std::string::npos) << m.target;
  EXPECT_NE(m.status.find("no CUDA device"), std::string::npos) << m.status;
  ASSERT_FALSE(m.rows.empty());
  EXPECT_NE(m.rows[0].model.find("MB (work model)"), std::string::npos) << m.rows[0].model;
  EXPECT_EQ(m.rows[0].measured, "-");
  EXPECT_FALSE(w.start(*app.active_lab()));
  EXPECT_NE(m.status.find("no CUDA device"), std::string::npos) << m.status;
  EXPECT_FALSE(w.busy());
}

TEST(CountersWindow, LabWithoutTargetSaysSo) {
  if (query_device().available) GTEST_SKIP() << "the no-GPU message comes first on the CPU machine only";
  App app(headless("montecarlo"));
  for (int i = 0; i < 4; ++i)
    app.frame();
  const auto& m = app.counters_window().model();
  EXPECT_FALSE(m.can_collect);
  EXPECT_NE(m.target.find("no kernel to measure"), std::string::npos) << m.target;
  EXPECT_TRUE(m.rows.empty());
  // Over an empty table the window never says that model values stay.
  EXPECT_NE(m.status.find("no CUDA device"), std::string::npos) << m.status;
  EXPECT_EQ(m.status.find("model values"), std::string::npos) << m.status;
}

// Switching from a lab with model values to one without: the message follows the table shown.
TEST(CountersWindow, TheStatusFollowsTheTableAcrossLabs) {
  if (query_device().available) GTEST_SKIP() << "the no-GPU message comes first on the CPU machine only";
  App app(headless("memory"));
  for (int i = 0; i < 4; ++i)
    app.frame();
  CountersWindow& w = app.counters_window();
  EXPECT_FALSE(w.start(*app.active_lab()));
  EXPECT_NE(w.model().status.find("model values stay"), std::string::npos) << w.model().status;
  ASSERT_FALSE(app.apply_session([] {
    Session s;
    s.active_lab = "montecarlo";
    s.open_labs = {"montecarlo"};
    return s;
  }()));
  for (int i = 0; i < 4; ++i)
    app.frame();
  EXPECT_TRUE(w.model().rows.empty());
  EXPECT_EQ(w.model().status.find("model values"), std::string::npos) << w.model().status;
  CounterTarget none;
  EXPECT_FALSE(has_model_values(none));
  none.model_dram_read = 1e6;
  EXPECT_TRUE(has_model_values(none));
}

TEST(CountersWindow, MatmulShowsTheWorkModelsBytes) {
  App app(headless("matmul"));
  for (int i = 0; i < 4; ++i)
    app.frame();
  const auto& m = app.counters_window().model();
  EXPECT_NE(m.target.find("matmul: "), std::string::npos) << m.target;
  ASSERT_EQ(m.rows.size(), 8u);
  // The problem the lab shows ("M x N x K" ends the target): A and B read once, 4 * (M*K + K*N) bytes.
  long long mm = 0, nn = 0, kk = 0;
  ASSERT_EQ(std::sscanf(m.target.c_str() + m.target.rfind(", ") + 2, "%lldx%lldx%lld", &mm, &nn, &kk), 3)
      << m.target;
  char expect[64];
  std::snprintf(expect, sizeof expect, "%.2f MB (work model)",
                4.0 * static_cast<double>(mm * kk + kk * nn) / 1e6);
  EXPECT_EQ(m.rows[0].model, expect) << m.target;
  EXPECT_EQ(m.rows[2].model, "no model");
  if (!query_device().available) {
    EXPECT_FALSE(m.can_collect);
  }
}

TEST(CountersWindow, RowsPutMeasuredNextToModel) {
  CounterTarget t;
  t.model_dram_read = 8e6;
  t.model_dram_write = 4e6;
  t.model_ld_sectors_per_request = 4.0;
  t.access_model = "memory lab model";
  auto rows = counter_rows(t, nullptr);
  ASSERT_EQ(rows.size(), 8u);
  EXPECT_EQ(rows[0].measured, "-");
  EXPECT_EQ(rows[0].model, "8.00 MB (work model)");
  EXPECT_EQ(rows[2].model, "4.00 (memory lab model)");
  EXPECT_EQ(rows[3].model, "no model");
  EXPECT_EQ(rows[5].model, "no model");  // occupancy: no model

  counters::Result r;
  r.status = counters::Status::Ok;
  r.values = counters::derive({{{"dram__bytes_read.sum", 8.4e6},
                                {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 1600},
                                {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 100}}});
  rows = counter_rows(t, &r);
  EXPECT_EQ(rows[0].measured, "8.40 MB");
  EXPECT_EQ(rows[1].measured, "not offered by this GPU");
  EXPECT_EQ(rows[2].measured, "16.00");

  counters::Result denied;
  denied.status = counters::Status::NotAllowed;
  rows = counter_rows(t, &denied);
  EXPECT_EQ(rows[0].measured, "-");
  EXPECT_EQ(rows[0].model, "8.00 MB (work model)") << "model values stay when counters are not allowed";
}

// The "simulator" column: the PTX simulator's counts of the same launch beside measured and model; "-" where
// nothing was simulated, the reason where the launch was too large.
TEST(CountersWindow, RowsPutTheSimulatorsCountsBesideThem) {
  CounterTarget t;
  t.model_ld_sectors_per_request = 4.0;
  auto rows = counter_rows(t, nullptr);
  for (const ui::CounterRow& r : rows) EXPECT_EQ(r.simulated, "-") << r.metric;
  SimulatedCounterValues sim;
  sim.ld_sectors_per_request = 4.0;
  sim.st_sectors_per_request = 32.0;
  sim.shared_conflicts = 9600;
  rows = counter_rows(t, nullptr, &sim);
  EXPECT_EQ(rows[2].simulated, "4.00");
  EXPECT_EQ(rows[3].simulated, "32.00");
  EXPECT_EQ(rows[4].simulated, "9600");
  EXPECT_EQ(rows[7].simulated, "9600");  // wavefronts - instructions: the simulator's own definition
  EXPECT_EQ(rows[0].simulated, "-");  // DRAM: the simulator has no caches
  SimulatedCounterValues none;
  none.note = "not simulated: too large";
  rows = counter_rows(t, nullptr, &none);
  EXPECT_EQ(rows[2].simulated, "not simulated: too large");
}

// The memory lab's target simulates its launch (no GPU needed): the same counts as its access model.
TEST(CountersWindow, TheMemoryLabsTargetSimulatesItsLaunch) {
  if (!kernel::nvrtc().ok()) GTEST_SKIP() << kernel::nvrtc().error;
  memory::Params p;
  p.kernel = memory::Kernel::Transpose;
  p.transpose = memory::Variant::Tiled;
  p.rows = 100;
  p.cols = 70;
  const SimulatedCounterValues v = memory::simulated_values(p, memory::Variant::Tiled);
  const memory::Prediction want = memory::predict(p, memory::Variant::Tiled);
  ASSERT_TRUE(v.ld_sectors_per_request) << v.note;
  EXPECT_DOUBLE_EQ(*v.ld_sectors_per_request, want.ld_sectors_per_request());
  EXPECT_DOUBLE_EQ(*v.st_sectors_per_request, want.st_sectors_per_request());
  EXPECT_DOUBLE_EQ(*v.shared_conflicts, double(want.shared_ld_conflicts + want.shared_st_conflicts));
  EXPECT_GT(*v.shared_conflicts, 0);  // the unpadded tile's column reads
}

}  // namespace
}  // namespace bs
