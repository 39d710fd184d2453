// reduce_anatomy.h: the kernel anatomy of the reduction and scan lab (pure C++; ui/ and app/ include it).
// - The launch the array map draws (gpu/anatomy/array_map.h), as the lab plans it on a device.
// - An instrumented run of the lab's kernels (the same bodies, gpu/reduce/reduce_kernels.cuh, between the
//   per-block probes of gpu/anatomy/record.cuh): which SM ran each block of the launch that passes over the
//   input, and when. Never used for timing.
// - The occupancy of the lab's own (uninstrumented) kernel on the device.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gpu/anatomy/anatomy.h"
#include "gpu/anatomy/array_map.h"
#include "gpu/reduce/reduce.h"

namespace bs::anatomy {

// The launch that passes over the input, as reduce::GpuRunner plans it on a device with these limits (the
// grid-stride variants' grid: a few waves of resident blocks, threads/SM / block, at most blocks/SM).
reduce::KernelShape reduce_launch_shape(const reduce::Params& p, int sm_count, int max_threads_per_sm,
                                        int max_blocks_per_sm, int64_t smem_optin);
// Without a device: as on an H100 SXM (132 SMs, the sm_90 table entry's limits).
constexpr int k_model_sm_count = 132;
reduce::KernelShape reduce_launch_shape_model(const reduce::Params& p);

// --- Instrumented runs and occupancy on the GPU
// ------------------------------------------------------------------------------------------------
bool is_instrumented_reduce(const reduce::Params& p);  // every variant but CUB

struct ReduceRecord {
  reduce::Params params;
  reduce::KernelShape shape;  // the recorded launch (the lab's first launch)
  Dim2 block, grid;           // {threads, 1}, {shape.grid, 1}
  std::vector<BlockRecord>
      blocks;  // one per block, in completion order; block_x = the block (look-back: tile)
  uint32_t appended = 0;
  std::string device_name;
  int sm_count = 0;
  uint32_t nsmid = 0;
  int runtime_blocks_per_sm = 0;  // of the instrumented copy, with the launch's dynamic shared memory
  int regs_per_thread = 0;
  int64_t static_smem = 0;
  ArchSpec arch;
  Occupancy model;
};
// One warm-up and one recorded launch of the instrumented copy of p's first kernel, on the lab's inputs
// (never zeros). Throws bs::InvalidRequest (CUB, a bad p, too many blocks to record, not enough memory) and
// bs::GpuError (no device).
ReduceRecord record_reduce_blocks(const reduce::Params& p);

// The occupancy of the lab's own kernel for p (cudaFuncGetAttributes, the model with the launch's dynamic
// shared memory, cudaOccupancyMaxActiveBlocksPerMultiprocessor). Throws like record_reduce_blocks.
DeviceOccupancy reduce_device_occupancy(const reduce::Params& p);

}  // namespace bs::anatomy
