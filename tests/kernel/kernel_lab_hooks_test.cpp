// kernel_lab_hooks_test.cpp: the vector lab's user op, the matmul lab's user rung and sweeps of a user
// kernel's launch configuration, through the app library. Here (no GPU): the choice is saved (the simulator
// runs the kernels: kernel_sim_labs_test.cpp), and a sweep of kernel=user validates only when a kernel is
// compiled. On the GPU machine: the vector lab runs, checks and times the user's vector_op, and the heat and vector sweep targets run the
// user's kernels over block sizes.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "app/app.h"
#include "app/heat/heat_lab.h"
#include "app/kernel/user_kernels.h"
#include "app/session.h"
#include "app/sweep/definition.h"
#include "app/sweep/targets.h"
#include "core/error.h"
#include "gpu/kernel/compiler.h"
#include "gpu/kernel/nvrtc_loader.h"
#include "lab_hook_util.h"
#include "run_util.h"
#include "test_util.h"

namespace bs {
namespace {

using json = nlohmann::json;

using test::lab_session;
using test::readout;

AppOptions headless(const char* scene, PathRequest path) { return test::headless_lab(scene, path); }

// A good compile of `target`'s first template for the device here (sm_90 without one), published.
void publish_template(UserKernels& uk, kernel::Target target) {
  kernel::CompileRequest req;
  req.source =
      std::string(kernel::template_source(*kernel::find_template(kernel::k_target_names.name_of(target))));
  req.target = target;
  if (test::device().available) req.arch = test::device().cc_major * 10 + test::device().cc_minor;
  auto result = std::make_shared<const kernel::CompileResult>(kernel::compile_kernel(req));
  ASSERT_TRUE(result->ok()) << result->message;
  uk.publish(req, result, "template");
}

// --- Here --------------------------------------------------------------------------------------------------

TEST(VectorUserOp, TheChoiceIsSaved) {
  if (!kernel::nvrtc().ok()) GTEST_SKIP() << kernel::nvrtc().error;
  if (test::device().available) GTEST_SKIP() << "a GPU is present: the run is tested below";
  App app(headless("vector", PathRequest::Cpu));
  ASSERT_TRUE(app.frame());
  EXPECT_EQ(app.active_lab()->save_state()["kernel"], "built-in");
  publish_template(app.user_kernels(), kernel::Target::Vector);
  ASSERT_FALSE(app.apply_session(lab_session("vector", {{"kernel", "user"}, {"n", "1M"}})));
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(app.frame());
  EXPECT_EQ(app.active_lab()->save_state()["kernel"], "user");
  // Simulated, not timed, so not in use (records do not claim it); kernel_sim_labs_test.cpp runs it.
  EXPECT_FALSE(app.user_kernels().in_use(kernel::Target::Vector));
  const auto err = app.apply_session(lab_session("vector", {{"kernel", "mine"}}));
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("kernel"), std::string::npos) << *err;
}

TEST(MatmulUserRung, TheBlockIsSavedAndCheckedAndNothingIsInUseWithoutAGpu) {
  App app(headless("matmul", PathRequest::Cpu));
  ASSERT_TRUE(app.frame());
  EXPECT_EQ(app.active_lab()->save_state()["user_block"], json({16, 16}));
  ASSERT_FALSE(app.apply_session(lab_session("matmul", {{"user_block", {32, 8}}})));
  ASSERT_TRUE(app.frame());
  EXPECT_EQ(app.active_lab()->save_state()["user_block"], json({32, 8}));
  const auto err = app.apply_session(lab_session("matmul", {{"user_block", {64, 32}}}));
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("user_block"), std::string::npos) << *err;
  EXPECT_FALSE(app.user_kernels().in_use(kernel::Target::Matmul));
}

