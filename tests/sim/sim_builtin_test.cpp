// sim_builtin_test.cpp: the labs' own kernels (the memory lab's memory_kernels.cuh), compiled through NVRTC,
// run in the simulator exactly as the lab launches them, at sizes that are not multiples of the block, and
// compared with the lab's CPU reference (exact where the lab's check is exact, the particle step within its
// stated tolerance); no diagnostic on any of them. No GPU needed.
#include <gtest/gtest.h>

#include <span>

#include "builtin_kernels.h"
#include "sim_util.h"

namespace bs::sim::test {
namespace {

TEST(SimBuiltin, TheMemoryLabsKernelsMatchTheCpuReference) {
  REQUIRE_NVRTC();
  const Module m = module_of(memory_source());
  for (BuiltinCase& c : memory_cases()) {
    SCOPED_TRACE(c.label);
    const std::string entry = entry_named(m, {c.entry_parts[0]});
    ASSERT_FALSE(entry.empty()) << "no .entry named like " << c.entry_parts[0];
    const LaunchResult r = launch(m, entry, c.cfg);
    ASSERT_TRUE(r.ok) << r.failure.message;
    EXPECT_TRUE(r.diagnostics.empty()) << all_diagnostics(r);
    const memory::Check k = memory::compare(std::span<const float>(c.data[1]), c.want, c.rel_tol);
    EXPECT_TRUE(k.passed) << k.text;
    EXPECT_GT(r.thread_instructions, 0u);
  }
}

// The check can fail: a transpose whose output is read back untransposed does not match.
TEST(SimBuiltin, TheComparisonCatchesAWrongOutput) {
  REQUIRE_NVRTC();
  const Module m = module_of(memory_source());
  std::vector<BuiltinCase> cases = memory_cases();
  BuiltinCase& c = cases[1];  // naive
  ASSERT_EQ(c.label, "memory naive");
  const LaunchResult r = launch(m, entry_named(m, {c.entry_parts[0]}), c.cfg);
  ASSERT_TRUE(r.ok) << r.failure.message;
  EXPECT_FALSE(memory::compare(std::span<const float>(c.data[0]), c.want, 0).passed);
}

}  // namespace
}  // namespace bs::sim::test
