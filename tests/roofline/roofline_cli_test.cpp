// roofline_cli_test.cpp: `blockscope roofline` as a user runs it: exit codes, the files, the CPU-only path.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "run_util.h"
#include "test_util.h"

namespace bs {
namespace {

namespace fs = std::filesystem;

TEST(RooflineCli, QuickRunWritesEveryFile) {
  const fs::path out = fs::path(BS_TEST_OUT) / "roofline_cli";
  fs::remove_all(out);
  const std::string cache = (fs::path(BS_TEST_OUT) / "roofline_cache").string();
  const test::RunResult r = test::run_blockscope("roofline --quick --out " + out.string() + " --cache-dir " +
                                                 cache + " --width 800 --height 500");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* name : {"roofline.csv", "roofline.json", "roofline.svg", "roofline.png", "record.json"})
    EXPECT_TRUE(fs::exists(out / name)) << name << "\n" << r.output;
  EXPECT_NE(r.output.find("CPU ceilings"), std::string::npos) << r.output;
  if (!test::device().available) {
    EXPECT_NE(r.output.find("the CPU part only"), std::string::npos) << r.output;
  }
  // Every lab reported runs.
  std::ifstream in(out / "roofline.csv");
  std::stringstream ss;
  ss << in.rdbuf();
  for (const char* lab : {",heat,", ",matmul,", ",vector,", ",montecarlo,", ",memory,", ",reduce,"})
    EXPECT_NE(ss.str().find(lab), std::string::npos) << lab;
  // A lab without roofline runs in its descriptor is named, not run.
  EXPECT_NE(r.output.find("not on the roofline (no roofline runs): multigpu"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("running multigpu"), std::string::npos) << r.output;
  // The second run reads the cached ceilings.
  const test::RunResult again =
      test::run_blockscope("roofline --quick --out " + (out / "again").string() + " --cache-dir " + cache);
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("from the cache"), std::string::npos) << again.output;
}

TEST(RooflineCli, BadInputExitsNonZero) {
  EXPECT_EQ(test::run_blockscope("roofline --width 10").exit_code, 2);
  EXPECT_EQ(test::run_blockscope("roofline --no-such-flag").exit_code, 2);
  EXPECT_EQ(test::run_blockscope("roofline extra-word").exit_code, 2);
  // An output folder that cannot be written: a file stands where the folder should be.
  const fs::path file = fs::path(BS_TEST_OUT) / "roofline_not_a_dir";
  fs::create_directories(file.parent_path());
  std::ofstream(file) << "x";
  const test::RunResult r = test::run_blockscope("roofline --quick --out " + file.string() + " --cache-dir " +
                                                 (fs::path(BS_TEST_OUT) / "roofline_cache").string());
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("blockscope:"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace bs
