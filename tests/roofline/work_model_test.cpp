// work_model_test.cpp: the work model (core/work_model.h) and each lab's FLOP and byte counts, against counts
// made by hand from the kernels' source.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "app/roofline/roofline_report.h"
#include "core/work_model.h"
#include "gpu/heat/heat_work.h"
#include "gpu/matmul/matmul_work.h"
#include "gpu/memory/memory_work.h"
#include "gpu/montecarlo/montecarlo_work.h"
#include "gpu/reduce/reduce_work.h"
#include "gpu/vector/vector_work.h"

namespace bs {
namespace {

TEST(WorkModel, IntensityAndMeasured) {
  work::Work w;
  w.flops = 100;
  w.read_bytes = 30;
  w.write_bytes = 20;
  EXPECT_DOUBLE_EQ(w.model_bytes(), 50);
  EXPECT_DOUBLE_EQ(w.intensity(), 2);
  EXPECT_FALSE(w.measured_intensity());
  w.measured_dram_bytes = 200;
  EXPECT_DOUBLE_EQ(*w.measured_intensity(), 0.5);
  const work::Work t = w.times(3);
  EXPECT_DOUBLE_EQ(t.flops, 300);
  EXPECT_DOUBLE_EQ(t.model_bytes(), 150);
  EXPECT_DOUBLE_EQ(*t.measured_dram_bytes, 600);
  work::Work shared_only;
  shared_only.flops = 5;
  EXPECT_TRUE(std::isinf(shared_only.intensity()));
  work::Work copy;
  copy.read_bytes = copy.write_bytes = 8;
  EXPECT_EQ(copy.intensity(), 0);
}

TEST(WorkModel, RunRecordRates) {
  work::RunRecord r;
  r.seconds = 0.5;
  r.work.flops = 1e9;
  r.work.read_bytes = 2e9;
  EXPECT_DOUBLE_EQ(r.flops_per_s(), 2e9);
  EXPECT_DOUBLE_EQ(r.model_bytes_per_s(), 4e9);
  r.seconds = 0;
  EXPECT_EQ(r.flops_per_s(), 0);
}

TEST(WorkModel, HeatStepHandCount) {
  heat::Params p;
  p.nx = 333;
  p.ny = 257;
  const double cells = 333.0 * 257.0;
  const work::Work one = heat::step_work(p);
  // c + r * ((w + e) + (n + s) - 4c): + + + * - * + = 7 FLOPs; one float read, one written.
  EXPECT_DOUBLE_EQ(one.flops, 7 * cells);
  EXPECT_DOUBLE_EQ(one.read_bytes, 4 * cells);
  EXPECT_DOUBLE_EQ(one.write_bytes, 4 * cells);
  const work::Work ten = heat::step_work(p, 10);
  EXPECT_DOUBLE_EQ(ten.flops, 70 * cells);
  EXPECT_DOUBLE_EQ(ten.model_bytes(), 80 * cells);
  // Temporal blocking: 10 steps fused 4 at a time are 3 passes over DRAM, the same FLOPs.
  const work::Work fused = heat::step_work(p, 10, 4);
  EXPECT_DOUBLE_EQ(fused.flops, 70 * cells);
  EXPECT_DOUBLE_EQ(fused.model_bytes(), 3 * 8 * cells);
  EXPECT_DOUBLE_EQ(heat::step_work(p, 1).intensity(), 7.0 / 8.0);
}

TEST(WorkModel, MatmulHandCount) {
  const matmul::Problem p{1000, 777, 333};
  const work::Work w = matmul::run_work(p);
  EXPECT_DOUBLE_EQ(w.flops, 2.0 * 1000 * 777 * 333);
  EXPECT_DOUBLE_EQ(w.read_bytes, 4.0 * (1000 * 333 + 333 * 777));
  EXPECT_DOUBLE_EQ(w.write_bytes, 4.0 * 1000 * 777);
  // Square n: 2n^3 FLOPs over 12 n^2 bytes = n / 6.
  EXPECT_NEAR(matmul::run_work({4096, 4096, 4096}).intensity(), 4096.0 / 6.0, 1e-9);
}

TEST(WorkModel, VectorHandCount) {
  const work::Work add = vector::kernel_work(vector::Op::Add, 1001);
  EXPECT_DOUBLE_EQ(add.flops, 1001);
  EXPECT_DOUBLE_EQ(add.model_bytes(), 12 * 1001);
  // (a*10 + 2) * ((b + 2)*10 - 5) * 5: * + + * - * * = 7.
  const work::Work f = vector::kernel_work(vector::Op::Formula, 1001);
  EXPECT_DOUBLE_EQ(f.flops, 7 * 1001);
  EXPECT_DOUBLE_EQ(f.read_bytes, 8 * 1001);
  EXPECT_DOUBLE_EQ(f.write_bytes, 4 * 1001);
  EXPECT_EQ(vector::k_bytes_per_element, 12);  // the lab's own GB/s agrees with the model
}

TEST(WorkModel, ReduceAndScanHandCount) {
  const work::Work r = reduce::run_work(reduce::Op::Reduce, 1000003);
  EXPECT_DOUBLE_EQ(r.flops, 1000002);
  EXPECT_DOUBLE_EQ(r.read_bytes, 4 * 1000003.0);
  EXPECT_DOUBLE_EQ(r.write_bytes, 4);
  const work::Work s = reduce::run_work(reduce::Op::Scan, 1000003);
  EXPECT_DOUBLE_EQ(s.flops, 1000002);
  EXPECT_DOUBLE_EQ(s.write_bytes, 4 * 1000003.0);
  EXPECT_EQ(reduce::run_work(reduce::Op::Reduce, 0).flops, 0);
}

TEST(WorkModel, MemoryLabHandCount) {
  memory::Params p;
  p.rows = 1000;
  p.cols = 333;
  p.n = 12345;
  for (memory::Variant v : memory::variants_of(memory::Kernel::Transpose)) {
    const work::Work w = memory::run_work(p, v);
    EXPECT_EQ(w.flops, 0);
    EXPECT_DOUBLE_EQ(w.model_bytes(), 8.0 * 1000 * 333);
    EXPECT_DOUBLE_EQ(w.model_bytes(), static_cast<double>(memory::counted_bytes(p, v)));
  }
  for (memory::Variant v : memory::variants_of(memory::Kernel::Stride))
    EXPECT_DOUBLE_EQ(memory::run_work(p, v).model_bytes(), 8.0 * 12345);
  const work::Work banks = memory::run_work(p, memory::Variant::BanksPlain);
  EXPECT_DOUBLE_EQ(banks.flops, 12345.0 * 256);
  EXPECT_DOUBLE_EQ(banks.read_bytes, 0);
  EXPECT_DOUBLE_EQ(banks.write_bytes, 4 * 12345.0);
  // 1/m, then per axis: r*inv_m, *dt, v - that, v*dt, x + that: 1 + 3 * 5 = 16; 7 floats in, 6 out.
  for (memory::Variant v : {memory::Variant::Aos, memory::Variant::Soa}) {
    const work::Work w = memory::run_work(p, v);
    EXPECT_DOUBLE_EQ(w.flops, 16 * 12345.0);
    EXPECT_DOUBLE_EQ(w.read_bytes, 28 * 12345.0);
    EXPECT_DOUBLE_EQ(w.write_bytes, 24 * 12345.0);
    EXPECT_DOUBLE_EQ(w.model_bytes(), static_cast<double>(memory::counted_bytes(p, v)));
  }
}

TEST(WorkModel, MonteCarloHandCount) {
  montecarlo::Params p;
  p.paths = 1000;
  p.steps = 10;
  p.option = montecarlo::OptionType::Call;
  // 10 adds of Z, then drift *, fma (2), exp, S_T *, payoff - (6), sum and sum of squares (3).
  EXPECT_DOUBLE_EQ(montecarlo::run_work(p).flops, 1000.0 * (10 + 6 + 3));
  EXPECT_DOUBLE_EQ(montecarlo::run_work(p).model_bytes(), 16);
  p.antithetic = true;  // 500 pairs: 10 adds, 2 x 6 at the end, the pair's average (2), sums (3)
  EXPECT_DOUBLE_EQ(montecarlo::run_work(p).flops, 500.0 * (10 + 12 + 2 + 3));
  p.antithetic = false;
  p.option = montecarlo::OptionType::AsianCall;
  // per step: Z add, drift *, fma (2), exp, sum add = 6; end: S_T *, 2 *, payoff - (4), sums (3).
  EXPECT_DOUBLE_EQ(montecarlo::run_work(p).flops, 1000.0 * (10 * 6 + 4 + 3));
  p.antithetic = true;  // per step: Z add + 2 x 5; end: 2 x 4 + 2 + 3
  EXPECT_DOUBLE_EQ(montecarlo::run_work(p).flops, 500.0 * (10 * 11 + 8 + 2 + 3));
}

TEST(RunLog, OnePointPerConfigurationNewestWins) {
  work::RunLog log(3);
  auto rec = [](std::string label, double s) {
    work::RunRecord r;
    r.lab = "heat";
    r.variant = "v";
    r.label = std::move(label);
    r.seconds = s;
    return r;
  };
  const uint64_t v0 = log.version();
  log.add(rec("a", 1));
  log.add(rec("b", 2));
  log.add(rec("a", 3));  // replaces a, keeps its place
  EXPECT_GT(log.version(), v0);
  auto runs = log.snapshot();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].label, "a");
  EXPECT_EQ(runs[0].seconds, 3);
  log.add(rec("c", 4));
  log.add(rec("d", 5));  // over capacity: the oldest (a) goes
  runs = log.snapshot();
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].label, "b");
  EXPECT_EQ(runs[2].label, "d");
  log.clear();
  EXPECT_EQ(log.size(), 0u);
}

