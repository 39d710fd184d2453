// sweep_parts_test.cpp: the sweep's parts stand on their own. target.h is included first (so it must be
// self-contained) and its helpers work on any lab's target; the table in targets.cpp lists each lab's target
// once, through the function its lab folder exposes, and names the known labs when one is unknown; the
// helpers the targets share refuse values with messages that name them; definition.h validates against any
// target.
#include "app/sweep/target.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "app/heat/heat_sweep_target.h"
#include "app/matmul/matmul_sweep_target.h"
#include "app/montecarlo/montecarlo_sweep_target.h"
#include "app/vector/vector_sweep_target.h"
#include "app/sweep/definition.h"
#include "app/sweep/target_util.h"
#include "app/sweep/targets.h"
#include "core/error.h"

namespace bs::sweep {
namespace {

std::string message_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const InvalidRequest& e) {
    return e.what();
  }
  return "(no InvalidRequest)";
}

TEST(SweepParts, TargetInterfaceHelpers) {
  const Target& t = heat_sweep_target();
  EXPECT_EQ(default_values(t, {{"size", "64"}}), (Values{{"size", "64"},
                                                         {"block.x", "64"},
                                                         {"block.y", "4"},
                                                         {"cells", "8"},
                                                         {"kernel", "built-in"},
                                                         {"steps", "50"}}));
  EXPECT_EQ(param_names(t), "size, block.x, block.y, cells, kernel, steps");
  ASSERT_NE(find_param(t, "cells"), nullptr);
  EXPECT_STREQ(find_param(t, "cells")->help, "cells per thread down y: 1, 2, 4, 8");
  EXPECT_EQ(find_param(t, "c"), nullptr);
}

TEST(SweepParts, TableListsEachLabsTargetOnce) {
  EXPECT_EQ(lab_names(),
            (std::vector<std::string>{"heat", "matmul", "montecarlo", "vector", "memory", "reduce", "multigpu"}));
  for (const std::string& lab : lab_names()) {
    ASSERT_NE(find_target(lab), nullptr) << lab;
    EXPECT_EQ(find_target(lab)->lab(), lab);
    EXPECT_EQ(&target_of(lab), find_target(lab)) << lab;
  }
  // The table holds the very objects each lab folder exposes.
  EXPECT_EQ(find_target("heat"), &heat_sweep_target());
  EXPECT_EQ(find_target("matmul"), &matmul_sweep_target());
  EXPECT_EQ(find_target("montecarlo"), &montecarlo_sweep_target());
  EXPECT_EQ(find_target("vector"), &vector_sweep_target());
  EXPECT_EQ(find_target("fluid"), nullptr);
  EXPECT_EQ(message_of([] { (void)target_of("fluid"); }),
            "unknown lab 'fluid' (known: heat, matmul, montecarlo, vector, memory, reduce, multigpu)");
}

TEST(SweepParts, TargetHelpersNameTheValue) {
  const Values v{{"block.x", "abc"}, {"size", "64K"}, {"n", "2^4"}};
  EXPECT_EQ(get(v, "missing"), "");
  EXPECT_EQ(get_int(v, "n", 1, 16), 16);
  EXPECT_EQ(get_int(v, "size", 1, 1 << 20), 65536);
  EXPECT_EQ(message_of([&] { (void)get_int(v, "block.x", 1, 1024); }),
            "block.x = 'abc': not a whole number (e.g. 256, 64K, 2^20)");
  EXPECT_EQ(message_of([&] { (void)get_int(v, "size", 1, 1024); }), "size = '64K': outside 1..1024");
  EXPECT_EQ(rates({2.0, 0.0, 500.0}, 1.0), (std::vector<double>{500.0, 0.0, 2.0}));
  RunSettings s;
  s.warmup = 3;
  s.repetitions = 7;
  EXPECT_EQ(samples_of(s), 10.0);
  // time_host: the warm-up calls run but are not kept; one sample per timed call.
  JobControl ctl;
  int calls = 0;
  const std::vector<double> ms = time_host(
      2, 3, ctl, [&] { ++calls; }, 4.0);
  EXPECT_EQ(calls, 5);
  ASSERT_EQ(ms.size(), 3u);
  for (double t : ms)
    EXPECT_GE(t, 0.0);
  ctl.cancel();
  EXPECT_THROW(check_cancel(ctl), JobCancelled);
}

TEST(SweepParts, DefinitionValidatesAgainstAGivenTarget) {
  const Target& t = matmul_sweep_target();
  Definition d;
  d.lab = "two";  // validate_with() does not look the lab up
  d.params = {{"c", {"1"}}};
  EXPECT_EQ(message_of([&] { validate_with(t, d); }),
            "unknown parameter 'c' for lab two (valid: size, m, n, k, variant)");
  d.params = {{"size", {"64", "0"}}};
  EXPECT_EQ(message_of([&] { validate_with(t, d); }).rfind("size = '0': outside ", 0), 0u);
  d.params = {{"size", {"64", "128"}}};
  EXPECT_NO_THROW(validate_with(t, d));
  // validate() looks the lab up in the table: "two" is not one of the labs.
  EXPECT_EQ(message_of([&] { validate(d); }),
            "unknown lab 'two' (known: heat, matmul, montecarlo, vector, memory, reduce, multigpu)");
}

}  // namespace
}  // namespace bs::sweep
