// anatomy.h: the kernel-anatomy tools' shared host interface (pure C++; ui/ and app/ include it).
// - A lab's instrumented kernel (its own code between the probes of record.cuh: gpu/<lab>/<lab>_anatomy.*)
//   records, per block, which SM ran it and when (%smid, %globaltimer read by thread 0 after a __syncthreads
//   at entry and at exit). Instrumented kernels are for looking at scheduling only and are never timed.
// - From such a record: the per-SM block timeline, predicted vs observed waves, idle SMs, CSV and SVG.
// - Per-cell maps for colouring a field by blockIdx, threadIdx, warp, SM or block run time.
// - Occupancy on the real device (cudaOccupancyMaxActiveBlocksPerMultiprocessor) next to the model.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpu/anatomy/occupancy.h"
#include "core/launch.h"

namespace bs::anatomy {

// One block of one launch, as recorded on the device (the same 32-byte layout is written by the kernel).
struct BlockRecord {
  uint32_t block_x = 0;
  uint32_t block_y = 0;
  uint32_t sm = 0;  // %smid of the SM that ran the block
  uint32_t pad = 0;
  uint64_t start_ns = 0;  // %globaltimer after the entry __syncthreads
  uint64_t end_ns = 0;    // %globaltimer after the exit __syncthreads
};
static_assert(sizeof(BlockRecord) == 32);

// The record can hold at most this many blocks (8 MiB on the device; e.g. 8192x8192 with 16x16 blocks).
constexpr int64_t k_max_recorded_blocks = int64_t{1} << 18;

// --- Per-cell maps (pure arithmetic except Sm/BlockRunTime, which read a record)
// -------------------------------
enum class CellMode { BlockLinear, ThreadLinear, WarpInBlock, SmId, BlockRunTime };
const char* cell_mode_label(CellMode m);

// For an nx x ny field launched with `block` and `grid` (thread (x, y) computes cell (x, y)): one float per
// cell, row-major. BlockLinear = blockIdx.y * gridDim.x + blockIdx.x; ThreadLinear = threadIdx.y * blockDim.x
// + threadIdx.x; WarpInBlock = ThreadLinear / 32; SmId = the record's SM; BlockRunTime = end - start in ns.
// Cells no thread covers (a grid smaller than the field) are NaN. SmId and BlockRunTime need the record of
// that launch (one entry per block, any order); the other modes ignore it. Throws bs::InvalidRequest
// otherwise. Floats (what a GL texture takes) are exact below 2^24; tiny blocks on huge fields round.
std::vector<float> cell_values(CellMode mode, int64_t nx, int64_t ny, Dim2 block, Dim2 grid,
                               std::span<const BlockRecord> record = {});

// --- Timeline
// ---------------------------------------------------------------------------------------------------
struct TimelineBlock {
  uint32_t block_x = 0, block_y = 0;
  int64_t start_ns = 0, end_ns = 0;  // relative to the timeline's t0
  int wave = 0;                      // position on its SM / resident blocks per SM (0-based)
  int slot = 0;  // a sub-row of its SM's lane: blocks overlapping in time on one SM get different slots
};
struct SmLane {
  uint32_t sm = 0;
  std::vector<TimelineBlock> blocks;  // sorted by start, then end
  int slots = 0;                      // sub-rows used: the most blocks this SM ran at once (as recorded)
};
struct Timeline {
  uint64_t t0_ns = 0;         // the earliest start (absolute %globaltimer)
  int64_t span_ns = 0;        // the latest end - t0
  std::vector<SmLane> lanes;  // one per SM id 0..max(sm_count, largest id + 1) - 1, idle ones included
  int sm_count = 0;
  int blocks_per_sm = 0;  // resident blocks per SM used for the wave counts
  int64_t block_count = 0;
  int64_t predicted_waves = 0;  // ceil(blocks / (SMs x resident blocks per SM))
  // Observed waves: the maximum over SMs of ceil(blocks that ran on that SM / resident blocks per SM), i.e.
  // how many rounds of full residency the busiest SM needed. Not a clustering of start times: a block
  // scheduler that refills slots as soon as they free up has no sharp wave edges, while the per-SM count is
  // exact.
  int64_t observed_waves = 0;
  int idle_sms = 0;                                // SMs (of sm_count) that ran no block
  int min_blocks_on_sm = 0, max_blocks_on_sm = 0;  // over the SMs that exist (idle ones count as 0)
  int64_t median_block_ns = 0;                     // median block run time
  int64_t timer_tick_ns = 0;  // smallest positive gap between distinct timestamps: the timer's apparent step
};

int64_t predicted_waves(int64_t blocks, int sm_count, int blocks_per_sm);
// `blocks_per_sm` must be >= 1; `sm_count` is the device's SM count.
Timeline build_timeline(std::span<const BlockRecord> record, int sm_count, int blocks_per_sm);

// CSV "block_x,block_y,sm,start_ns,end_ns", rows in block order (y, then x), times relative to the earliest
// start.
std::string blocks_csv(std::span<const BlockRecord> record);
// One row per SM, one rect per block, x = time; colour alternates with the block's wave on its SM.
std::string timeline_svg(const Timeline& t, std::string_view title);

// --- Device occupancy
// -------------------------------------------------------------------------------------------
// Kernels whose attributes and occupancy can be queried by name: the test kernels "demo_regs" (many
// registers), "demo_smem_static" (40 KiB __shared__), "demo_smem_dynamic" (dynamic shared memory only), and
// those the labs register (e.g. gpu/heat/heat_anatomy.cu: "heat", "heat_c2", ..., "heat_instrumented").
struct NamedKernel {
  const char* name;
  const void* func;  // the __global__ function
};
// Adds device functions to the by-name queries. A lab's anatomy .cu registers its kernels at static
// initialization, in the object file that also defines its record function, so that a program that can
// record a lab's kernel can query it by name. Returns true (for a namespace-scope initializer).
bool register_kernels(std::initializer_list<NamedKernel> kernels);
// The registered labs' kernels in name order, then the test kernels.
std::vector<std::string> kernel_names();

struct KernelAttributes {
  std::string name;
  int regs_per_thread = 0;
  int64_t static_smem = 0;
  int64_t local_bytes = 0;  // per-thread local memory (spills)
  int max_threads_per_block = 0;
  int binary_version = 0;  // e.g. 90
};

// The real device's limits as an ArchSpec: the table entry of its compute capability (for carve-outs and
// granularities) overridden with what the device reports. Throws bs::GpuError without a device.
ArchSpec device_arch();
KernelAttributes kernel_attributes(std::string_view kernel);
// The same for a device function the caller holds (e.g. reduce::GpuRunner::first_kernel_function); `name`
// labels it.
KernelAttributes kernel_attributes(const void* func, std::string_view name);
// cudaOccupancyMaxActiveBlocksPerMultiprocessor. Dynamic shared memory above the default 48 KiB makes the
// kernel opt in first (cudaFuncAttributeMaxDynamicSharedMemorySize), as the model assumes.
int runtime_blocks_per_sm(std::string_view kernel, int threads_per_block, int64_t dynamic_smem = 0);
int runtime_blocks_per_sm(const void* func, int threads_per_block, int64_t dynamic_smem = 0);

struct DeviceOccupancy {
  ArchSpec arch;
  KernelAttributes attrs;
  KernelUsage usage;
  Occupancy model;
  int runtime_blocks_per_sm = 0;
  bool agrees() const { return model.blocks_per_sm == runtime_blocks_per_sm; }
};
DeviceOccupancy device_occupancy(std::string_view kernel, int threads_per_block, int64_t dynamic_smem = 0);

}  // namespace bs::anatomy
