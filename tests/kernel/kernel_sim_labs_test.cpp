// kernel_sim_labs_test.cpp: without a GPU, the labs run the user's kernels in the PTX simulator (headless app,
// CPU path, real NVRTC): the heat lab's "user kernel" step, the vector lab's user op and the matmul lab's user
// kernel. A correct kernel runs simulated and passes the lab's check; a wrong one fails with the simulator's
// diagnostics shown (the heat field marks the cells concerned); everything is labelled simulated and no time
// is reported as a GPU's (no step time, no GB/s, no GFLOP/s, no speedup). On the GPU machine these skip: the
// labs run the kernels on the GPU there (kernel_lab_hooks_test.cpp).
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "app/app.h"
#include "app/heat/heat_lab.h"
#include "app/kernel/lab_sim.h"
#include "app/kernel/user_kernels.h"
#include "app/session.h"
#include "gpu/kernel/compiler.h"
#include "gpu/kernel/nvrtc_loader.h"
#include "lab_hook_util.h"
#include "test_util.h"

namespace bs {
namespace {

using json = nlohmann::json;
using namespace std::chrono_literals;

#define REQUIRE_NVRTC_AND_NO_GPU()                                                                  \
  do {                                                                                              \
    if (!kernel::nvrtc().ok()) GTEST_SKIP() << "NVRTC is not installed: " << kernel::nvrtc().error; \
    if (test::device().available) GTEST_SKIP() << "a GPU is present: the labs run user kernels on it"; \
  } while (0)

using test::lab_session;
using test::readout;

AppOptions headless_cpu(const char* scene, const json& start) {
  AppOptions o = test::headless_lab(scene, PathRequest::Cpu);
  o.start_states[scene] = start;
  return o;
}

// Compiles `source` for `target` (the template when empty) and publishes it.
void publish(UserKernels& uk, kernel::Target target, std::string source = {}) {
  kernel::CompileRequest req;
  req.source = source.empty() ? std::string(kernel::template_source(
                                    *kernel::find_template(kernel::k_target_names.name_of(target))))
                              : std::move(source);
  req.target = target;
  auto result = std::make_shared<const kernel::CompileResult>(kernel::compile_kernel(req));
  ASSERT_TRUE(result->ok()) << result->message << result->log;
  uk.publish(req, result, "test");
}

// Frames until `done` (or a minute: the simulator runs on a worker while the frames go on).
template <class F>
bool frames_until(App& app, F done) {
  const auto end = std::chrono::steady_clock::now() + 120s;
  while (std::chrono::steady_clock::now() < end) {
    if (!app.frame()) return false;
    if (done()) return true;
    std::this_thread::sleep_for(5ms);
  }
  return false;
}

// No read-out gives the user's kernel a time or a rate (the simulator's speed says nothing about a GPU's);
// the CPU baselines' rows keep theirs, and nothing is a speedup.
void expect_no_timing(const std::vector<ui::Readout>& r) {
  for (const ui::Readout& x : r) {
    EXPECT_EQ(x.label.find("speedup"), std::string::npos) << x.label;
    if (x.unit != "ms" && x.unit != "GB/s" && x.unit != "G/s" && x.unit != "GFLOP/s") continue;
    EXPECT_EQ(x.hint.find("your"), std::string::npos) << x.label << ": " << x.hint;
    EXPECT_EQ(x.hint.find("simulated"), std::string::npos) << x.label << ": " << x.hint;
    EXPECT_EQ(x.hint.find("GPU"), std::string::npos) << x.label << ": " << x.hint;
  }
}

HeatLab& heat_of(App& app) {
  auto* lab = dynamic_cast<HeatLab*>(app.active_lab());
  EXPECT_NE(lab, nullptr);
  return *lab;
}

// --- Heat -----------------------------------------------------------------------------------------------

TEST(SimulatedHeatStep, TheTemplateStepsTheFieldSimulatedAndPasses) {
  REQUIRE_NVRTC_AND_NO_GPU();
  // 64x4 blocks: the last ones partial both ways. Paused: no CPU step before the user's kernel takes over.
  App app(headless_cpu("heat", {{"size", {100, 70}}, {"paused", true}}));
  ASSERT_TRUE(app.frame());
  const std::vector<float> initial = heat_of(app).field();
  publish(app.user_kernels(), kernel::Target::Heat);
  ASSERT_FALSE(app.apply_session(lab_session("heat", {{"kernel", "user"}, {"paused", false}})));
  ASSERT_EQ(heat_of(app).steps_done(), 0);
  ASSERT_TRUE(frames_until(app, [&] { return heat_of(app).steps_done() >= 2; }))
      << heat_of(app).model().user_kernel_status << " / " << heat_of(app).model().user_sim.status;
  HeatLab& lab = heat_of(app);
  const ui::SimulatedRunView& v = lab.model().user_sim;
  ASSERT_TRUE(v.has);
  EXPECT_TRUE(v.passed) << v.check << v.failure;
  EXPECT_EQ(v.verdict, "PASS (simulated)");
  EXPECT_NE(v.label.find("simulated (no GPU): your heat_step, heat 100 x 70, block 64 x 4"), std::string::npos)
      << v.label;
  EXPECT_NE(v.check.find("pass"), std::string::npos) << v.check;
  EXPECT_TRUE(v.diagnostics.empty());
  EXPECT_NE(lab.model().user_kernel_status.find("PTX simulator"), std::string::npos)
      << lab.model().user_kernel_status;
  EXPECT_TRUE(lab.marked_cells().empty());
  EXPECT_NE(lab.field(), initial);  // the user's steps moved the field
  // Never timed: no step time, no rates; the read-out is the simulated check.
  EXPECT_EQ(lab.model().step_ms.count, 0);
  const std::vector<ui::Readout> r = lab.readouts();
  const ui::Readout* check = readout(r, "check");
  ASSERT_TRUE(check);
  EXPECT_EQ(check->value, "pass");
  EXPECT_EQ(check->unit, "simulated");
  expect_no_timing(r);
}

// A heat_step that faulted on the GPU, where the app's recovery then lost the GPU (the device stayed
// unavailable, the lab went to the CPU): the simulator does not step the field with it (its first step would
// fail and halt the lab); the CPU step runs and the lab says why, until a new kernel is published, which the
// simulator then runs. (Found on the H200: UserKernelFaultGpu.AnOutOfBoundsHeatStep... left the lab halted.)
TEST(SimulatedHeatStep, AKernelThatFaultedOnTheGpuIsNotSteppedTheCpuStepRuns) {
  REQUIRE_NVRTC_AND_NO_GPU();
  App app(headless_cpu("heat", {{"size", {100, 70}}, {"paused", true}}));
  ASSERT_TRUE(app.frame());
  publish(app.user_kernels(), kernel::Target::Heat);
  UserKernels& uk = app.user_kernels();
  uk.note_fault(kernel::Target::Heat, uk.generation(kernel::Target::Heat),
                "user kernel heat_step (test): cudaErrorIllegalAddress");
  ASSERT_FALSE(app.apply_session(lab_session("heat", {{"kernel", "user"}, {"paused", false}})));
  ASSERT_TRUE(frames_until(app, [&] { return heat_of(app).steps_done() >= 3; }))
      << "the lab does not step: " << heat_of(app).model().user_kernel_status;
  EXPECT_FALSE(heat_of(app).model().user_kernel_running);
  EXPECT_FALSE(heat_of(app).model().user_sim.has);
  const std::string status = heat_of(app).model().user_kernel_status;
  EXPECT_NE(status.find("your heat_step faulted"), std::string::npos) << status;
  EXPECT_NE(status.find("the CPU step runs until you compile a fixed one"), std::string::npos) << status;
  // A new compile: the simulator steps the field with it.
  publish(app.user_kernels(), kernel::Target::Heat);
  ASSERT_TRUE(frames_until(app, [&] { return heat_of(app).model().user_sim.has; }))
      << heat_of(app).model().user_kernel_status;
  EXPECT_TRUE(heat_of(app).model().user_kernel_running);
  EXPECT_NE(heat_of(app).model().user_kernel_status.find("PTX simulator"), std::string::npos)
      << heat_of(app).model().user_kernel_status;
}

TEST(SimulatedHeatStep, AKernelSkippingTheLastColumnFailsAndTheFieldMarksThoseCells) {
  REQUIRE_NVRTC_AND_NO_GPU();
  App app(headless_cpu("heat", {{"size", {100, 70}}, {"paused", true}}));
  ASSERT_TRUE(app.frame());
  // `x + 1 >= nx` returns early: column nx - 1 is never written (line 4).
  publish(app.user_kernels(), kernel::Target::Heat,
          "extern \"C\" __global__ void heat_step(const float* in, float* out, int nx, int ny, float r,\n"
          "                                       float boundary_temp, int fixed_boundary) {\n"
          "  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;\n"
          "  if (x + 1 >= nx || y >= ny) return;\n"
          "  const long long i = (long long)y * nx + x;\n"
          "  const float c = in[i], edge = fixed_boundary ? boundary_temp : c;\n"
          "  const float w = x > 0 ? in[i - 1] : edge, e = in[i + 1];\n"
          "  const float n = y > 0 ? in[i - nx] : edge, s = y + 1 < ny ? in[i + nx] : edge;\n"
          "  out[i] = c + r * ((w + e) + (n + s) - 4.0f * c);\n"
          "}\n");
  ASSERT_FALSE(app.apply_session(lab_session("heat", {{"kernel", "user"}, {"paused", false}})));
  ASSERT_TRUE(frames_until(app, [&] { return heat_of(app).model().user_sim.has; }));
  HeatLab& lab = heat_of(app);
  const ui::SimulatedRunView& v = lab.model().user_sim;
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.verdict.rfind("FAIL (simulated)", 0), 0u) << v.verdict;
  ASSERT_FALSE(v.diagnostics.empty());
  EXPECT_NE(v.diagnostics[0].find("unwritten output"), std::string::npos) << v.diagnostics[0];
  EXPECT_EQ(v.problem_count, 70u);
  ASSERT_FALSE(v.problems.empty());
  EXPECT_EQ(v.problems[0], "out[0][99]: no thread wrote it");
  // The field marks exactly the last column.
  const auto cells = lab.marked_cells();
  ASSERT_EQ(cells.size(), 70u);
  for (const auto& [x, y] : cells) EXPECT_EQ(x, 99) << y;
  // The failing step shows (as a GPU's would), then the stepping halts; the app keeps running.
  EXPECT_EQ(lab.steps_done(), 1);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(app.frame());
  EXPECT_EQ(lab.steps_done(), 1);
  EXPECT_FALSE(lab.simulating());
  const ui::Readout* check = readout(lab.readouts(), "check");
  ASSERT_TRUE(check);
  EXPECT_EQ(check->value, "FAIL");
  expect_no_timing(lab.readouts());
}

// A grid set by hand runs as set: too few blocks leave the cells past them unwritten (FAIL, the cells marked),
// more blocks than the field needs pass (the template guards, next test); the label names the grid.
TEST(SimulatedHeatStep, AGridSetByHandIsTheGridSimulated) {
  REQUIRE_NVRTC_AND_NO_GPU();
  App app(headless_cpu("heat", {{"size", {100, 70}}, {"paused", true}, {"block", {64, 4}}, {"grid", {1, 5}}}));
  ASSERT_TRUE(app.frame());
  publish(app.user_kernels(), kernel::Target::Heat);
  // (a session is the lab's whole state: the grid set by hand is part of it)
  ASSERT_FALSE(app.apply_session(lab_session(
      "heat", {{"size", {100, 70}}, {"kernel", "user"}, {"paused", false}, {"block", {64, 4}}, {"grid", {1, 5}}})));
  ASSERT_TRUE(frames_until(app, [&] { return heat_of(app).model().user_sim.has; }));
  HeatLab& lab = heat_of(app);
  const ui::SimulatedRunView& v = lab.model().user_sim;
  EXPECT_NE(v.label.find("block 64 x 4, grid 1 x 5 (set by hand)"), std::string::npos) << v.label;
  EXPECT_FALSE(v.passed);
  ASSERT_FALSE(v.diagnostics.empty());
  EXPECT_NE(v.diagnostics[0].find("unwritten output"), std::string::npos) << v.diagnostics[0];
  // 64 x 20 cells are covered; the other 100 x 70 - 1280 are not.
  EXPECT_EQ(v.problem_count, 7000u - 1280u);
  const auto cells = lab.marked_cells();
  EXPECT_EQ(cells.size(), 7000u - 1280u);
  for (const auto& [x, y] : cells) EXPECT_TRUE(x >= 64 || y >= 20) << x << ", " << y;
}

TEST(SimulatedHeatStep, AGridSetByHandLargerThanTheFieldPasses) {
  REQUIRE_NVRTC_AND_NO_GPU();
  App big(headless_cpu("heat", {{"size", {100, 70}}, {"paused", true}, {"block", {64, 4}}, {"grid", {3, 20}}}));
  ASSERT_TRUE(big.frame());
  publish(big.user_kernels(), kernel::Target::Heat);
  ASSERT_FALSE(big.apply_session(lab_session(
      "heat", {{"size", {100, 70}}, {"kernel", "user"}, {"paused", false}, {"block", {64, 4}}, {"grid", {3, 20}}})));
  ASSERT_TRUE(frames_until(big, [&] { return heat_of(big).model().user_sim.has; }));
  const ui::SimulatedRunView& w = heat_of(big).model().user_sim;
  EXPECT_NE(w.label.find("grid 3 x 20 (set by hand)"), std::string::npos) << w.label;
  EXPECT_TRUE(w.passed) << w.check << w.failure;
}

// A hand-set grid the simulator cannot take is one sentence naming it.
TEST(SimulatedHeatStep, AHandSetGridOutsideTheLimitsIsAMessage) {
  SimSettings s = SimSettings::defaults(kernel::Target::Heat);
  s.grid_x = 4;
  s.grid_y = 70000;
  auto e = check_settings(kernel::Target::Heat, s);
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("y in 1..65535"), std::string::npos) << *e;
  s.grid_x = 100000;
  s.grid_y = 1000;
  e = check_settings(kernel::Target::Heat, s);
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("above 16M threads"), std::string::npos) << *e;
  s.grid_x = 2;
  s.grid_y = 3;
  EXPECT_FALSE(check_settings(kernel::Target::Heat, s));
  EXPECT_NE(settings_text(kernel::Target::Heat, s).find("grid 2 x 3 (set by hand)"), std::string::npos);
}