TEST(UserKernelSweep, KernelUserValidatesOnlyWithACompiledKernel) {
  if (!kernel::nvrtc().ok()) GTEST_SKIP() << kernel::nvrtc().error;
  set_active_user_kernels(nullptr);
  sweep::Definition vec;
  vec.lab = "vector";
  vec.params = {{"block.x", {"64", "128", "256", "512"}}};
  vec.fixed = {{"kernel", "user"}, {"size", "1M"}};
  sweep::Definition heat;
  heat.lab = "heat";
  heat.params = {{"block.x", {"16", "32", "64"}}, {"kernel", {"built-in", "user"}}};
  heat.fixed = {{"size", "333x257"}};
  try {
    sweep::validate(vec);
    FAIL() << "kernel=user validated with no vector_op compiled";
  } catch (const InvalidRequest& e) {
    EXPECT_NE(std::string(e.what()).find("no vector_op has been compiled"), std::string::npos) << e.what();
  }
  EXPECT_THROW(sweep::validate(heat), InvalidRequest);
  UserKernels uk;
  set_active_user_kernels(&uk);
  publish_template(uk, kernel::Target::Vector);
  EXPECT_NO_THROW(sweep::validate(vec));
  EXPECT_THROW(sweep::validate(heat), InvalidRequest);  // a vector_op is no heat_step
  publish_template(uk, kernel::Target::Heat);
  EXPECT_NO_THROW(sweep::validate(heat));
  vec.fixed["kernel"] = "mine";
  EXPECT_THROW(sweep::validate(vec), InvalidRequest);
  // The JSON form round-trips the swept kernel choice.
  EXPECT_EQ(sweep::definition_from_json(sweep::to_json(heat)), heat);
  set_active_user_kernels(nullptr);
}

// `blockscope sweep --kernel FILE.cu`: kernel=user is refused without a kernel and runs with one (here the
// CPU series; the record keeps the kernel's source); a kernel of the wrong contract or for the matmul lab is
// a clear error (exit 2).
TEST(UserKernelSweep, TheSweepCommandTakesTheKernelFromAFile) {
  if (!kernel::nvrtc().ok()) GTEST_SKIP() << kernel::nvrtc().error;
  const std::filesystem::path dir = std::filesystem::path(BS_TEST_OUT) / "sweep_kernel";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string vec = (dir / "vec.cu").string(), heat = (dir / "heat.cu").string();
  std::ofstream(vec) << kernel::template_source(*kernel::find_template("vector"));
  std::ofstream(heat) << kernel::template_source(*kernel::find_template("heat"));
  const std::string env = "BLOCKSCOPE_CACHE_DIR=" + (dir / "cache").string();
  const std::string sweep =
      "sweep vector --param block.x=64,128 --fixed kernel=user --fixed op=formula "
      "--fixed size=4K --device cpu --reps 2 --warmup 0 --out ";
  auto r = test::run_blockscope(sweep + (dir / "none").string(), env);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no vector_op has been compiled yet"), std::string::npos) << r.output;
  r = test::run_blockscope(sweep + (dir / "ok").string() + " --kernel " + vec, env);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream rec(dir / "ok" / "record.json");
  const json j = json::parse(rec);
  ASSERT_TRUE(j.contains("user_kernels")) << j.dump();
  EXPECT_EQ(j["user_kernels"]["vector"]["kernel"], "vector_op");
  EXPECT_NE(j["user_kernels"]["vector"]["source"].get<std::string>().find("vector_op"), std::string::npos);
  r = test::run_blockscope(sweep + (dir / "wrong").string() + " --kernel " + heat, env);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("the vector contract expects"), std::string::npos) << r.output;
  r = test::run_blockscope("sweep matmul --param size=64 --out " + (dir / "mm").string() + " --kernel " + vec,
                           env);
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

// --- On the GPU machine
// -------------------------------------------------------------------------------------

