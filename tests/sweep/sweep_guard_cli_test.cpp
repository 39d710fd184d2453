// sweep_guard_cli_test.cpp: `blockscope sweep` and `replay` refuse what would go wrong before the first
// point runs (an output folder that cannot be written, bad export sizes, a folder another sweep holds,
// a sweep estimated at hours, counts that would wrap, a variant sweep that would measure nothing), a replay
// never overwrites the original files, and device auto runs on the CPU here and says so.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/sweep/record.h"
#include "run_util.h"
#include "app/sweep/sweep.h"
#include "gpu/common/device_info.h"
#include "core/error.h"
#include "test_util.h"

namespace {

namespace fs = std::filesystem;
using bs::test::read_text;
using bs::test::run_blockscope;

fs::path out_dir(const std::string& name) {
  const fs::path p = fs::path(BS_TEST_OUT) / "sweep-guard" / name;
  fs::remove_all(p);
  return p;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

const std::string k_tiny =
    "heat --param size=16,24 --fixed steps=1 --reps 2 --warmup 0 --device cpu --png 200x150";

// Nothing ran: no progress line, no files.
void expect_nothing_ran(const bs::test::RunResult& r) {
  EXPECT_FALSE(contains(r.output, "[1/")) << r.output;
  EXPECT_FALSE(contains(r.output, "wrote into")) << r.output;
}

TEST(SweepGuardCli, OutputThatIsAFileOrCannotBeCreatedIsRefusedFirst) {
  const fs::path dir = out_dir("file");
  fs::create_directories(dir);
  std::ofstream(dir / "plain") << "not a folder";
  auto r = run_blockscope("sweep " + k_tiny + " --out " + (dir / "plain").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "is a file, not a directory")) << r.output;
  expect_nothing_ran(r);
  r = run_blockscope("sweep " + k_tiny + " --out " + (dir / "plain" / "below").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "cannot create the output directory")) << r.output;
  expect_nothing_ran(r);
}

TEST(SweepGuardCli, SecondSweepIntoALockedFolderIsRefusedStaleLockTakenOver) {
  const fs::path dir = out_dir("lock");
  fs::create_directories(dir);
  // A live holder: this test process.
  std::ofstream(dir / ".blockscope-lock") << getpid() << "\n";
  auto r = run_blockscope("sweep " + k_tiny + " --out " + dir.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "in use by another sweep (process " + std::to_string(getpid()))) << r.output;
  expect_nothing_ran(r);
  EXPECT_TRUE(fs::exists(dir / ".blockscope-lock")) << "someone else's lock must stay";
  // A dead holder (a crashed sweep): taken over, and the lock is gone after the sweep.
  std::ofstream(dir / ".blockscope-lock", std::ios::trunc) << 2147483647 << "\n";
  r = run_blockscope("sweep " + k_tiny + " --out " + dir.string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "stale lock")) << r.output;
  EXPECT_TRUE(fs::exists(dir / "record.json"));
  EXPECT_FALSE(fs::exists(dir / ".blockscope-lock"));
}

TEST(SweepGuardCli, DirLockIsExclusiveWithinAProcess) {
  const fs::path dir = out_dir("lock-unit");
  fs::create_directories(dir);
  {
    const bs::record::DirLock first(dir.string());
    EXPECT_THROW({ const bs::record::DirLock second(dir.string()); }, bs::InvalidRequest);
  }
  EXPECT_FALSE(fs::exists(dir / bs::record::DirLock::k_name));
  EXPECT_NO_THROW({ const bs::record::DirLock again(dir.string()); });
}

TEST(SweepGuardCli, LongSweepsNeedForceAndWrappingCountsAreRefused) {
  const fs::path dir = out_dir("long");
  auto r = run_blockscope(
      "sweep heat --param size=8192 --fixed steps=100000 --reps 1000 --device cpu --out " + dir.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "estimated at about")) << r.output;
  EXPECT_TRUE(contains(r.output, "--force")) << r.output;
  expect_nothing_ran(r);
  EXPECT_FALSE(fs::exists(dir / "record.json"));
  r = run_blockscope("sweep matmul --param size=8192 --fixed variant=cpu_naive --device cpu --out " +
                     dir.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "estimated at about")) << r.output;
  for (const char* reps : {"4294967297", "0", "1001", "-4294967295"}) {
    r = run_blockscope("sweep " + k_tiny + " --reps " + reps + " --out " + dir.string());
    EXPECT_NE(r.exit_code, 0) << reps << "\n" << r.output;
    EXPECT_TRUE(contains(r.output, "--reps")) << reps << "\n" << r.output;
    expect_nothing_ran(r);
  }
}

