// sweep_parts_test.cpp: the sweep's parts stand on their own. target.h alone (included first, so it must be
// self-contained) is enough to write a stand-in lab; the table in targets.cpp lists each lab's target once,
// through the function its lab folder exposes, and names the known labs when one is unknown; the helpers the
// targets share refuse values with messages that name them; definition.h validates against any target.
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

// A lab with two parameters that runs nothing: enough to exercise the interface without a lab.
class TwoParams final : public Target {
 public:
  const char* lab() const override { return "two"; }
  std::span<const ParamSpec> params() const override { return k_params; }
  const char* unit() const override { return "op/s"; }
  const char* time_label() const override { return "time per op (ms)"; }
  void validate(const Values& v) const override { (void)get_int(v, "a", 1, 8); }
  double work(const Values&) const override { return 1; }
  PointRun run(const Values&, const RunSettings&, JobControl&) const override { return {}; }

 private:
  static constexpr ParamSpec k_params[] = {{"a", "1", "1,2,4", "a count, 1..8"},
                                           {"b", "", "x,y", "a name (default: none)"}};
};

std::string message_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const InvalidRequest& e) {
    return e.what();
  }
  return "(no InvalidRequest)";
}

TEST(SweepParts, StandInTargetNeedsOnlyTheInterface) {
  const TwoParams t;
  EXPECT_EQ(default_values(t, {{"b", "y"}}), (Values{{"a", "1"}, {"b", "y"}}));
  EXPECT_EQ(default_values(t, {}), (Values{{"a", "1"}, {"b", ""}}));
  EXPECT_EQ(param_names(t), "a, b");
  ASSERT_NE(find_param(t, "b"), nullptr);
  EXPECT_STREQ(find_param(t, "b")->help, "a name (default: none)");
  EXPECT_EQ(find_param(t, "c"), nullptr);
}

TEST(SweepParts, TableListsEachLabsTargetOnce) {
  EXPECT_EQ(lab_names(), (std::vector<std::string>{"heat", "matmul", "montecarlo", "vector"}));
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
            "unknown lab 'fluid' (known: heat, matmul, montecarlo, vector)");
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

TEST(SweepParts, DefinitionValidatesAgainstAnyTarget) {
  const TwoParams t;
  Definition d;
  d.lab = "two";
  d.params = {{"c", {"1"}}};
  EXPECT_EQ(message_of([&] { validate_with(t, d); }), "unknown parameter 'c' for lab two (valid: a, b)");
  d.params = {{"a", {"1", "9"}}};
  EXPECT_EQ(message_of([&] { validate_with(t, d); }), "a = '9': outside 1..8");
  d.params = {{"a", {"1", "8"}}};
  EXPECT_NO_THROW(validate_with(t, d));
  // validate() looks the lab up in the table: "two" is not one of the labs.
  EXPECT_EQ(message_of([&] { validate(d); }), "unknown lab 'two' (known: heat, matmul, montecarlo, vector)");
}

}  // namespace
}  // namespace bs::sweep
