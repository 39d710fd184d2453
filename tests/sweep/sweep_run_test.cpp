// sweep_run_test.cpp: real sweeps through the labs' host interfaces. CPU: every lab on tiny sizes (each well
// under 2 s), progress and ETA, cancel mid-sweep. GPU (skipped without a device): a tiny sweep per lab with
// device gpu and all, and a block.x x block.y heat map.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

#include "app/sweep/sweep.h"
#include "core/error.h"
#include "test_util.h"

namespace bs::sweep {
namespace {

Definition tiny(const std::string& lab, Device device) {
  Definition d;
  d.lab = lab;
  d.warmup = 1;
  d.repetitions = 3;
  d.device = device;
  if (lab == "heat") {
    d.params = {{"size", {"16", "40"}}};
    d.fixed = {{"steps", "2"}, {"block.x", "16"}, {"block.y", "4"}};
  } else if (lab == "matmul") {
    d.params = {{"size", {"8", "33"}}};
  } else if (lab == "montecarlo") {
    d.params = {{"paths", {"1000", "3000"}}};
    d.fixed = {{"steps", "4"}};
  } else if (lab == "memory") {
    d.params = {{"stride", {"1", "8"}}};  // the strided read: GPU, and CPU versions for device all
    d.fixed = {{"kernel", "stride"}, {"n", "64K"}};
  } else {
    d.params = {{"size", {"1K", "5000"}}};
  }
  return d;
}

// Every point ran, every series kept R samples with positive times and throughputs.
void expect_complete(const Result& r, const Definition& d, size_t min_series) {
  EXPECT_FALSE(r.cancelled);
  EXPECT_TRUE(r.stopped.empty()) << r.stopped;
  ASSERT_EQ(r.points.size(), d.params[0].values.size());
  EXPECT_FALSE(r.unit.empty());
  for (const Point& p : r.points) {
    EXPECT_TRUE(p.error.empty()) << p.error;
    EXPECT_GE(p.series.size(), min_series) << d.lab;
    for (const SeriesResult& s : p.series) {
      ASSERT_EQ(s.time_ms.size(), static_cast<size_t>(d.repetitions)) << s.name;
      ASSERT_EQ(s.throughput.size(), s.time_ms.size());
      for (size_t i = 0; i < s.time_ms.size(); ++i) {
        EXPECT_GT(s.time_ms[i], 0) << d.lab << " " << s.name;
        EXPECT_GT(s.throughput[i], 0) << d.lab << " " << s.name;
      }
      EXPECT_EQ(s.time.count, s.time_ms.size());
      EXPECT_LE(s.time.p10, s.time.median);
      EXPECT_LE(s.time.median, s.time.p90);
    }
  }
}

class CpuSweep : public testing::TestWithParam<const char*> {};

TEST_P(CpuSweep, TinySweepEndToEnd) {
  const Definition d = tiny(GetParam(), Device::Cpu);
  JobControl ctl;
  std::vector<Progress> seen;
  const auto t0 = std::chrono::steady_clock::now();
  const Result r = run_sweep(d, ctl, [&](const Progress& p) { seen.push_back(p); });
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  expect_complete(r, d, 2);
  for (const Point& p : r.points)
    for (const SeriesResult& sr : p.series)
      EXPECT_FALSE(sr.gpu);
  EXPECT_LT(s, 2.0) << "a tiny CPU sweep should be quick";
  ASSERT_EQ(seen.size(), r.points.size());
  EXPECT_DOUBLE_EQ(seen.back().fraction, 1.0);
  EXPECT_DOUBLE_EQ(ctl.progress(), 1.0);
  EXPECT_GE(seen.front().eta_s, 0);
  EXPECT_NE(seen.front().line.find("[1/2]"), std::string::npos) << seen.front().line;
  // The figure of a real result: lines over the numeric parameter.
  const fig::Figure f = figure_for(r);
  EXPECT_EQ(f.kind, fig::Kind::Lines);
  EXPECT_GE(f.series.size(), 2u);
}

INSTANTIATE_TEST_SUITE_P(Labs, CpuSweep, testing::Values("heat", "matmul", "montecarlo", "vector"));

TEST(CpuSweep, MatmulVariantIsCategorical) {
  Definition d;
  d.lab = "matmul";
  d.params = {{"variant", {"cpu_naive", "cpu_blocked", "cpu_openblas"}}};
  d.fixed = {{"size", "24"}};
  d.warmup = 0;
  d.repetitions = 2;
  d.device = Device::Cpu;
  JobControl ctl;
  const Result r = run_sweep(d, ctl);
  ASSERT_EQ(r.points.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_EQ(r.points[i].series.size(), 1u);
    EXPECT_EQ(r.points[i].series[0].name, d.params[0].values[i]);
  }
  EXPECT_EQ(figure_for(r).kind, fig::Kind::Bars);
}

TEST(CpuSweep, DeviceAllWithoutGpuNotesTheSkip) {
  if (test::device().available) GTEST_SKIP() << "this machine has a GPU";
  const Definition d = tiny("heat", Device::All);
  JobControl ctl;
  const Result r = run_sweep(d, ctl);
  expect_complete(r, d, 2);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes[0].find("GPU rows skipped"), std::string::npos) << r.notes[0];
  EXPECT_NE(r.notes[0].find(test::device().reason), std::string::npos);
  Definition g = d;
  g.device = Device::Gpu;
  try {
    run_sweep(g, ctl);
    ADD_FAILURE() << "device gpu without a GPU must fail";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no CUDA device"), std::string::npos) << e.what();
  }
}

TEST(CpuSweep, CancelMidSweepKeepsCompletedPoints) {
  Definition d = tiny("heat", Device::Cpu);
  d.params = {{"size", {"8", "12", "16", "20", "24"}}};
  JobControl ctl;
  const Result r = run_sweep(d, ctl, [&](const Progress& p) {
    if (p.point == 2) ctl.cancel();
  });
  EXPECT_TRUE(r.cancelled);
  ASSERT_EQ(r.points.size(), 2u);
  EXPECT_EQ(r.points[1].values[0], "12");
  for (const Point& p : r.points)
    for (const SeriesResult& s : p.series)
      EXPECT_EQ(s.time_ms.size(), 3u);
  // A cancelled result still exports and draws.
  EXPECT_NE(to_csv(r).find("12"), std::string::npos);
  EXPECT_NE(figure_for(r).subtitle.find("cancelled"), std::string::npos);
}

TEST(CpuSweep, CombinationsThatCannotRunAreSkippedWithANote) {
  Definition d;
  d.lab = "heat";
  d.params = {{"block.x", {"64", "256"}}, {"block.y", {"1", "8"}}};  // 256 x 8 = 2048 threads: cannot run
  d.fixed = {{"size", "24"}, {"steps", "1"}};
  d.warmup = 0;
  d.repetitions = 2;
  d.device = Device::Cpu;
  JobControl ctl;
  const Result r = run_sweep(d, ctl);
  ASSERT_EQ(r.points.size(), 4u);
  EXPECT_TRUE(r.points[2].error.empty()) << r.points[2].error;
  EXPECT_NE(r.points[3].error.find("skipped"), std::string::npos) << r.points[3].error;
  EXPECT_TRUE(r.points[3].series.empty());
  const fig::Figure f = figure_for(r);
  ASSERT_EQ(f.kind, fig::Kind::Heatmap);
  EXPECT_TRUE(std::isnan(f.heatmap.values[1 * 2 + 1]));  // row block.y=8, column block.x=256
}

// A stand-in target whose third point fails: a plain error is recorded and the sweep goes on, a sticky CUDA
// error stops it.
class FailingTarget final : public Target {
 public:
  explicit FailingTarget(bool sticky) : m_sticky(sticky) {}
  const char* lab() const override { return "fake"; }
  std::span<const ParamSpec> params() const override { return k_params; }
  const char* unit() const override { return "items/s"; }
  const char* time_label() const override { return "time (ms)"; }
  void validate(const Values&) const override {}
  double work(const Values&) const override { return 1; }
  PointRun run(const Values& v, const RunSettings& s, JobControl& ctl) const override {
    if (v.at("n") == "3") throw GpuError("an illegal memory access was encountered", 700, m_sticky);
    double next = 1;
    SeriesRun r{"GPU", true, collect_samples(s.warmup, s.repetitions, ctl, [&] { return next++; }), {}};
    r.throughput = r.time_ms;
    return {{r}, {}};
  }

