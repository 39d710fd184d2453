// temporal.cpp: see temporal.h.
#include "gpu/heat/temporal.h"

#include <algorithm>
#include <vector>

#include "gpu/heat/heat.h"
#include "gpu/heat/stencil.h"

namespace bs::heat {

std::string to_string(const TileShape& s) {
  return std::to_string(s.width) + "x" + std::to_string(s.height()) + " tile (" + std::to_string(s.width) +
         "x" + std::to_string(s.threads_y) + " threads, " + std::to_string(s.rows_per_thread) + " rows each)";
}

std::optional<std::string> validate_tile(const TemporalTile& t, const DeviceLimits& limits,
                                         int64_t shared_limit) {
  if (t.steps < 1 || t.steps > k_max_fused_steps)
    return "steps fused per pass must be 1 to " + std::to_string(k_max_fused_steps) + " (got " +
           std::to_string(t.steps) + ")";
  if (std::find(std::begin(k_tile_rows_choices), std::end(k_tile_rows_choices), t.shape.rows_per_thread) ==
      std::end(k_tile_rows_choices))
    return "rows per thread of a temporal tile must be 8 or 16 (got " +
           std::to_string(t.shape.rows_per_thread) + ")";
  if (auto err = validate_block({t.shape.width, t.shape.threads_y}, limits)) return err;
  if (t.out_width() < 1 || t.out_height() < 1)
    return "a " + std::to_string(t.width()) + "x" + std::to_string(t.height()) +
           " tile has no output cells with " + std::to_string(t.steps) + " fused steps (it needs more than " +
           std::to_string(2 * t.steps) + " cells each way)";
  if (t.shared_bytes() > shared_limit)
    return "a " + std::to_string(t.width()) + "x" + std::to_string(t.height()) + " tile needs " +
           std::to_string(t.shared_bytes() >> 10) + " KiB of shared memory; a block may have " +
           std::to_string(shared_limit >> 10) + " KiB";
  return std::nullopt;
}

Dim2 temporal_grid(const TemporalTile& t, int64_t nx, int64_t ny) {
  return {ceil_div(nx, t.out_width()), ceil_div(ny, t.out_height())};
}

namespace {

// Along one axis of n cells, with tiles of `extent` cells of which `out` are output: the sum over the blocks
// of the in-field cells of the range [lo, extent - lo) of each tile.
int64_t in_field_sum(int64_t n, int extent, int out, int steps, int lo) {
  const int64_t blocks = ceil_div(n, out);
  int64_t sum = 0;
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t o = static_cast<int64_t>(tile_origin(static_cast<int>(b), out, steps));
    const int64_t a = std::max<int64_t>(o + lo, 0), z = std::min<int64_t>(o + extent - lo, n);
    sum += std::max<int64_t>(z - a, 0);
  }
  return sum;
}

}  // namespace

TemporalCost temporal_cost(const TemporalTile& t, int64_t nx, int64_t ny) {
  TemporalCost c;
  c.useful = nx * ny * t.steps;
  c.stored = nx * ny;
  // The regions are products of an x range and a y range, so the sums over blocks factor per axis.
  c.loaded = in_field_sum(nx, t.width(), t.out_width(), t.steps, 0) *
             in_field_sum(ny, t.height(), t.out_height(), t.steps, 0);
  for (int s = 1; s <= t.steps; ++s)
    c.computed += in_field_sum(nx, t.width(), t.out_width(), t.steps, s) *
                  in_field_sum(ny, t.height(), t.out_height(), t.steps, s);
  return c;
}

void fused_pass_cpu(const float* in, float* out, const Params& p, const TemporalTile& t) {
  const int nx = static_cast<int>(p.nx), ny = static_cast<int>(p.ny);
  const int W = t.width(), H = t.height(), T = t.steps;
  const float r = p.r(), bt = p.boundary_temp;
  const bool fixed = p.boundary == Boundary::Fixed;
  const Dim2 g = temporal_grid(t, p.nx, p.ny);
  std::vector<float> buf[2] = {std::vector<float>(static_cast<size_t>(W) * H),
                               std::vector<float>(static_cast<size_t>(W) * H)};
  for (int by = 0; by < g.y; ++by)
    for (int bx = 0; bx < g.x; ++bx) {
      const int ox = tile_origin(bx, t.out_width(), T), oy = tile_origin(by, t.out_height(), T);
      auto in_field = [&](int gx, int gy) { return gx >= 0 && gx < nx && gy >= 0 && gy < ny; };
      for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
          const int gx = ox + x, gy = oy + y;
          buf[0][y * W + x] = buf[1][y * W + x] =
              in_field(gx, gy) ? in[static_cast<size_t>(gy) * nx + gx] : bt;
        }
      for (int s = 1; s <= T; ++s) {
        const std::vector<float>& src = buf[(s - 1) & 1];
        std::vector<float>& dst = buf[s & 1];
        for (int y = 0; y < H; ++y)
          for (int x = 0; x < W; ++x) {
            const int gx = ox + x, gy = oy + y;
            if (!in_step_region(x, W, s) || !in_step_region(y, H, s) || !in_field(gx, gy)) continue;
            const float c = src[y * W + x];
            const float n = gy > 0 ? src[(y - 1) * W + x] : (fixed ? bt : c);
            const float so = gy + 1 < ny ? src[(y + 1) * W + x] : (fixed ? bt : c);
            const float w = gx > 0 ? src[y * W + x - 1] : (fixed ? bt : c);
            const float e = gx + 1 < nx ? src[y * W + x + 1] : (fixed ? bt : c);
            const float v = stencil_update(c, w, e, n, so, r);
            if (s < T)
              dst[y * W + x] = v;
            else
              out[static_cast<size_t>(gy) * nx + gx] = v;  // step T's region is the tile's output region
          }
      }
    }
}

}  // namespace bs::heat