TEST(SimulatedHeatStep, AFieldAboveTheSimulatorsCapSaysSoAndTheCpuStepRuns) {
  REQUIRE_NVRTC_AND_NO_GPU();
  App app(headless_cpu("heat", {{"size", {2100, 64}}, {"paused", true}}));
  ASSERT_TRUE(app.frame());
  publish(app.user_kernels(), kernel::Target::Heat);
  ASSERT_FALSE(app.apply_session(lab_session("heat", {{"kernel", "user"}, {"paused", false}})));
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(app.frame());
  HeatLab& lab = heat_of(app);
  EXPECT_NE(lab.model().user_kernel_status.find("2048 cells a side"), std::string::npos)
      << lab.model().user_kernel_status;
  EXPECT_FALSE(lab.simulating());
  EXPECT_FALSE(lab.model().user_sim.has);
  EXPECT_GT(lab.steps_done(), 0);  // the CPU step
}

// The lab's worker: progress while it runs, Cancel ends it without a result (the UI never waits for it).
TEST(LabSimulation, ARunReportsProgressAndCancelEndsItWithoutAResult) {
  if (!kernel::nvrtc().ok()) GTEST_SKIP() << "NVRTC is not installed: " << kernel::nvrtc().error;
  UserKernels uk;
  publish(uk, kernel::Target::Heat);
  LabSimulation sim;
  LabSimRequest r;
  r.target = kernel::Target::Heat;
  r.settings = {2048, 2048, 0, 64, 4};  // ~4M threads: seconds of work
  ASSERT_TRUE(sim.start(uk.current(kernel::Target::Heat), r));
  EXPECT_TRUE(sim.running());
  EXPECT_TRUE(sim.view().running);
  const auto t0 = std::chrono::steady_clock::now();
  while (sim.running() && sim.poll() == false && sim.view().progress == 0 &&
         std::chrono::steady_clock::now() - t0 < 30s)
    std::this_thread::sleep_for(1ms);
  EXPECT_GT(sim.view().progress, 0.0);
  sim.cancel();
  sim.wait();
  EXPECT_FALSE(sim.poll());
  EXPECT_EQ(sim.view().status, "cancelled");
  EXPECT_FALSE(sim.view().has);
  EXPECT_FALSE(sim.readout());
  // A kernel without PTX is refused with a reason.
  EXPECT_FALSE(sim.start(UserKernel{}, r));
  EXPECT_NE(sim.view().status.find("no PTX"), std::string::npos) << sim.view().status;
}

