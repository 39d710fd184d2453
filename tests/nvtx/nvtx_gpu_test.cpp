// nvtx_gpu_test.cpp: on a GPU, what Nsight Systems users see, proven with the test tool nvtx_probe.cpp in
// place of nsys: the blockscope binary, run with NVTX_INJECTION64_PATH naming the probe, records a range
// "lab/variant" in the "blockscope" domain around a lab's timed GPU run (bench heat) and around each launch
// of a user's kernel (bench kernel), every range popped. Skipped, with the reason, without a CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "run_util.h"
#include "test_util.h"

namespace bs {
namespace {

namespace fs = std::filesystem;

struct Ranges {
  std::vector<std::string> lines;
  std::string output;  // the command's own output, for failure messages
  bool has_push_starting(const std::string& name) const {
    const std::string want = "push blockscope " + name;
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.rfind(want, 0) == 0; });
  }
  long count(const std::string& prefix) const {
    return std::count_if(lines.begin(), lines.end(), [&](const std::string& l) { return l.rfind(prefix, 0) == 0; });
  }
};

// `blockscope ARGS` with the probe attached; the probe's log, line by line.
Ranges run_with_probe(const std::string& name, const std::string& args) {
  const fs::path log = fs::path(BS_TEST_OUT) / "nvtx" / (name + ".log");
  fs::create_directories(log.parent_path());
  fs::remove(log);
  const test::RunResult r = test::run_blockscope(
      args, "NVTX_INJECTION64_PATH=" + std::string(BS_NVTX_PROBE) + " BS_NVTX_LOG=" + log.string() +
                " BLOCKSCOPE_CACHE_DIR=" + (log.parent_path() / "cache").string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  Ranges out;
  out.output = r.output;
  std::ifstream f(log);
  for (std::string l; std::getline(f, l);)
    out.lines.push_back(l);
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& l : v)
    s += l + "\n";
  return s;
}

TEST(NvtxGpu, ALabsTimedRunIsARangeNamedByLabAndVariant) {
  BS_REQUIRE_GPU();
  const Ranges r = run_with_probe("heat", "bench heat --size 512 --steps 20 --block 32x8 --device gpu");
  ASSERT_FALSE(r.lines.empty()) << "the probe recorded nothing: NVTX did not load it\n" << r.output;
  EXPECT_EQ(r.lines.front(), "loaded");
  EXPECT_TRUE(r.has_push_starting("heat/stencil block 32x8 cells/thread ")) << joined(r.lines) << r.output;
  EXPECT_EQ(r.count("push blockscope "), r.count("pop blockscope")) << joined(r.lines);
}

TEST(NvtxGpu, AUserKernelLaunchIsARangeNamedByItsKernel) {
  BS_REQUIRE_GPU();
  const std::string source = std::string(BS_SOURCE_DIR) + "/assets/kernels/heat_stencil.cu";
  const Ranges r =
      run_with_probe("kernel", "bench kernel --target heat --source " + source + " --size 300x200 --block 32x8");
  ASSERT_FALSE(r.lines.empty()) << "the probe recorded nothing: NVTX did not load it\n" << r.output;
  EXPECT_TRUE(r.has_push_starting("kernel/heat_step grid ")) << joined(r.lines) << r.output;
  EXPECT_TRUE(r.has_push_starting("kernel/heat_step timed runs")) << joined(r.lines) << r.output;
  EXPECT_EQ(r.count("push blockscope "), r.count("pop blockscope")) << joined(r.lines);
}

}  // namespace
}  // namespace bs
