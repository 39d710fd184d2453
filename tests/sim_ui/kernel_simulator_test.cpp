// kernel_simulator_test.cpp: the kernel editor's Simulator tab behind its buttons (real NVRTC, no GPU): a
// compiled template simulates on a worker thread and passes the lab's check with the maps filled; a kernel
// with an out-of-bounds write gets a marker on its line in the editor; the run can be cancelled; bad sizes
// and a missing compile are refused with a reason; the GPU check is disabled with its reason here; and the
// headless app opened on the Simulator tab draws the maps (its layout dump says what they hold).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "app/kernel/kernel_workbench.h"
#include "gpu/kernel/nvrtc_loader.h"
#include "run_util.h"
#include "sim/sim_util.h"

namespace bs {
namespace {

using namespace std::chrono_literals;

void compile_and_take(KernelWorkbench& wb) {
  const uint64_t t = wb.compile_now(100.0);
  ASSERT_NE(t, 0u);
  ASSERT_EQ(wb.service().wait(t, 120s).state, kernel::CompileState::Done);
  wb.update(100.01);
  ASSERT_TRUE(wb.last_result(wb.target()) && wb.last_result(wb.target())->ok())
      << wb.last_result(wb.target())->message << wb.last_result(wb.target())->log;
}

void simulate_and_take(KernelWorkbench& wb) {
  ASSERT_TRUE(wb.simulate_now()) << wb.simulator().model(wb.target()).status;
  wb.simulator().wait();
  wb.update(101.0);
}

// The matmul template at 256^3: seconds of simulation, still running 50 ms after it started.
void start_a_long_matmul_run(KernelWorkbench& wb) {
  wb.set_target(kernel::Target::Matmul);
  compile_and_take(wb);
  SimSettings& s = wb.simulator().settings(kernel::Target::Matmul);
  s.size_x = s.size_y = s.size_z = 256;
  ASSERT_TRUE(wb.simulate_now());
  std::this_thread::sleep_for(50ms);
}

TEST(KernelSimulator, HeatTemplateSimulatesAndPasses) {
  REQUIRE_NVRTC();
  UserKernels k;
  KernelWorkbench wb(k, "");
  compile_and_take(wb);
  simulate_and_take(wb);
  const SimOutcome* o = wb.simulator().outcome(kernel::Target::Heat);
  ASSERT_TRUE(o);
  EXPECT_TRUE(o->ran) << o->failure;
  EXPECT_TRUE(o->passed) << o->check;
  EXPECT_NE(o->check.find("pass"), std::string::npos);
  EXPECT_NE(o->summary.find("simulated (no GPU involved)"), std::string::npos) << o->summary;
  ASSERT_TRUE(o->trace);
  EXPECT_TRUE(o->trace->result.diagnostics.empty());
  const nlohmann::json d = wb.dump()["simulator"];
  EXPECT_EQ(d["selection"], "thread (0, 0, 0) of block (0, 0, 0)");
  ASSERT_EQ(d["maps"].size(), 2u);
  EXPECT_EQ(d["maps"][0]["name"], "in");
  EXPECT_EQ(d["maps"][0]["read"], 3);  // the corner cell: itself and its two neighbours inside the field
  EXPECT_EQ(d["maps"][1]["written"], 1);
  EXPECT_EQ(d["maps"][1]["unwritten"], 0);
  // No simulator markers on a clean kernel.
  for (const ui::LineMarker& m : wb.document(kernel::Target::Heat).markers())
    EXPECT_EQ(m.message.find("simulator"), std::string::npos) << m.message;
}

TEST(KernelSimulator, OutOfBoundsWriteIsAMarkerOnItsLine) {
  REQUIRE_NVRTC();
  UserKernels k;
  KernelWorkbench wb(k, "");
  wb.set_target(kernel::Target::Vector);
  // `i <= n`: the thread with i == n writes c[n], one past the end (line 4).
  wb.document(kernel::Target::Vector)
      .reset("extern \"C\" __global__ void vector_op(const float* a, const float* b, float* c, long long n) {\n"
             "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
             "  if (i <= n)\n"
             "    c[i] = a[i] + b[i];\n"
             "}\n");
  compile_and_take(wb);
  simulate_and_take(wb);
  const SimOutcome* o = wb.simulator().outcome(kernel::Target::Vector);
  ASSERT_TRUE(o && o->trace);
  EXPECT_TRUE(o->ran) << o->failure;
  EXPECT_NE(o->check.find("add"), std::string::npos) << o->check;  // the values are right: c = a + b
  bool marker = false;
  for (const ui::LineMarker& m : wb.document(kernel::Target::Vector).markers())
    if (m.line == 4 && m.level == ui::LineMarker::Level::Error && m.message.find("simulator: out-of-bounds") == 0)
      marker = true;
  EXPECT_TRUE(marker) << "no simulator marker on line 4";
  // Editing the source drops the simulator's markers at the next compile (they belong to the old text).
  wb.document(kernel::Target::Vector).reset(wb.document(kernel::Target::Vector).text() + "\n");
  compile_and_take(wb);
  for (const ui::LineMarker& m : wb.document(kernel::Target::Vector).markers())
    EXPECT_EQ(m.message.find("simulator"), std::string::npos) << m.message;
}

TEST(KernelSimulator, EndlessLoopIsAFailureNamingTheLine) {
  REQUIRE_NVRTC();
  UserKernels k;
  KernelWorkbench wb(k, "");
  wb.set_target(kernel::Target::Vector);
  wb.document(kernel::Target::Vector)
      .reset("extern \"C\" __global__ void vector_op(const float* a, const float* b, float* c, long long n) {\n"
             "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
             "  while (a[0] > 0.0f) { c[0] = c[0] + 1.0f; }\n"
             "  if (i < n) c[i] = a[i] + b[i];\n"
             "}\n");
  compile_and_take(wb);
  wb.simulator().settings(kernel::Target::Vector).size_x = 40;
  simulate_and_take(wb);
  const SimOutcome* o = wb.simulator().outcome(kernel::Target::Vector);
  ASSERT_TRUE(o);
  EXPECT_FALSE(o->ran);
  EXPECT_FALSE(o->failure.empty());
  bool marker = false;
  for (const ui::LineMarker& m : wb.document(kernel::Target::Vector).markers()) marker |= m.line == 3;
  EXPECT_TRUE(marker) << o->failure;
}

TEST(KernelSimulator, RefusesWithoutACompileAndWithBadSizes) {
  UserKernels k;
  KernelWorkbench wb(k, "", {}, std::string("no NVRTC in this test"));
  EXPECT_FALSE(wb.simulate_now());
  EXPECT_NE(wb.simulator().model(kernel::Target::Heat).status.find("compile the kernel first"), std::string::npos);
  SimSettings s = SimSettings::defaults(kernel::Target::Matmul);
  s.size_x = s.size_y = s.size_z = 1000;
  EXPECT_NE(check_settings(kernel::Target::Matmul, s).value_or("").find("256^3"), std::string::npos);
  s = SimSettings::defaults(kernel::Target::Heat);
  s.block_x = 64;
  s.block_y = 32;
  EXPECT_NE(check_settings(kernel::Target::Heat, s).value_or("").find("1..1024 threads"), std::string::npos);
  s = SimSettings::defaults(kernel::Target::Vector);
  s.size_x = 0;
  EXPECT_TRUE(check_settings(kernel::Target::Vector, s));
  EXPECT_FALSE(check_settings(kernel::Target::Vector, SimSettings::defaults(kernel::Target::Vector)));
  EXPECT_EQ(settings_text(kernel::Target::Heat, SimSettings::defaults(kernel::Target::Heat)),
            "heat 67 x 45, block 32 x 8, grid 3 x 6");
}

TEST(KernelSimulator, CancelStopsALongRun) {
  REQUIRE_NVRTC();
  UserKernels k;
  KernelWorkbench wb(k, "");
  ASSERT_NO_FATAL_FAILURE(start_a_long_matmul_run(wb));
  wb.simulator().cancel();
  const auto t0 = std::chrono::steady_clock::now();
  wb.simulator().wait();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 10s);
  wb.update(101.0);
  EXPECT_EQ(wb.simulator().model(kernel::Target::Matmul).status, "cancelled");
  EXPECT_FALSE(wb.simulator().outcome(kernel::Target::Matmul));
}

// A run started for another target replaces the one going: the first target's slot says "cancelled" and
// stops showing progress, and only the second run's outcome is taken.
TEST(KernelSimulator, ARunForAnotherTargetCancelsTheOneGoing) {
  REQUIRE_NVRTC();
  UserKernels k;
  KernelWorkbench wb(k, "");
  ASSERT_NO_FATAL_FAILURE(start_a_long_matmul_run(wb));
  wb.update(100.5);
  ASSERT_TRUE(wb.simulator().model(kernel::Target::Matmul).running);
  wb.set_target(kernel::Target::Vector);
  compile_and_take(wb);
  simulate_and_take(wb);
  const ui::SimPanelModel& m = wb.simulator().model(kernel::Target::Matmul);
  EXPECT_FALSE(m.running);
  EXPECT_EQ(m.status, "cancelled");
  EXPECT_FALSE(wb.simulator().outcome(kernel::Target::Matmul));
  const SimOutcome* o = wb.simulator().outcome(kernel::Target::Vector);
  ASSERT_TRUE(o);
  EXPECT_TRUE(o->ran) << o->failure;
  EXPECT_FALSE(wb.simulator().model(kernel::Target::Vector).running);
}

TEST(KernelSimulator, GpuCheckIsDisabledWithItsReason) {
  KernelSimulator sim;
  sim.set_gpu(false, "CUDA driver version is insufficient");
  EXPECT_NE(sim.gpu_check_unavailable().find("needs a CUDA GPU (CUDA driver version is insufficient)"),
            std::string::npos);
  sim.set_gpu(true, "");
  const std::string r = sim.gpu_check_unavailable();
  if (find_on_path("compute-sanitizer", std::getenv("PATH")).empty())
    EXPECT_NE(r.find("compute-sanitizer"), std::string::npos) << r;
  else
    EXPECT_TRUE(r.empty()) << r;
  EXPECT_TRUE(find_on_path("sh", "/nonexistent:/bin").size() > 0);
  EXPECT_TRUE(find_on_path("sh", "/nonexistent").empty());
  EXPECT_TRUE(find_on_path("sh", nullptr).empty());
}

// The real app, headless on the CPU path, opened on the Simulator tab: it compiles the heat template,
// simulates it and draws the maps in real ImGui frames.
TEST(KernelSimulatorApp, HeadlessSimulatorTabDrawsTheMaps) {
  REQUIRE_NVRTC();
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(BS_TEST_OUT) / "kernel_simulator";
  fs::create_directories(dir);
  const fs::path dump = dir / "layout.json";
  fs::remove(dump);
  const auto r = test::run_blockscope(
      "--headless --render-path cpu --frames 400 --width 1280 --height 720 --screenshot " +
          (dir / "simulator.png").string(),
      "BLOCKSCOPE_KERNEL_EDITOR=simulate BLOCKSCOPE_DEBUG_FRAME_MS=30 BLOCKSCOPE_CACHE_DIR=" + (dir / "cache").string() +
          " BLOCKSCOPE_LAYOUT_DUMP=" + dump.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream f(dump);
  ASSERT_TRUE(f) << r.output;
  const nlohmann::json d = nlohmann::json::parse(f);
  const nlohmann::json& k = d["kernel_editor"];
  EXPECT_EQ(k["tab"], "simulator") << k.dump();
  const nlohmann::json& s = k["simulator"];
  EXPECT_EQ(s["passed"], true) << s.dump();
  ASSERT_EQ(s["maps"].size(), 2u) << s.dump();
  EXPECT_EQ(s["maps"][1]["written"], 1);
  EXPECT_EQ(s["gpu_check_enabled"], false);
  EXPECT_FALSE(s["gpu_check_reason"].get<std::string>().empty());
}

}  // namespace
}  // namespace bs