TEST(UserKernelSweepGpu, TheVectorAndHeatTargetsRunTheUsersKernelsOverBlockSizes) {
  BS_REQUIRE_GPU();
  UserKernels uk;
  set_active_user_kernels(&uk);
  publish_template(uk, kernel::Target::Vector);
  publish_template(uk, kernel::Target::Heat);
  sweep::RunSettings s;
  s.warmup = 1;
  s.repetitions = 3;
  s.run_cpu = false;
  JobControl ctl;
  const sweep::Target* vt = sweep::find_target("vector");
  ASSERT_NE(vt, nullptr);
  for (const char* block : {"64", "256", "1024"}) {
    const sweep::Values v = sweep::default_values(
        *vt, {{"kernel", "user"}, {"op", "formula"}, {"size", "1000003"}, {"block.x", block}});
    const sweep::PointRun r = vt->run(v, s, ctl);
    ASSERT_EQ(r.series.size(), 1u);
    EXPECT_EQ(r.series[0].name, "GPU your vector_op");
    ASSERT_EQ(r.series[0].time_ms.size(), 3u);
    EXPECT_GT(r.series[0].throughput[0], 0);
    EXPECT_TRUE(r.notes.empty()) << r.notes[0];  // a failed check is a note
    std::printf("vector_op block %s: %.4f ms\n", block, r.series[0].time_ms[0]);
  }
  // Checked against the other op, the formula template fails: a note, and the point is still timed.
  const sweep::PointRun wrong =
      vt->run(sweep::default_values(*vt, {{"kernel", "user"}, {"op", "add"}, {"size", "4096"}}), s, ctl);
  ASSERT_EQ(wrong.notes.size(), 1u);
  EXPECT_NE(wrong.notes[0].find("FAIL"), std::string::npos) << wrong.notes[0];
  EXPECT_EQ(wrong.series[0].time_ms.size(), 3u);
  const sweep::Target* ht = sweep::find_target("heat");
  ASSERT_NE(ht, nullptr);
  for (const char* bx : {"16", "32", "128"}) {
    const sweep::Values v = sweep::default_values(
        *ht, {{"kernel", "user"}, {"size", "333x257"}, {"block.x", bx}, {"block.y", "4"}, {"steps", "20"}});
    const sweep::PointRun r = ht->run(v, s, ctl);
    ASSERT_EQ(r.series.size(), 1u);
    EXPECT_EQ(r.series[0].name, "GPU your heat_step");
    ASSERT_EQ(r.series[0].time_ms.size(), 3u);
    EXPECT_GT(r.series[0].time_ms[0], 0);
    std::printf("heat_step block %sx4: %.4f ms per step\n", bx, r.series[0].time_ms[0]);
  }
  set_active_user_kernels(nullptr);
}

TEST(VectorUserOpGpu, TheLabRunsChecksAndTimesTheUsersKernel) {
  BS_REQUIRE_GPU();
  App app(headless("vector", PathRequest::Host));
  ASSERT_TRUE(app.frame());
  publish_template(app.user_kernels(), kernel::Target::Vector);
  ASSERT_FALSE(app.apply_session(
      lab_session("vector", {{"kernel", "user"}, {"n", "1000003"}, {"op", "formula"}, {"block", 128}})));
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE(app.frame());
  const std::vector<ui::Readout> r = app.active_lab()->readouts();
  const ui::Readout* k = readout(r, "kernel");
  ASSERT_NE(k, nullptr);
  EXPECT_NE(k->hint.find("your vector_op, block 128"), std::string::npos) << k->hint;
  const ui::Readout* c = readout(r, "check");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->value, "pass") << c->hint;
  EXPECT_NE(c->hint.find("regs"), std::string::npos) << c->hint;
  EXPECT_TRUE(app.user_kernels().in_use(kernel::Target::Vector));
  std::printf("vector lab, your vector_op: %s GB/s (%s); %s\n", k->value.c_str(), k->hint.c_str(),
              c->hint.c_str());
}

TEST(MatmulUserRungGpu, TheUsersKernelIsOneMoreRungCheckedBesideCublas) {
  BS_REQUIRE_GPU();
  App app(headless("matmul", PathRequest::Host));
  ASSERT_TRUE(app.frame());
  publish_template(app.user_kernels(), kernel::Target::Matmul);
  // A size that is not a multiple of the template's 16x16 block.
  ASSERT_FALSE(app.apply_session(lab_session("matmul", {{"m", 1000}, {"n", 777}, {"k", 333}})));
  // Frames until the rung lands (time-bounded: under compute-sanitizer every launch is many times slower).
  const ui::Readout* mine = nullptr;
  std::vector<ui::Readout> r;
  const auto t0 = std::chrono::steady_clock::now();
  while (!mine && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(90)) {
    ASSERT_TRUE(app.frame());
    r = app.active_lab()->readouts();
    mine = readout(r, "your kernel");
  }
  ASSERT_NE(mine, nullptr) << "no rung for the user's kernel after 90 s of frames";
  EXPECT_GT(std::stod(mine->value), 0);
  EXPECT_NE(mine->hint.find(": pass"), std::string::npos) << mine->hint;
  EXPECT_NE(mine->hint.find("of cuBLAS"), std::string::npos) << mine->hint;
  EXPECT_TRUE(app.user_kernels().in_use(kernel::Target::Matmul));
  std::printf("matmul lab, your kernel: %s GFLOP/s (%s)\n", mine->value.c_str(), mine->hint.c_str());
}