TEST(RunLog, ThreadSafeAdds) {
  work::RunLog log(10000);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&log, t] {
      for (int i = 0; i < 500; ++i) {
        work::RunRecord r;
        r.label = std::to_string(t) + "/" + std::to_string(i);
        log.add(r);
      }
    });
  for (auto& th : threads)
    th.join();
  EXPECT_EQ(log.size(), 2000u);
}

TEST(RunLog, ReportRunFromALab) {
  work::RunLog log;
  LabEnv env;
  env.device.name = "Test GPU";
  report_run(env, "heat", "GPU stencil", true, 2.0, heat::step_work(heat::Params{}), "1024x1024");
  EXPECT_EQ(log.size(), 0u);  // no log attached: nothing, no crash
  env.runs = &log;
  report_run(env, "heat", "GPU stencil", true, 2.0, heat::step_work(heat::Params{}), "1024x1024");
  report_run(env, "heat", "CPU, 1 thread", false, 0.0, heat::step_work(heat::Params{}));  // no time: ignored
  const auto runs = log.snapshot();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].label, "heat: GPU stencil, 1024x1024");
  EXPECT_EQ(runs[0].device, "Test GPU");
  EXPECT_EQ(runs[0].where, work::Where::Gpu);
  EXPECT_DOUBLE_EQ(runs[0].seconds, 2e-3);
  EXPECT_DOUBLE_EQ(runs[0].flops_per_s(), 7.0 * 1024 * 1024 / 2e-3);
}

}  // namespace
}  // namespace bs
