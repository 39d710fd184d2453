// sim_exec_test.cpp: real kernels (the templates, warp shuffles and votes, divergent loops, shared tiles,
// atomics) compiled with NVRTC and run in the simulator on sizes that are not multiples of the block, compared
// with CPU references (bitwise where the operations are exact).
#include <cmath>
#include <cstring>

#include "gpu/kernel/contracts.h"
#include "sim_util.h"

namespace bs::sim::test {
namespace {

std::string template_text(const char* id) { return std::string(kernel::template_source(*kernel::find_template(id))); }

TEST(SimTemplates, VectorFormulaMatchesTheCpuOnAnOddSize) {
  REQUIRE_NVRTC();
  const Module m = module_of(template_text("vector"));
  const int64_t n = 1000;
  std::vector<float> a(n), b(n), c(n, -1.0f);
  for (int64_t i = 0; i < n; ++i) {
    a[static_cast<size_t>(i)] = 0.5f + 0.001f * static_cast<float>(i);
    b[static_cast<size_t>(i)] = 1.5f - 0.002f * static_cast<float>(i);
  }
  LaunchConfig cfg;
  cfg.grid = dim(4);
  cfg.block = dim(256);
  cfg.buffers = {buffer("a", a), buffer("b", b), buffer("c", c, true)};
  cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::pointer(2), Arg::value<int64_t>(n)};
  const LaunchResult r = launch(m, "vector_op", cfg);
  ASSERT_TRUE(r.ok) << r.failure.message;
  EXPECT_TRUE(r.diagnostics.empty()) << all_diagnostics(r);
  for (int64_t i = 0; i < n; ++i) {
    const size_t k = static_cast<size_t>(i);
    const double ref = (a[k] * 10.0 + 2.0) * ((b[k] + 2.0) * 10.0 - 5.0) * 5.0;
    ASSERT_NEAR(c[k], ref, 1e-5 * std::abs(ref)) << i;
  }
  EXPECT_EQ(r.threads.size(), 1024u);
  EXPECT_GT(r.thread_instructions, 0u);
}

}  // namespace
}  // namespace bs::sim::test
