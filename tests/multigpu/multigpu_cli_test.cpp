// multigpu_cli_test.cpp: `bench heat|montecarlo --gpus ...` through the built binary: bad lists exit 2 naming
// --gpus, with or without a GPU; without a GPU the multi-GPU rows are skipped plainly (exit 0); the
// single-GPU bench without --gpus is unchanged.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "run_util.h"
#include "image_util.h"
#include "test_util.h"

namespace bs {

TEST(MultiGpuCli, BadGpuListsNameTheFlag) {
  for (const char* args : {"bench heat --gpus 0", "bench heat --gpus 2-1", "bench montecarlo --gpus x",
                           "bench heat --gpus 1,1"}) {
    const auto r = test::run_blockscope(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("--gpus"), std::string::npos) << r.output;
  }
  // A bad --size is refused with or without a GPU (it used to pass where the GPU rows were skipped).
  for (const char* args : {"bench heat --gpus 1 --size 12x", "bench heat --gpus 1,2 --size 0"}) {
    const auto r = test::run_blockscope(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("--size"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("rows skipped"), std::string::npos) << r.output;
  }
}

TEST(MultiGpuCli, AnUnwritablePlotFolderIsRefusedFirst) {
  for (const char* args : {"bench heat --gpus 1 --scaling-out /nonexistent/dir/x",
                           "bench montecarlo --gpus 1 --scaling-out /nonexistent/dir/x"}) {
    const auto r = test::run_blockscope(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("--scaling-out"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("does not exist"), std::string::npos) << r.output;
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
  const auto v =
      test::run_blockscope("bench heat --gpus 1-3 --virtual --size 1000x777 --steps 20 --mg-reps 2");
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

// The total heat in the row of `gpus` of a `bench heat --gpus/--per-rank` table (the column before the last).
std::string total_heat_of(const std::string& out, int gpus) {
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string x; words >> x;)
      w.push_back(x);
    if (w.size() >= 8 && w[0] == std::to_string(gpus) && w[1].find('.') != std::string::npos)
      return w[w.size() - 2];
  }
  return "(no row for " + std::to_string(gpus) + " GPUs)";
}

// On two GPUs: one process per GPU (per-rank mode, the id handed over through a file) computes the same field
// as one process driving both GPUs: the same total heat to the last printed digit.
TEST(MultiGpuCli, TwoProcessesPerRankEqualOneProcess) {
  if (!test::device().available) GTEST_SKIP() << "no CUDA device: " << test::device().reason;
  const auto count = test::run_command("nvidia-smi -L 2>/dev/null | grep -c '^GPU'");
  if (std::atoi(count.output.c_str()) < 2) GTEST_SKIP() << "needs 2 GPUs";
  const std::string id = test::output_path("nccl_id_two_ranks");
  std::filesystem::remove(id);
  const std::string args = " --size 1000x777 --steps 100 --mg-reps 2 --halo 2";
  const std::string bin = test::blockscope_binary();
  const auto ranks =
      test::run_command(bin + " bench heat --per-rank --rank 1 --nranks 2 --nccl-id-file " + id + args +
                        " > " + id + ".rank1 2>&1 & " + bin +
                        " bench heat --per-rank --rank 0 --nranks 2 --nccl-id-file " + id + args + "; wait");
  ASSERT_EQ(ranks.exit_code, 0) << ranks.output;
  const auto one = test::run_blockscope("bench heat --gpus 2" + args);
  ASSERT_EQ(one.exit_code, 0) << one.output;
  EXPECT_EQ(total_heat_of(ranks.output, 2), total_heat_of(one.output, 2)) << ranks.output << "\n"
                                                                          << one.output;
  EXPECT_EQ(total_heat_of(one.output, 2).find("no row"), std::string::npos) << one.output;
}

}  // namespace bs
