// record.cuh: the instrumented-run toolkit shared by the labs' anatomy .cu files (gpu/<lab>/<lab>_anatomy.cu;
// include from .cu files only): the per-block probe the instrumented kernels put around their body, and the
// host side that launches them (a warm-up, then the recorded launch), reads the record back and fills in the
// kernel's occupancy.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/launch.h"
#include "gpu/anatomy/anatomy.h"
#include "gpu/anatomy/probe.cuh"
#include "gpu/common/device_buffer.h"
#include "gpu/common/device_info.h"
#include "gpu/common/require_device.h"

namespace bs::anatomy::detail {

using bs::require_device;  // gpu/common/require_device.h

// The per-block probe shared by every instrumented kernel. begin(): after a barrier (so the first thread to
// arrive cannot stamp the start before the last one has begun), thread 0 reads the SM id and the start time.
// end(): after a barrier (every thread's stores are issued), thread 0 appends {blockIdx, SM, start, end}.
// The barriers and the atomic change the kernel's timing: instrumented kernels are never timed. Kernels using
// it must not return early: every thread must reach both barriers. meta[0] counts appended records; meta[1]
// receives %nsmid.
struct BlockProbe {
  uint64_t start = 0;
  uint32_t sm = 0;
  __device__ __forceinline__ bool lead() const { return threadIdx.x == 0 && threadIdx.y == 0; }
  __device__ __forceinline__ void begin() {
    __syncthreads();
    if (lead()) {
      start = global_timer_ns();
      sm = sm_id();
    }
  }
  // `block_x`: the index the record files the block under (blockIdx.x by default; the look-back scan files
  // each block under the tile it took from its counter).
  __device__ __forceinline__ void end(BlockRecord* __restrict__ rec, uint32_t* __restrict__ meta,
                                      uint32_t capacity, uint32_t block_x) {
    __syncthreads();
    if (!lead()) return;
    const uint64_t stop = global_timer_ns();
    const uint32_t slot = atomicAdd(&meta[0], 1u);
    if (slot < capacity) {
      BlockRecord b;
      b.block_x = block_x;
      b.block_y = blockIdx.y;
      b.sm = sm;
      b.pad = 0;
      b.start_ns = start;
      b.end_ns = stop;
      rec[slot] = b;
    }
    if (blockIdx.x == 0 && blockIdx.y == 0) meta[1] = sm_id_range();
  }
  __device__ __forceinline__ void end(BlockRecord* __restrict__ rec, uint32_t* __restrict__ meta,
                                      uint32_t capacity) {
    end(rec, meta, capacity, blockIdx.x);
  }
};

// Warm-up launch, recorded launch, copy back; `launch(rec, meta, capacity)` enqueues one launch on `st`.
template <class Launch>
inline std::vector<BlockRecord> record_launches(Dim2 grid, cudaStream_t st, uint32_t& appended,
                                                uint32_t& nsmid, Launch&& launch) {
  DeviceBuffer<BlockRecord> rec(static_cast<size_t>(grid.count()));
  DeviceBuffer<uint32_t> meta(2);
  const auto capacity = static_cast<uint32_t>(grid.count());
  // Launch 0 warms up (module load, clocks); launch 1 is the one recorded.
  for (int i = 0; i < 2; ++i) {
    BS_CUDA_CHECK(cudaMemsetAsync(meta.data(), 0, meta.bytes(), st));
    BS_CUDA_CHECK(cudaMemsetAsync(rec.data(), 0xff, rec.bytes(), st));
    launch(rec.data(), meta.data(), capacity);
    BS_CUDA_CHECK_LAUNCH();
  }
  uint32_t host_meta[2] = {0, 0};
  std::vector<BlockRecord> blocks(static_cast<size_t>(grid.count()));
  BS_CUDA_CHECK(cudaMemcpyAsync(host_meta, meta.data(), meta.bytes(), cudaMemcpyDeviceToHost, st));
  BS_CUDA_CHECK(cudaMemcpyAsync(blocks.data(), rec.data(), rec.bytes(), cudaMemcpyDeviceToHost, st));
  BS_CUDA_CHECK(cudaStreamSynchronize(st));
  appended = host_meta[0];
  nsmid = host_meta[1];
  // Slots no block wrote still hold the 0xff fill; keep only the written ones so that a missing block shows.
  blocks.resize(std::min<size_t>(appended, blocks.size()));
  return blocks;
}

// Fills the fields every record shares (attributes, arch, model, runtime occupancy) for the instrumented
// kernel `func` (named `name` in messages), launched with `threads` per block and no dynamic shared memory.
template <class Record>
void fill_occupancy(Record& out, const void* func, const std::string& name, int threads) {
  const KernelAttributes attrs = kernel_attributes(func, name);
  out.regs_per_thread = attrs.regs_per_thread;
  out.arch = device_arch();
  KernelUsage u;
  u.threads_per_block = threads;
  u.regs_per_thread = attrs.regs_per_thread;
  u.static_smem = attrs.static_smem;
  out.model = compute_occupancy(out.arch, u);
  out.runtime_blocks_per_sm = runtime_blocks_per_sm(func, threads, 0);
}

inline void check_record_size(Dim2 grid, const std::string& what) {
  if (grid.count() > k_max_recorded_blocks)
    throw InvalidRequest(what + " has " + std::to_string(grid.count()) +
                         " blocks; the record holds at most " + std::to_string(k_max_recorded_blocks) +
                         ": use larger blocks or a smaller problem");
}

}  // namespace bs::anatomy::detail
