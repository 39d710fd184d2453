// memory_gpu_test.cpp: every memory-lab kernel against the CPU reference at sizes that are not multiples of
// the tile or the block, the runner's timing and ladder, and its refusals. Skips without a CUDA device. The
// transpose, the gathers and the banks sums must match exactly (they move floats, or add them in the same
// order as the CPU); the particle step within k_aos_rel_tol (nvcc contracts two multiply-adds into FMAs).
#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <vector>

#include "core/error.h"
#include "gpu/memory/memory.h"
#include "test_util.h"

namespace bs::memory {
namespace {

void expect_matches(GpuRunner& runner, const Params& p, Variant v, const std::string& what) {
  SCOPED_TRACE(what);
  const std::vector<float> in = make_input(p, v);
  const std::vector<float> got = runner.compute(p, v, in);
  const std::vector<float> want = reference_output(p, v, in);
  const Check c = compare(got, want, v == Variant::Aos || v == Variant::Soa ? k_aos_rel_tol : 0.0);
  EXPECT_TRUE(c.passed) << c.text;
}

// The runner finds the device before it allocates (gpu/common/device_runner.h): without one it throws the
// GpuError the shell's recovery shows, naming why; with one it reports the device the tests see.
TEST(MemoryGpu, TheRunnerFindsTheDeviceFirst) {
  static_assert(!std::is_copy_constructible_v<GpuRunner> && !std::is_move_constructible_v<GpuRunner>);
  if (!test::device().available) {
    try {
      GpuRunner runner;
      FAIL() << "a runner was built without a device";
    } catch (const GpuError& e) {
      EXPECT_EQ(std::string(e.what()), "no CUDA device: " + test::device().reason);
    }
    return;
  }
  GpuRunner runner;
  EXPECT_EQ(runner.device().name, test::device().name);
  EXPECT_EQ(runner.device().sm_count, test::device().sm_count);
}

TEST(MemoryGpu, TransposeLadderMatchesTheCpu) {
  BS_REQUIRE_GPU();
  GpuRunner runner;
  const std::pair<int64_t, int64_t> sizes[] = {{1, 1}, {1, 37}, {33, 35}, {31, 64}, {1000, 999}, {257, 1025}};
  for (auto [rows, cols] : sizes)
    for (Variant v : variants_of(Kernel::Transpose))
      for (int dy : {1, 8, 32}) {
        Params p;
        p.rows = rows;
        p.cols = cols;
        p.block = {32, dy};
        expect_matches(runner, p, v,
                       std::string(to_string(v)) + " " + std::to_string(rows) + "x" + std::to_string(cols) +
                           " block 32x" + std::to_string(dy));
      }
  // The naive kernel takes any block.
  for (Dim2 b : {Dim2{16, 16}, Dim2{7, 3}, Dim2{1024, 1}}) {
    Params p;
    p.rows = 129;
    p.cols = 77;
    p.block = b;
    expect_matches(runner, p, Variant::Naive,
                   "naive block " + std::to_string(b.x) + "x" + std::to_string(b.y));
  }
}

TEST(MemoryGpu, StridedAndRandomMatchTheCpu) {
  BS_REQUIRE_GPU();
  GpuRunner runner;
  for (int64_t n : {int64_t{1}, int64_t{1000}, (int64_t{1} << 20) + 17})
    for (int s : {1, 2, 7, 32, 64})
      for (int threads : {256, 96}) {
        Params p;
        p.kernel = Kernel::Stride;
        p.n = n;
        p.stride = s;
        p.threads = threads;
        expect_matches(runner, p, Variant::Strided,
                       "strided n " + std::to_string(n) + " stride " + std::to_string(s) + " threads " +
                           std::to_string(threads));
        if (s == 1)
          expect_matches(runner, p, Variant::Random,
                         "random n " + std::to_string(n) + " threads " + std::to_string(threads));
      }
}

TEST(MemoryGpu, BanksMatchTheCpu) {
  BS_REQUIRE_GPU();
  GpuRunner runner;
  for (int64_t n : {int64_t{1}, int64_t{1000}, int64_t{100003}})
    for (int s : {1, 2, 3, 16, 32})
      for (int threads : {256, 100, 1024})
        for (Variant v : {Variant::BanksPlain, Variant::BanksPadded}) {
          Params p;
          p.kernel = Kernel::Banks;
          p.n = n;
          p.bank_stride = s;
          p.threads = threads;
          expect_matches(runner, p, v,
                         std::string(to_string(v)) + " n " + std::to_string(n) + " stride " +
                             std::to_string(s) + " threads " + std::to_string(threads));
        }
}

TEST(MemoryGpu, ParticlesMatchTheCpu) {
  BS_REQUIRE_GPU();
  GpuRunner runner;
  for (int64_t n : {int64_t{1}, int64_t{1000}, (int64_t{1} << 20) + 3})
    for (int threads : {256, 96})
      for (Variant v : {Variant::Aos, Variant::Soa}) {
        Params p;
        p.kernel = Kernel::Aos;
        p.n = n;
        p.threads = threads;
        expect_matches(
            runner, p, v,
            std::string(to_string(v)) + " n " + std::to_string(n) + " threads " + std::to_string(threads));
      }
}

// The shared-memory kernels at small, ragged sizes: quick enough for compute-sanitizer's racecheck, which
// checks the __syncthreads between the tile's load and store phases (and the banks fill).
TEST(MemoryGpu, SharedMemoryKernelsSmall) {
  BS_REQUIRE_GPU();
  GpuRunner runner;
  for (Variant v : {Variant::Tiled, Variant::TiledPadded, Variant::TiledPaddedMulti})
    for (int dy : {2, 8}) {
      Params p;
      p.rows = 70;
      p.cols = 33;
      p.block = {32, dy};
      expect_matches(runner, p, v, std::string(to_string(v)) + " 70x33 block 32x" + std::to_string(dy));
    }
  for (Variant v : {Variant::BanksPlain, Variant::BanksPadded})
    for (int s : {1, 2, 32}) {
      Params p;
      p.kernel = Kernel::Banks;
      p.n = 300;
      p.bank_stride = s;
      p.threads = 96;
      expect_matches(runner, p, v, std::string(to_string(v)) + " stride " + std::to_string(s));
    }
}

TEST(MemoryGpu, RunTimesAndChecks) {
  BS_REQUIRE_GPU();
  GpuRunner runner;
  Params p;
  p.rows = 1000;
  p.cols = 1001;
  const RunResult r = runner.run(p, Variant::TiledPaddedMulti, 5);
  EXPECT_TRUE(r.check.passed) << r.check.text;
  EXPECT_EQ(r.check.text, "exact");
  EXPECT_EQ(r.ms.count, 5u);
  EXPECT_GT(r.ms.median, 0);
  EXPECT_GT(r.gbs, 0);
  EXPECT_EQ(r.bytes, 2 * 4 * 1000 * 1001);
  EXPECT_EQ(r.grid, (Dim2{32, 32}));
  EXPECT_EQ(r.block, (Dim2{32, 8}));

  const std::vector<RunResult> ladder = runner.run_ladder(p, std::nullopt, 3);
  ASSERT_EQ(ladder.size(), 5u);
  EXPECT_EQ(ladder[0].variant, Variant::Copy);
  EXPECT_DOUBLE_EQ(ladder[0].pct_of_copy, 100.0);
  for (const RunResult& row : ladder) {
    EXPECT_TRUE(row.check.passed) << row.label << ": " << row.check.text;
    EXPECT_GT(row.pct_of_copy, 0);
  }
  // One variant: its row plus the reference row, labelled as such.
  p.kernel = Kernel::Stride;
  p.n = 100000;
  p.stride = 8;
  const std::vector<RunResult> one = runner.run_ladder(p, Variant::Strided, 3);
  ASSERT_EQ(one.size(), 2u);
  EXPECT_NE(one[0].label.find("(reference)"), std::string::npos);
  EXPECT_EQ(one[1].label, "stride 8");
}

TEST(MemoryGpu, Refusals) {
  BS_REQUIRE_GPU();
  GpuRunner runner;
  Params p;
  p.block = {16, 8};
  try {
    runner.run(p, Variant::TiledPaddedMulti, 1);
    FAIL() << "block 16x8 accepted";
  } catch (const InvalidRequest& e) {
    EXPECT_NE(std::string(e.what()).find("block.x = 32"), std::string::npos) << e.what();
  }
  p.block = {32, 8};
  EXPECT_THROW(runner.run_ladder(p, Variant::Aos, 1), InvalidRequest);  // a variant of another kernel
  const std::vector<float> wrong(10);
  EXPECT_THROW(runner.compute(p, Variant::Copy, wrong), InvalidRequest);
  // The runner stays usable after a refusal.
  p.rows = p.cols = 100;
  EXPECT_TRUE(runner.run(p, Variant::Naive, 1).check.passed);
}

}  // namespace
}  // namespace bs::memory
