// tc_cli_test.cpp: `blockscope bench matmul --precision` and `--tensor-cores` as a user runs them: the CPU
// precision table, the rungs listed and explained without a GPU (run with their checks on one), and bad input
// refused with a message naming the flag.
#include <gtest/gtest.h>

#include <string>

#include "gpu/common/device_info.h"
#include "run_util.h"

namespace bs {
namespace {

TEST(MatmulPrecisionCli, ShowsEveryPrecisionAgainstFloat64) {
  const test::RunResult r = test::run_blockscope("bench matmul --precision --size 129");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* name : {"bf16 ", "fp16 ", "tf32 ", "fp32 ", "3xtf32 "})
    EXPECT_NE(r.output.find(name), std::string::npos) << name << "\n" << r.output;
  EXPECT_NE(r.output.find("4 * u_in + 8 * 2^-24 * sqrt(K)"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find(" NO "), std::string::npos) << r.output;  // uniform inputs: all within their bounds
  // Wide inputs: FP16 overflows (non-finite cells, over its bound), BF16 does not.
  const test::RunResult w = test::run_blockscope("bench matmul --precision --size 64 --wide");
  ASSERT_EQ(w.exit_code, 0) << w.output;
  EXPECT_NE(w.output.find("not finite"), std::string::npos) << w.output;
}

TEST(MatmulPrecisionCli, RefusesBadInputWithTheFlag) {
  const test::RunResult r = test::run_blockscope("bench matmul --precision --range -2");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--range -2: choose a half-width"), std::string::npos) << r.output;
  const test::RunResult w = test::run_blockscope("bench matmul --wide --device cpu");
  EXPECT_EQ(w.exit_code, 2) << w.output;
  EXPECT_NE(w.output.find("add one of them"), std::string::npos) << w.output;
  const test::RunResult c = test::run_blockscope("bench matmul --precision --counters");
  EXPECT_EQ(c.exit_code, 2) << c.output;
  EXPECT_NE(c.output.find("--counters reads the FP32 ladder's kernels: not with --precision"), std::string::npos)
      << c.output;
  const test::RunResult v = test::run_blockscope("bench matmul --tensor-cores --variant wmma");
  EXPECT_EQ(v.exit_code, 2) << v.output;
  EXPECT_NE(v.output.find("is not a tensor-core rung; choose all or one of: cublas_fp32"), std::string::npos)
      << v.output;
}

TEST(MatmulTensorCoresCli, ListsAndExplainsTheRungsWithoutAGpu) {
  if (query_device().available) GTEST_SKIP() << "this machine has a GPU: the rungs run (see the next test)";
  const test::RunResult r = test::run_blockscope("bench matmul --tensor-cores --size 100");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("no CUDA device"), std::string::npos) << r.output;
  for (const char* name : {"wmma_bf16 (", "mma_bf16_pipe (", "tf32x3 (", "cublas_tf32 ("})
    EXPECT_NE(r.output.find(name), std::string::npos) << name;
  EXPECT_NE(r.output.find("3xtf32 "), std::string::npos) << r.output;  // the CPU model follows
}

TEST(MatmulTensorCoresCli, RunsEveryRungOnTheGpu) {
  if (!query_device().available) GTEST_SKIP() << "no CUDA device: " << query_device().reason;
  const test::RunResult r = test::run_blockscope("bench matmul --tensor-cores --m 257 --n 130 --k 99 --reps 3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("FAIL"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("tf32x3 "), std::string::npos) << r.output;
}

}  // namespace
}  // namespace bs
