// sweep_cli_test.cpp: `blockscope sweep` and `blockscope replay` run as a user would (BLOCKSCOPE_BIN may name
// another binary): all six files written, exit 2 with a message naming the argument on bad input, a replay
// that reproduces the definition, and a corrupt or missing record refused with a message.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/sweep/record.h"
#include "run_util.h"
#include "sweep_files.h"
#include "app/sweep/sweep.h"
#include "gpu/common/device_info.h"

namespace {

namespace fs = std::filesystem;
using bs::test::run_blockscope;

using bs::test::read_json;

fs::path out_dir(const std::string& name) {
  return bs::test::fresh_out_dir("sweep", name);
}

constexpr const char* k_files[] = {"sweep.csv",  "summary.csv", "sweep.json",
                                   "figure.svg", "figure.png",  "record.json"};
const std::string k_tiny =
    "heat --param size=16,32 --param block.x=16,32 --fixed steps=1 --reps 2 --warmup 1 "
    "--device cpu --png 400x300";

TEST(SweepCli, WritesAllSixFiles) {
  const fs::path dir = out_dir("cli");
  const auto r = run_blockscope("sweep " + k_tiny + " --out " + dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* f : k_files) {
    EXPECT_TRUE(fs::exists(dir / f)) << f << "\n" << r.output;
    EXPECT_GT(fs::file_size(dir / f), 0u) << f;
  }
  EXPECT_NE(r.output.find("[4/4] size=32 block.x=32"), std::string::npos) << r.output;  // progress
  EXPECT_NE(r.output.find("median ms"), std::string::npos) << r.output;                 // the table
  const nlohmann::json rec = read_json(dir / "record.json");
  EXPECT_EQ(rec["blockscope_version"], bs::record::k_blockscope_version);
  EXPECT_EQ(rec["sweep"]["lab"], "heat");
  EXPECT_EQ(rec["parameters"]["steps"], "1");
  EXPECT_EQ(rec["parameters"]["size"], nlohmann::json::array({"16", "32"}));
  EXPECT_TRUE(rec["host"]["threads"].get<int>() >= 1);
  EXPECT_TRUE(rec["gpu"].contains("available"));
  EXPECT_EQ(rec["files"].size(), 6u);
  EXPECT_EQ(rec["export"]["width"], 400);
  // The raw CSV has one row per sample: 4 points x 2 CPU series x 2 reps + header.
  std::ifstream csv(dir / "sweep.csv");
  std::string line;
  int lines = 0;
  while (std::getline(csv, line))
    ++lines;
  EXPECT_EQ(lines, 1 + 4 * 2 * 2);
  const bs::sweep::Result back = bs::sweep::result_from_json(read_json(dir / "sweep.json"));
  EXPECT_EQ(back.points.size(), 4u);
  EXPECT_EQ(bs::sweep::figure_for(back).kind, bs::fig::Kind::Heatmap);
}

TEST(SweepCli, BadArgumentsExit2NamingTheArgument) {
  const std::string out = " --out " + out_dir("bad").string();
  struct Case {
    std::string args, expect;
  };
  const Case cases[] = {
      {"sweep fluid --param size=16" + out, "unknown lab 'fluid'"},
      {"sweep heat --param threads=16" + out, "unknown parameter 'threads'"},
      {"sweep heat --param block.x=16,0" + out, "block.x = '0'"},
      {"sweep heat --param size=16", "--out"},
      {"sweep heat" + out, "--param"},
      {"sweep heat --param size=16 --device tpu" + out, "--device"},
      {"sweep heat --param size=16 --png 10" + out, "--png"},
      {"sweep heat --param size=16 --fixed steps" + out, "--fixed 'steps'"},
  };
  for (const Case& c : cases) {
    const auto r = run_blockscope(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.expect), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find("blockscope: "), std::string::npos) << r.output;
  }
}

TEST(SweepCli, DeviceGpuWithoutAGpuExits1WithTheReason) {
  if (bs::query_device().available) GTEST_SKIP() << "this machine has a GPU";
  const auto r = run_blockscope("sweep heat --param size=16 --device gpu --out " + out_dir("nogpu").string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--device gpu: no CUDA device"), std::string::npos) << r.output;
}

TEST(SweepCli, ReplayReproducesTheDefinition) {
  const fs::path dir = out_dir("replay-src"), again = out_dir("replay-out");
  ASSERT_EQ(run_blockscope("sweep " + k_tiny + " --out " + dir.string()).exit_code, 0);
  const auto r = run_blockscope("replay " + (dir / "record.json").string() + " --out " + again.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* f : k_files)
    EXPECT_TRUE(fs::exists(again / f)) << f;
  const nlohmann::json a = read_json(dir / "record.json"), b = read_json(again / "record.json");
  EXPECT_EQ(bs::sweep::definition_from_json(a["sweep"]), bs::sweep::definition_from_json(b["sweep"]));
  EXPECT_EQ(a["parameters"], b["parameters"]);
  EXPECT_EQ(a["files"], b["files"]);
  EXPECT_EQ(a["export"], b["export"]);
}

TEST(SweepCli, CorruptOrMissingRecordIsRefused) {
  const fs::path dir = out_dir("corrupt");
  fs::create_directories(dir);
  std::ofstream(dir / "record.json") << "{\"blockscope_record\": 1, \"sweep\": {\"lab\": ";
  auto r = run_blockscope("replay " + (dir / "record.json").string());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("not valid JSON"), std::string::npos) << r.output;
  std::ofstream(dir / "other.json") << "{\"hello\": 1}";
  r = run_blockscope("replay " + (dir / "other.json").string());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("not a blockscope record"), std::string::npos) << r.output;
  r = run_blockscope("replay " + (dir / "missing.json").string());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("cannot open"), std::string::npos) << r.output;
  EXPECT_THROW(bs::record::load_record((dir / "other.json").string()), std::runtime_error);
}

}  // namespace
