// kernel_hook_test.cpp: the heat lab's hook for the user's kernel, driven through the app (headless, CPU
// path, as CI runs it): the choice is part of the lab's session state, a bad value is refused naming the
// member, and without a GPU a published kernel runs in the simulator (kernel_sim_labs_test.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "app/app.h"
#include "app/heat/heat_lab.h"
#include "app/kernel/user_kernels.h"
#include "app/session.h"
#include "gpu/kernel/compiler.h"
#include "gpu/kernel/nvrtc_loader.h"
#include "run_util.h"
#include "test_util.h"

namespace bs {
namespace {

using json = nlohmann::json;

AppOptions headless_cpu() {
  AppOptions o;
  o.headless = true;
  o.render_path = PathRequest::Cpu;
  o.width = 1280;
  o.height = 720;
  o.scene = "heat";
  o.start_states["heat"] = {{"size", {128, 128}}};
  return o;
}

Session heat_session(const json& state) {
  Session s;
  s.active_lab = "heat";
  s.open_labs = {"heat"};
  s.labs["heat"] = state;
  return s;
}

HeatLab& heat_of(App& app) {
  auto* lab = dynamic_cast<HeatLab*>(app.active_lab());
  EXPECT_NE(lab, nullptr);
  return *lab;
}

TEST(HeatUserKernelHook, TheChoiceIsSavedAndWithoutAKernelTheCpuStepRuns) {
  App app(headless_cpu());
  ASSERT_TRUE(app.frame());
  EXPECT_EQ(heat_of(app).save_state()["kernel"], "built-in");
  ASSERT_FALSE(
      app.apply_session(heat_session({{"kernel", "user"}, {"paused", false}, {"steps_per_frame", 2}})));
  for (int i = 0; i < 4; ++i)
    app.frame();
  HeatLab& lab = heat_of(app);
  EXPECT_EQ(lab.model().kernel, 1);
  EXPECT_NE(lab.model().user_kernel_status.find("no heat_step yet"), std::string::npos)
      << lab.model().user_kernel_status;
  EXPECT_FALSE(lab.model().user_kernel_running);
  EXPECT_GT(lab.steps_done(), 0);  // the CPU step runs meanwhile
  EXPECT_EQ(lab.save_state()["kernel"], "user");
}

TEST(HeatUserKernelHook, APublishedKernelIsSimulatedWithoutAGpuAndNotClaimedByRecords) {
  if (!kernel::nvrtc().ok()) GTEST_SKIP() << kernel::nvrtc().error;
  if (test::device().available) GTEST_SKIP() << "a GPU is present: the kernel runs on it";
  App app(headless_cpu());
  kernel::CompileRequest req;
  req.source = std::string(kernel::template_source(*kernel::find_template("heat")));
  req.target = kernel::Target::Heat;
  auto result = std::make_shared<const kernel::CompileResult>(kernel::compile_kernel(req));
  ASSERT_TRUE(result->ok()) << result->message;
  app.user_kernels().publish(req, result, "heat template");
  ASSERT_FALSE(app.apply_session(heat_session({{"kernel", "user"}})));
  app.frame();
  EXPECT_NE(heat_of(app).model().user_kernel_status.find("runs in the PTX simulator"), std::string::npos)
      << heat_of(app).model().user_kernel_status;
  // Simulated, not timed: experiment records do not claim it (kernel_sim_labs_test.cpp runs it to the end).
  EXPECT_FALSE(app.user_kernels().in_use(kernel::Target::Heat));
}

TEST(HeatUserKernelHook, ABadChoiceIsRefusedNamingTheMember) {
  App app(headless_cpu());
  ASSERT_TRUE(app.frame());
  const auto err = app.apply_session(heat_session({{"kernel", "mine"}}));
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("kernel"), std::string::npos) << *err;
  EXPECT_EQ(heat_of(app).model().kernel, 0);
}

// `blockscope bench kernel`: bad flags and compile errors exit 2 with the log; without a GPU a good kernel
// compiles and the run says it needs a GPU (exit 1).
std::string write_source(const std::string& name, const std::string& text) {
  const std::filesystem::path dir = std::filesystem::path(BS_TEST_OUT) / "kernel_bench";
  std::filesystem::create_directories(dir);
  const std::filesystem::path p = dir / name;
  std::ofstream(p) << text;
  return p.string();
}

TEST(BenchKernel, BadFlagsAndCompileErrorsExit2) {
  if (!kernel::nvrtc().ok()) GTEST_SKIP() << kernel::nvrtc().error;
  const std::string good =
      write_source("heat.cu", std::string(kernel::template_source(*kernel::find_template("heat"))));
  const std::string cache = "BLOCKSCOPE_CACHE_DIR=" + std::string(BS_TEST_OUT) + "/kernel_bench/cache";
  auto r = test::run_blockscope("bench kernel --target heat --source " + good + " --block 64x32", cache);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("heat_step: x*y = 64*32 = 2048 > 1024"), std::string::npos) << r.output;
  r = test::run_blockscope("bench kernel --target heat --source " + good + " --size 300x200 --grid 2x2",
                           cache);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("would never be computed"), std::string::npos) << r.output;
  r = test::run_blockscope("bench kernel --target heat --source /nonexistent/k.cu", cache);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = test::run_blockscope("bench kernel --target heat", cache);  // no --source
  EXPECT_EQ(r.exit_code, 2) << r.output;
  const std::string broken = write_source("broken.cu", "extern \"C\" __global__ void heat_step( {\n");
  r = test::run_blockscope("bench kernel --target heat --source " + broken, cache);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("broken.cu:1"), std::string::npos) << r.output;
  // The vector contract does not accept the heat kernel: a clear signature error.
  r = test::run_blockscope("bench kernel --target vector --source " + good, cache);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("vector_op"), std::string::npos) << r.output;
}

TEST(BenchKernel, WithoutAGpuAGoodKernelCompilesAndTheRunSaysItNeedsOne) {
  if (!kernel::nvrtc().ok()) GTEST_SKIP() << kernel::nvrtc().error;
  if (test::device().available)
    GTEST_SKIP() << "a GPU is present: the run itself is tested on the GPU machine";
  const std::string good =
      write_source("heat.cu", std::string(kernel::template_source(*kernel::find_template("heat"))));
  const auto r =
      test::run_blockscope("bench kernel --target heat --source " + good + " --size 300x200",
                           "BLOCKSCOPE_CACHE_DIR=" + std::string(BS_TEST_OUT) + "/kernel_bench/cache");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("compiled for sm_90"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("running a user kernel needs a GPU"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace bs
