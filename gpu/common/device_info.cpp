// device_info.cpp: fills DeviceInfo from the CUDA runtime without ever throwing.
#include "gpu/common/device_info.h"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <chrono>
#include <filesystem>
#include <system_error>
#include <thread>

#include "gpu/common/cuda_check.h"

namespace bs {

namespace {
int attr(cudaDeviceAttr a, int dev) {
  int v = 0;
  if (cudaDeviceGetAttribute(&v, a, dev) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return v;
}
}  // namespace

DeviceLimits current_device_limits() {
  int dev = 0;
  BS_CUDA_CHECK(cudaGetDevice(&dev));
  auto get = [dev](cudaDeviceAttr a) {
    int v = 0;
    BS_CUDA_CHECK(cudaDeviceGetAttribute(&v, a, dev));
    return v;
  };
  DeviceLimits l;
  l.max_threads_per_block = get(cudaDevAttrMaxThreadsPerBlock);
  l.max_block_x = get(cudaDevAttrMaxBlockDimX);
  l.max_block_y = get(cudaDevAttrMaxBlockDimY);
  l.max_grid_x = get(cudaDevAttrMaxGridDimX);
  l.max_grid_y = get(cudaDevAttrMaxGridDimY);
  l.warp_size = get(cudaDevAttrWarpSize);
  // Attribute queries do not touch the context; a cheap runtime call that does makes a lost context show
  // here.
  BS_CUDA_CHECK(cudaFree(nullptr));
  return l;
}

std::string version_string(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

int built_cuda_runtime_version() {
  return CUDART_VERSION;
}

std::string no_device_reason(const NoDeviceFacts& f) {
  const std::string raw = f.error_text + " (" + f.error_name + ")";
  if (f.error != static_cast<int>(cudaErrorInsufficientDriver)) return raw;
  if (!f.driver_library_loads)
    return std::string("no NVIDIA driver found (libcuda.so.1 cannot be loaded") +
           (f.driver_proc_present ? "" : ", no /proc/driver/nvidia/version") + "): running on the CPU";
  if (f.driver_version > 0 && f.driver_version < f.runtime_version)
    return "the NVIDIA driver supports CUDA " + version_string(f.driver_version) + ", older than the CUDA " +
           version_string(f.runtime_version) +
           " runtime blockscope was built with: update the driver to use the GPU (running on the CPU)";
  if (f.driver_version == 0)
    return std::string("the NVIDIA driver library loads but reports no driver version") +
           (f.driver_proc_present ? ""
                                  : " (no /proc/driver/nvidia/version: the kernel module is not loaded)") +
           ": running on the CPU";
  return raw + "; driver CUDA " + version_string(f.driver_version) + ", runtime CUDA " +
         version_string(f.runtime_version);
}

namespace {
NoDeviceFacts facts_for(cudaError_t err, const DeviceInfo& d) {
  NoDeviceFacts f;
  f.error = static_cast<int>(err);
  f.error_name = cudaGetErrorName(err);
  f.error_text = cudaGetErrorString(err);
  if (void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) {
    f.driver_library_loads = true;
    dlclose(lib);
  }
  std::error_code ec;
  f.driver_proc_present = std::filesystem::exists("/proc/driver/nvidia/version", ec);
  f.driver_version = d.driver_version;
  f.runtime_version = d.runtime_version;
  return f;
}
}  // namespace

DeviceInfo query_device(int index) {
  DeviceInfo d;
  if (cudaDriverGetVersion(&d.driver_version) != cudaSuccess) d.driver_version = 0;
  if (cudaRuntimeGetVersion(&d.runtime_version) != cudaSuccess) d.runtime_version = CUDART_VERSION;
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    d.reason = no_device_reason(facts_for(err, d));
    (void)cudaGetLastError();
    return d;
  }
  if (count == 0) {
    d.reason = "the CUDA driver reports no devices";
    return d;
  }
  if (index < 0 || index >= count) {
    d.reason = "device " + std::to_string(index) + " does not exist (" + std::to_string(count) + " found)";
    return d;
  }
  cudaDeviceProp p{};
  err = cudaGetDeviceProperties(&p, index);
  if (err == cudaSuccess) err = cudaSetDevice(index);
  if (err == cudaSuccess)
    err = cudaFree(nullptr);  // creates the context: fails early if the device is unusable
  if (err != cudaSuccess) {
    d.reason = no_device_reason(facts_for(err, d));
    (void)cudaGetLastError();
    return d;
  }
  d.available = true;
  d.index = index;
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.total_mem = p.totalGlobalMem;
  size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) d.free_mem = free_b;
  d.clock_khz = attr(cudaDevAttrClockRate, index);
  d.mem_clock_khz = attr(cudaDevAttrMemoryClockRate, index);
  d.mem_bus_bits = attr(cudaDevAttrGlobalMemoryBusWidth, index);
  d.l2_bytes = p.l2CacheSize;
  d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  d.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
  d.regs_per_sm = p.regsPerMultiprocessor;
  d.regs_per_block = p.regsPerBlock;
  d.smem_per_sm = p.sharedMemPerMultiprocessor;
  d.smem_per_block = p.sharedMemPerBlock;
  d.smem_per_block_optin = p.sharedMemPerBlockOptin;
  char bus[32] = {};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, index) == cudaSuccess) d.pci_bus_id = bus;
  d.limits.max_threads_per_block = p.maxThreadsPerBlock;
  d.limits.max_block_x = p.maxThreadsDim[0];
  d.limits.max_block_y = p.maxThreadsDim[1];
  d.limits.max_grid_x = p.maxGridSize[0];
  d.limits.max_grid_y = p.maxGridSize[1];
  d.limits.warp_size = p.warpSize;
  return d;
}

int fp32_lanes_per_sm(int major, int minor) {
  if (major == 7) return 64;                     // Volta, Turing
  if (major == 8) return minor == 0 ? 64 : 128;  // A100: 64; GA10x, Ada: 128
  if (major == 9) return 128;                    // Hopper
  if (major >= 10) return 128;                   // Blackwell
  return 128;
}

double peak_fp32_gflops(const DeviceInfo& d) {
  return 2.0 * d.sm_count * fp32_lanes_per_sm(d.cc_major, d.cc_minor) * (d.clock_khz * 1e3) / 1e9;
}

double peak_dram_gbs(const DeviceInfo& d) {
  return 2.0 * (d.mem_clock_khz * 1e3) * (d.mem_bus_bits / 8.0) / 1e9;
}

bool reset_cuda_device(int index, std::string* error) {
  cudaError_t err = cudaDeviceReset();
  // Right after a fault the driver may still be tearing the old context down and answer "busy or unavailable"
  // for a moment: retry for up to about three seconds before giving up on the GPU.
  for (int attempt = 0; attempt < 30; ++attempt) {
    if (err == cudaSuccess || err == cudaErrorDevicesUnavailable) {
      (void)cudaGetLastError();
      err = cudaSetDevice(index);
      if (err == cudaSuccess) err = cudaFree(nullptr);
    }
    if (err != cudaErrorDevicesUnavailable) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (err != cudaSuccess) {
    if (error) *error = std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
    (void)cudaGetLastError();
    return false;
  }
  return true;
}
}  // namespace bs
