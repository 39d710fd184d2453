// scan_exercise_test.cpp: exercise 20, the whole-array prefix sum in one launch (a chained scan: tickets,
// published tile prefixes, a spin on the previous tile's flag). The simulator runs blocks on several host
// threads, so a block spins while another finishes the tile before it; with one worker the tile before is
// always done. The reference passes every test both ways; the starter (block scans, no protocol) fails the
// first visible test on the tile's unpublished sum, and a kernel that publishes but never adds the prefix fails
// the four-tile test at the first element of the second tile.
#include <gtest/gtest.h>

#include <optional>
#include <utility>

#include "gpu/exercise/export.h"
#include "gpu/exercise/runner.h"
#include "gpu/kernel/nvrtc_loader.h"
#include "check_expect.h"

namespace bs::exercise {
namespace {

// The exercise, or nothing with the loader's message as a failure: each test then stops (ASSERT) instead of
// running on an empty exercise (which crashed the binary where the pack was missing).
std::optional<Exercise> scan_exercise() {
  LoadResult r = load_exercise(std::string(BS_SOURCE_DIR) + "/assets/exercises/20_scan");
  if (!r.exercise) ADD_FAILURE() << r.error;
  return std::move(r.exercise);
}

TEST(ScanExercise, TheReferencePassesWithOneAndWithTwoWorkers) {
  REQUIRE_NVRTC();
  const std::optional<Exercise> loaded = scan_exercise();
  ASSERT_TRUE(loaded);
  const Exercise& e = *loaded;
  for (int workers : {1, 2}) {
    SCOPED_TRACE(workers);
    RunOptions o;
    o.workers = workers;
    const CheckResult r = check_source(e, e.reference, "reference.cu", o);
    ASSERT_TRUE(r.compiled.ok) << r.compiled.message;
    EXPECT_EQ(r.error, "");
    ASSERT_EQ(r.tests.size(), 5u);
    for (const ScoreItem& s : r.tests.front().score) EXPECT_TRUE(s.met()) << score_line(r.tests.front().score);
    for (const TestResult& t : r.tests) EXPECT_TRUE(t.passed) << t.test.name << ": " << t.stopped << t.check;
  }
}

TEST(ScanExercise, TheStarterFailsOnTheUnpublishedSumAndAnUnchainedScanAtTheSecondTile) {
  REQUIRE_NVRTC();
  const std::optional<Exercise> loaded = scan_exercise();
  ASSERT_TRUE(loaded);
  const Exercise& e = *loaded;
  const CheckResult r = check_source(e, e.starter, "starter.cu");
  ASSERT_TRUE(r.compiled.ok) << r.compiled.message;
  ASSERT_EQ(r.first_failure, 0);
  // One tile: `out` is right, but the tile's published sum (checked: the protocol is part of the contract) is
  // missing.
  const TestResult& t = r.tests[0];
  EXPECT_EQ(t.test.name, "n=256");
  ASSERT_TRUE(t.wrong);
  EXPECT_EQ(t.wrong->buffer, "sums");
  EXPECT_EQ(t.wrong->index, 0u);
  EXPECT_TRUE(t.wrong->writers.empty());
  // With the protocol but no chaining (the prefix never added), four tiles fail at the second tile's first element.
  std::string unchained = e.reference;
  const std::string add = "out[i] = before + buf[src][t]";
  const size_t at = unchained.find(add);
  ASSERT_NE(at, std::string::npos);
  unchained = unchained.substr(0, at) + "out[i] = buf[src][t]" + unchained.substr(at + add.size());
  RunOptions o;
  o.workers = 1;  // blocks take tickets in order: block 1 scans tile 1
  const CheckResult u = check_source(e, unchained, "mine.cu", o);
  ASSERT_TRUE(u.compiled.ok) << u.compiled.message;
  ASSERT_EQ(u.first_failure, 1);
  EXPECT_EQ(u.tests[1].test.name, "n=1000");
  ASSERT_TRUE(u.tests[1].wrong);
  EXPECT_EQ(u.tests[1].wrong->buffer, "out");
  EXPECT_EQ(u.tests[1].wrong->index, 256u);
  EXPECT_EQ(u.tests[1].wrong->writers.front(), "thread (0, 0, 0) of block (1, 0, 0)");
}

// The CuPy snippet sizes the tile sums with ceil_div(n, 256): ceil_div is defined before the first buffer
// uses it (on the H100 the snippet stopped with "NameError: name 'ceil_div' is not defined").
TEST(ScanExercise, TheCupySnippetDefinesCeilDivBeforeTheBuffersUseIt) {
  const std::optional<Exercise> loaded = scan_exercise();
  ASSERT_TRUE(loaded);
  const Exercise& e = *loaded;
  const Export x = export_exercise(e, e.reference);
  ASSERT_EQ(x.error, "");
  const size_t def = x.cupy.find("ceil_div = lambda");
  const size_t buffers = x.cupy.find("d_sums = ");
  ASSERT_NE(def, std::string::npos);
  ASSERT_NE(buffers, std::string::npos);
  EXPECT_LT(def, buffers);
  EXPECT_NE(x.cupy.find("ceil_div(n, 256)", buffers), std::string::npos);
}

// The reference's outputs are checked against a prefix sum computed here, not only against themselves: the
// runner compares a submission with the reference's simulated run, so a simulator that got the reference wrong
// passed it in the simulator and failed it on the GPU (on the H100: out[1]: expected 4294967434, got 138, the
// simulated sum of a negative int widened without its sign).
TEST(ScanExercise, TheSimulatedReferenceEqualsAPrefixSumComputedOnTheHost) {
  REQUIRE_NVRTC();
  const std::optional<Exercise> loaded = scan_exercise();
  ASSERT_TRUE(loaded);
  const Exercise& e = *loaded;
  const Compiled ref = compile_source(e, e.reference, "reference.cu");
  ASSERT_TRUE(ref.ok) << ref.message;
  for (const TestCase& t : e.tests) {
    SCOPED_TRACE(t.name);
    Replay r = prepare_replay(e, t, RunOptions{});
    ASSERT_EQ(r.error, "");
    const std::vector<uint32_t> a = r.data[0];
    run_replay(ref, r, nullptr);
    ASSERT_TRUE(r.result.ok);
    const std::vector<uint32_t>& out = r.data[1];
    ASSERT_EQ(out.size(), 2 * a.size());
    int negatives = 0;
    int64_t sum = 0;
    uint64_t wrong = 0, first = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      negatives += static_cast<int32_t>(a[i]) < 0;
      sum += static_cast<int32_t>(a[i]);
      const int64_t got = static_cast<int64_t>(uint64_t{out[2 * i]} | uint64_t{out[2 * i + 1]} << 32);
      if (got != sum && wrong++ == 0) first = i;
    }
    EXPECT_EQ(wrong, 0u) << "first at out[" << first << "]";
    if (a.size() > 1) {
      EXPECT_GT(negatives, 0) << "the inputs have negative values to widen";
    }
  }
}


}  // namespace
}  // namespace bs::exercise
