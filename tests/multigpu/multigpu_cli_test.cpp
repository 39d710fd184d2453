// multigpu_cli_test.cpp: `bench heat|montecarlo --gpus ...` through the built binary: bad lists exit 2 naming
// --gpus, with or without a GPU; without a GPU the multi-GPU rows are skipped plainly (exit 0); the
// single-GPU bench without --gpus is unchanged.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "run_util.h"
#include "image_util.h"
#include "test_util.h"

namespace bs {

// The words of the row of `gpus` in a `bench heat|montecarlo --gpus/--per-rank` table; empty when none.
std::vector<std::string> row_of(const std::string& out, int gpus) {
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string x; words >> x;)
      w.push_back(x);
    const bool percent = std::any_of(w.begin(), w.end(), [](const std::string& x) { return x.back() == '%'; });
    if (w.size() >= 8 && w[0] == std::to_string(gpus) && percent) return w;
  }
  return {};
}

// The total heat of a heat table's row (the column before the last).
std::string total_heat_of(const std::string& out, int gpus) {
  const auto w = row_of(out, gpus);
  return w.empty() ? "(no row for " + std::to_string(gpus) + " GPUs)" : w[w.size() - 2];
}

// The price of a Monte Carlo table's row (17 significant digits).
std::string price_of(const std::string& out, int gpus) {
  const auto w = row_of(out, gpus);
  return w.empty() ? "(no row for " + std::to_string(gpus) + " GPUs)" : w[5];
}

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

