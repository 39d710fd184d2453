// cli_test.cpp: bad arguments exit non-zero with a message that names the argument; never a crash.
#include <gtest/gtest.h>

#include "run_util.h"

namespace bs {

struct BadArg {
  const char* args;
  const char* must_mention;
};

inline void PrintTo(const BadArg& b, std::ostream* os) {
  *os << "'" << b.args << "'";
}

class CliBadArgs : public ::testing::TestWithParam<BadArg> {};

TEST_P(CliBadArgs, ExitsNonZeroNamingTheArgument) {
  const auto r = test::run_blockscope(GetParam().args);
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_LT(r.exit_code, 128) << "crashed: " << r.output;
  EXPECT_NE(r.output.find(GetParam().must_mention), std::string::npos) << r.output;
}

INSTANTIATE_TEST_SUITE_P(
    All, CliBadArgs,
    ::testing::Values(
        BadArg{"--headless --block 2048x1", "2048 > 1024"}, BadArg{"--headless --block 0", "--block"},
        BadArg{"--headless --block 32xq", "--block"}, BadArg{"--headless --size 0", "--size"},
        BadArg{"--headless --size -5", "--size"}, BadArg{"--headless --size abc", "--size"},
        BadArg{"--headless --scene nosuch", "unknown scene 'nosuch'"},
        BadArg{"--headless --render-path warp", "--render-path"},
        BadArg{"--headless --frames abc", "--frames"}, BadArg{"--headless --frames -1", "--frames"},
        BadArg{"bench heat --size 0", "--size"}, BadArg{"bench heat --size 9000", "--size"},
        BadArg{"bench heat --block 2048x1", "2048 > 1024"}, BadArg{"bench heat --steps abc", "--steps"},
        BadArg{"bench heat --device tpu", "--device"}, BadArg{"bench nosuch", "nosuch"},
        BadArg{"info --render-path nope", "--render-path"}));

TEST(Cli, InfoWorksWithoutAGpu) {
  const auto r = test::run_blockscope("info");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("render path:"), std::string::npos) << r.output;
}

TEST(Cli, BenchHeatCpuRowsAreLabelled) {
  const auto r = test::run_blockscope("bench heat --size 300x200 --steps 5 --cpu-steps 3 --device cpu");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("CPU, 1 thread"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("threads (OpenMP)"), std::string::npos) << r.output;
}

}  // namespace bs
