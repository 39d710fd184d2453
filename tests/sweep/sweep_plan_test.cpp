// sweep_plan_test.cpp: what a sweep decides before it runs, without running a lab: device auto (the CPU
// where no GPU exists, said in a note), values bound to a device this sweep cannot use (refused, dropped or
// replaced by the CPU ones), parameters the CPU ignores, the duration estimate, counts that must not wrap,
// and the rule that crowns a best heat-map cell only when it wins beyond the spread of the others.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "app/sweep/sweep.h"
#include "core/error.h"

namespace bs::sweep {
namespace {

DeviceInfo no_gpu() {
  DeviceInfo d;
  d.available = false;
  d.reason = "CUDA driver version is insufficient for CUDA runtime version";
  return d;
}

// A device that plan_sweep believes in (planning never touches it).
DeviceInfo fake_gpu() {
  DeviceInfo d;
  d.available = true;
  d.name = "Fake GPU";
  return d;
}

bool has_note(const std::vector<std::string>& notes, const std::string& text) {
  for (const std::string& n : notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

std::string all_notes(const std::vector<std::string>& notes) {
  std::string s;
  for (const std::string& n : notes)
    s += n + "\n";
  return s;
}

Definition preset_sweep(const std::string& name) {
  const std::filesystem::path p =
      std::filesystem::path(BS_SOURCE_DIR) / "assets" / "presets" / (name + ".json");
  std::ifstream f(p);
  const nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << p;
  return definition_from_json(j["sweep"]);
}

// --- 1: presets run on the CPU where no GPU exists, and say so ---------------------------------------------
TEST(SweepPlan, GpuPresetsRunOnTheCpuWithoutAGpu) {
  for (const char* name : {"heat-block-sweep", "matmul-ladder", "matmul-coalescing"}) {
    const Definition d = preset_sweep(name);
    EXPECT_EQ(d.device, Device::Auto) << name;
    Plan p;
    ASSERT_NO_THROW(p = plan_sweep(d, no_gpu())) << name;
    EXPECT_TRUE(p.run_cpu) << name;
    EXPECT_FALSE(p.run_gpu) << name;
    EXPECT_EQ(p.definition.device, Device::Cpu) << name;
    EXPECT_TRUE(has_note(p.notes, "no GPU here")) << name << "\n" << all_notes(p.notes);
    EXPECT_LT(p.estimate_s, k_confirm_above_s) << name << ": a preset must not need confirmation";
    // On a GPU machine the same preset runs the GPU series only.
    const Plan g = plan_sweep(d, fake_gpu());
    EXPECT_TRUE(g.run_gpu && !g.run_cpu) << name;
    EXPECT_EQ(g.definition.params, d.params) << name;
    EXPECT_TRUE(g.notes.empty()) << name << "\n" << all_notes(g.notes);
  }
  // The heat preset sweeps the block shape: the CPU ignores it, and the plan says so.
  const Plan heat = plan_sweep(preset_sweep("heat-block-sweep"), no_gpu());
  EXPECT_EQ(heat.ignored_params, (std::vector<std::string>{"block.x", "block.y"}));
  EXPECT_TRUE(has_note(heat.notes, "block.x and block.y do not change CPU time")) << all_notes(heat.notes);
  // The matmul ladder's GPU variants are replaced by the CPU ones, with the guards kept.
  const Plan ladder = plan_sweep(preset_sweep("matmul-ladder"), no_gpu());
  ASSERT_EQ(ladder.definition.params.size(), 1u);
  EXPECT_EQ(ladder.definition.params[0].values,
            (std::vector<std::string>{"cpu_naive", "cpu_blocked", "cpu_openblas"}));
  EXPECT_FALSE(ladder.named_explicit);
  EXPECT_TRUE(has_note(ladder.notes, "the CPU ones run instead")) << all_notes(ladder.notes);
}

// A shipped preset never needs "Run anyway", with or without a GPU.
TEST(SweepPlan, NoPresetNeedsConfirmation) {
  const std::filesystem::path dir = std::filesystem::path(BS_SOURCE_DIR) / "assets" / "presets";
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().stem().string();
    std::ifstream f(entry.path());
    const nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
    if (j.is_discarded() || !j.contains("sweep")) continue;
    const Definition d = definition_from_json(j["sweep"]);
    for (const DeviceInfo& dev : {no_gpu(), fake_gpu()}) {
      const Plan p = plan_sweep(d, dev);
      EXPECT_LT(p.estimate_s, k_confirm_above_s) << name << (dev.available ? " with" : " without") << " a GPU";
      EXPECT_GT(p.estimate_s, 0.0) << name;
    }
    ++checked;
  }
  EXPECT_GE(checked, 5);
}

TEST(SweepPlan, DeviceNamesRoundTrip) {
  for (Device d : {Device::All, Device::Gpu, Device::Cpu, Device::Auto})
    EXPECT_EQ(parse_device(to_string(d)), d);
  Definition d;
  d.params = {{"size", {"16"}}};
  d.device = Device::Auto;
  EXPECT_EQ(definition_from_json(to_json(d)), d);
}

// --- 2: a variant sweep that cannot run on the CPU is refused before running -------------------------------
TEST(SweepPlan, OnlyGpuVariantsOnTheCpuAreRefusedNamingThem) {
  Definition d;
  d.lab = "matmul";
  d.params = {{"variant", {"naive_coalesced", "smem_tile32"}}};
  d.fixed = {{"size", "64"}};
  d.device = Device::Cpu;
  try {
    plan_sweep(d, no_gpu());
    FAIL() << "planned a sweep that measures nothing";
  } catch (const InvalidRequest& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("naive_coalesced, smem_tile32"), std::string::npos) << m;
    EXPECT_NE(m.find("run only on the GPU"), std::string::npos) << m;
    EXPECT_NE(m.find("cpu_naive"), std::string::npos) << m;  // what can run instead
  }
  // A fixed GPU variant with a CPU sweep: refused too.
  Definition f = d;
  f.params = {{"size", {"32", "64"}}};
  f.fixed = {{"variant", "smem_tile32"}};
  EXPECT_THROW(plan_sweep(f, no_gpu()), InvalidRequest);
  // Device gpu with only CPU variants: refused (on a GPU machine).
  Definition g = d;
  g.params = {{"variant", {"cpu_blocked"}}};
  g.device = Device::Gpu;
  EXPECT_THROW(plan_sweep(g, fake_gpu()), InvalidRequest);
  // A mixed list runs what the CPU can and notes the rest.
  Definition mixed = d;
  mixed.params = {{"variant", {"naive_coalesced", "cpu_blocked", "cpu_naive"}}};
  const Plan p = plan_sweep(mixed, no_gpu());
  EXPECT_EQ(p.definition.params[0].values, (std::vector<std::string>{"cpu_blocked", "cpu_naive"}));
  EXPECT_TRUE(has_note(p.notes, "naive_coalesced skipped")) << all_notes(p.notes);
}

// --- 8: the estimate, and counts that must not wrap
// ---------------------------------------------------------
TEST(SweepPlan, EstimateFlagsRunawaySweeps) {
  Definition heat;
  heat.lab = "heat";
  heat.params = {{"size", {"8192"}}};
  heat.fixed = {{"steps", "1000"}};
  heat.repetitions = 1000;
  heat.device = Device::Gpu;
  EXPECT_GT(plan_sweep(heat, fake_gpu()).estimate_s, k_confirm_above_s);
  heat.device = Device::Cpu;
  EXPECT_GT(plan_sweep(heat, no_gpu()).estimate_s, k_confirm_above_s);

  Definition naive;
  naive.lab = "matmul";
  naive.params = {{"size", {"8192"}}};
  naive.fixed = {{"variant", "cpu_naive"}};
  naive.device = Device::Cpu;
  const double naive_s = plan_sweep(naive, no_gpu()).estimate_s;
  EXPECT_GT(naive_s, 3600.0) << "12 runs of an 8192^3 naive CPU multiply are hours";

  // A tiny sweep is seconds, and the estimate grows with the repetitions.
  Definition tiny;
  tiny.lab = "heat";
  tiny.params = {{"size", {"16", "32"}}};
  tiny.fixed = {{"steps", "1"}};
  tiny.repetitions = 2;
  tiny.device = Device::Cpu;
  const double small = plan_sweep(tiny, no_gpu()).estimate_s;
  EXPECT_GT(small, 0.0);
  EXPECT_LT(small, 5.0);
  tiny.repetitions = 200;
  EXPECT_GT(plan_sweep(tiny, no_gpu()).estimate_s, small * 10);
  for (const char* lab : {"heat", "matmul", "montecarlo", "vector"}) {
    const Target* t = find_target(lab);
    ASSERT_NE(t, nullptr);
    Definition d;
    d.lab = lab;
    d.params = {{t->params()[0].name, {t->params()[0].default_value}}};
    d.device = Device::All;
    EXPECT_GT(plan_sweep(d, fake_gpu()).estimate_s, 0.0) << lab << ": every lab estimates its points";
  }
}

TEST(SweepPlan, CountsAreRangeCheckedNotWrapped) {
  auto def = [](const std::string& extra) {
    return nlohmann::json::parse(R"({"lab":"heat","params":[{"name":"size","values":["16"]}])" + extra + "}");
  };
  // 4294967297 = 2^32 + 1: read as a 32-bit int it is 1.
  for (const char* bad :
       {R"(,"repetitions":4294967297)", R"(,"repetitions":-4294967295)", R"(,"warmup":4294967296)",
        R"(,"repetitions":18446744073709551615)", R"(,"repetitions":0)", R"(,"warmup":101)"}) {
    try {
      definition_from_json(def(bad));
      FAIL() << bad << " was accepted";
    } catch (const InvalidRequest& e) {
      EXPECT_NE(std::string(e.what()).find("outside"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(definition_from_json(def(R"(,"repetitions":1000)")).repetitions, 1000);
  // A parameter with more values than a sweep may have points is refused before any product is formed.
  Definition d;
  d.lab = "heat";
  d.params = {{"steps", std::vector<std::string>(k_max_points + 1, "1")}};
  EXPECT_THROW(validate(d), InvalidRequest);
}

// --- 3: a best cell only beyond the spread
// ------------------------------------------------------------------
fig::Heatmap grid(std::vector<double> med, std::vector<double> lo, std::vector<double> hi, bool higher) {
  fig::Heatmap h;
  h.x_values = {"a", "b"};
  h.y_values = {"1", "2"};
  h.values = std::move(med);
  h.lo = std::move(lo);
  h.hi = std::move(hi);
  h.higher_is_better = higher;
  return h;
}

TEST(SweepBest, CrownedOnlyBeyondTheOthersSpread) {
  // Times: cell 1 has the lowest median, but its p90 (1.05) reaches into cell 2's p10 (1.02): noise.
  EXPECT_EQ(
      fig::best_cell(grid({1.5, 1.0, 1.04, 2.0}, {1.4, 0.95, 1.02, 1.9}, {1.6, 1.05, 1.08, 2.1}, false)), -1);
  // Separated: cell 1's p90 0.99 is below every other p10.
  EXPECT_EQ(fig::best_cell(grid({1.5, 0.9, 1.1, 2.0}, {1.4, 0.85, 1.0, 1.9}, {1.6, 0.99, 1.2, 2.1}, false)),
            1);
  // Touching edges are not a win (strict).
  EXPECT_EQ(fig::best_cell(grid({1.5, 0.9, 1.1, 2.0}, {1.4, 0.85, 1.0, 1.9}, {1.6, 1.0, 1.2, 2.1}, false)),
            -1);
  // Throughput: higher is better, the best's p10 must be above every other p90.
  EXPECT_EQ(fig::best_cell(grid({10, 20, 12, 5}, {9, 18, 11, 4}, {11, 22, 13, 6}, true)), 1);
  EXPECT_EQ(fig::best_cell(grid({10, 20, 12, 5}, {9, 12.5, 11, 4}, {11, 22, 13, 6}, true)), -1);
  // Missing cells do not block a win; without spreads the lowest value is the best, as before.
  EXPECT_EQ(fig::best_cell(grid({NAN, 0.9, 1.1, 2.0}, {NAN, 0.85, 1.0, 1.9}, {NAN, 0.99, 1.2, 2.1}, false)),
            1);
  EXPECT_EQ(fig::best_cell(grid({1.5, 1.0, 1.04, 2.0}, {}, {}, false)), 1);
  fig::Heatmap off = grid({1.5, 0.9, 1.1, 2.0}, {1.4, 0.85, 1.0, 1.9}, {1.6, 0.99, 1.2, 2.1}, false);
  off.no_best = true;
  EXPECT_EQ(fig::best_cell(off), -1);
}

// A 2 x 2 block sweep result with given samples per cell, in point order (block.x slowest).
Result block_result(const std::vector<std::vector<double>>& samples, bool gpu) {
  Result r;
  r.definition.lab = "heat";
  r.definition.params = {{"block.x", {"16", "32"}}, {"block.y", {"1", "2"}}};
  r.unit = "Mcell/s";
  size_t i = 0;
  for (const std::string& x : r.definition.params[0].values)
    for (const std::string& y : r.definition.params[1].values) {
      Point p;
      p.values = {x, y};
      SeriesResult s;
      s.name = gpu ? "GPU stencil" : "CPU, 1 thread";
      s.gpu = gpu;
      s.time_ms = samples[i++];
      for (double t : s.time_ms)
        s.throughput.push_back(1.0 / t);
      s.summarize();
      p.series.push_back(std::move(s));
      r.points.push_back(std::move(p));
    }
  return r;
}

TEST(SweepBest, FigureMarksNoBestFromNoise) {
  // Overlapping samples (as a CPU that ignores the block shape gives): the lowest median is noise.
  const std::vector<std::vector<double>> noisy = {{1.00, 1.10, 0.95, 1.05, 1.02},
                                                  {0.99, 1.08, 0.96, 1.04, 1.00},
                                                  {1.01, 1.07, 0.97, 1.06, 1.03},
                                                  {1.02, 1.09, 0.94, 1.03, 1.01}};
  const fig::Figure f = figure_for(block_result(noisy, true));
  ASSERT_EQ(f.kind, fig::Kind::Heatmap);
  EXPECT_EQ(f.heatmap.lo.size(), 4u);
  EXPECT_EQ(fig::best_cell(f.heatmap), -1);
  EXPECT_NE(f.subtitle.find("no best marked"), std::string::npos) << f.subtitle;
  // A real winner (a GPU shape twice as fast, tight samples) is still crowned.
  const std::vector<std::vector<double>> clear = {
      {1.00, 1.01, 0.99}, {0.50, 0.51, 0.49}, {1.00, 1.02, 0.98}, {1.20, 1.21, 1.19}};
  const fig::Figure g = figure_for(block_result(clear, true));
  EXPECT_EQ(fig::best_cell(g.heatmap), 2);  // block.x=16, block.y=2: row 1, column 0
  // Parameters the CPU ignores: never a best, and the subtitle says why, even with a "clear" winner.
  Result cpu = block_result(clear, false);
  cpu.ignored_params = {"block.x", "block.y"};
  const fig::Figure c = figure_for(cpu);
  EXPECT_TRUE(c.heatmap.no_best);
  EXPECT_EQ(fig::best_cell(c.heatmap), -1);
  EXPECT_NE(c.subtitle.find("do not change CPU time"), std::string::npos) << c.subtitle;
  // The flag survives the JSON round trip (a replayed figure says the same).
  EXPECT_EQ(result_from_json(to_json(cpu)).ignored_params, cpu.ignored_params);
}

}  // namespace
}  // namespace bs::sweep
