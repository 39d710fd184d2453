// auto_args.h: the arguments of every `auto` kernel launch (matmul_kernels.cuh, skinny_kernels.cuh). Plain C++.
#pragma once

namespace bs::matmul::kernels {

// One launch of an auto kernel. grid = (tiles along N, tiles along M, k-slices). Slice z covers k from
// z * k_chunk (a multiple of the config's k-step; every slice is non-empty) and writes its partial C to
// out + z * m * n: with one slice that is C itself, with more a workspace that splitk_reduce sums in slice
// order (a deterministic reduction: the same bits every run, unlike atomics).
struct AutoArgs {
  const float* a;
  const float* b;
  float* out;
  int m, n, k;
  int ldb;  // B's row stride: n, or (tile kernels, N not a multiple of 4) that of the row-padded copy of B
  int k_chunk;
  int group;  // block-order swizzle: consecutive blocks walk down `group` tile rows before moving right
};

}  // namespace bs::matmul::kernels
