// memory_bench_test.cpp: `blockscope bench memory` as a user runs it (the built binary): the CPU rows and the
// model's predicted columns without a GPU, and every bad flag refused with exit code 2 and a message naming
// it.
#include <gtest/gtest.h>

#include <string>

#include "run_util.h"

namespace bs {
namespace {

TEST(MemoryBench, TransposeCpuRowsAndPredictedCounts) {
  const auto r =
      test::run_blockscope("bench memory --kernel transpose --size 100x37 --device cpu --reps 2 --counts");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("GB/s counts bytes read + written: 2 x 4 x rows x cols"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("naive (CPU)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("CPU, 1 thread"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("threads (OpenMP)"), std::string::npos) << r.output;
  // The model needs no GPU: the predicted totals are printed (naive: 32 sectors per store of a warp).
  EXPECT_NE(r.output.find("predicted counts per launch"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("naive (strided write)"), std::string::npos) << r.output;
}

TEST(MemoryBench, BanksHaveNoCpuRows) {
  const auto r = test::run_blockscope("bench memory --kernel banks --n 1000 --device cpu");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("shared memory exists only on the GPU"), std::string::npos) << r.output;
}

struct BadBench {
  const char* args;
  const char* must_mention;
};
class MemoryBenchBadArgs : public ::testing::TestWithParam<BadBench> {};

TEST_P(MemoryBenchBadArgs, ExitTwoWithAMessage) {
  const auto r = test::run_blockscope(std::string("bench memory ") + GetParam().args);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(GetParam().must_mention), std::string::npos) << r.output;
}

INSTANTIATE_TEST_SUITE_P(
    All, MemoryBenchBadArgs,
    ::testing::Values(
        BadBench{"--kernel nope", "--kernel"}, BadBench{"--kernel transpose --variant soa", "--variant"},
        BadBench{"--kernel stride --stride 0", "--stride"},
        BadBench{"--kernel stride --stride 65", "--stride"}, BadBench{"--size 0x5", "--size"},
        BadBench{"--size 16385", "--size"}, BadBench{"--block 16x8 --device cpu", "block.x = 32"},
        BadBench{"--block 64x32", "1024"}, BadBench{"--kernel aos --threads 2000", "--threads"},
        BadBench{"--kernel aos --n 0", "n = 0"}, BadBench{"--kernel banks --bank-stride 33", "--bank-stride"},
        BadBench{"--reps 0", "--reps"}, BadBench{"--device tpu", "--device"}, BadBench{"--n 12Q", "--n"}));

}  // namespace
}  // namespace bs
