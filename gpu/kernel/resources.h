// resources.h: what a compiled kernel uses, read from the ptxas report NVRTC 13 appends to the program log
// with --ptxas-options=-v (verified with NVRTC 13.0: "Used 10 registers, used 1 barriers, 256 bytes smem",
// "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"), plus the PTX's .maxntid (from
// __launch_bounds__). The report gives no thread limit: max_threads_per_block is derived from the registers
// (below), which is what the driver's cuFuncGetAttribute would say on compute capability 7.5 .. 12.x.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace bs::kernel {

struct KernelResources {
  std::string name;  // the entry function (lowered) name
  int registers = 0;
  int barriers = 0;
  int shared_static_bytes = 0;  // "smem"
  int constant_bytes = 0;       // "cmem[0]" (the kernel's parameters and constants)
  int stack_frame_bytes = 0;    // local memory per thread
  int spill_store_bytes = 0, spill_load_bytes = 0;
  int launch_bounds_threads = 0;  // .maxntid x*y*z; 0 = none
  int max_threads_per_block = 0;  // registers (and launch bounds) allow this many threads in one block
};

// One entry per "Compiling entry function" in the log, in order.
std::vector<KernelResources> parse_ptxas_report(std::string_view log);
// Sets launch_bounds_threads from the PTX's ".maxntid" of each entry, then max_threads_per_block.
void apply_ptx_limits(std::string_view ptx, std::vector<KernelResources>* kernels);
// The most threads one block may have with `registers` per thread: 64K registers per block, allocated per
// warp in units of 256, at most 1024 threads; capped by launch bounds when given (0 = none).
int max_threads_for_registers(int registers, int launch_bounds_threads);

}  // namespace bs::kernel