// An out-of-bounds heat_step in the heat lab goes through the app's recovery with a message naming it; the
// lab does not run it again (its built-in step runs until a new compile). Run in its own process: the fault
// is sticky. Either outcome of the device reset is clean: the GPU back in-process, or the CPU with a message
// to restart.
TEST(UserKernelFaultGpu, AnOutOfBoundsHeatStepGoesThroughTheRecoveryNamingIt) {
  BS_REQUIRE_GPU();
  App app(headless("heat", PathRequest::Host));
  ASSERT_TRUE(app.frame());
  kernel::CompileRequest req;
  req.source = R"(
extern "C" __global__ void heat_step(const float* in, float* out, int nx, int ny, float r, float bt, int fixed) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  out[(long long)y * nx + x + (1ll << 40)] = in[0];  // far outside any allocation
}
)";
  req.target = kernel::Target::Heat;
  req.arch = test::device().cc_major * 10 + test::device().cc_minor;
  auto result = std::make_shared<const kernel::CompileResult>(kernel::compile_kernel(req));
  ASSERT_TRUE(result->ok()) << result->message;
  app.user_kernels().publish(req, result, "oob.cu");
  testing::internal::CaptureStderr();
  ASSERT_FALSE(app.apply_session(lab_session("heat", {{"kernel", "user"}, {"paused", false}})));
  for (int i = 0; i < 12; ++i)
    ASSERT_TRUE(app.frame());
  const std::string err = testing::internal::GetCapturedStderr();
  std::printf("%s", err.c_str());
  EXPECT_NE(err.find("GPU error: user kernel heat_step"), std::string::npos) << err;
  EXPECT_FALSE(app.user_kernels().fault(kernel::Target::Heat).empty());
  auto* lab = dynamic_cast<HeatLab*>(app.active_lab());
  ASSERT_NE(lab, nullptr);
  EXPECT_FALSE(lab->model().user_kernel_running);
  const int64_t before = lab->steps_done();
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(app.frame());
  EXPECT_GT(lab->steps_done(), before) << "the lab does not run after the recovery";
  if (err.find("device reset, simulation restarted") != std::string::npos) {
    std::printf("[outcome] recovered in-process: the GPU runs the built-in step; lab says: %s\n",
                lab->model().user_kernel_status.c_str());
    EXPECT_NE(lab->model().user_kernel_status.find("faulted"), std::string::npos)
        << lab->model().user_kernel_status;
    EXPECT_TRUE(lab->model().gpu);
  } else {
    std::printf("[outcome] the device stayed unavailable: the CPU runs the lab\n");
    EXPECT_NE(err.find("Restart blockscope to use the GPU again"), std::string::npos) << err;
  }
}

// The same through the vector lab: an out-of-bounds vector_op run by "Run on GPU" (on a worker thread)
// reaches the recovery naming it, is marked faulted, and the lab keeps running. Own process.
TEST(UserKernelFaultGpu, AnOutOfBoundsVectorOpGoesThroughTheRecoveryNamingIt) {
  BS_REQUIRE_GPU();
  App app(headless("vector", PathRequest::Host));
  ASSERT_TRUE(app.frame());
  kernel::CompileRequest req;
  req.source = R"(
extern "C" __global__ void vector_op(const float* a, const float* b, float* c, long long n) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  c[i + (1ll << 40)] = a[i] + b[i];  // far outside any allocation
}
)";
  req.target = kernel::Target::Vector;
  req.arch = test::device().cc_major * 10 + test::device().cc_minor;
  auto result = std::make_shared<const kernel::CompileResult>(kernel::compile_kernel(req));
  ASSERT_TRUE(result->ok()) << result->message;
  app.user_kernels().publish(req, result, "oob_vector.cu");
  testing::internal::CaptureStderr();
  ASSERT_FALSE(app.apply_session(lab_session("vector", {{"kernel", "user"}, {"n", "1M"}})));
  for (int i = 0; i < 8; ++i)
    ASSERT_TRUE(app.frame());
  const std::string err = testing::internal::GetCapturedStderr();
  std::printf("%s", err.c_str());
  EXPECT_NE(err.find("GPU error: user kernel vector_op"), std::string::npos) << err;
  if (err.find("could not be reset") != std::string::npos) {  // what survives without a restart, and not
    EXPECT_NE(err.find("Kept without a restart"), std::string::npos) << err;
  }
  EXPECT_FALSE(app.user_kernels().fault(kernel::Target::Vector).empty());
  EXPECT_FALSE(app.user_kernels().in_use(kernel::Target::Vector));
  EXPECT_FALSE(app.active_lab()->save_state().is_null());
}

}  // namespace
}  // namespace bs
