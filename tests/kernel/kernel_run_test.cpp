// kernel_run_test.cpp: running user kernels (gpu/kernel/kernel_runner.h, lab_runs.h). Pure parts (launch
// checks, messages, occupancy arithmetic) run anywhere; the GPU tests skip without a device. On the GPU:
// each template equals the lab's built-in kernel within a stated tolerance (sizes not multiples of the
// block or tile), an out-of-bounds kernel is reported naming it and the process runs a good kernel again
// after the recovery's device reset, and a hanging kernel is reported by the deadline.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "core/error.h"
#include "gpu/common/device_info.h"
#include "gpu/kernel/lab_runs.h"
#include "gpu/kernel/nvrtc_loader.h"
#include "test_util.h"

namespace bs::kernel {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// --- Pure
// ----------------------------------------------------------------------------------------------------
TEST(KernelLaunch, ABlockOf2048ThreadsIsRefusedNamingTheKernel) {
  const auto e = validate_launch(Target::Heat, {64, 32}, {4, 4}, {200, 100}, DeviceLimits{});
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("heat_step"), std::string::npos) << *e;
  EXPECT_NE(e->find("= 2048 > 1024 threads per block"), std::string::npos) << *e;
}

TEST(KernelLaunch, AGridThatDoesNotCoverTheDataSaysHowMuchIsLeftOut) {
  // 4x4 blocks of 32x8 cover 128x32 of a 200x100 field: 20000 - 4096 cells never computed.
  const auto e = validate_launch(Target::Heat, {32, 8}, {4, 4}, {200, 100}, DeviceLimits{});
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("15904 cells would never be computed"), std::string::npos) << *e;
  EXPECT_NE(e->find("grid 7x13 covers it"), std::string::npos) << *e;
  const auto v = validate_launch(Target::Vector, {256, 1}, {3, 1}, {1000, 1}, DeviceLimits{});
  ASSERT_TRUE(v);
  EXPECT_NE(v->find("vector_op: grid 3 of 256 blocks covers 768 threads but the arrays is 1000"),
            std::string::npos)
      << *v;
}

TEST(KernelLaunch, VectorIsOneDimensionalAndGoodLaunchesPass) {
  EXPECT_TRUE(validate_launch(Target::Vector, {32, 8}, {4, 1}, {1000, 1}, DeviceLimits{}));
  EXPECT_FALSE(validate_launch(Target::Vector, {256, 1}, default_grid(Target::Vector, {256, 1}, {1000, 1}),
                               {1000, 1}, DeviceLimits{}));
  EXPECT_FALSE(validate_launch(Target::Matmul, {16, 16}, default_grid(Target::Matmul, {16, 16}, {777, 333}),
                               {777, 333}, DeviceLimits{}));
  // More than the grid's y limit (65535 on every CUDA device).
  EXPECT_TRUE(validate_launch(Target::Heat, {1, 1}, {1, 70000}, {1, 70000}, DeviceLimits{}));
  EXPECT_EQ(default_grid(Target::Matmul, {16, 16}, {777, 333}), (Dim2{49, 21}));
}

TEST(KernelLaunch, FaultMessagesNameTheUsersKernel) {
  EXPECT_EQ(fault_message("heat_step", "illegal address"),
            "user kernel heat_step (kernel.cu): illegal address");
}

TEST(KernelLaunch, OccupancyArithmetic) {
  KernelFigures f;
  fill_occupancy(f, 256, 6, 2048);  // 6 blocks of 8 warps of 64 warps
  EXPECT_EQ(f.active_warps, 48);
  EXPECT_EQ(f.max_warps, 64);
  EXPECT_DOUBLE_EQ(f.occupancy(), 0.75);
  fill_occupancy(f, 100, 16, 2048);  // 100 threads take 4 warps
  EXPECT_EQ(f.active_warps, 64);
  EXPECT_NE(f.text().find("100% occupancy"), std::string::npos) << f.text();
}

TEST(KernelLaunch, AFailedCompileCannotBeLoaded) {
  CompileResult r;
  r.status = CompileStatus::CompileError;
  r.kernel_name = "heat_step";
  r.message = "1 error";
  try {
    LoadedKernel k(r);
    FAIL() << "loaded a failed compile";
  } catch (const InvalidRequest& e) {
    EXPECT_NE(std::string(e.what()).find("heat_step"), std::string::npos) << e.what();
  }
}

