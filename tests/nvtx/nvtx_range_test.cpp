// nvtx_range_test.cpp: bs::NvtxRange's ranges are real NVTX ranges, proven with NVTX's own injection mechanism
// and no profiler: a child process (so NVTX_INJECTION64_PATH is set before its first NVTX call) loads the test
// tool nvtx_probe.cpp, pushes nested ranges, and the tool's log must show them, named, in the "blockscope"
// domain, each popped. Without the variable no tool loads and nothing is recorded (the ranges are no-ops).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "child_process.h"
#include "gpu/common/nvtx_range.h"

namespace bs {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> lines_of(const fs::path& p) {
  std::vector<std::string> out;
  std::ifstream f(p);
  for (std::string l; std::getline(f, l);)
    out.push_back(l);
  return out;
}

// Runs nested ranges in a child process with the probe attached (or not) and returns its log's lines.
std::vector<std::string> ranges_in_child(const std::string& name, bool attach) {
  const fs::path log = fs::path(BS_TEST_OUT) / "nvtx" / (name + ".log");
  fs::create_directories(log.parent_path());
  fs::remove(log);
  const int code = test::run_in_child(
      [&] {
        if (attach) setenv("NVTX_INJECTION64_PATH", BS_NVTX_PROBE, 1);
        setenv("BS_NVTX_LOG", log.c_str(), 1);
        const NvtxRange outer("heat/stencil block 32x8 cells/thread 1");
        { const NvtxRange inner("kernel/heat_step grid 2x3 block 32x8"); }
        return 0;
      },
      30);
  EXPECT_EQ(code, 0);
  return lines_of(log);
}

TEST(NvtxRange, AnAttachedToolSeesEveryRangeNamedInTheBlockscopeDomain) {
  const std::vector<std::string> got = ranges_in_child("attached", true);
  const std::vector<std::string> want = {"loaded",
                                         "domain blockscope",
                                         "push blockscope heat/stencil block 32x8 cells/thread 1",
                                         "push blockscope kernel/heat_step grid 2x3 block 32x8",
                                         "pop blockscope",
                                         "pop blockscope"};
  EXPECT_EQ(got, want);
}

TEST(NvtxRange, WithoutAToolNothingIsRecorded) {
  EXPECT_TRUE(ranges_in_child("detached", false).empty());
}

}  // namespace
}  // namespace bs
