// exercise_pack_test.cpp: the runner in the PTX simulator (NVRTC compiles here without a GPU) and the pack in
// assets/exercises/: every reference passes every test, visible and hidden, with no diagnostic; every starter
// compiles and fails a named test; and what a failing submission is told (the element, expected and actual
// values, the thread that wrote it, the simulator's diagnostics, the signature the exercise expects).
#include <gtest/gtest.h>

#include <chrono>

#include "gpu/exercise/runner.h"
#include "gpu/kernel/nvrtc_loader.h"
#include "check_expect.h"

namespace bs::exercise {
namespace {

const std::string k_pack = std::string(BS_SOURCE_DIR) + "/assets/exercises";

const Pack& pack() {
  static const Pack p = load_pack(k_pack);
  return p;
}

TEST(ExercisePack, LoadsWithoutErrors) {
  const Pack& p = pack();
  for (const std::string& e : p.errors) ADD_FAILURE() << e;
  EXPECT_GE(p.exercises.size(), 1u);
  for (size_t i = 1; i < p.exercises.size(); ++i) EXPECT_LT(p.exercises[i - 1].order, p.exercises[i].order);
  for (const Exercise& e : p.exercises) {
    EXPECT_GE(e.hints.size(), 2u) << e.id;
    EXPECT_TRUE(std::any_of(e.tests.begin(), e.tests.end(), [](const exercise::TestCase& t) { return t.hidden; })) << e.id;
    EXPECT_FALSE(e.par.global_reads.empty()) << e.id;
  }
}

TEST(ExercisePack, EveryReferencePassesEveryTest) {
  REQUIRE_NVRTC();
  for (const Exercise& e : pack().exercises) {
    const CheckResult r = check_source(e, e.reference, "reference.cu");
    ASSERT_TRUE(r.compiled.ok) << e.id << ": " << r.compiled.message;
    EXPECT_TRUE(r.error.empty()) << e.id << ": " << r.error;
    EXPECT_EQ(r.tests.size(), e.tests.size()) << e.id;
    for (const TestResult& t : r.tests)
      EXPECT_TRUE(t.passed) << e.id << ", test " << t.test.name << ": " << t.stopped << t.check
                            << (t.diagnostics.empty() ? "" : "; " + t.diagnostics.front());
    ASSERT_FALSE(r.tests.empty());
    for (const ScoreItem& s : r.tests.front().score) EXPECT_TRUE(s.met()) << e.id << ": " << score_line(r.tests.front().score);
  }
}

TEST(ExercisePack, EveryStarterFailsANamedTest) {
  REQUIRE_NVRTC();
  for (const Exercise& e : pack().exercises) {
    const CheckResult r = check_source(e, e.starter, "starter.cu");
    ASSERT_TRUE(r.compiled.ok) << e.id << ": the starter must compile: " << r.compiled.message;
    EXPECT_TRUE(r.error.empty()) << e.id << ": " << r.error;
    ASSERT_GE(r.first_failure, 0) << e.id << ": the starter passes every test";
    const TestResult& t = r.tests[static_cast<size_t>(r.first_failure)];
    EXPECT_FALSE(t.test.name.empty());
    EXPECT_FALSE(t.passed);
    EXPECT_TRUE(t.wrong || !t.stopped.empty() || !t.diagnostics.empty()) << e.id;
    // Every location names the student's file, never NVRTC's name for it (a race names two lines).
    for (const std::string& d : t.diagnostics) EXPECT_EQ(d.find("kernel.cu"), std::string::npos) << e.id << ": " << d;
    EXPECT_EQ(t.stopped.find("kernel.cu"), std::string::npos) << e.id << ": " << t.stopped;
  }
}

const Exercise& first() {
  const Exercise* e = pack().find("01_map");
  if (!e) throw std::runtime_error("01_map is missing from the pack");
  return *e;
}

TEST(ExerciseRunner, WrongValueNamesElementValuesAndWriter) {
  REQUIRE_NVRTC();
  const std::string src =
      "extern \"C\" __global__ void add_ten(const float* a, float* out) {\n"
      "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  out[i] = i == 300 ? 0.0f : a[i] + 10.0f;\n"
      "}\n";
  const CheckResult r = check_source(first(), src, "mine.cu");
  ASSERT_TRUE(r.compiled.ok) << r.compiled.message;
  ASSERT_EQ(r.first_failure, 0);
  const TestResult& t = r.tests[0];
  EXPECT_EQ(t.test.name, "n=1024");
  ASSERT_TRUE(t.wrong);
  EXPECT_EQ(t.wrong->buffer, "out");
  EXPECT_EQ(t.wrong->index, 300u);
  EXPECT_EQ(t.wrong->actual, "0");
  EXPECT_NE(t.wrong->expected, "0");
  ASSERT_EQ(t.wrong->writers.size(), 1u);
  EXPECT_EQ(t.wrong->writers[0], "thread (44, 0, 0) of block (1, 0, 0)");
  EXPECT_NE(t.check.find("out, element 300: expected"), std::string::npos) << t.check;
  EXPECT_EQ(r.tests.size(), 1u);  // stops at the first failure
}

TEST(ExerciseRunner, DiagnosticsFailATestEvenWhenTheValuesMatch) {
  REQUIRE_NVRTC();
  // Reads one element past the end in the last thread: the value is not used, the output is right.
  const std::string src =
      "extern \"C\" __global__ void add_ten(const float* a, float* out) {\n"
      "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  const float next = a[i + 1];\n"
      "  out[i] = a[i] + 10.0f + 0.0f * next;\n"
      "}\n";
  const CheckResult r = check_source(first(), src, "mine.cu");
  ASSERT_EQ(r.first_failure, 0);
  const TestResult& t = r.tests[0];
  EXPECT_FALSE(t.wrong) << t.check;
  EXPECT_NE(t.check.find("but the simulator found 1 bug (below)"), std::string::npos) << t.check;
  ASSERT_FALSE(t.diagnostics.empty());
  EXPECT_NE(t.diagnostics[0].find("mine.cu:3: out-of-bounds"), std::string::npos) << t.diagnostics[0];
}

TEST(ExerciseRunner, UnwrittenElementsSayNoThreadWroteThem) {
  REQUIRE_NVRTC();
  const std::string src =
      "extern \"C\" __global__ void add_ten(const float* a, float* out) {\n"
      "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < 1000) out[i] = a[i] + 10.0f;\n"
      "}\n";
  const CheckResult r = check_source(first(), src, "mine.cu");
  ASSERT_EQ(r.first_failure, 0);
  const TestResult& t = r.tests[0];
  ASSERT_TRUE(t.wrong);
  EXPECT_EQ(t.wrong->index, 1000u);
  EXPECT_EQ(t.wrong->actual, "NaN (never written)");
  EXPECT_EQ(t.wrong->wrong_count, 24u);
  EXPECT_TRUE(t.wrong->writers.empty());
  EXPECT_NE(t.check.find("no thread wrote it"), std::string::npos);
}

TEST(ExerciseRunner, SignatureAndCompileErrorsAreNamed) {
  REQUIRE_NVRTC();
  const CheckResult wrong = check_source(
      first(), "extern \"C\" __global__ void add_ten(const float* a, double* out) { }\n", "mine.cu");
  EXPECT_FALSE(wrong.compiled.ok);
  EXPECT_NE(wrong.compiled.message.find("mine.cu:1: error: add_ten has the wrong signature; the exercise expects: "
                                        "extern \"C\" __global__ void add_ten(const float* a, float* out)"),
            std::string::npos)
      << wrong.compiled.message;
  const CheckResult missing = check_source(first(), "__global__ void other(float* a) { }\n", "mine.cu");
  EXPECT_NE(missing.compiled.message.find("no kernel named add_ten"), std::string::npos) << missing.compiled.message;
  const CheckResult syntax = check_source(first(), "__global__ void add_ten(const float* a, float* out) { x }\n", "mine.cu");
  EXPECT_NE(syntax.compiled.message.find("mine.cu:1:"), std::string::npos) << syntax.compiled.message;
  EXPECT_TRUE(syntax.tests.empty());
  // C++ linkage (a mangled name) is found too.
  const CheckResult cpp = check_source(
      first(), "__global__ void add_ten(const float* a, float* out) { int i = blockIdx.x * blockDim.x + threadIdx.x; out[i] = a[i] + 10.0f; }\n",
      "mine.cu");
  EXPECT_TRUE(cpp.passed()) << cpp.compiled.message << cpp.error;
}

TEST(ExerciseRunner, EndlessLoopIsStoppedByTheBudget) {
  REQUIRE_NVRTC();
  const std::string src =
      "extern \"C\" __global__ void add_ten(const float* a, float* out) {\n"
      "  volatile int k = 0;\n"
      "  while (k == 0) { }\n"
      "}\n";
  const CheckResult r = check_source(first(), src, "mine.cu");
  ASSERT_EQ(r.first_failure, 0);
  EXPECT_NE(r.tests[0].stopped.find("mine.cu:3"), std::string::npos) << r.tests[0].stopped;
  EXPECT_NE(r.tests[0].stopped.find("this exercise allows 10000 instructions per thread"), std::string::npos)
      << r.tests[0].stopped;
}

TEST(ExerciseRunner, BlockOnlyWhereTheExerciseAllowsIt) {
  REQUIRE_NVRTC();
  RunOptions o;
  o.block = std::array<uint32_t, 3>{128, 1, 1};
  const CheckResult r = check_source(first(), first().reference, "reference.cu", o);
  EXPECT_NE(r.error.find("launches a fixed block"), std::string::npos) << r.error;
}


// Where the exercise lets the student choose the block, the reference passes with other shapes too.
TEST(ExercisePack, StudentBlocksPass) {
  REQUIRE_NVRTC();
  int tried = 0;
  for (const Exercise& e : pack().exercises) {
    if (!e.student_block) continue;
    for (const auto& b : {std::array<uint32_t, 3>{32, 8, 1}, std::array<uint32_t, 3>{8, 32, 1}}) {
      RunOptions o;
      o.block = b;
      const CheckResult r = check_source(e, e.reference, "reference.cu", o);
      EXPECT_TRUE(r.passed()) << e.id << " block " << b[0] << "x" << b[1] << ": " << r.error
                              << (r.first_failure >= 0 ? r.tests[static_cast<size_t>(r.first_failure)].check : "");
      ++tried;
    }
  }
  EXPECT_GE(tried, 2);
}

// An index fill and dynamic shared memory sized by an expression of the block.
TEST(ExerciseRunner, IndexFillAndDynamicShared) {
  REQUIRE_NVRTC();
  LoadResult lr = parse_contract(R"J({
    "format": 1, "title": "copy through shared", "kernel": "stage", "params": ["n"],
    "args": [
      {"name": "a", "kind": "buffer", "type": "float", "dir": "in", "size": "n",
       "fill": {"kind": "index", "scale": 2, "offset": 1, "modulo": 7}},
      {"name": "out", "kind": "buffer", "type": "float", "dir": "out", "size": "n"},
      {"name": "n", "kind": "scalar", "type": "int", "value": "n"}],
    "launch": {"block": [64], "grid": ["ceil_div(n, block_x)"], "dynamic_shared": "block_x * 4"},
    "tests": {"visible": [{"n": 100}], "hidden": [{"n": 1}]},
    "par": {"global_reads": "1", "shared_bytes": "256"}
  })J", "t/exercise.json");
  ASSERT_TRUE(lr.exercise) << lr.error;
  Exercise e = *lr.exercise;
  e.id = "stage";
  e.reference =
      "extern \"C\" __global__ void stage(const float* a, float* out, int n) {\n"
      "  extern __shared__ float s[];\n"
      "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) s[threadIdx.x] = a[i];\n"
      "  __syncthreads();\n"
      "  if (i < n) out[i] = s[threadIdx.x];\n"
      "}\n";
  const CheckResult good = check_source(e, e.reference, "reference.cu");
  ASSERT_TRUE(good.passed()) << good.compiled.message << good.error;
  ASSERT_EQ(good.tests.front().score.size(), 2u);
  EXPECT_EQ(good.tests.front().score[1].actual, 256);  // the launch's dynamic shared memory
  std::string bad = e.reference;
  bad.replace(bad.find("out[i] = s[threadIdx.x]"), 23, "out[i] = i == 3 ? -1.0f : s[threadIdx.x]");
  const CheckResult r = check_source(e, bad, "mine.cu");
  ASSERT_EQ(r.first_failure, 0);
  ASSERT_TRUE(r.tests[0].wrong);
  EXPECT_EQ(r.tests[0].wrong->expected, "7");  // a[3] = 1 + 2 * (3 % 7)
  EXPECT_EQ(r.tests[0].wrong->actual, "-1");
}

// A contract's launch is data too: a grid of 2^30 x 32768 x 32768 blocks of 1024 threads (2^70 threads, 0 in 64
// bits) is refused by the simulator with the count, at once, for the reference and the submission alike.
TEST(ExerciseRunner, AHugeLaunchInAContractIsAMessageNotACrash) {
  REQUIRE_NVRTC();
  LoadResult lr = parse_contract(R"J({
    "format": 1, "title": "huge", "kernel": "fill", "params": ["n"],
    "args": [
      {"name": "out", "kind": "buffer", "type": "float", "dir": "out", "size": "n"},
      {"name": "n", "kind": "scalar", "type": "int", "value": "n"}],
    "launch": {"block": [1024], "grid": ["1073741824", "32768", "32768"]},
    "tests": {"visible": [{"n": 100}], "hidden": [{"n": 1}]}
  })J", "t/exercise.json");
  ASSERT_TRUE(lr.exercise) << lr.error;
  Exercise e = *lr.exercise;
  e.id = "huge";
  e.reference = "extern \"C\" __global__ void fill(float* out, int n) {\n"
                "  const long long i = blockIdx.x * 1024LL + threadIdx.x;\n"
                "  if (i < n) out[i] = 1.0f;\n"
                "}\n";
  const auto t0 = std::chrono::steady_clock::now();
  const CheckResult r = check_source(e, e.reference, "mine.cu");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 30.0);
  ASSERT_TRUE(r.compiled.ok) << r.compiled.message;
  EXPECT_FALSE(r.passed());
  std::string said = r.error;
  for (const TestResult& t : r.tests) said += " | " + t.stopped;
  EXPECT_NE(said.find("threads: more than the simulator runs in one launch"), std::string::npos) << said;
}

}  // namespace
}  // namespace bs::exercise