// Compiling needs no GPU (NVRTC): every template compiles for sm_90 with its kernel and resources found.
TEST(KernelLaunch, EveryTemplateCompilesWithItsKernelFound) {
  if (!nvrtc().ok()) GTEST_SKIP() << nvrtc().error;
  for (const KernelTemplate& t : kernel_templates()) {
    CompileRequest req;
    req.source = std::string(template_source(t));
    req.target = t.target;
    const CompileResult r = compile_kernel(req);
    EXPECT_TRUE(r.ok()) << t.id << ": " << r.message << " (log " << r.log.size() << " bytes)\n" << r.log;
    EXPECT_NE(r.main_kernel(), nullptr) << t.id;
  }
}

// --- GPU
// -----------------------------------------------------------------------------------------------------
CompileResult compile_for_device(std::string source, Target t) {
  CompileRequest req;
  req.source = std::move(source);
  req.target = t;
  req.arch = test::device().cc_major * 10 + test::device().cc_minor;
  CompileResult r = compile_kernel(req);
  if (!r.ok()) {
    // What NVRTC gave (a compile that fails here but not on the CPU machine needs these to be understood).
    CompileResult again = compile_kernel(req);
    ADD_FAILURE() << r.message << "\nNVRTC " << r.nvrtc_version << " (" << nvrtc().library << "), log "
                  << r.log.size() << " bytes, lowered name '" << r.lowered_name << "', " << r.kernels.size()
                  << " kernels; compiled again: " << again.message << " (log " << again.log.size()
                  << " bytes)\nlog:\n"
                  << r.log;
    return again;  // go on with the second try, so the run still tests what follows
  }
  return r;
}

CompileResult compile_template(std::string_view id) {
  const KernelTemplate* t = find_template(id);
  EXPECT_NE(t, nullptr) << id;
  return compile_for_device(std::string(template_source(*t)), t->target);
}

double max_rel_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double d = 0, m = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    d = std::max(d, std::fabs(double(a[i]) - b[i]));
    m = std::max(m, std::fabs(double(b[i])));
  }
  return d / m;
}

TEST(KernelRunGpu, HeatTemplatesEqualTheBuiltInStepAfter50Steps) {
  BS_REQUIRE_GPU();
  heat::Params p;
  p.nx = 333;  // not multiples of the 32x8 block
  p.ny = 257;
  const int steps = 50;
  const std::vector<float> initial = heat::make_initial(p, heat::InitialPattern::Noise);
  heat::GpuSolver solver(p);
  solver.set_launch({32, 8}, std::nullopt, 1);
  solver.upload(initial);
  solver.step(steps);
  const std::vector<float> builtin = solver.download();
  for (const char* id : {"heat", "heat-tutorial"}) {
    const CompileResult r = compile_template(id);
    const LoadedKernel k(r);
    const UserRun u = run_heat(k, p, initial, steps, {32, 8}, std::nullopt, {1, 3});
    EXPECT_TRUE(u.passed) << id << ": " << u.check;
    const double d = max_rel_diff(u.output, builtin);
    EXPECT_LE(d, heat_tolerance(steps)) << id;
    EXPECT_GT(u.figures.registers, 0);
    EXPECT_GT(u.figures.occupancy(), 0.0);
    std::printf("%s: %s; vs built-in max rel diff %.2e; %s; %.4f ms/step\n", id, u.check.c_str(), d,
                u.figures.text().c_str(), u.ms.median);
  }
}

// The heat lab's hook: the user's heat_step replaces the solver's step (same buffers, stream, timing and the
// field the lab draws through interop).
TEST(KernelRunGpu, TheHeatSolverRunsTheUsersStepInPlaceOfItsOwn) {
  BS_REQUIRE_GPU();
  heat::Params p;
  p.nx = 333;
  p.ny = 257;
  p.boundary = heat::Boundary::Insulated;
  const int steps = 40;
  const std::vector<float> initial = heat::make_initial(p, heat::InitialPattern::HotSpots);
  heat::GpuSolver builtin(p);
  builtin.set_launch({32, 8}, std::nullopt, 1);
  builtin.upload(initial);
  builtin.step(steps);
  const CompileResult r = compile_template("heat");
  const LoadedKernel k(r);
  heat::GpuSolver user(p);
  user.set_launch({32, 8}, std::nullopt, 1);
  int calls = 0;
  user.set_step_override([&](const float* in, float* out, Dim2 grid, Dim2 block, void* stream) {
    ++calls;
    launch_heat_step(k, grid, block, in, out, p, stream);
  });
  EXPECT_TRUE(user.has_step_override());
  user.upload(initial);
  user.step(steps);
  EXPECT_EQ(calls, steps);
  EXPECT_LE(max_rel_diff(user.download(), builtin.download()), heat_tolerance(steps));
  std::vector<float> ref = initial;
  heat::run_cpu(ref, p, steps, heat::CpuMode::OneThread);
  EXPECT_LE(max_rel_diff(user.download(), ref), heat_tolerance(steps));
  user.sync();
  EXPECT_FALSE(user.poll_step_ms().empty());  // timed like the built-in steps
  user.set_step_override({});
  EXPECT_FALSE(user.has_step_override());
}

