// cli_anatomy_test.cpp: `blockscope occupancy` and `blockscope anatomy heat` through CLI11, as main() runs
// them: output, messages naming the argument, and exit codes (2 bad input, 1 no GPU or CUDA failure).
#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/bench.h"
#include "test_util.h"

namespace bs::cli {
void register_anatomy_commands(CLI::App& app, BenchContext& ctx);
}

namespace {

struct Result {
  int code = 0;
  std::string out, err;
};

Result run(std::vector<std::string> args) {
  CLI::App app{"blockscope"};
  bs::cli::BenchContext ctx;
  bs::cli::register_anatomy_commands(app, ctx);
  args.insert(args.begin(), "blockscope");
  std::vector<const char*> argv;
  for (const auto& a : args)
    argv.push_back(a.c_str());
  Result r;
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
    r.code = ctx.exit_code;
  } catch (const CLI::ParseError& e) {
    r.code = app.exit(e);
  }
  r.out = testing::internal::GetCapturedStdout();
  r.err = testing::internal::GetCapturedStderr();
  return r;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CliOccupancy, IssueExample_Sm90_256Threads_64Regs) {
  const Result r = run({"occupancy", "--arch", "sm_90", "--threads", "256", "--regs", "64", "--smem", "0"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "resident per SM: 4 blocks")) << r.out;
  EXPECT_TRUE(has(r.out, "theoretical occupancy: 50.0%")) << r.out;
  EXPECT_TRUE(has(r.out, "limited by: registers")) << r.out;
  EXPECT_TRUE(has(r.out, "not a measurement")) << r.out;
}

TEST(CliOccupancy, CurvePrintsOneRowPerBlockSize) {
  const Result r = run({"occupancy", "--arch", "sm_86", "--regs", "40", "--smem", "8K", "--curve"});
  EXPECT_EQ(r.code, 0) << r.err;
  int rows = 0;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);)
    if (line.find('%') != std::string::npos) ++rows;
  EXPECT_EQ(rows, 32) << r.out;
}