 private:
  static constexpr ParamSpec k_params[] = {{"n", "1", "1,2,3", "a number"}};
  bool m_sticky;
};

TEST(SweepErrors, GpuErrorRecordedStickyStops) {
  Definition d;
  d.lab = "fake";
  d.params = {{"n", {"1", "2", "3", "4"}}};
  d.device = Device::Cpu;
  d.warmup = 2;
  d.repetitions = 3;
  JobControl ctl;
  const Result soft = run_sweep_with(FailingTarget(false), d, ctl);
  ASSERT_EQ(soft.points.size(), 4u);
  EXPECT_NE(soft.points[2].error.find("illegal memory access"), std::string::npos);
  EXPECT_TRUE(soft.stopped.empty());
  EXPECT_EQ(soft.points[0].series[0].time_ms, (std::vector<double>{3, 4, 5}));  // warm-ups 1, 2 dropped
  const Result hard = run_sweep_with(FailingTarget(true), d, ctl);
  ASSERT_EQ(hard.points.size(), 3u);
  EXPECT_NE(hard.stopped.find("sticky"), std::string::npos) << hard.stopped;
}

// --- GPU
// ------------------------------------------------------------------------------------------------------
class GpuSweep : public testing::TestWithParam<const char*> {};

TEST_P(GpuSweep, TinySweepOnTheGpu) {
  BS_REQUIRE_GPU();
  const Definition d = tiny(GetParam(), Device::Gpu);
  JobControl ctl;
  const Result r = run_sweep(d, ctl);
  expect_complete(r, d, 1);
  EXPECT_FALSE(r.gpu_name.empty());
  for (const Point& p : r.points)
    for (const SeriesResult& s : p.series)
      EXPECT_TRUE(s.gpu) << s.name;
  std::printf("%s GPU sweep: %s\n", GetParam(), summary_csv(r).c_str());
}

TEST_P(GpuSweep, DeviceAllHasGpuAndCpuSeries) {
  BS_REQUIRE_GPU();
  const Definition d = tiny(GetParam(), Device::All);
  JobControl ctl;
  const Result r = run_sweep(d, ctl);
  expect_complete(r, d, 2);
  bool gpu = false, cpu = false;
  for (const SeriesResult& s : r.points[0].series)
    (s.gpu ? gpu : cpu) = true;
  EXPECT_TRUE(gpu && cpu);
}

INSTANTIATE_TEST_SUITE_P(Labs, GpuSweep, testing::Values("heat", "matmul", "montecarlo", "vector", "memory", "reduce"));

TEST(GpuSweep, HeatBlockShapeHeatmap) {
  BS_REQUIRE_GPU();
  Definition d;
  d.lab = "heat";
  d.params = {{"block.x", {"16", "32", "64"}}, {"block.y", {"1", "4"}}};
  d.fixed = {{"size", "512"}, {"steps", "10"}};
  d.warmup = 1;
  d.repetitions = 5;
  d.device = Device::Gpu;
  JobControl ctl;
  const Result r = run_sweep(d, ctl);
  ASSERT_EQ(r.points.size(), 6u);
  const fig::Figure f = figure_for(r);
  EXPECT_EQ(f.kind, fig::Kind::Heatmap);
  for (double v : f.heatmap.values)
    EXPECT_TRUE(std::isfinite(v) && v > 0);
  std::printf("heat block sweep (ms/step):\n%s\n", summary_csv(r).c_str());
}

}  // namespace
}  // namespace bs::sweep
