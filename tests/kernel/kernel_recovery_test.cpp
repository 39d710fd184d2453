// kernel_recovery_test.cpp: what can be recovered in-process after an out-of-bounds user kernel poisons the
// CUDA context (GPU only; each test in its own process: the fault is sticky). Three orders of clean-up before
// cudaDeviceReset are tried, and each says what it saw (every step's CUDA result, how long until the device
// answered again) so docs/PERFORMANCE.md can quote it:
//  - abandon: every handle forgotten (what the app's recovery did first);
//  - unload: the abandoned CUlibrary unloaded (release_abandoned_libraries) before the reset;
//  - unload+free: buffers freed, stream destroyed and the library unloaded before the reset.
// Each must end cleanly: the good heat template runs and passes after the reset, or the reset names why not.
#include <gtest/gtest.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "core/error.h"
#include "gpu/common/device_info.h"
#include "gpu/kernel/compiler.h"
#include "gpu/kernel/lab_runs.h"
#include "test_util.h"

namespace bs::kernel {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* k_out_of_bounds = R"(
extern "C" __global__ void heat_step(const float* in, float* out, int nx, int ny, float r, float bt, int fixed) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  out[(long long)y * nx + x + (1ll << 40)] = in[0];  // far outside any allocation
}
)";

CompileResult compile_for_device(std::string source) {
  CompileRequest req;
  req.source = std::move(source);
  req.target = Target::Heat;
  req.arch = test::device().cc_major * 10 + test::device().cc_minor;
  CompileResult r = compile_kernel(req);
  EXPECT_TRUE(r.ok()) << r.message;
  return r;
}

std::string name_of(cudaError_t e) {
  return cudaGetErrorName(e);
}

heat::Params small_field() {
  heat::Params p;
  p.nx = 100;
  p.ny = 70;
  return p;
}

// cudaDeviceReset, then cudaSetDevice + cudaFree(0) until the device answers or `limit_s` passes; prints what
// it saw. True when the device answered.
bool reset_and_probe(double limit_s) {
  const auto t0 = Clock::now();
  cudaError_t reset = cudaDeviceReset();
  std::printf("[recovery] cudaDeviceReset: %s\n", name_of(reset).c_str());
  cudaError_t probe = cudaErrorUnknown;
  int tries = 0;
  while (std::chrono::duration<double>(Clock::now() - t0).count() < limit_s) {
    ++tries;
    (void)cudaGetLastError();
    probe = cudaSetDevice(test::device().index);
    if (probe == cudaSuccess) probe = cudaFree(nullptr);
    if (probe == cudaSuccess) break;
    if (probe != cudaErrorDevicesUnavailable) {
      // Another reset may clear what the first left (e.g. a context that was still being torn down).
      reset = cudaDeviceReset();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::printf("[recovery] after %.2f s and %d tries: cudaFree(0) = %s, cudaGetLastError = %s\n",
              std::chrono::duration<double>(Clock::now() - t0).count(), tries, name_of(probe).c_str(),
              name_of(cudaGetLastError()).c_str());
  return probe == cudaSuccess;
}

// After the reset: the good template runs and passes, or (device unavailable) nothing more is tried.
void expect_clean_end(bool answered) {
  if (!answered) {
    std::printf("[recovery] outcome: the device stayed unavailable to this process\n");
    return;
  }
  const CompileResult good = compile_for_device(std::string(template_source(*find_template("heat"))));
  const LoadedKernel k(good);
  const heat::Params p = small_field();
  const UserRun u =
      run_heat(k, p, heat::make_initial(p, heat::InitialPattern::Noise), 5, {32, 8}, std::nullopt, {0, 1});
  EXPECT_TRUE(u.passed) << u.check;
  std::printf("[recovery] outcome: recovered in-process; the heat template runs again: %s\n",
              u.check.c_str());
}

void expect_named_sticky(const GpuError& e) {
  EXPECT_TRUE(e.sticky()) << e.what();
  EXPECT_NE(std::string(e.what()).find("user kernel heat_step"), std::string::npos) << e.what();
  std::printf("[recovery] reported: %s\n", e.what());
}

// The out-of-bounds kernel run as the labs run it (run_heat abandons its buffers on the sticky fault); the
// kernel is abandoned too, as the app's recovery does.
void fault_and_abandon() {
  const CompileResult bad = compile_for_device(k_out_of_bounds);
  LoadedKernel k(bad);
  const heat::Params p = small_field();
  try {
    run_heat(k, p, heat::make_initial(p, heat::InitialPattern::Noise), 1, {32, 8}, std::nullopt, {0, 1});
    ADD_FAILURE() << "an out-of-bounds write was not reported";
  } catch (const GpuError& e) {
    expect_named_sticky(e);
  }
  k.abandon();
}

TEST(KernelRecoveryGpu, AbandonEverythingThenReset) {
  BS_REQUIRE_GPU();
  fault_and_abandon();
  expect_clean_end(reset_and_probe(10.0));
}

TEST(KernelRecoveryGpu, UnloadTheLibraryThenReset) {
  BS_REQUIRE_GPU();
  fault_and_abandon();
  std::printf("[recovery] unloaded %d abandoned libraries\n", release_abandoned_libraries());
  expect_clean_end(reset_and_probe(10.0));
}

TEST(KernelRecoveryGpu, FreeEverythingAndUnloadThenReset) {
  BS_REQUIRE_GPU();
  const CompileResult bad = compile_for_device(k_out_of_bounds);
  const heat::Params p = small_field();
  float *in = nullptr, *out = nullptr;
  const size_t bytes = static_cast<size_t>(p.cells()) * sizeof(float);
  ASSERT_EQ(cudaMalloc(&in, bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&out, bytes), cudaSuccess);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  {
    LoadedKernel k(bad);
    try {
      launch_heat_step(k, {4, 9}, {32, 8}, in, out, p, stream);
      wait_with_deadline(stream, 5.0, k.name());
      FAIL() << "an out-of-bounds write was not reported";
    } catch (const GpuError& e) {
      expect_named_sticky(e);
    }
    std::printf("[recovery] cudaFree(in) %s, cudaFree(out) %s, cudaStreamDestroy %s\n",
                name_of(cudaFree(in)).c_str(), name_of(cudaFree(out)).c_str(),
                name_of(cudaStreamDestroy(stream)).c_str());
  }  // ~LoadedKernel unloads the library
  std::printf("[recovery] after unload: cudaGetLastError %s\n", name_of(cudaGetLastError()).c_str());
  expect_clean_end(reset_and_probe(10.0));
}

}  // namespace
}  // namespace bs::kernel