// --- Vector ---------------------------------------------------------------------------------------------

TEST(SimulatedVectorOp, TheTemplateRunsSimulatedAgainstTheLabsOpAndPasses) {
  REQUIRE_NVRTC_AND_NO_GPU();
  App app(headless_cpu("vector", {{"n", "1000"}, {"op", "formula"}}));
  ASSERT_TRUE(app.frame());
  publish(app.user_kernels(), kernel::Target::Vector);
  ASSERT_FALSE(app.apply_session(lab_session("vector", {{"kernel", "user"}, {"n", "1000"}, {"op", "formula"}})));
  // A new kernel runs without a click; headless frames wait for the lab's jobs.
  ASSERT_TRUE(app.frame());
  ASSERT_TRUE(app.frame());
  const std::vector<ui::Readout> r = app.active_lab()->readouts();
  const ui::Readout* check = readout(r, "check");
  ASSERT_TRUE(check);
  EXPECT_EQ(check->value, "pass") << check->hint;
  EXPECT_EQ(check->unit, "simulated");
  EXPECT_NE(check->hint.find("simulated (no GPU): your vector_op, vector n = 1000, block 256, grid 4"),
            std::string::npos)
      << check->hint;
  EXPECT_NE(check->hint.find("against the lab's op formula"), std::string::npos) << check->hint;
  EXPECT_EQ(readout(r, "kernel"), nullptr);  // no GB/s, no runs row
  expect_no_timing(r);
  EXPECT_FALSE(app.user_kernels().in_use(kernel::Target::Vector));  // records claim only timed runs
}

