// gpu_engine_test.cpp: where "Run tests" runs the student's kernel. Without a GPU (this machine): the choice
// and its labels, the timing's arithmetic, Auto running in the simulator and saying why, and a GPU that cannot
// run the kernel failing the test with the GPU's message. On a GPU (BS_REQUIRE_GPU): references pass on the
// GPU with a positive time and a roofline share in (0, 100], and starters fail the same named test as in the
// simulator.
#include <gtest/gtest.h>

#include "gpu/exercise/gpu_runner.h"
#include "gpu/exercise/runner.h"
#include "gpu/kernel/nvrtc_loader.h"
#include "test_util.h"

namespace bs::exercise {
namespace {

#define REQUIRE_NVRTC() \
  if (!kernel::nvrtc().ok()) GTEST_SKIP() << "NVRTC cannot be loaded: " << kernel::nvrtc().error

Exercise load(const std::string& id) {
  const LoadResult r = load_exercise(std::string(BS_SOURCE_DIR) + "/assets/exercises/" + id);
  EXPECT_TRUE(r.exercise) << r.error;
  return r.exercise ? *r.exercise : Exercise{};
}

GpuStatus fake_gpu() {
  GpuStatus s;
  s.available = true;
  s.device = "Made-up GPU";
  s.arch = 90;
  s.dram_gbs = 10;
  s.dram_source = "made up";
  return s;
}

TEST(ExerciseEngine, ChoosesTheGpuOnlyWhereThereIsOneAndNamesWhatRan) {
  GpuStatus none;
  none.reason = "CUDA driver version is insufficient for CUDA runtime version";
  EXPECT_EQ(choose_engine(Engine::Simulator, fake_gpu()).label, "simulator");
  EXPECT_FALSE(choose_engine(Engine::Simulator, fake_gpu()).gpu);
  for (Engine asked : {Engine::Auto, Engine::Gpu}) {
    const EngineChoice no = choose_engine(asked, none);
    EXPECT_FALSE(no.gpu);
    EXPECT_EQ(no.label, "simulator (no GPU: CUDA driver version is insufficient for CUDA runtime version)");
    const EngineChoice yes = choose_engine(asked, fake_gpu());
    EXPECT_TRUE(yes.gpu);
    EXPECT_EQ(yes.label, "GPU: Made-up GPU");
  }
  EXPECT_EQ(choose_engine(Engine::Auto, GpuStatus{}).label, "simulator (no GPU: no CUDA device)");
}

TEST(ExerciseEngine, TimingIsTheMedianAndTheRooflineShareOfTheCeiling) {
  EXPECT_EQ(median_ms({}), 0);
  EXPECT_EQ(median_ms({3, 1, 2}), 2);
  EXPECT_EQ(median_ms({4, 1, 3, 2}), 2.5);
  // 2 MB in 2 ms = 1 GB/s, a tenth of the made-up 10 GB/s.
  const GpuTiming t = make_timing("n=7", {3, 1, 2}, 2'000'000, fake_gpu());
  EXPECT_DOUBLE_EQ(t.gbs, 1.0);
  EXPECT_DOUBLE_EQ(t.roofline_percent(), 10.0);
  EXPECT_EQ(t.min_ms, 1);
  EXPECT_EQ(t.max_ms, 3);
  const std::string text = timing_text(t);
  EXPECT_NE(text.find("test n=7: 2 ms median of 3 runs (1..3 ms)"), std::string::npos) << text;
  EXPECT_NE(text.find("= 10% of 10 GB/s (made up)"), std::string::npos) << text;
  GpuStatus unknown = fake_gpu();
  unknown.dram_gbs = 0;
  EXPECT_NE(timing_text(make_timing("n=7", {1}, 10, unknown)).find("no bandwidth ceiling known"), std::string::npos);
}

TEST(ExerciseEngine, WithoutAGpuAutoRunsInTheSimulatorAndSaysWhy) {
  REQUIRE_NVRTC();
  if (gpu_status().available) GTEST_SKIP() << "a GPU is present (" << gpu_status().device << "): covered by ExerciseGpu";
  const Exercise e = load("01_map");
  RunOptions o;
  o.engine = Engine::Auto;
  const CheckResult r = check_source(e, e.reference, "reference.cu", o);
  EXPECT_TRUE(r.passed()) << r.error << r.compiled.message;
  EXPECT_FALSE(r.on_gpu);
  EXPECT_EQ(r.engine, "simulator (no GPU: " + gpu_status().reason + ")");
  EXPECT_FALSE(gpu_status().reason.empty());
  EXPECT_FALSE(r.timing);
  for (const TestResult& t : r.tests) EXPECT_FALSE(t.on_gpu);
  // Grading's default never asks for the GPU.
  EXPECT_EQ(check_source(e, e.reference, "reference.cu").engine, "simulator");
}

// The reference runs on the GPU too (its outputs checked against its simulated run, the expected values): a GPU
// that cannot run it stops the check with the GPU's message, blaming neither the submission nor its tests.
TEST(ExerciseEngine, AGpuThatCannotRunTheReferenceStopsTheCheckWithTheGpusMessage) {
  REQUIRE_NVRTC();
  if (gpu_status().available) GTEST_SKIP() << "a GPU is present: this test needs one that fails";
  const Exercise e = load("01_map");
  const GpuStatus broken = fake_gpu();  // says yes, but the CUDA runtime here cannot run anything
  RunOptions o;
  o.engine = Engine::Auto;
  o.gpu = &broken;
  const CheckResult r = check_source(e, e.reference, "reference.cu", o);
  EXPECT_TRUE(r.on_gpu);
  EXPECT_EQ(r.engine, "GPU: Made-up GPU");
  EXPECT_TRUE(r.compiled.ok) << r.compiled.message;
  EXPECT_EQ(r.error.rfind("test n=1024: the exercise's reference fails on the GPU: ", 0), 0u) << r.error;
  EXPECT_TRUE(r.tests.empty());
  EXPECT_FALSE(r.passed());
  EXPECT_FALSE(r.timing);
}

// A reference whose simulated and GPU outputs differ (here it writes %nsmid: the simulator's host threads, one
// here, against the GPU's SM count) is named as the simulator's bug, not the submission's failure: the H100's
// 20_scan failure (expected 4294967434, got 138) read as the student's.
TEST(ExerciseEngine, TheSimulatorAndTheGpuDisagreeingOnTheReferenceIsSaidAsSuch) {
  BS_REQUIRE_GPU();
  REQUIRE_NVRTC();
  const char* contract = R"J({"format": 1, "title": "SM count", "kernel": "sms", "params": ["n"],
    "args": [{"name": "out", "kind": "buffer", "type": "int", "dir": "out", "size": "n"},
             {"name": "n", "kind": "scalar", "type": "int", "value": "n"}],
    "launch": {"block": [64], "grid": ["ceil_div(n, block_x)"]},
    "tests": {"visible": [{"n": 100}], "hidden": [{"n": 1}]}})J";
  const LoadResult l = parse_contract(contract, "t.json");
  ASSERT_TRUE(l.exercise) << l.error;
  Exercise e = *l.exercise;
  e.reference =
      "extern \"C\" __global__ void sms(int* out, int n) {\n"
      "  unsigned s;\n"
      "  asm(\"mov.u32 %0, %%nsmid;\" : \"=r\"(s));\n"
      "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) out[i] = (int)s;\n"
      "}\n";
  RunOptions o;
  o.engine = Engine::Auto;
  o.workers = 1;
  const CheckResult r = check_source(e, e.reference, "reference.cu", o);
  ASSERT_TRUE(r.compiled.ok) << r.compiled.message;
  const std::string sms = std::to_string(test::device().sm_count);
  ASSERT_NE(sms, "1");
  EXPECT_EQ(r.error, "test n=100: the simulator and the GPU disagree on the exercise's reference: out, element 0: "
                     "simulated 1, on the GPU " + sms + " (100 of 100 elements differ). That is a bug in blockscope's "
                     "simulator, not in your kernel; please report it (--sim checks in the simulator alone)");
  EXPECT_TRUE(r.tests.empty());
}