TEST(KernelRunGpu, VectorTemplateEqualsTheBuiltInFormula) {
  BS_REQUIRE_GPU();
  const int64_t n = 1000003;  // not a multiple of the block
  const CompileResult r = compile_template("vector");
  const LoadedKernel k(r);
  const UserRun u = run_vector(k, n, 256, std::nullopt, vector::Op::Formula, {1, 3});
  EXPECT_TRUE(u.passed) << u.check;
  std::vector<float> a(n), b(n);
  vector::fill_inputs(a.data(), b.data(), n);
  vector::GpuRunner runner;
  vector::Params vp;
  vp.n = n;
  vp.op = vector::Op::Formula;
  const std::vector<float> builtin = runner.compute(vp, a, b);
  double worst = 0;
  for (int64_t i = 0; i < n; ++i)
    worst = std::max(worst, std::fabs(double(u.output[i]) - builtin[i]) / std::fabs(double(builtin[i])));
  EXPECT_LE(worst, vector::k_formula_rel_tol);
  // Checked against the other op it fails: the check can fail.
  const UserRun wrong = run_vector(k, 1000, 256, std::nullopt, vector::Op::Add, {0, 1});
  EXPECT_FALSE(wrong.passed) << wrong.check;
  std::printf("vector: %s; vs built-in max rel diff %.2e; %s\n", u.check.c_str(), worst,
              u.figures.text().c_str());
}

TEST(KernelRunGpu, MatmulTemplatesEqualTheBuiltInAtSizesNotMultiplesOfTheTile) {
  BS_REQUIRE_GPU();
  const matmul::Problem p{333, 257, 129};
  matmul::GpuRunner runner(p);
  runner.set_inputs(matmul::make_matrix(p.m, p.k, 1), matmul::make_matrix(p.k, p.n, 2));
  runner.run_once(matmul::Variant::NaiveCoalesced);
  const std::vector<float> builtin = runner.download_c();
  std::vector<double> builtin_d(builtin.begin(), builtin.end());
  for (const char* id : {"matmul", "matmul-tiled"}) {
    const CompileResult r = compile_template(id);
    const LoadedKernel k(r);
    const UserRun u = run_matmul(k, p, {16, 16}, std::nullopt, {1, 3});
    EXPECT_TRUE(u.passed) << id << ": " << u.check;
    const matmul::CheckResult c = matmul::check_result(u.output, builtin_d, p.k, "built-in naive");
    EXPECT_TRUE(c.pass) << id << ": " << c.summary();
    std::printf("%s: %s; vs built-in: %s; %s\n", id, u.check.c_str(), c.summary().c_str(),
                u.figures.text().c_str());
  }
}

TEST(KernelRunGpu, ALaunchTheKernelCannotTakeIsClearedAndNamed) {
  BS_REQUIRE_GPU();
  const CompileResult r = compile_template("heat");
  const LoadedKernel k(r);
  float* null = nullptr;
  int nx = 1, ny = 1, fixed = 1;
  float rr = 0.2f, bt = 0;
  void* args[] = {&null, &null, &nx, &ny, &rr, &bt, &fixed};
  try {
    k.launch({1, 1}, {64, 32}, args, nullptr);  // 2048 threads: refused by the launch, not sticky
    FAIL() << "launched 2048 threads";
  } catch (const GpuError& e) {
    EXPECT_FALSE(e.sticky()) << e.what();
    EXPECT_NE(std::string(e.what()).find("user kernel heat_step"), std::string::npos) << e.what();
  }
  // The context is fine: the same kernel runs and passes.
  heat::Params p;
  p.nx = 100;
  p.ny = 70;
  EXPECT_TRUE(
      run_heat(k, p, heat::make_initial(p, heat::InitialPattern::Noise), 5, {32, 8}, std::nullopt, {0, 1})
          .passed);
}

