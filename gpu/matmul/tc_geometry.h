// tc_geometry.h: the geometry behind two of the matmul lab's tensor-core pictures (ui/matmul/tc_views.cpp), as
// plain host functions a test can check: the TMA boxes of the Hopper rungs (which boxes cover A and B, how much of
// each edge box TMA fills with zeros, the 128-byte swizzle inside a box) and the schedule of a k-stage ring of
// shared-memory stages (when each k-tile is loaded and multiplied, and where the tensor cores wait).
// The box constants come from gpu/matmul/tc_hopper_shape.h, which tc_hopper.cu checks its own against
// (static_assert at its end): the pictures draw the kernels' shape.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "gpu/matmul/tc_hopper_shape.h"

namespace bs::matmul::tc {

inline constexpr int kTmaBM = hopper::shape::k_tile_m;  // rows of A per box (one CTA tile's rows)
inline constexpr int kTmaBK = hopper::shape::k_tile_k;  // k per box: 64 bf16 = one 128-byte swizzled row
// Columns of B per box (a BN-wide tile takes BN / 64 boxes).
inline constexpr int kTmaChunkCols = hopper::shape::k_cols_per_chunk;
inline constexpr int kTmaSwizzleBytes = hopper::shape::k_swizzle_bytes;
inline constexpr int kTmaWgmmaBN = hopper::shape::k_tma_wgmma_bn, kWarpSpecializedBN = hopper::shape::k_ws_bn;
// Every Hopper rung's ring (the pictures draw one ring for all of them).
inline constexpr int kHopperStages = hopper::shape::k_ws_stages;
static_assert(hopper::shape::k_tma_wgmma_stages == hopper::shape::k_ws_stages,
              "the pipeline picture draws one ring depth for every Hopper rung");
inline constexpr int kCpAsyncStages = 4;   // the mma.sync + cp.async rung's ring

// The boxes that cover one matrix (`rows` x `cols` elements), `down` x `across` of them, each box_rows x box_cols.
// The last row and column of boxes may reach past the matrix: TMA reads those elements as zeros.
struct BoxGrid {
  int64_t rows = 0, cols = 0;
  int box_rows = 0, box_cols = 0;
  int64_t down = 0, across = 0;
  int64_t count() const { return down * across; }
  int64_t box_elements() const { return static_cast<int64_t>(box_rows) * box_cols; }
};

inline int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// A (m x k): one 128 x 64 box per CTA tile row and k-tile. Sizes < 1 give an empty grid.
inline BoxGrid tma_boxes_a(int64_t m, int64_t k) {
  if (m < 1 || k < 1) return {};
  return {m, k, kTmaBM, kTmaBK, ceil_div(m, kTmaBM), ceil_div(k, kTmaBK)};
}
// B (k x n): 64 k-rows x 64 columns per box; a tile BN columns wide loads BN / 64 boxes per k-tile, all of them
// even where the last tile reaches past n (those boxes are zeros from end to end). bn: 128 or 256.
inline BoxGrid tma_boxes_b(int64_t k, int64_t n, int bn) {
  if (k < 1 || n < 1 || bn < kTmaChunkCols || bn % kTmaChunkCols != 0) return {};
  return {k, n, kTmaBK, kTmaChunkCols, ceil_div(k, kTmaBK), ceil_div(n, bn) * (bn / kTmaChunkCols)};
}

// Elements of box (i, j) inside the matrix, and the rest (what TMA fills with zeros).
inline int64_t box_in_bounds(const BoxGrid& g, int64_t i, int64_t j) {
  const int64_t r = std::clamp<int64_t>(g.rows - i * g.box_rows, 0, g.box_rows);
  const int64_t c = std::clamp<int64_t>(g.cols - j * g.box_cols, 0, g.box_cols);
  return r * c;
}
inline int64_t box_zero_filled(const BoxGrid& g, int64_t i, int64_t j) {
  return g.box_elements() - box_in_bounds(g, i, j);
}
// Every box together: the boxes cover the matrix once, so the zeros are what they hold beyond it.
inline int64_t zero_filled(const BoxGrid& g) {
  return g.count() * g.box_elements() - g.rows * g.cols;
}

// TMA load instructions of the whole m x n x k product: every CTA tile (128 x bn) loads, per k-tile, one A box
// and bn / 64 B boxes. 0 for sizes < 1.
inline int64_t tma_loads(int64_t m, int64_t n, int64_t k, int bn) {
  if (m < 1 || n < 1 || k < 1 || bn < kTmaChunkCols) return 0;
  return ceil_div(m, kTmaBM) * ceil_div(n, bn) * ceil_div(k, kTmaBK) * (1 + bn / kTmaChunkCols);
}

// The 128B swizzle of a box in shared memory: 16-byte chunk `chunk` (0..7) of 128-byte row `row` lands at chunk
// chunk ^ (row % 8) of that row, so the same logical chunk of 8 consecutive rows sits in 8 different bank groups.
inline int tma_swizzle_chunk(int row, int chunk) {
  return chunk ^ (row & 7);
}

// A ring of `stages` shared-memory stages, `tiles` k-tiles. A model: the producer (TMA, or cp.async) loads one
// tile after another, each taking `load` time units, and may refill stage t % stages once the consumer released it
// (the empty barrier: tile t - stages multiplied); the consumer (wgmma, or mma.sync) multiplies tile t, taking
// `compute`, once it is loaded (the full barrier) and tile t - 1 is done.
struct PipeTile {
  int stage = 0;
  double load_start = 0, load_end = 0;
  double compute_start = 0, compute_end = 0;
  double wait = 0;  // the consumer idle before this tile (tile 0: the prologue, the first load)
};
// Empty for stages < 1, tiles < 1 or a time <= 0.
inline std::vector<PipeTile> pipeline_schedule(int stages, int tiles, double load, double compute) {
  std::vector<PipeTile> out;
  if (stages < 1 || tiles < 1 || !(load > 0) || !(compute > 0)) return out;
  out.resize(static_cast<size_t>(tiles));
  for (int t = 0; t < tiles; ++t) {
    PipeTile& p = out[static_cast<size_t>(t)];
    p.stage = t % stages;
    const double producer_free = t > 0 ? out[static_cast<size_t>(t - 1)].load_end : 0.0;
    const double stage_free = t >= stages ? out[static_cast<size_t>(t - stages)].compute_end : 0.0;
    p.load_start = std::max(producer_free, stage_free);
    p.load_end = p.load_start + load;
    const double consumer_free = t > 0 ? out[static_cast<size_t>(t - 1)].compute_end : 0.0;
    p.compute_start = std::max(p.load_end, consumer_free);
    p.compute_end = p.compute_start + compute;
    p.wait = p.compute_start - consumer_free;
  }
  return out;
}

struct PipeSummary {
  double total = 0;          // the last tile's end
  double bubble_time = 0;    // consumer waits after the prologue (tiles 1..)
  int bubbles = 0;           // tiles after the first whose consumer waited
  double busy_fraction = 0;  // tensor cores busy / total
};
inline PipeSummary summarize(const std::vector<PipeTile>& s) {
  PipeSummary r;
  if (s.empty()) return r;
  r.total = s.back().compute_end;
  double busy = 0;
  for (size_t t = 0; t < s.size(); ++t) {
    busy += s[t].compute_end - s[t].compute_start;
    if (t > 0 && s[t].wait > 1e-9) {
      ++r.bubbles;
      r.bubble_time += s[t].wait;
    }
  }
  r.busy_fraction = busy / r.total;
  return r;
}

}  // namespace bs::matmul::tc
