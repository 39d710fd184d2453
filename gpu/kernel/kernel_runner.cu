// kernel_runner.cu: see kernel_runner.h. The CUBIN is loaded with the runtime's library API; cudart_static
// finds libcuda at run time, so nothing here links the driver. cudaFuncGetAttributes and
// cudaOccupancyMaxActiveBlocksPerMultiprocessor take the cudaKernel_t cast to const void* (CUDA 13's
// cuda_runtime_api.h documents both as accepting it).
#include <cuda_runtime.h>

#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "gpu/common/cuda_check.h"
#include "gpu/common/nvtx_range.h"
#include "gpu/kernel/kernel_runner.h"

namespace bs::kernel {

namespace {

[[noreturn]] void throw_fault(std::string_view name, cudaError_t err, const std::string& what) {
  throw GpuError(
      fault_message(name, what + " (" + cudaGetErrorName(err) + ": " + cudaGetErrorString(err) + ")"),
      static_cast<int>(err), is_sticky_cuda_error(err));
}

// Libraries whose LoadedKernel was abandoned after a sticky fault: unloaded by
// release_abandoned_libraries() before the recovery's device reset.
std::mutex g_abandoned_mutex;
std::vector<void*> g_abandoned;

}  // namespace

void LoadedKernel::abandon() noexcept {
  if (!m_library) return;
  try {
    std::lock_guard lock(g_abandoned_mutex);
    g_abandoned.push_back(m_library);
  } catch (...) {  // out of memory: the handle is only forgotten
  }
  m_library = nullptr;
}

int release_abandoned_libraries() noexcept {
  std::vector<void*> libs;
  {
    std::lock_guard lock(g_abandoned_mutex);
    libs.swap(g_abandoned);
  }
  for (void* lib : libs)
    (void)cudaLibraryUnload(
        static_cast<cudaLibrary_t>(lib));  // fails on a poisoned context; frees host state
  (void)cudaGetLastError();
  return static_cast<int>(libs.size());
}

LoadedKernel::LoadedKernel(const CompileResult& r)
    : m_name(r.kernel_name.empty() ? r.lowered_name : r.kernel_name) {
  if (!r.ok() || r.cubin.empty())
    throw InvalidRequest(fault_message(m_name, "there is no compiled kernel to run (" + r.message + ")"));
  if (r.lowered_name.empty())
    throw InvalidRequest(fault_message(m_name, "the compile named no kernel to run"));
  cudaLibrary_t lib = nullptr;
  cudaError_t err = cudaLibraryLoadData(&lib, r.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
  if (err != cudaSuccess) {
    cudaGetLastError();
    std::string what = "cannot load the compiled kernel";
    int dev = 0, major = 0, minor = 0;
    if (cudaGetDevice(&dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) == cudaSuccess &&
        major * 10 + minor != r.arch)
      what += ": it was compiled for sm_" + std::to_string(r.arch) + " but the device is sm_" +
              std::to_string(major * 10 + minor) + " (compile for that architecture)";
    throw_fault(m_name, err, what);
  }
  cudaKernel_t kernel = nullptr;
  err = cudaLibraryGetKernel(&kernel, lib, r.lowered_name.c_str());
  if (err != cudaSuccess) {
    cudaGetLastError();
    cudaLibraryUnload(lib);
    throw_fault(m_name, err, "the loaded code has no kernel " + r.lowered_name);
  }
  m_library = lib;
  m_kernel = kernel;
}

LoadedKernel::~LoadedKernel() {
  if (m_library) BS_CUDA_LOG(cudaLibraryUnload(static_cast<cudaLibrary_t>(m_library)));
}

KernelFigures LoadedKernel::figures(Dim2 block) const {
  KernelFigures f;
  cudaFuncAttributes attr{};
  const void* fn = m_kernel;
  cudaError_t err = cudaFuncGetAttributes(&attr, fn);
  if (err != cudaSuccess) {
    cudaGetLastError();
    throw_fault(m_name, err, "cannot read the kernel's attributes");
  }
  f.registers = attr.numRegs;
  f.static_smem_bytes = static_cast<int>(attr.sharedSizeBytes);
  f.local_bytes = static_cast<int>(attr.localSizeBytes);
  f.max_threads_per_block = attr.maxThreadsPerBlock;
  const int threads = static_cast<int>(block.count());
  int blocks = 0;
  if (threads >= 1 && threads <= attr.maxThreadsPerBlock) {
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, threads, 0);
    if (err != cudaSuccess) {
      cudaGetLastError();
      throw_fault(m_name, err, "cannot compute the kernel's occupancy");
    }
  }
  int dev = 0, max_threads = 0, warp = 32;
  BS_CUDA_CHECK(cudaGetDevice(&dev));
  BS_CUDA_CHECK(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
  BS_CUDA_CHECK(cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, dev));
  fill_occupancy(f, threads, blocks, max_threads, warp);
  return f;
}

void LoadedKernel::launch(Dim2 grid, Dim2 block, void** args, void* stream, size_t dynamic_smem_bytes) const {
  const dim3 g(static_cast<unsigned>(grid.x), static_cast<unsigned>(grid.y));
  const dim3 b(static_cast<unsigned>(block.x), static_cast<unsigned>(block.y));
  const NvtxRange range("kernel/" + m_name + " grid " + to_string(grid) + " block " + to_string(block));
  cudaError_t err =
      cudaLaunchKernel(static_cast<const void*>(m_kernel), g, b, args, dynamic_smem_bytes,
                       static_cast<cudaStream_t>(stream));
  const cudaError_t last = cudaGetLastError();  // clears a launch error (a sticky one stays)
  if (err == cudaSuccess) err = last;
  if (err != cudaSuccess)
    throw_fault(m_name, err,
                "launch with grid " + to_string(grid) + " and block " + to_string(block) + " failed");
}

void wait_with_deadline(void* stream, double timeout_s, std::string_view kernel_name) {
  cudaEvent_t ev = nullptr;
  BS_CUDA_CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  cudaError_t err = cudaEventRecord(ev, static_cast<cudaStream_t>(stream));
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::duration<double>(timeout_s);
  while (err == cudaSuccess) {
    err = cudaEventQuery(ev);
    if (err == cudaSuccess) break;
    if (err != cudaErrorNotReady) break;
    err = cudaSuccess;
    if (std::chrono::steady_clock::now() >= deadline) {
      cudaEventDestroy(ev);  // released once the work is gone
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.1f s", timeout_s);
      throw GpuError(fault_message(kernel_name, std::string("did not finish within ") + buf +
                                                    "; a running kernel cannot be stopped without a device "
                                                    "reset (the recovery resets the device, which ends it)"),
                     static_cast<int>(cudaErrorLaunchTimeout), true);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  cudaEventDestroy(ev);
  if (err != cudaSuccess) {
    cudaGetLastError();
    throw_fault(kernel_name, err, "failed while running");
  }
}

bool work_done(void* stream, std::string_view kernel_name) {
  const cudaError_t err = cudaStreamQuery(static_cast<cudaStream_t>(stream));
  if (err == cudaSuccess) return true;
  if (err == cudaErrorNotReady) return false;
  cudaGetLastError();
  throw_fault(kernel_name, err, "failed while running");
}

}  // namespace bs::kernel