// On the GPU machine: build90/tests/exercise_tests --gtest_filter='Pack/ExerciseGpu.*'.
class ExerciseGpu : public ::testing::TestWithParam<const char*> {};

TEST_P(ExerciseGpu, TheReferencePassesOnTheGpuWithATimeAndARooflineShare) {
  BS_REQUIRE_GPU();
  REQUIRE_NVRTC();
  const Exercise e = load(GetParam());
  RunOptions o;
  o.engine = Engine::Auto;
  const CheckResult r = check_source(e, e.reference, "reference.cu", o);
  ASSERT_TRUE(r.compiled.ok) << r.compiled.message;
  EXPECT_EQ(r.error, "");
  EXPECT_TRUE(r.on_gpu);
  EXPECT_EQ(r.engine, "GPU: " + test::device().name);
  EXPECT_EQ(r.tests.size(), e.tests.size());
  for (const TestResult& t : r.tests) {
    EXPECT_TRUE(t.on_gpu) << t.test.name;
    EXPECT_TRUE(t.passed) << t.test.name << ": " << t.stopped << t.check;
  }
  ASSERT_TRUE(r.timing);
  std::printf("%s on %s: %s\n", e.id.c_str(), r.engine.c_str(), timing_text(*r.timing).c_str());
  EXPECT_GT(r.timing->median_ms, 0);
  EXPECT_GT(r.timing->roofline_percent(), 0);
  EXPECT_LE(r.timing->roofline_percent(), 100) << timing_text(*r.timing);
}

TEST_P(ExerciseGpu, TheStarterFailsTheSameNamedTestAsInTheSimulator) {
  BS_REQUIRE_GPU();
  REQUIRE_NVRTC();
  const Exercise e = load(GetParam());
  const CheckResult sim = check_source(e, e.starter, "starter.cu");
  RunOptions o;
  o.engine = Engine::Auto;
  const CheckResult gpu = check_source(e, e.starter, "starter.cu", o);
  ASSERT_GE(sim.first_failure, 0);
  ASSERT_GE(gpu.first_failure, 0) << e.id << ": the starter passes on the GPU";
  EXPECT_TRUE(gpu.on_gpu);
  const TestResult& s = sim.tests[static_cast<size_t>(sim.first_failure)];
  const TestResult& g = gpu.tests[static_cast<size_t>(gpu.first_failure)];
  EXPECT_EQ(g.test.name, s.test.name) << "simulator: " << s.check << s.stopped << "\nGPU: " << g.check << g.stopped;
  EXPECT_FALSE(g.passed);
  EXPECT_FALSE(gpu.timing);
}

INSTANTIATE_TEST_SUITE_P(Pack, ExerciseGpu, ::testing::Values("01_map", "05_broadcast", "10_dot", "20_scan"));

}  // namespace
}  // namespace bs::exercise
