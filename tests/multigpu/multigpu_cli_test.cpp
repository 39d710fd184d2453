// multigpu_cli_test.cpp: `bench heat|montecarlo --gpus ...` through the built binary: bad lists exit 2 naming
// --gpus, with or without a GPU; without a GPU the multi-GPU rows are skipped plainly (exit 0); the single-GPU
// bench without --gpus is unchanged.
#include <gtest/gtest.h>

#include "run_util.h"
#include "test_util.h"

namespace bs {

TEST(MultiGpuCli, BadGpuListsNameTheFlag) {
  for (const char* args : {"bench heat --gpus 0", "bench heat --gpus 2-1", "bench montecarlo --gpus x",
                           "bench heat --gpus 1,1"}) {
    const auto r = test::run_blockscope(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("--gpus"), std::string::npos) << r.output;
  }
  const auto r = test::run_blockscope("bench heat --gpus 1 --size 12x");
  if (test::device().available) {
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("--size"), std::string::npos) << r.output;
  }
}

TEST(MultiGpuCli, WithoutAGpuTheRowsAreSkippedPlainly) {
  if (test::device().available) GTEST_SKIP() << "this machine has a GPU";
  const auto r = test::run_blockscope("bench heat --gpus 1,2 --size 16384 --steps 10");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("no CUDA device"), std::string::npos) << r.output;
}

TEST(MultiGpuCli, OneGpuRunsOneAndSaysTwoIsNotAvailable) {
  if (!test::device().available) GTEST_SKIP() << "no CUDA device: " << test::device().reason;
  const auto r = test::run_blockscope("bench heat --gpus 1,64 --size 1000x777 --steps 20 --mg-reps 2");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("64 GPUs: not available"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("efficiency"), std::string::npos) << r.output;
  const auto v = test::run_blockscope("bench heat --gpus 1-3 --virtual --size 1000x777 --steps 20 --mg-reps 2");
  EXPECT_EQ(v.exit_code, 0) << v.output;
  EXPECT_NE(v.output.find("NOT a scaling figure"), std::string::npos) << v.output;
  EXPECT_EQ(v.output.find("DIFFERS"), std::string::npos) << v.output;
  EXPECT_NE(v.output.find("bitwise"), std::string::npos) << v.output;
}

TEST(MultiGpuCli, SingleGpuBenchUnchangedWithoutGpus) {
  const auto r = test::run_blockscope("bench heat --size 300x200 --steps 5 --cpu-steps 3 --device cpu");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("across GPUs"), std::string::npos) << r.output;
  const auto big = test::run_blockscope("bench heat --size 9000");
  EXPECT_NE(big.exit_code, 0) << "the one-GPU lab's size limit stays";
}

}  // namespace bs
