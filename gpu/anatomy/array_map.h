// array_map.h: the anatomy tools' picture of a 1-D launch (pure C++; ui/ and app/ include it): the input
// array as a strip of chunks (the contiguous elements one block takes at a time, ArrayLaunch::chunk), read
// left to right and top to bottom, one texel per chunk coloured by the block that takes it: its index, the SM
// that ran it, when it started or how long it ran. Grid-stride kernels (a fixed grid looping over the array)
// get one column per block and one row per trip of the loop.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "core/enum_names.h"
#include "gpu/anatomy/anatomy.h"
#include "gpu/anatomy/array_launch.h"
#include "gpu/anatomy/overlay.h"

namespace bs::anatomy {

// --- The array map (pure)
// ------------------------------------------------------------------------------------------------
enum class ArrayMapMode { Block, Sm, StartTime, BlockTime };
constexpr int k_array_map_mode_count = 4;
const char* array_map_mode_label(ArrayMapMode m);  // "blockIdx", "SM that ran it", "start time", ...
ArrayMapMode next_array_map_mode(ArrayMapMode m);
bool array_map_needs_record(ArrayMapMode m);  // Sm, StartTime, BlockTime
// The names sessions use (a lab's "anatomy_map").
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
// Throws bs::InvalidRequest for a shape that is not known (a library's kernels) or n < 1.
constexpr int64_t k_max_grid_columns = 512;
ArrayLayout array_layout(const ArrayLaunch& s, int64_t n, int64_t max_texels = int64_t{1} << 20);
// The first chunk under texel (col, row); -1 beyond the array.
int64_t chunk_at(const ArrayLayout& l, int64_t col, int64_t row);
// The input elements [first, last) of a chunk.
struct ElementRange {
  int64_t first = 0, last = 0;
};
ElementRange chunk_elements(const ArrayLaunch& s, const ArrayLayout& l, int64_t chunk);

// The strip as an RGBA image (w = cols, h = rows; texels past the end transparent). Block: the palette by
// block index mod categorical_period(cols), so that a chunk and the one below it differ; Sm: by SM id mod 12;
// StartTime: the ramp over the block's start time since the first block started; BlockTime: over its run
// time. The record modes need the record of that launch (block_x = the block's index in the launch); a
// block missing from it shows black. error is set (and rgba empty) when the mode cannot be drawn.
OverlayImage make_array_map(ArrayMapMode mode, const ArrayLaunch& s, int64_t n,
                            std::span<const BlockRecord> record, const std::array<uint32_t, 256>& ramp,
                            int64_t max_texels = int64_t{1} << 20);

}  // namespace bs::anatomy
