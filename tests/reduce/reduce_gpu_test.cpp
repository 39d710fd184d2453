// reduce_gpu_test.cpp: every GPU reduction and scan variant, float and int, inclusive and exclusive, at
// awkward sizes (1, 2, 31, 1000, 2^20 + 17: never a multiple of the block) against the exact reference: int
// exactly, float within float_tolerance(the variant's summation depth); the runner's refusals (n = 0, a size
// beyond device memory, a block a variant cannot take), timed runs and run_bench. Skips without a CUDA
// device.
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "core/error.h"
#include "gpu/reduce/reduce.h"
#include "test_util.h"

namespace bs::reduce {
namespace {

// Under compute-sanitizer (BS_REDUCE_SMALL set) the largest size shrinks: racecheck runs kernels many times
// slower, and the hazards it looks for show at any size that spans several blocks.
bool small() {
  return std::getenv("BS_REDUCE_SMALL") != nullptr;
}
std::vector<int64_t> sizes() {
  if (small()) return {1, 2, 31, 1000, 70001};
  return {1, 2, 31, 1000, (int64_t{1} << 20) + 17};
}

struct Inputs {
  std::vector<float> f;
  std::vector<int32_t> i;
  explicit Inputs(int64_t n) : f(static_cast<size_t>(n)), i(static_cast<size_t>(n)) {
    fill_inputs(f.data(), n);
    fill_inputs(i.data(), n);
  }
};

TEST(ReduceGpu, EveryReductionAtAwkwardSizes) {
  BS_REQUIRE_GPU();
  GpuRunner runner;
  for (int64_t n : sizes()) {
    const Inputs in(n);
    for (ReduceVariant v : k_reduce_variant_names.values())
      for (int block : {64, 256, 1024}) {
        Params p;
        p.op = Op::Reduce;
        p.reduce_variant = v;
        p.n = n;
        p.block = block;
        SCOPED_TRACE(describe(p));
        const float f = runner.reduce(p, std::span<const float>(in.f));
        const Check cf = check_sum(static_cast<double>(f), n, runner.plan(p).depth);
        EXPECT_TRUE(cf.passed) << cf.text;
        const int32_t i = runner.reduce(p, std::span<const int32_t>(in.i));
        const Check ci = check_sum(static_cast<int64_t>(i), n);
        EXPECT_TRUE(ci.passed) << ci.text;
        if (v == ReduceVariant::Cub) break;  // CUB ignores the block
      }
  }
}

TEST(ReduceGpu, WarpShuffleTakesBlocksThatAreNotPowersOfTwo) {
  BS_REQUIRE_GPU();
  GpuRunner runner;
  const Inputs in(100003);
  for (ReduceVariant v : {ReduceVariant::WarpShuffle, ReduceVariant::AtomicPerBlock}) {
    Params p;
    p.reduce_variant = v;
    p.block = 96;
    SCOPED_TRACE(describe(p));
    EXPECT_TRUE(
        check_sum(static_cast<int64_t>(runner.reduce(p, std::span<const int32_t>(in.i))), 100003).passed);
  }
}

TEST(ReduceGpu, EveryScanAtAwkwardSizes) {
  BS_REQUIRE_GPU();
  GpuRunner runner;
  for (int64_t n : sizes()) {
    const Inputs in(n);
    for (ScanVariant v : k_scan_variant_names.values())
      for (int block : {64, 256, 1024})
        for (ScanKind kind : {ScanKind::Inclusive, ScanKind::Exclusive}) {
          Params p;
          p.op = Op::Scan;
          p.scan_variant = v;
          p.scan_kind = kind;
          p.n = n;
          p.block = block;
          SCOPED_TRACE(describe(p));
          if (auto err = validate(p)) {
            // Only the single-block scans refuse, and only beyond one block.
            EXPECT_GT(single_block_max_n(v, block), 0) << *err;
            EXPECT_GT(n, single_block_max_n(v, block)) << *err;
            EXPECT_THROW((void)runner.scan(p, std::span<const float>(in.f)), InvalidRequest);
            continue;
          }
          const std::vector<float> f = runner.scan(p, std::span<const float>(in.f));
          const Check cf = check_scan(std::span<const float>(f), kind, runner.plan(p).depth);
          EXPECT_TRUE(cf.passed) << cf.text;
          const std::vector<int32_t> i = runner.scan(p, std::span<const int32_t>(in.i));
          const Check ci = check_scan(std::span<const int32_t>(i), kind);
          EXPECT_TRUE(ci.passed) << ci.text;
        }
  }
}

// The look-back scan over many tiles (2^22 + 3 elements with 32-thread blocks: 4097 tiles of 1024), so that
// tiles wait on predecessors that are still running.
TEST(ReduceGpu, LookbackOverManyTiles) {
  BS_REQUIRE_GPU();
  GpuRunner runner;
  const int64_t n = small() ? (int64_t{1} << 17) + 3 : (int64_t{1} << 22) + 3;
  const Inputs in(n);
  for (int block : {32, 128}) {
    Params p;
    p.op = Op::Scan;
    p.scan_variant = ScanVariant::DecoupledLookback;
    p.n = n;
    p.block = block;
    SCOPED_TRACE(describe(p));
    const Check ci = check_scan(std::span<const int32_t>(runner.scan(p, std::span<const int32_t>(in.i))),
                                ScanKind::Inclusive);
    EXPECT_TRUE(ci.passed) << ci.text;
  }
}

TEST(ReduceGpu, RefusesZeroAndSizesBeyondDeviceMemory) {
  BS_REQUIRE_GPU();
  GpuRunner runner;
  Params p;
  p.n = 0;
  try {
    (void)runner.run(p, 1);
    ADD_FAILURE() << "n = 0 ran";
  } catch (const InvalidRequest& e) {
    EXPECT_NE(std::string(e.what()).find("n = 0"), std::string::npos) << e.what();
  }
  p.n = static_cast<int64_t>(runner.device().total_mem / 4) + 1;  // the input alone does not fit
  for (Op op : {Op::Reduce, Op::Scan}) {
    p.op = op;
    try {
      (void)runner.run(p, 1);
      ADD_FAILURE() << "n = " << p.n << " ran";
    } catch (const InvalidRequest& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("of device memory"), std::string::npos) << m;
      EXPECT_NE(m.find("GiB free of"), std::string::npos) << m;
    }
  }
  Params q;
  q.reduce_variant = ReduceVariant::Sequential;
  q.block = 96;
  EXPECT_THROW((void)runner.run(q, 1), InvalidRequest);
  // The runner still works after refusals.
  q.block = 128;
  q.n = 5000;
  EXPECT_TRUE(runner.run(q, 1).check.passed);
}

TEST(ReduceGpu, TimedRunsReportAndCheck) {
  BS_REQUIRE_GPU();
  GpuRunner runner;
  Params p;
  p.n = (int64_t{1} << 22) + 5;
  for (ElemType t : {ElemType::F32, ElemType::I32}) {
    p.type = t;
    p.op = Op::Reduce;
    const Row r = runner.run(p, 3);
    EXPECT_TRUE(r.check.passed) << r.check.text;
    EXPECT_GT(r.ms.median, 0);
    EXPECT_GT(r.gbs, 0);
    EXPECT_EQ(r.repetitions, 3);
    p.op = Op::Scan;
    const Row s = runner.run(p, 3);
    EXPECT_TRUE(s.check.passed) << s.check.text;
  }
  const CopyKernel c = runner.copy_kernel(p.n, 3);
  EXPECT_GT(c.gbs, 0);
  EXPECT_DOUBLE_EQ(c.read_gbs * 2, c.gbs);
}

TEST(ReduceGpu, BenchRunsEveryVariantWithYardsticks) {
  BS_REQUIRE_GPU();
  BenchOptions o;
  o.params.n = (int64_t{1} << 20) + 17;
  o.params.op = Op::Scan;
  o.params.type = ElemType::I32;
  o.repetitions = 2;
  const BenchResult r = run_bench(o);
  EXPECT_TRUE(r.gpu_ran);
  EXPECT_TRUE(r.all_checks_passed);
  EXPECT_GT(r.copy.gbs, 0);
  // Single-block scans are skipped at this n with a reason; the 3 others run, then 2 CPU rows.
  EXPECT_EQ(r.skipped.size(), 2u);
  ASSERT_EQ(r.rows.size(), 5u);
  for (const Row& row : r.rows) {
    EXPECT_TRUE(row.check.passed) << row.variant << ": " << row.check.text;
    if (row.gpu) {
      EXPECT_GT(row.copy_pct, 0) << row.variant;
      EXPECT_GT(row.cub_pct, 0) << row.variant;
    }
  }
}

}  // namespace
}  // namespace bs::reduce
