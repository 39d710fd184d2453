// auto_args.h: the arguments of every `auto` kernel launch (matmul_kernels.cuh, skinny_kernels.cuh), and how the
// runner (and the CPU stand-in of the tests) fill them in. Plain C++.
#pragma once

#include <algorithm>
#include <cstddef>

#include "gpu/matmul/matmul.h"

namespace bs::matmul::kernels {

// One launch of an auto kernel. grid = (tiles along N, tiles along M, k-slices). Slice z covers k from
// z * k_chunk (a multiple of the config's k-step; every slice is non-empty) and writes its partial C to
// out + z * slice: with one slice that is C itself, with more a workspace. The slices are then summed in
// slice order (a deterministic reduction: the same bits every run, unlike atomics into C), either by a
// separate splitk_reduce launch (counters null; the tile kernels) or inside the kernel (counters set,
// auto_folds: the skinny kernels): the last block to finish a tile of C adds that tile's slices and writes C.
struct AutoArgs {
  const float* a;
  const float* b;
  float* out;
  int m, n, k;
  int ldb;  // B's row stride: n, or (tile kernels, N not a multiple of 4) that of the row-padded copy of B
  int k_chunk;
  int group;  // block-order swizzle: consecutive blocks walk down `group` tile rows before moving right
  // Floats from one slice's partial C to the next: m * n rounded up to a multiple of 4 (aligned float4s).
  size_t slice;
  float* c = nullptr;  // C, where the kernel folds the slices itself
  // One per tile of C (gridDim.x * gridDim.y), 0 between launches; null: no fold.
  unsigned* counters = nullptr;
};

// Floats from one slice's partial C to the next in the workspace: M x N rounded up to 4 (16-byte aligned).
inline size_t auto_slice_floats(const Problem& p) {
  return (p.c_count() + 3) / 4 * 4;
}

// The arguments of choice `ch` on `p`: A, B (row stride ldb), where the slices go (C itself unsplit, else the
// workspace), C and the fold's counters (null: no fold).
inline AutoArgs auto_args(const AutoChoice& ch, const Problem& p, const float* a, const float* b, int ldb, float* out,
                          float* c, unsigned* counters) {
  return AutoArgs{a,
                  b,
                  out,
                  static_cast<int>(p.m),
                  static_cast<int>(p.n),
                  static_cast<int>(p.k),
                  ldb,
                  auto_k_chunk(ch, p),
                  std::max(ch.group, 1),
                  auto_slice_floats(p),
                  c,
                  counters};
}

}  // namespace bs::matmul::kernels
