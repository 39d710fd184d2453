// probe.cuh: device-only reads of PTX special registers, for recording where and when a block ran.
// Include from .cu files only.
#pragma once

#include <cstdint>

namespace bs::anatomy {

// The SM this thread runs on. PTX says ids need not be contiguous and may reach %nsmid - 1, which can exceed
// the SM count; on current GPUs they lie in 0..SM count - 1, which the tests check.
__device__ __forceinline__ uint32_t sm_id() {
  uint32_t v;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(v));
  return v;
}

__device__ __forceinline__ uint32_t sm_id_range() {
  uint32_t v;
  asm volatile("mov.u32 %0, %%nsmid;" : "=r"(v));
  return v;
}

// A nanosecond clock shared by all SMs. Its update step depends on the GPU and driver (often about 1 us,
// finer while a profiler runs), so short blocks may show zero length.
__device__ __forceinline__ uint64_t global_timer_ns() {
  uint64_t v;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(v));
  return v;
}

}  // namespace bs::anatomy