constexpr const char* k_out_of_bounds = R"(
extern "C" __global__ void heat_step(const float* in, float* out, int nx, int ny, float r, float bt, int fixed) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  out[(long long)y * nx + x + (1ll << 40)] = in[0];  // far outside any allocation
}
)";

// Spins for up to 4 s of GPU time (%globaltimer, ns), so the test cannot wedge the machine for long.
constexpr const char* k_hang = R"(
extern "C" __global__ void heat_step(const float* in, float* out, int nx, int ny, float r, float bt, int fixed) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < 4000000000ull);
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < nx && y < ny) out[y * nx + x] = in[y * nx + x];
}
)";

// What the app's recovery (app/shell/gpu_recovery.cpp) does after a sticky error: reset, then rebuild; here
// the rebuild is a good kernel loaded and run again.
// On an H100 with driver 580 the device stays unavailable to the process after an illegal address
// (cudaErrorDevicesUnavailable on every try of the reset): the app then falls back to the CPU and says to
// restart. Both outcomes must be clean: the good kernel runs again, or the reset says why not.
void expect_recovers(const CompileResult& good) {
  std::string err;
  const auto t0 = Clock::now();
  const bool reset = reset_cuda_device(test::device().index, &err);
  std::printf("[ info ] device reset %s after %.2f s%s%s\n", reset ? "worked" : "failed", seconds_since(t0),
              reset ? "" : ": ", err.c_str());
  if (!reset) {
    EXPECT_FALSE(err.empty());
    return;
  }
  const LoadedKernel k(good);
  heat::Params p;
  p.nx = 100;
  p.ny = 70;
  const UserRun u =
      run_heat(k, p, heat::make_initial(p, heat::InitialPattern::Noise), 5, {32, 8}, std::nullopt, {0, 1});
  EXPECT_TRUE(u.passed) << u.check;
}

TEST(KernelRunGpu, AnOutOfBoundsKernelIsReportedAndAGoodOneRunsAfterRecovery) {
  BS_REQUIRE_GPU();
  const CompileResult good = compile_template("heat");
  const CompileResult bad = compile_for_device(k_out_of_bounds, Target::Heat);
  {
    LoadedKernel k(bad);
    heat::Params p;
    p.nx = 100;
    p.ny = 70;
    try {
      run_heat(k, p, heat::make_initial(p, heat::InitialPattern::Noise), 1, {32, 8}, std::nullopt, {0, 1});
      FAIL() << "an out-of-bounds write was not reported";
    } catch (const GpuError& e) {
      EXPECT_TRUE(e.sticky()) << e.what();
      EXPECT_NE(std::string(e.what()).find("user kernel heat_step"), std::string::npos) << e.what();
      std::printf("reported: %s\n", e.what());
    }
    k.abandon();  // the context is gone: the recovery forgets every handle before the reset
  }
  expect_recovers(good);
}

TEST(KernelRunGpu, AHangingKernelIsReportedByTheDeadline) {
  BS_REQUIRE_GPU();
  const CompileResult good = compile_template("heat");
  const CompileResult hang = compile_for_device(k_hang, Target::Heat);
  {
    LoadedKernel k(hang);
    heat::Params p;
    p.nx = 64;
    p.ny = 64;
    const auto t0 = Clock::now();
    try {
      RunSettings s{0, 1, 1.0};
      run_heat(k, p, heat::make_initial(p, heat::InitialPattern::Noise), 1, {32, 8}, std::nullopt, s);
      FAIL() << "a kernel spinning for 4 s finished within the 1 s limit";
    } catch (const GpuError& e) {
      const double took = seconds_since(t0);
      EXPECT_LT(took, 3.0) << "the deadline was not kept";
      EXPECT_NE(std::string(e.what()).find("did not finish within 1.0 s"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("user kernel heat_step"), std::string::npos) << e.what();
      std::printf("reported after %.2f s: %s\n", took, e.what());
    }
    k.abandon();
  }
  expect_recovers(good);
}

}  // namespace
}  // namespace bs::kernel