TEST(SimulatedVectorOp, AnOutOfBoundsWriteFailsWithItsLineAndAWrongOpFailsTheCheck) {
  REQUIRE_NVRTC_AND_NO_GPU();
  App app(headless_cpu("vector", {{"n", "1000"}, {"op", "add"}}));
  ASSERT_TRUE(app.frame());
  // `i <= n`: the thread with i == n writes c[n], one past the end (line 3).
  publish(app.user_kernels(), kernel::Target::Vector,
          "extern \"C\" __global__ void vector_op(const float* a, const float* b, float* c, long long n) {\n"
          "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
          "  if (i <= n) c[i] = a[i] + b[i];\n"
          "}\n");
  ASSERT_FALSE(app.apply_session(lab_session("vector", {{"kernel", "user"}, {"n", "1000"}, {"op", "add"}})));
  ASSERT_TRUE(app.frame());
  ASSERT_TRUE(app.frame());
  const ui::Readout* check = readout(app.active_lab()->readouts(), "check");
  ASSERT_TRUE(check);
  EXPECT_EQ(check->value, "FAIL") << check->hint;
  // The read-out carries the simulator's first finding: the line and the thread.
  EXPECT_NE(check->hint.find(":3: out-of-bounds"), std::string::npos) << check->hint;
  EXPECT_NE(check->hint.find("thread (232, 0, 0) of block (3, 0, 0)"), std::string::npos) << check->hint;
  // The template's formula checked against op add: the output is wrong, the simulator finds nothing.
  publish(app.user_kernels(), kernel::Target::Vector);
  ASSERT_TRUE(app.frame());
  ASSERT_TRUE(app.frame());
  check = readout(app.active_lab()->readouts(), "check");
  ASSERT_TRUE(check);
  EXPECT_EQ(check->value, "FAIL") << check->hint;
  EXPECT_NE(check->hint.find("against the lab's op add"), std::string::npos) << check->hint;
  EXPECT_NE(check->hint.find("FAIL"), std::string::npos) << check->hint;
}

