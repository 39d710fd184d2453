// reduce_anatomy.h: the kernel anatomy of the reduction and scan lab (pure C++; ui/ and app/ include it).
// - The map of a 1-D launch: the input array as a strip of chunks (the contiguous elements one block takes at
//   a time, reduce::KernelShape::chunk), read left to right and top to bottom, one texel per chunk coloured
//   by the block that takes it: its index, the SM that ran it, when it started or how long it ran.
//   Grid-stride kernels (a fixed grid looping over the array) get one column per block and one row per trip
//   of the loop.
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
#include "gpu/anatomy/overlay.h"
#include "core/enum_names.h"
#include "gpu/reduce/reduce.h"

namespace bs::anatomy {

// The launch that passes over the input, as reduce::GpuRunner plans it on a device with these limits (the
// grid-stride variants' grid: a few waves of resident blocks, threads/SM / block, at most blocks/SM).
reduce::KernelShape reduce_launch_shape(const reduce::Params& p, int sm_count, int max_threads_per_sm,
                                        int max_blocks_per_sm, int64_t smem_optin);
// Without a device: as on an H100 SXM (132 SMs, the sm_90 table entry's limits).
constexpr int k_model_sm_count = 132;
reduce::KernelShape reduce_launch_shape_model(const reduce::Params& p);

// --- The array map (pure)
// ------------------------------------------------------------------------------------------------
enum class ArrayMapMode { Block, Sm, StartTime, BlockTime };
constexpr int k_array_map_mode_count = 4;
const char* array_map_mode_label(ArrayMapMode m);  // "blockIdx", "SM that ran it", "start time", ...
ArrayMapMode next_array_map_mode(ArrayMapMode m);
bool array_map_needs_record(ArrayMapMode m);  // Sm, StartTime, BlockTime
// The names sessions use ("anatomy_map" of the reduce lab).
inline constexpr auto k_array_map_mode_names = enum_names<ArrayMapMode>({{ArrayMapMode::Block, "blockidx"},
                                                                         {ArrayMapMode::Sm, "sm"},
                                                                         {ArrayMapMode::StartTime, "start"},
                                                                         {ArrayMapMode::BlockTime, "time"}});
static_assert(k_array_map_mode_names.size() == k_array_map_mode_count);

struct ArrayLayout {
  int64_t n = 0;               // elements
  int64_t chunks = 0;          // ceil(n / chunk)
  int64_t cols = 0, rows = 0;  // texels per row, rows of texels
  int64_t chunks_per_texel =
      1;  // > 1 when the chunks exceed the texel budget (a texel shows its first chunk)
};
// Grid-stride shapes: cols = the grid where it has at most k_max_grid_columns blocks (one column per block,
// one row per trip of the loop), else its largest divisor in k_max_grid_columns / 8 .. k_max_grid_columns
// (a column always holds the same few blocks; wider rows would fall below a pixel per texel in a window);
// otherwise about 4 texels wide per texel high, the strip read like text.
// Throws bs::InvalidRequest for a shape that is not known (CUB) or n < 1.
constexpr int64_t k_max_grid_columns = 512;
ArrayLayout array_layout(const reduce::KernelShape& s, int64_t n, int64_t max_texels = int64_t{1} << 20);
// The first chunk under texel (col, row); -1 beyond the array.
int64_t chunk_at(const ArrayLayout& l, int64_t col, int64_t row);
// The input elements [first, last) of a chunk.
struct ElementRange {
  int64_t first = 0, last = 0;
};
ElementRange chunk_elements(const reduce::KernelShape& s, const ArrayLayout& l, int64_t chunk);

// The strip as an RGBA image (w = cols, h = rows; texels past the end transparent). Block: the palette by
// block index mod categorical_period(cols), so that a chunk and the one below it differ; Sm: by SM id mod 12;
// StartTime: the ramp over the block's start time since the first block started; BlockTime: over its run
// time. The record modes need the record of that launch (block_x = the block's index in the launch); a
// block missing from it shows black. error is set (and rgba empty) when the mode cannot be drawn.
OverlayImage make_array_map(ArrayMapMode mode, const reduce::KernelShape& s, int64_t n,
                            std::span<const BlockRecord> record, const std::array<uint32_t, 256>& ramp,
                            int64_t max_texels = int64_t{1} << 20);

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
