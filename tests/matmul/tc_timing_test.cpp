// tc_timing_test.cpp: the matmul lab's "time the rungs" job (app/matmul/matmul_tc_timing.h): why it cannot run
// without a GPU, what the frame thread makes of a timing (the section's rows, one roofline point per timed rung
// under its precision's roof, none for a skipped one), and on a GPU every rung at an odd size against float64,
// progress and cancel.
#include <gtest/gtest.h>

#include <cstdio>

#include "app/matmul/matmul_tc_timing.h"
#include "core/work_model.h"
#include "gpu/matmul/matmul_work.h"
#include "test_util.h"

namespace bs {
namespace {

namespace mm = bs::matmul;
namespace tc = bs::matmul::tc;

TEST(TcTiming, UnavailableSaysWhy) {
  LabEnv env;
  env.path.path = RenderPath::Cpu;
  env.path.reason = "no CUDA device: driver too old";
  EXPECT_EQ(matmul_lab::tc_timing_unavailable(env), "CPU path: no CUDA device: driver too old");
  env.path.path = RenderPath::HostCopy;
  env.device.available = false;
  env.device.reason = "test reason";
  EXPECT_EQ(matmul_lab::tc_timing_unavailable(env), "no CUDA device: test reason");
  env.device.available = true;
  EXPECT_EQ(matmul_lab::tc_timing_unavailable(env), "");
}

tc::TcRow timed_row(tc::Rung r, double ms) {
  tc::TcRow row;
  row.rung = &tc::info(r);
  row.ms.median = ms;
  row.runs = 5;
  row.tflops = 1;
  row.pct_cublas = 90;
  row.error.rel_frobenius = 1e-3;
  row.error.bound = 1e-2;
  row.error.within_bound = true;
  return row;
}

TEST(TcTiming, RowsAndRooflinePointsUnderTheirPrecision) {
  matmul_lab::TcTiming t;
  t.p = {201, 155, 67};
  t.result.device = "Test GPU";
  t.result.reference = "float64 CPU (OpenBLAS dgemm)";
  t.result.rows.push_back(timed_row(tc::Rung::MmaBf16Pipe, 2.0));
  t.result.rows.push_back(timed_row(tc::Rung::Tf32x3, 4.0));
  tc::TcRow skipped;
  skipped.rung = &tc::info(tc::Rung::WgmmaTma);
  skipped.skipped = "needs compute capability 9.0";
  t.result.rows.push_back(skipped);
  work::RunLog log;
  LabEnv env;
  env.runs = &log;
  env.device.name = "Test GPU";
  ui::TcPanelModel m;
  matmul_lab::take_tc_timing(env, t, m);
  ASSERT_EQ(m.timed.size(), 3u);
  EXPECT_EQ(m.timed[0].name, "mma_bf16_pipe");
  EXPECT_DOUBLE_EQ(m.timed[0].ms, 2.0);
  EXPECT_DOUBLE_EQ(m.timed[0].pct_cublas, 90);
  EXPECT_TRUE(m.timed[0].within);
  EXPECT_EQ(m.timed[2].skipped, "needs compute capability 9.0");
  EXPECT_EQ(m.timed_device, "Test GPU");
  EXPECT_NE(m.timed_problem.find("201"), std::string::npos);
  const std::vector<work::RunRecord> runs = log.snapshot();
  ASSERT_EQ(runs.size(), 2u) << "a skipped rung is no point";
  EXPECT_EQ(runs[0].variant, "mma_bf16_pipe");
  EXPECT_EQ(runs[0].where, work::Where::Gpu);
  EXPECT_DOUBLE_EQ(runs[0].seconds, 2e-3);
  EXPECT_EQ(runs[0].work.math, work::Math::Bf16);
  EXPECT_DOUBLE_EQ(runs[0].work.flops, 2.0 * 201 * 155 * 67);
  EXPECT_DOUBLE_EQ(runs[0].work.read_bytes, 2.0 * (201 * 67 + 67 * 155));  // BF16 operands
  EXPECT_DOUBLE_EQ(runs[0].work.write_bytes, 4.0 * 201 * 155);
  EXPECT_EQ(runs[1].work.math, work::Math::Tf32);                          // 3xTF32 runs on TF32 tensor cores
  EXPECT_DOUBLE_EQ(runs[1].work.read_bytes, 4.0 * (201 * 67 + 67 * 155));  // float32 operands
}

std::vector<float> input(int64_t rows, int64_t cols, uint32_t seed) {
  return mm::make_input(rows, cols, seed, {1.0, false});
}

TEST(TcTiming, EveryRungAtAnOddSizeOnTheGpu) {
  BS_REQUIRE_GPU();
  const mm::Problem p{201, 155, 67};
  JobControl ctl;
  const matmul_lab::TcTiming t =
      matmul_lab::time_tc_rungs(p, input(p.m, p.k, 1), input(p.k, p.n, 2), mm::Reference{}, ctl);
  EXPECT_GT(ctl.progress(), 0.5);
  ASSERT_EQ(t.result.rows.size(), tc::rungs().size());
  int timed = 0;
  for (const tc::TcRow& r : t.result.rows) {
    if (!r.skipped.empty()) {
      std::printf("%-16s skipped: %s\n", r.rung->name, r.skipped.c_str());
      continue;
    }
    ++timed;
    std::printf("%-16s %8.4f ms %8.2f TFLOP/s %5.0f%% of cuBLAS, rel error %.2e (bound %.2e)\n", r.rung->name,
                r.ms.median, r.tflops, r.pct_cublas, r.error.rel_frobenius, r.error.bound);
    EXPECT_TRUE(r.error.within_bound) << r.rung->name << ": " << r.error.summary();
    EXPECT_GT(r.ms.median, 0) << r.rung->name;
    EXPECT_GE(r.runs, 3) << r.rung->name;
  }
  EXPECT_GT(timed, 0);
  work::RunLog log;
  LabEnv env;
  env.runs = &log;
  env.device = query_device(0);
  ui::TcPanelModel m;
  matmul_lab::take_tc_timing(env, t, m);
  ASSERT_EQ(log.size(), static_cast<size_t>(timed));
  for (const work::RunRecord& r : log.snapshot())
    EXPECT_EQ(r.work.math, mm::math_of(tc::info(*tc::parse_rung(r.variant)).precision)) << r.variant;
}

TEST(TcTiming, CancelStopsTheJob) {
  BS_REQUIRE_GPU();
  const mm::Problem p{64, 48, 40};
  JobControl ctl;
  ctl.cancel();
  EXPECT_THROW(matmul_lab::time_tc_rungs(p, input(p.m, p.k, 1), input(p.k, p.n, 2), mm::Reference{}, ctl),
               JobCancelled);
}

}  // namespace
}  // namespace bs
