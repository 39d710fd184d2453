// multigpu_lab_test.cpp: the Multi-GPU lab. Everywhere: the slab overlay's geometry, which devices compute,
// the exchange share, the schema and session checks, the sweep target's validation and CPU series, and the
// lab drawn headless on the CPU path (field, slabs, panel). On a GPU: the lab drawn with its slabs on the
// GPU, and a sweep over the GPU count (virtual slabs where the machine has one GPU) whose series are GPU
// rows.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "app/labs.h"
#include "app/multigpu/multigpu_sweep_target.h"
#include "app/sweep/target.h"
#include "core/error.h"
#include "gpu/multigpu/comm.h"
#include "image_util.h"
#include "run_util.h"
#include "test_util.h"
#include "ui/multigpu/multigpu_panel.h"
#include "ui/multigpu/multigpu_schema.h"

namespace bs {

namespace {
namespace umg = ui::mg;
using nlohmann::json;

sweep::Values values(std::map<std::string, std::string> fixed) {
  return sweep::default_values(sweep::multigpu_sweep_target(), fixed);
}
}  // namespace

TEST(MultiGpuLab, SlabBandsPlaceOwnedRowsAndHalosOnTheImage) {
  // 100 rows in 3 slabs (34, 33, 33) with 2 halo rows, drawn 200 px high: 2 px per row.
  const auto slabs = multigpu::decompose(100, 3, 2);
  const auto b = umg::slab_bands(slabs, 100, 200.0f);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_FLOAT_EQ(b[0].owned_y0, 0.0f);
  EXPECT_FLOAT_EQ(b[0].owned_y1, 68.0f);
  EXPECT_FLOAT_EQ(b[0].halo_top_y0, 0.0f);  // no neighbour above: no halo
  EXPECT_FLOAT_EQ(b[0].halo_bottom_y1, 72.0f);
  EXPECT_FLOAT_EQ(b[1].owned_y0, 68.0f);
  EXPECT_FLOAT_EQ(b[1].owned_y1, 134.0f);
  EXPECT_FLOAT_EQ(b[1].halo_top_y0, 64.0f);
  EXPECT_FLOAT_EQ(b[1].halo_bottom_y1, 138.0f);
  EXPECT_FLOAT_EQ(b[2].owned_y1, 200.0f);
  EXPECT_FLOAT_EQ(b[2].halo_bottom_y1, 200.0f);  // no neighbour below
  EXPECT_TRUE(umg::slab_bands(slabs, 0, 200.0f).empty());
}

TEST(MultiGpuLab, ComputeDevicesAreTheTickedOnesOrSlabsOnTheFirst) {
  std::vector<umg::PickerDevice> d(4);
  for (int i = 0; i < 4; ++i)
    d[static_cast<size_t>(i)].index = i;
  EXPECT_TRUE(umg::compute_devices(d, umg::Transport::Auto, 2).empty()) << "nothing ticked";
  d[1].ticked = d[3].ticked = true;
  EXPECT_EQ(umg::compute_devices(d, umg::Transport::Auto, 2), (std::vector<int>{1, 3}));
  EXPECT_EQ(umg::compute_devices(d, umg::Transport::Auto, 1), (std::vector<int>{1}));
  EXPECT_EQ(umg::compute_devices(d, umg::Transport::Virtual, 3), (std::vector<int>{1, 1, 1}));
  EXPECT_TRUE(umg::compute_devices(d, umg::Transport::Auto, 0).empty());
}

TEST(MultiGpuLab, ExchangeShareIsExchangeOverTheRound) {
  EXPECT_DOUBLE_EQ(umg::exchange_share(1.0, 1.0, 1), 0.5);
  EXPECT_DOUBLE_EQ(umg::exchange_share(1.0, 1.0, 3), 0.25);  // a round of 3 steps per exchange
  EXPECT_DOUBLE_EQ(umg::exchange_share(0.0, 0.0, 1), 0.0);
}

TEST(MultiGpuLab, SchemaDefaultsAndSessionChecks) {
  const umg::PanelModel m;
  EXPECT_EQ(m.workload, umg::Workload::Heat);
  EXPECT_EQ(m.transport, umg::Transport::Auto);
  EXPECT_EQ(m.gpus, 1);
  EXPECT_EQ(m.nx, 2048);
  EXPECT_EQ(m.scaling_nx, 16384);
  EXPECT_EQ(m.paths, int64_t{16} << 20);
  EXPECT_FALSE(check_lab_state("multigpu", json{{"gpus", 2}, {"devices", {0, 1}}}));
  const auto bad_list = check_lab_state("multigpu", json{{"devices", "0,1"}});
  ASSERT_TRUE(bad_list);
  EXPECT_NE(bad_list->find("labs.multigpu.devices"), std::string::npos) << *bad_list;
  const auto bad_index = check_lab_state("multigpu", json{{"devices", {0, -1}}});
  ASSERT_TRUE(bad_index);
  EXPECT_NE(bad_index->find("-1"), std::string::npos) << *bad_index;
  const auto bad_gpus = check_lab_state("multigpu", json{{"gpus", 0}});
  ASSERT_TRUE(bad_gpus);
  EXPECT_NE(bad_gpus->find("labs.multigpu.gpus"), std::string::npos) << *bad_gpus;
  EXPECT_TRUE(check_lab_state("multigpu", json{{"transport", "mpi"}}));
  EXPECT_TRUE(check_lab_state("multigpu", json{{"size", {32, 32}}})) << "the live field starts at 64";
}

TEST(MultiGpuSweep, ValidatesEveryParameterWithItsName) {
  const sweep::Target& t = sweep::multigpu_sweep_target();
  EXPECT_NO_THROW(t.validate(values({})));
  auto message = [&](std::map<std::string, std::string> fixed) {
    try {
      t.validate(values(fixed));
    } catch (const InvalidRequest& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message({{"gpus", "0"}}).find("gpus"), std::string::npos);
  EXPECT_NE(message({{"workload", "nbody"}}).find("workload"), std::string::npos);
  EXPECT_NE(message({{"transport", "mpi"}}).find("transport"), std::string::npos);
  EXPECT_NE(message({{"size", "32"}}).find("size"), std::string::npos);
  // 70 rows cannot give 16 slabs a halo of 8 rows each: named on gpus, with the decomposition's reason.
  EXPECT_NE(message({{"size", "70"}, {"gpus", "16"}, {"halo", "8"}, {"transport", "virtual"}}).find("gpus"),
            std::string::npos);
  EXPECT_TRUE(message({{"gpus", "16"}}).empty()) << "a count is checked against the machine when it runs";
  EXPECT_EQ(t.gpu_only_params(), (std::vector<std::string>{"transport", "gpus", "halo"}));
}

TEST(MultiGpuSweep, TheCpuSeriesRunsEverywhere) {
  const sweep::Target& t = sweep::multigpu_sweep_target();
  sweep::RunSettings s;
  s.run_gpu = false;
  s.warmup = 1;
  s.repetitions = 2;
  JobControl ctl;
  for (const char* w : {"heat", "montecarlo"}) {
    const sweep::PointRun r = t.run(values({{"workload", w}, {"size", "256"}, {"paths", "20000"}}), s, ctl);
    ASSERT_EQ(r.series.size(), 1u) << w;
    EXPECT_FALSE(r.series[0].gpu);
    ASSERT_EQ(r.series[0].time_ms.size(), 2u);
    EXPECT_GT(r.series[0].time_ms[0], 0.0);
    EXPECT_GT(r.series[0].throughput[0], 0.0);
  }
  // More GPUs than this machine has (none here, or a few on the GPU machine): no GPU series, a note saying
  // so.
  s.run_gpu = true;
  s.run_cpu = false;
  const int more = multigpu::cuda_device_count() + 1;
  const sweep::PointRun r = t.run(values({{"gpus", std::to_string(more)}, {"size", "256"}}), s, ctl);
  EXPECT_TRUE(r.series.empty());
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes[0].find("not available, this machine has"), std::string::npos) << r.notes[0];
}

TEST(MultiGpuScene, HeadlessCpuShowsTheFieldItsSlabsAndThePanel) {
  const std::string png = test::output_path("multigpu_cpu.png");
  const auto r = test::run_blockscope(
      "--headless --render-path cpu --scene multigpu --frames 20 --width 1280 "
      "--height 800 --screenshot " +
      png);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The field (left) is colour-mapped heat with slab outlines: many colours; the panel (right) has text.
  EXPECT_GT(test::image_stats(png, 0.05, 0.15, 0.5, 0.8).distinct_colours, 50u) << r.output;
  EXPECT_GT(test::image_stats(png, 0.6, 0.1, 1.0, 0.9).distinct_colours, 10u) << r.output;
}

// On a GPU: three virtual slabs (any GPU count), the field drawn from the slabs, and the same through a sweep
// over the slab count whose rows are GPU series.
TEST(MultiGpuScene, OnTheGpuTheSlabsComputeTheField) {
  BS_REQUIRE_GPU();
  const std::string dir = test::output_path("multigpu_session");
  std::filesystem::create_directories(dir);
  const std::string session = dir + "/virtual3.json";
  std::ofstream(session)
      << json{{"blockscope_session", 1},
              {"active_lab", "multigpu"},
              {"open_labs", {"multigpu"}},
              {"labs", {{"multigpu", {{"transport", "virtual"}, {"gpus", 3}, {"size", {1000, 777}}}}}}}
             .dump();
  const std::string png = dir + "/virtual3.png";
  const auto r = test::run_blockscope("--headless --session " + session +
                                      " --frames 30 --width 1280 --height 800 --screenshot " + png);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GT(test::image_stats(png, 0.05, 0.15, 0.5, 0.8).distinct_colours, 50u) << r.output;

  const sweep::Target& t = sweep::multigpu_sweep_target();
  sweep::RunSettings s;
  s.run_cpu = false;
  s.warmup = 1;
  s.repetitions = 2;
  JobControl ctl;
  for (const char* k : {"1", "2"}) {
    const sweep::PointRun p =
        t.run(values({{"transport", "virtual"}, {"gpus", k}, {"size", "1024"}}), s, ctl);
    ASSERT_EQ(p.series.size(), 1u);
    EXPECT_TRUE(p.series[0].gpu);
    EXPECT_GT(p.series[0].time_ms[0], 0.0);
  }
  const sweep::PointRun mc = t.run(values({{"workload", "montecarlo"}, {"paths", "100000"}}), s, ctl);
  ASSERT_EQ(mc.series.size(), 1u);
  EXPECT_TRUE(mc.series[0].gpu);
}

}  // namespace bs
