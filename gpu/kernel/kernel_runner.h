// kernel_runner.h: running a compiled user kernel. LoadedKernel loads a CompileResult's CUBIN with the CUDA
// runtime's library API (cudaLibraryLoadData / cudaLibraryGetKernel; never the driver API linked directly,
// so the app still starts where no NVIDIA driver exists), reports the compiled kernel's registers, shared
// memory and occupancy, and launches it. The launch checks here are pure (they run without a GPU), and every
// fault message names the user's kernel. Plain C++: app/ and ui/ may include it.
//
// Faults, and what can be recovered without restarting (H100, driver 580, 2026-11-23; docs/PERFORMANCE.md):
//  - a bad launch (too many threads, too much shared memory) is cleared by cudaGetLastError: GpuError, not
//    sticky; the lab keeps running on the GPU.
//  - an illegal address / misaligned access poisons the CUDA context: GpuError, sticky, naming the kernel;
//    the app's recovery (app/shell/gpu_recovery) abandons every handle, unloads the user's libraries
//    (release_abandoned_libraries) and resets the device. On that H100 the driver keeps the device
//    unavailable to the process after the reset (cudaErrorDevicesUnavailable for 10 s of retries, whether or
//    not buffers were freed and libraries unloaded first; tests/kernel/kernel_recovery_test.cpp), so the app
//    moves to the CPU and says to restart blockscope to use the GPU again; a new process gets the GPU. The
//    labs do not run a kernel that faulted again until it is recompiled (UserKernels::note_fault).
//  - a kernel that does not finish within the limit: GpuError, sticky, "did not finish within N s", raised
//    by polling (never blocking the UI thread). The kernel cannot be stopped while the process keeps its
//    context: only a device reset (which tears the context down) or ending the process stops it, so the
//    recovery's reset-or-CPU path follows; a kernel that never ends is stopped when blockscope exits.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/launch.h"
#include "gpu/kernel/compiler.h"
#include "gpu/kernel/contracts.h"

namespace bs::kernel {

// How long a run of a user kernel may take before it is reported as hung (seconds).
inline constexpr double k_default_timeout_s = 5.0;

// --- Launch configuration (pure) ---------------------------------------------------------------------------
// The domain a target's launch covers, in threads (x, y): heat (nx, ny), vector (n, 1), matmul (N, M).
// The grid that covers `domain` with `block`.
Dim2 default_grid(Target t, Dim2 block, Dim2 domain);
// nullopt when (grid, block) can run `t`'s kernel over `domain` on a device with `limits`; otherwise a
// message naming the kernel and the broken rule, e.g. "heat_step: x*y = 64*32 = 2048 > 1024 threads per
// block, the most one block may hold" or "heat_step: grid 4x4 of 32x8 blocks covers 128x32 threads
// but the field is 200x100: 16800 cells would never be computed".
std::optional<std::string> validate_launch(Target t, Dim2 block, Dim2 grid, Dim2 domain,
                                           const DeviceLimits& limits);

// "user kernel heat_step (kernel.cu): <what>": the prefix every fault message carries.
std::string fault_message(std::string_view kernel_name, std::string_view what);

// --- The compiled kernel's figures -------------------------------------------------------------------------
struct KernelFigures {
  int registers = 0;              // per thread
  int static_smem_bytes = 0;      // per block
  int local_bytes = 0;            // per thread (spills, local arrays)
  int max_threads_per_block = 0;  // what the compiled kernel can be launched with
  int block_threads = 0;          // the block these occupancy figures are for
  int blocks_per_sm = 0;          // cudaOccupancyMaxActiveBlocksPerMultiprocessor
  int active_warps = 0, max_warps = 0;
  double occupancy() const { return max_warps > 0 ? double(active_warps) / max_warps : 0.0; }
  // "23 regs, 0 B smem, 8 blocks/SM of 256 threads = 100% occupancy"
  std::string text() const;
};
// The occupancy arithmetic (pure): warps of `blocks_per_sm` blocks of `block_threads` over the SM's maximum.
void fill_occupancy(KernelFigures& f, int block_threads, int blocks_per_sm, int max_threads_per_sm,
                    int warp_size = 32);

// --- A loaded kernel ---------------------------------------------------------------------------------------
class LoadedKernel {
 public:
  // Loads r.cubin and finds r.lowered_name. Throws InvalidRequest when r did not compile, GpuError when the
  // runtime cannot load it (e.g. built for another architecture than the device's), naming the kernel.
  explicit LoadedKernel(const CompileResult& r);
  ~LoadedKernel();
  LoadedKernel(const LoadedKernel&) = delete;
  LoadedKernel& operator=(const LoadedKernel&) = delete;

  const std::string& name() const { return m_name; }  // the contract's name ("heat_step")
  // Registers, shared memory, local memory and occupancy at `block`. Throws GpuError.
  KernelFigures figures(Dim2 block) const;
  // Launches with `args` (pointers to each argument) and `dynamic_smem_bytes` of dynamic shared memory on
  // `stream` (a cudaStream_t; null: the default stream). A launch error is cleared and thrown as GpuError naming the kernel (sticky when the context
  // was already poisoned).
  void launch(Dim2 grid, Dim2 block, void** args, void* stream, size_t dynamic_smem_bytes = 0) const;
  // After a sticky fault: forget the library handle without unloading it now (unloading may wait on the
  // poisoned context); release_abandoned_libraries() unloads it before the recovery's device reset.
  void abandon() noexcept;

 private:
  std::string m_name;
  void* m_library = nullptr;  // cudaLibrary_t
  void* m_kernel = nullptr;   // cudaKernel_t
};

// Unloads every library of an abandoned LoadedKernel (errors ignored) so that nothing of the user's code
// outlives the device reset that follows; returns how many. Called by the app's recovery before the reset.
int release_abandoned_libraries() noexcept;

// Waits (polling an event recorded now on `stream`, never blocking in the driver) until the work issued so
// far has finished, at most `timeout_s` seconds. Throws GpuError naming `kernel_name`: the kernel's fault
// (sticky for an illegal address), or "did not finish within N s" (sticky: only a device reset stops it).
void wait_with_deadline(void* stream, double timeout_s, std::string_view kernel_name);
// Non-blocking: true when the work issued on `stream` has finished (cudaStreamQuery), false while it runs.
// Throws GpuError naming `kernel_name` when the work failed. The labs call it once per frame, so that a
// kernel that runs too long never blocks the UI thread.
bool work_done(void* stream, std::string_view kernel_name);

}  // namespace bs::kernel