// A record as `blockscope sweep` writes it, edited.
fs::path tiny_record(const std::string& name) {
  const fs::path dir = out_dir(name);
  const auto r = run_blockscope("sweep " + k_tiny + " --out " + dir.string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return dir / "record.json";
}

void edit_record(const fs::path& p, const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json j = nlohmann::json::parse(read_text(p));
  edit(j);
  std::ofstream(p, std::ios::trunc) << j.dump(1);
}

TEST(SweepGuardCli, ReplayRefusesBadRecordsBeforeRunning) {
  const fs::path rec = tiny_record("bad-record");
  const fs::path out = out_dir("bad-record-out");
  const struct {
    std::function<void(nlohmann::json&)> edit;
    std::string expect;
  } cases[] = {
      {[](nlohmann::json& j) { j["sweep"]["repetitions"] = 4294967297ULL; }, "outside 1..1000"},
      {[](nlohmann::json& j) { j["export"]["width"] = 10; }, "export.width"},
      {[](nlohmann::json& j) { j["export"]["height"] = 4294967360LL; }, "export.height"},
      {[](nlohmann::json& j) { j["export"]["scale"] = 0; }, "export.scale"},
      {[](nlohmann::json& j) {
         j["sweep"]["params"][0]["values"] = {"8192"};
         j["sweep"]["repetitions"] = 1000;
         j["sweep"]["fixed"]["steps"] = "100000";
       },
       "estimated at about"},
  };
  const std::string original = read_text(rec);
  for (const auto& c : cases) {
    std::ofstream(rec, std::ios::trunc) << original;
    edit_record(rec, c.edit);
    const auto r = run_blockscope("replay " + rec.string() + " --out " + out.string());
    EXPECT_EQ(r.exit_code, 2) << c.expect << "\n" << r.output;
    EXPECT_TRUE(contains(r.output, c.expect)) << r.output;
    expect_nothing_ran(r);
  }
}

TEST(SweepGuardCli, ReplayWithoutOutWritesANewFolder) {
  const fs::path rec = tiny_record("replay-src");
  const fs::path src = rec.parent_path();
  for (const auto& e : fs::directory_iterator(src.parent_path()))
    if (contains(e.path().filename().string(), "replay-src-replay-")) fs::remove_all(e.path());
  const std::string before = read_text(rec), csv_before = read_text(src / "sweep.csv");
  const auto r = run_blockscope("replay " + rec.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_text(rec), before) << "the original record was overwritten";
  EXPECT_EQ(read_text(src / "sweep.csv"), csv_before) << "the original samples were overwritten";
  std::vector<fs::path> made;
  for (const auto& e : fs::directory_iterator(src.parent_path()))
    if (contains(e.path().filename().string(), "replay-src-replay-")) made.push_back(e.path());
  ASSERT_EQ(made.size(), 1u) << r.output;
  EXPECT_TRUE(fs::exists(made[0] / "record.json"));
  EXPECT_TRUE(contains(r.output, made[0].filename().string())) << "the replay says where: " << r.output;
  // A second replay within the same second gets yet another folder, never the first one's.
  const auto again = run_blockscope("replay " + rec.string());
  ASSERT_EQ(again.exit_code, 0) << again.output;
  size_t count = 0;
  for (const auto& e : fs::directory_iterator(src.parent_path()))
    count += contains(e.path().filename().string(), "replay-src-replay-") ? 1 : 0;
  EXPECT_EQ(count, 2u);
}

TEST(SweepGuardCli, FreshDirNeverReturnsAnExistingPath) {
  const fs::path base = out_dir("fresh");
  EXPECT_EQ(bs::record::fresh_dir(base.string()), base.string());
  fs::create_directories(base);
  fs::create_directories(base.string() + "-2");
  EXPECT_EQ(bs::record::fresh_dir(base.string()), base.string() + "-3");
}

TEST(SweepGuardCli, VariantSweepThatMeasuresNothingFailsWithoutAFigure) {
  const fs::path dir = out_dir("variants");
  const auto r = run_blockscope(
      "sweep matmul --param variant=naive_coalesced,smem_tile32 --fixed size=64 --reps 2 --device cpu "
      "--out " +
      dir.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "run only on the GPU")) << r.output;
  EXPECT_FALSE(fs::exists(dir / "figure.png"));
  EXPECT_FALSE(fs::exists(dir / "figure.svg"));
  expect_nothing_ran(r);
}

TEST(SweepGuardCli, DeviceAutoRunsOnTheCpuWithoutAGpuAndCrownsNoNoise) {
  if (bs::query_device().available) GTEST_SKIP() << "this machine has a GPU: auto runs the GPU series";
  const fs::path dir = out_dir("auto");
  const auto r = run_blockscope(
      "sweep heat --param block.x=16,32 --param block.y=1,2 --fixed size=32 --fixed steps=1 --reps 3 "
      "--warmup 0 --device auto --out " +
      dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "no GPU here")) << r.output;
  EXPECT_TRUE(contains(r.output, "block.x and block.y do not change CPU time")) << r.output;
  const bs::sweep::Result res =
      bs::sweep::result_from_json(nlohmann::json::parse(read_text(dir / "sweep.json")));
  EXPECT_FALSE(res.points.at(0).series.empty());
  const bs::fig::Figure f = bs::sweep::figure_for(res);
  ASSERT_EQ(f.kind, bs::fig::Kind::Heatmap);
  EXPECT_EQ(bs::fig::best_cell(f.heatmap), -1);
  EXPECT_FALSE(contains(read_text(dir / "figure.svg"), "best-cell"));
  EXPECT_TRUE(contains(read_text(dir / "figure.svg"), "do not change CPU time"));
}

}  // namespace