TEST(CliOccupancy, BadInputNamesTheArgumentAndExits2) {
  Result r = run({"occupancy", "--arch", "sm_70"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "blockscope: --arch: 'sm_70'")) << r.err;
  EXPECT_TRUE(has(r.err, "sm_90")) << r.err;
  r = run({"occupancy", "--arch", "sm_90", "--smem", "lots"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--smem")) << r.err;
  r = run({"occupancy", "--arch", "sm_90", "--threads", "2048"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "threads per block")) << r.err;
  r = run({"occupancy", "--arch", "sm_90", "--kernel", "heat"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--kernel")) << r.err;
  r = run({"occupancy"});  // --arch is required: CLI11's own message, non-zero
  EXPECT_NE(r.code, 0);
}

TEST(CliOccupancy, DeviceArchUsesTheGpuOrSaysWhyNot) {
  const Result r = run({"occupancy", "--arch", "device", "--threads", "256"});
  if (!bs::test::device().available) {
    EXPECT_EQ(r.code, 1);
    EXPECT_TRUE(has(r.err, "no CUDA device: ")) << r.err;
    return;
  }
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "cudaOccupancyMaxActiveBlocksPerMultiprocessor")) << r.out;
  EXPECT_TRUE(has(r.out, "the model agrees")) << r.out;
  std::cout << r.out;
}

TEST(CliAnatomy, HeatWritesCsvAndSvgOrSaysThereIsNoGpu) {
  const auto dir = std::filesystem::temp_directory_path() / "bs_anatomy_cli_test";
  std::filesystem::remove_all(dir);
  const Result r = run({"anatomy", "heat", "--size", "1000", "--block", "32x8", "--out", dir.string()});
  if (!bs::test::device().available) {
    EXPECT_EQ(r.code, 1);
    EXPECT_TRUE(has(r.err, "no CUDA device: ")) << r.err;
    return;
  }
  ASSERT_EQ(r.code, 0) << r.err;
  std::cout << r.out;
  EXPECT_TRUE(has(r.out, "waves predicted")) << r.out;
  EXPECT_TRUE(has(r.out, "waves observed")) << r.out;
  std::ifstream csv(dir / "blocks.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header, "block_x,block_y,sm,start_ns,end_ns");
  int rows = 0;
  for (std::string line; std::getline(csv, line);)
    ++rows;
  EXPECT_EQ(rows, 32 * 125);  // 1000x1000 with 32x8 blocks: 32 x 125 blocks
  EXPECT_TRUE(std::filesystem::file_size(dir / "timeline.svg") > 1000);
}

TEST(CliAnatomy, BadInputExits2) {
  Result r = run({"anatomy", "heat", "--block", "64x32", "--out", "/tmp/x"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--block")) << r.err;
  r = run({"anatomy", "heat", "--size", "abc", "--out", "/tmp/x"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--size")) << r.err;
  r = run({"anatomy", "heat", "--size", "8192", "--block", "1x1", "--out", "/tmp/x"});  // too many blocks
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "record holds at most")) << r.err;
  r = run({"anatomy", "heat"});  // --out is required
  EXPECT_NE(r.code, 0);
}

TEST(CliAnatomy, MatmulBadInputExits2) {
  Result r = run({"anatomy", "matmul", "--variant", "warptile", "--out", "/tmp/x"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--variant: 'warptile' has no instrumented copy")) << r.err;
  EXPECT_TRUE(has(r.err, "smem_tile32")) << r.err;
  r = run({"anatomy", "matmul", "--size", "0", "--out", "/tmp/x"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--size")) << r.err;
  r = run({"anatomy", "matmul", "--size", "big", "--out", "/tmp/x"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--size: 'big'")) << r.err;
  r = run({"anatomy", "matmul", "--m", "9000", "--out", "/tmp/x"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "M = 9000")) << r.err;
  r = run({"anatomy", "matmul", "--m", "1", "--n", "1", "--k", "1"});  // --out is required
  EXPECT_NE(r.code, 0);
  r = run({"anatomy", "heat", "--cells-per-thread", "3", "--out", "/tmp/x"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--cells-per-thread")) << r.err;
}

TEST(CliAnatomy, MatmulWritesCsvSvgPngOrSaysThereIsNoGpu) {
  const auto dir = std::filesystem::temp_directory_path() / "bs_anatomy_cli_matmul_test";
  std::filesystem::remove_all(dir);
  // 1000 x 777 with 32x32 tiles: 25 x 32 blocks (grid x = columns).
  const Result r = run({"anatomy", "matmul", "--m", "1000", "--n", "777", "--k", "333", "--variant",
                        "smem_tile32", "--out", dir.string()});
  if (!bs::test::device().available) {
    EXPECT_EQ(r.code, 1);
    EXPECT_TRUE(has(r.err, "no CUDA device: ")) << r.err;
    return;
  }
  ASSERT_EQ(r.code, 0) << r.err;
  std::cout << r.out;
  EXPECT_TRUE(has(r.out, "waves predicted")) << r.out;
  std::ifstream csv(dir / "blocks.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header, "block_x,block_y,sm,start_ns,end_ns");
  int rows = 0;
  for (std::string line; std::getline(csv, line);)
    ++rows;
  EXPECT_EQ(rows, 25 * 32);
  EXPECT_TRUE(std::filesystem::file_size(dir / "timeline.svg") > 1000);
  if (!has(r.out, "timeline.png skipped")) {
    EXPECT_TRUE(std::filesystem::exists(dir / "timeline.png")) << r.out;
  }
}

TEST(CliAnatomy, ReduceBadInputExits2) {
  Result r = run({"anatomy", "reduce", "--variant", "cub", "--out", "/tmp/x"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "cub has no instrumented copy")) << r.err;
  r = run({"anatomy", "reduce", "--variant", "tree", "--out", "/tmp/x"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--variant: 'tree' is not a reduction")) << r.err;
  r = run({"anatomy", "reduce", "--n", "0", "--out", "/tmp/x"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "n = 0")) << r.err;
  r = run({"anatomy", "scan", "--variant", "blelloch-block", "--n", "1M", "--out", "/tmp/x"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "blelloch-block")) << r.err;
  r = run({"anatomy", "reduce", "--variant", "sequential", "--block", "96", "--out", "/tmp/x"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "block 96")) << r.err;
  r = run({"anatomy", "scan", "--scan-kind", "sideways", "--out", "/tmp/x"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--scan-kind")) << r.err;
  r = run(
      {"anatomy", "reduce", "--variant", "sequential", "--block", "32", "--n", "256M", "--out", "/tmp/x"});
  EXPECT_NE(r.code, 0);  // 8M blocks: more than the record holds (exit 2), or no GPU to ask (exit 1)
  r = run({"anatomy", "reduce"});  // --out is required
  EXPECT_NE(r.code, 0);
}

TEST(CliAnatomy, ScanWritesCsvTimelineAndArrayMapsOrSaysThereIsNoGpu) {
  const auto dir = std::filesystem::temp_directory_path() / "bs_anatomy_cli_scan_test";
  std::filesystem::remove_all(dir);
  // 1000003 elements in tiles of 256 x 32: 123 tiles.
  const Result r = run({"anatomy", "scan", "--n", "1000003", "--variant", "decoupled-lookback", "--type",
                        "int", "--out", dir.string()});
  if (!bs::test::device().available) {
    EXPECT_EQ(r.code, 1);
    EXPECT_TRUE(has(r.err, "no CUDA device: ")) << r.err;
    return;
  }
  ASSERT_EQ(r.code, 0) << r.err;
  std::cout << r.out;
  EXPECT_TRUE(has(r.out, "waves predicted")) << r.out;
  EXPECT_TRUE(has(r.out, "k_lookback")) << r.out;
  EXPECT_TRUE(has(r.out, "(the model agrees)")) << r.out;
  std::ifstream csv(dir / "blocks.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header, "block_x,block_y,sm,start_ns,end_ns");
  int rows = 0;
  for (std::string line; std::getline(csv, line);)
    ++rows;
  EXPECT_EQ(rows, 123);
  EXPECT_TRUE(std::filesystem::file_size(dir / "array_map_sm.png") > 100);
  EXPECT_TRUE(std::filesystem::file_size(dir / "array_map_start.png") > 100);
}

}  // namespace
