// device_info.h: what the CUDA device is (or why there is none). Pure C++ so the UI can show it.
#pragma once

#include <cstddef>
#include <string>

#include "core/launch.h"

namespace bs {

struct DeviceInfo {
  bool available = false;
  // Why no device is usable, e.g. "no NVIDIA driver found (libcuda.so.1 cannot be loaded): running on the
  // CPU" or "the NVIDIA driver supports CUDA 12.4, older than the CUDA 13.0 runtime ...: update the driver".
  std::string reason;
  int index = -1;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  size_t total_mem = 0;
  size_t free_mem = 0;
  int clock_khz = 0;      // max SM clock
  int mem_clock_khz = 0;  // max memory clock
  int mem_bus_bits = 0;
  int l2_bytes = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int regs_per_sm = 0;
  int regs_per_block = 0;
  size_t smem_per_sm = 0;
  size_t smem_per_block = 0;
  size_t smem_per_block_optin = 0;
  int driver_version = 0;   // e.g. 13000
  int runtime_version = 0;  // e.g. 13000
  std::string pci_bus_id;
  DeviceLimits limits;

  std::string compute_capability() const { return std::to_string(cc_major) + "." + std::to_string(cc_minor); }
};

// The launch limits of the current device; throws bs::GpuError (sticky where the context is lost).
DeviceLimits current_device_limits();

// Queries device `index`; never throws. On failure `available` is false and `reason` says why.
DeviceInfo query_device(int index = 0);

// FP32 lanes per SM for a compute capability (the CUDA programming guide's arithmetic throughput table).
int fp32_lanes_per_sm(int cc_major, int cc_minor);
// Theoretical FP32 peak: SMs x lanes x 2 (FMA) x clock.
double peak_fp32_gflops(const DeviceInfo& d);
// Theoretical DRAM bandwidth from memory clock and bus width (double data rate).
double peak_dram_gbs(const DeviceInfo& d);

std::string version_string(int cuda_version);  // 13000 -> "13.0"

// The CUDA runtime version blockscope was compiled against (CUDART_VERSION, e.g. 13000).
int built_cuda_runtime_version();

// What the CUDA runtime's failure to find a device means, in words a user can act on. cudaGetDeviceCount
// answers cudaErrorInsufficientDriver ("CUDA driver version is insufficient for CUDA runtime version") both
// when no driver is installed and when the installed one is too old; only the second is fixed by updating.
struct NoDeviceFacts {
  int error = 0;                      // the cudaError_t of cudaGetDeviceCount (or of creating the context)
  std::string error_name;             // cudaGetErrorName
  std::string error_text;             // cudaGetErrorString
  bool driver_library_loads = false;  // dlopen("libcuda.so.1") succeeds
  bool driver_proc_present = false;   // /proc/driver/nvidia/version exists (the kernel module is loaded)
  int driver_version = 0;             // cudaDriverGetVersion: 0 without a driver
  int runtime_version = 0;            // cudaRuntimeGetVersion
};
std::string no_device_reason(const NoDeviceFacts& f);

// Resets the CUDA device after a sticky error (everything allocated is gone) and checks it works again.
// Returns false with `error` when the device stays unusable: the caller then falls back to the CPU.
bool reset_cuda_device(int index, std::string* error);

}  // namespace bs