TEST(MultiGpuCli, BadPlanFlagsAreRefused) {
  for (const char* args : {"bench heat --gpus 1,2 --overlap maybe", "bench heat --gpus 1,2 --halo 0",
                           "bench montecarlo --gpus 1,2 --mc-streams 9",
                           "bench montecarlo --gpus 1,2 --mc-launch block"}) {
    const auto r = test::run_blockscope(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
  }
}

// The model's prediction runs anywhere (no GPU needed), for counts this machine lacks, and says it is one.
TEST(MultiGpuCli, PredictPrintsTheModelsPlanPerGpuCount) {
  const auto r = test::run_blockscope("bench heat --predict --gpus 1,2,4,8 --size 16384 --dram-gbs 3352");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("PREDICTION"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("nothing was run"), std::string::npos) << r.output;
  for (int k : {1, 2, 4, 8})
    EXPECT_FALSE(row_of(r.output, k).empty()) << k << "\n" << r.output;
  // Two nodes: a slower, longer link.
  const auto net = test::run_blockscope(
      "bench heat --predict --gpus 8 --size 16384 --dram-gbs 3352 --link-gbs 25 --latency-us 40");
  EXPECT_EQ(net.exit_code, 0) << net.output;
  EXPECT_NE(net.output.find("link 25 GB/s, 40 us"), std::string::npos) << net.output;
  const auto bad = test::run_blockscope("bench heat --predict --gpus 64 --size 50");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("cannot be split"), std::string::npos) << bad.output;
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

// `n` processes, one per GPU (per-rank mode, the id handed over through a file), each running `args`; the
// output of rank 0.
test::RunResult run_ranks(int n, const std::string& what, const std::string& args) {
  const std::string id = test::output_path("nccl_id_" + what + "_" + std::to_string(n));
  std::filesystem::remove(id);
  const std::string bin = test::blockscope_binary();
  std::string cmd, pids;
  for (int r = n - 1; r >= 1; --r) {
    cmd += bin + " bench " + what + " --per-rank --rank " + std::to_string(r) + " --nranks " + std::to_string(n) +
           " --nccl-id-file " + id + args + " > " + id + ".rank" + std::to_string(r) + " 2>&1 & p" +
           std::to_string(r) + "=$!; ";
    pids += " $p" + std::to_string(r);
  }
  // The exit status is rank 0's, or 1 when another rank failed.
  cmd += bin + " bench " + what + " --per-rank --rank 0 --nranks " + std::to_string(n) + " --nccl-id-file " + id +
         args + "; rc=$?; for p in" + pids + "; do wait $p || rc=1; done; exit $rc";
  return test::run_command(cmd);
}

int gpus_here() {
  const auto count = test::run_command("nvidia-smi -L 2>/dev/null | grep -c '^GPU'");
  return std::atoi(count.output.c_str());
}

// On two or more GPUs: one process per GPU (per-rank mode) computes the same field as one process driving
// them all (the same total heat to the last printed digit) and the identical price; for 2 GPUs and for every
// GPU of the machine (4 on a 4-GPU machine, 8 on an 8-GPU one).
TEST(MultiGpuCli, ProcessesPerRankEqualOneProcess) {
  if (!test::device().available) GTEST_SKIP() << "no CUDA device: " << test::device().reason;
  const int gpus = gpus_here();
  if (gpus < 2) GTEST_SKIP() << "needs 2 GPUs";
  std::vector<int> counts{2};
  if (gpus > 2) counts.push_back(std::min(gpus, 8));
  for (int n : counts) {
    const std::string args = " --size 1000x777 --steps 100 --mg-reps 2";
    const auto ranks = run_ranks(n, "heat", args);
    ASSERT_EQ(ranks.exit_code, 0) << ranks.output;
    const auto one = test::run_blockscope("bench heat --gpus " + std::to_string(n) + args);
    ASSERT_EQ(one.exit_code, 0) << one.output;
    EXPECT_EQ(total_heat_of(ranks.output, n), total_heat_of(one.output, n)) << ranks.output << "\n" << one.output;
    EXPECT_EQ(total_heat_of(one.output, n).find("no row"), std::string::npos) << one.output;
    const std::string mc = " --paths 1000003 --steps 64 --mg-reps 1";
    const auto mranks = run_ranks(n, "montecarlo", mc);
    ASSERT_EQ(mranks.exit_code, 0) << mranks.output;
    const auto mone = test::run_blockscope("bench montecarlo --gpus 1," + std::to_string(n) + mc);
    ASSERT_EQ(mone.exit_code, 0) << mone.output;
    EXPECT_EQ(price_of(mranks.output, n), price_of(mone.output, n)) << mranks.output << "\n" << mone.output;
    EXPECT_EQ(price_of(mone.output, 1), price_of(mone.output, n)) << mone.output;
    EXPECT_EQ(price_of(mone.output, n).find("no row"), std::string::npos) << mone.output;
  }
}

// Both launch modes of the Monte Carlo bench (one launch per GPU, the default, and one per chunk) say which
// they ran and price identically, for every GPU count.
TEST(MultiGpuCli, MonteCarloLaunchModesPriceTheSame) {
  if (!test::device().available) GTEST_SKIP() << "no CUDA device: " << test::device().reason;
  const std::string args = "bench montecarlo --gpus 1-3 --virtual --paths 300007 --steps 32 --mg-reps 1";
  const auto gpu = test::run_blockscope(args);
  const auto chunk = test::run_blockscope(args + " --mc-launch chunk");
  ASSERT_EQ(gpu.exit_code, 0) << gpu.output;
  ASSERT_EQ(chunk.exit_code, 0) << chunk.output;
  EXPECT_NE(gpu.output.find("one launch per GPU, 1 pricer per GPU"), std::string::npos) << gpu.output;
  EXPECT_NE(chunk.output.find("one launch per chunk, 2 pricers per GPU"), std::string::npos) << chunk.output;
  for (int k = 1; k <= 3; ++k) {
    EXPECT_EQ(price_of(gpu.output, k).find("no row"), std::string::npos) << gpu.output;
    EXPECT_EQ(price_of(gpu.output, k), price_of(chunk.output, k)) << gpu.output << "\n" << chunk.output;
    EXPECT_EQ(price_of(gpu.output, k), price_of(gpu.output, 1)) << gpu.output;
  }
}

// The model's plan is said for every GPU count, and --halo / --overlap override it.
TEST(MultiGpuCli, HeatSaysTheModelsPlanUnlessSet) {
  if (!test::device().available) GTEST_SKIP() << "no CUDA device: " << test::device().reason;
  const auto r = test::run_blockscope("bench heat --gpus 1-2 --virtual --size 1000x777 --steps 20 --mg-reps 1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("from the bandwidth model"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("2: virtual"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(model: "), std::string::npos) << r.output;
  const auto set = test::run_blockscope(
      "bench heat --gpus 2 --virtual --size 1000x777 --steps 20 --mg-reps 1 --halo 3 --overlap off");
  EXPECT_EQ(set.exit_code, 0) << set.output;
  EXPECT_NE(set.output.find("3 steps per exchange, not overlapped (set by --halo and --overlap)"), std::string::npos)
      << set.output;
}

}  // namespace bs
