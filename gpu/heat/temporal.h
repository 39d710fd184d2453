// temporal.h: temporal blocking for the heat stencil (pure C++; ui/ and app/ include it): several time steps
// per pass over memory. Each thread block loads a tile of width x height cells (its output region plus a halo
// of `steps` cells on every side) into shared memory, takes `steps` steps there (ping-pong between two
// buffers; step s updates the tile's cells [s, width - s) x [s, height - s), a region that shrinks by one
// cell per side per step because its edge cells lack a neighbour), and writes the inner
// (width - 2 steps) x (height - 2 steps) cells back. DRAM then sees one read of the tile and one write of the
// output per `steps` steps instead of per step; the price is the halo cells, loaded and updated by two
// neighbouring tiles. The geometry below is shared by the CUDA kernel (heat_gpu.cu), the CPU emulation of
// a pass (fused_pass_cpu, which the tests compare with single steps) and the lab's read-outs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/launch.h"
#include "gpu/common/hd.h"

namespace bs::heat {

struct Params;

constexpr int k_max_fused_steps = 8;

// A block of `width` x `threads_y` threads; each thread owns `rows_per_thread` cells of its column, so the
// tile is width x (threads_y * rows_per_thread) cells. rows_per_thread is a template argument of the kernel:
// 8 or 16.
struct TileShape {
  int width = 128;
  int threads_y = 4;
  int rows_per_thread = 16;
  int height() const { return threads_y * rows_per_thread; }
  bool operator==(const TileShape&) const = default;
};
constexpr int k_tile_rows_choices[] = {8, 16};
// The tile the app, the lab and GpuSolver use: the fastest of the eight shapes `bench heat --tune` times on
// an H100 at 8192^2 (docs/PERFORMANCE.md).
constexpr TileShape k_default_tile{128, 4, 16};
// The steps fused per pass that were fastest with that tile (x1.72 the best one-step kernel; 3 and 5 within
// 1.5%).
constexpr int k_default_fused_steps = 4;

struct TemporalTile {
  TileShape shape;
  int steps = k_default_fused_steps;  // fused per pass, 1 .. k_max_fused_steps
  int width() const { return shape.width; }
  int height() const { return shape.height(); }
  int out_width() const { return shape.width - 2 * steps; }
  int out_height() const { return shape.height() - 2 * steps; }
  // Two float buffers of the whole tile.
  int64_t shared_bytes() const { return 2 * int64_t{shape.width} * shape.height() * 4; }
};

// "128x64 tile (128x4 threads, 16 rows each)"
std::string to_string(const TileShape& s);
// nullopt when a device with `shared_limit` bytes of shared memory per block (opt-in) and `limits` can run
// the tile: rows_per_thread 8 or 16, 1 <= steps <= k_max_fused_steps, an output region of at least one cell
// each way, a block the device accepts.
std::optional<std::string> validate_tile(const TemporalTile& t, const DeviceLimits& limits,
                                         int64_t shared_limit);
// Blocks along x and y: enough output regions to cover the field.
Dim2 temporal_grid(const TemporalTile& t, int64_t nx, int64_t ny);

// Field coordinate of the tile's first cell (its halo corner) for block index b along one axis.
BS_HD int tile_origin(int b, int out_extent, int steps) {
  return b * out_extent - steps;
}
// Whether tile coordinate i (0 .. extent-1) is updated at step s (1 .. steps): [s, extent - s).
BS_HD bool in_step_region(int i, int extent, int s) {
  return i >= s && i < extent - s;
}

// What a pass costs over an nx x ny field, counted cell by cell (tiles clipped to the field):
struct TemporalCost {
  int64_t useful = 0;    // cell updates the result needs: nx * ny * steps
  int64_t computed = 0;  // cell updates the kernel performs (in-field cells of every tile's step regions)
  int64_t loaded = 0;    // cells read from DRAM (in-field cells of every tile)
  int64_t stored = 0;    // cells written (nx * ny)
  double computed_per_useful() const { return useful ? static_cast<double>(computed) / useful : 0; }
  // DRAM bytes per useful cell update (the one-step kernel: 8).
  double bytes_per_update() const { return useful ? 4.0 * (loaded + stored) / useful : 0; }
};
TemporalCost temporal_cost(const TemporalTile& t, int64_t nx, int64_t ny);

// One pass on the CPU, tile by tile, exactly as the kernel does it (same geometry, same update, same boundary
// rule): `in` to `out` after t.steps steps. For tests of the tiling; equals t.steps calls of step_cpu bit for
// bit.
void fused_pass_cpu(const float* in, float* out, const Params& p, const TemporalTile& t);

}  // namespace bs::heat