TEST(SimulatedVectorOp, ALargeNIsCappedKeepingTheLastBlockPartial) {
  REQUIRE_NVRTC_AND_NO_GPU();
  App app(headless_cpu("vector", {{"n", "2000000"}, {"op", "formula"}}));
  ASSERT_TRUE(app.frame());
  publish(app.user_kernels(), kernel::Target::Vector);
  ASSERT_FALSE(app.apply_session(lab_session("vector", {{"kernel", "user"}, {"op", "formula"}})));
  ASSERT_TRUE(app.frame());
  ASSERT_TRUE(app.frame());
  const ui::Readout* check = readout(app.active_lab()->readouts(), "check");
  ASSERT_TRUE(check);
  EXPECT_EQ(check->value, "pass") << check->hint;
  // 2000000 = 7812 blocks of 256 + 128: 4095 full blocks and the same half block.
  EXPECT_NE(check->hint.find("vector n = 1048448, block 256, grid 4096"), std::string::npos) << check->hint;
}

// --- Matmul ---------------------------------------------------------------------------------------------

TEST(SimulatedMatmul, TheTemplateRunsSimulatedAndPassesAndAnUnguardedOneFails) {
  REQUIRE_NVRTC_AND_NO_GPU();
  App app(headless_cpu("matmul", {{"m", 45}, {"n", 37}, {"k", 29}, {"user_block", {16, 16}}}));
  ASSERT_TRUE(app.frame());
  publish(app.user_kernels(), kernel::Target::Matmul);
  const auto check_of = [&]() -> std::optional<ui::Readout> {
    const std::vector<ui::Readout> r = app.active_lab()->readouts();
    const ui::Readout* c = readout(r, "check");
    return c ? std::optional<ui::Readout>(*c) : std::nullopt;
  };
  ASSERT_TRUE(frames_until(app, [&] { return check_of().has_value(); }));
  EXPECT_EQ(check_of()->value, "pass") << check_of()->hint;
  EXPECT_EQ(check_of()->unit, "simulated");
  EXPECT_NE(check_of()->hint.find("simulated (no GPU): your matmul, matmul 45 x 37 x 29, block 16 x 16"),
            std::string::npos)
      << check_of()->hint;
  expect_no_timing(app.active_lab()->readouts());
  // Without the guard the threads past C's edge read and write out of bounds (line 4).
  publish(app.user_kernels(), kernel::Target::Matmul,
          "extern \"C\" __global__ void matmul(const float* A, const float* B, float* C, int M, int N, int K) {\n"
          "  const int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;\n"
          "  float acc = 0.0f;\n"
          "  for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];\n"
          "  C[row * N + col] = acc;\n"
          "}\n");
  ASSERT_TRUE(frames_until(app, [&] { return check_of() && check_of()->value == "FAIL"; }));
  EXPECT_NE(check_of()->hint.find(":4: out-of-bounds"), std::string::npos) << check_of()->hint;
  expect_no_timing(app.active_lab()->readouts());
}

}  // namespace
}  // namespace bs
