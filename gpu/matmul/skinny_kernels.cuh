// skinny_kernels.cuh: auto's kernels for matrix-vector shapes (device code; included by matmul_kernels.cuh).
// With M or N of 1 to 8 a tile kernel computes mostly padding (a 128-row tile for one row of C), and the
// problem is bound by reading its one big operand once: B (K x N) when M is small, A (M x K) when N is small,
// like a matrix-vector product. These kernels read that operand exactly once, in coalesced 16-byte loads
// (float4 flavour) or 4-byte ones (any size), keep the small operand in L1 (small M) or shared memory
// (small N), and split K over lanes, warps and blocks (split-k slices, summed in slice order by the last
// block of each tile of C to finish: splitk_fold.cuh).
#pragma once

#include <cuda_runtime.h>

#include "gpu/matmul/auto_args.h"
#include "gpu/matmul/configs.h"
#include "gpu/matmul/splitk_fold.cuh"

namespace bs::matmul::kernels {

// Sums each of v[0 .. V) over the lanes of a warp that differ in the lane bits O, O/2, ..., OMIN, in about V
// shuffles instead of V per bit: at bit O a lane keeps one half of its values (the upper half when its bit O is
// set) and adds its partner's copy of that half, while the partner does the same with the other half. After
// the bits 16 .. OMIN a lane holds V >> (number of halving bits) totals. V: a power of two.
// Which totals (all bits 16 .. 1, V >= 32): lane l holds values (V / 32) * l + i in v[i]; V < 32: v[0] holds
// value l / (32 / V) (32 / V lanes hold each). Bits 16 and 8 only: lane l holds values i + (l / 8) * V / 4.
template <int CNT, int O, int OMIN, int V>
__device__ __forceinline__ void spread_sum(float (&v)[V], int lane) {
  if constexpr (O >= OMIN) {
    if constexpr (CNT >= 2) {
      constexpr int H = CNT / 2;
      const bool upper = (lane & O) != 0;
#pragma unroll
      for (int i = 0; i < H; ++i) {
        const float send = upper ? v[i] : v[i + H];
        const float keep = upper ? v[i + H] : v[i];
        v[i] = keep + __shfl_xor_sync(0xffffffffu, send, O);
      }
      spread_sum<H, O / 2, OMIN>(v, lane);
    } else {
      v[0] += __shfl_xor_sync(0xffffffffu, v[0], O);
      spread_sum<1, O / 2, OMIN>(v, lane);
    }
  }
}

// Small M: C (M x N, M <= MC) = A x B. The block computes all MC rows of C (rows past M read row M - 1 and are
// never stored) for 32 columns, over its k-slice. Its 8 warps x 4 lane groups of 8 walk 32 consecutive rows
// of B per step, each group one 128-byte segment of a row: lane l takes columns 4 (l % 8) .. +3 (float4
// flavour: N a multiple of 4) or l % 8 + 8 c (4-byte loads, any N), row l / 8 of its warp's 4. The MC values
// of A per row are the same for a whole lane group (L1 hits, one request). Partial sums: shuffles over the 4
// lane groups of a warp, then shared memory over the 8 warps, added in warp order (deterministic).
template <int MC, bool Vec>
__global__ void __launch_bounds__(cfg::k_skinny_threads) skinny_m(AutoArgs p) {
  constexpr int COLS = cfg::k_skinny_m_cols, WARPS = cfg::k_skinny_threads / 32;
  static_assert(COLS == 32 && cfg::k_skinny_m_kstep == WARPS * 4, "8 lanes x 4 columns, 8 warps x 4 rows");
  __shared__ float red[WARPS][MC * COLS];
  const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
  const int grp = lane % 8;
  const int z = static_cast<int>(blockIdx.z);
  const int k0 = z * p.k_chunk, klen = min(p.k_chunk, p.k - k0);
  const int col_base = static_cast<int>(blockIdx.x) * COLS;
  // Offsets (int: every offset stays below 2^27, matmul.h's limits). Columns past N read a clamped column.
  int a_row[MC];
#pragma unroll
  for (int i = 0; i < MC; ++i)
    a_row[i] = min(i, p.m - 1) * p.k + k0;
  int b_col[4];
#pragma unroll
  for (int c = 0; c < 4; ++c)
    b_col[c] = Vec ? min(col_base + 4 * grp, p.n - 4) + c : min(col_base + grp + 8 * c, p.n - 1);
  const float* b = p.b + static_cast<size_t>(k0) * static_cast<size_t>(p.n);

  float acc[MC * 4];
#pragma unroll
  for (int i = 0; i < MC * 4; ++i)
    acc[i] = 0.0f;
  auto load_b = [&](int kr, float (&bv)[4]) {
    if constexpr (Vec) {
      const float4 t = __ldg(reinterpret_cast<const float4*>(b + (kr * p.n + b_col[0])));
      bv[0] = t.x;
      bv[1] = t.y;
      bv[2] = t.z;
      bv[3] = t.w;
    } else {
#pragma unroll
      for (int c = 0; c < 4; ++c)
        bv[c] = __ldg(b + (kr * p.n + b_col[c]));
    }
  };
  auto fma_row = [&](int kr, const float (&bv)[4]) {
#pragma unroll
    for (int i = 0; i < MC; ++i) {
      const float av = __ldg(p.a + (a_row[i] + kr));
#pragma unroll
      for (int c = 0; c < 4; ++c)
        acc[i * 4 + c] = fmaf(av, bv[c], acc[i * 4 + c]);
    }
  };
  // Four steps at a time with their loads first: 4 loads of B in flight per lane.
  constexpr int U = 4, STEP = cfg::k_skinny_m_kstep;
  int kr = warp * 4 + lane / 8;
  for (; kr + (U - 1) * STEP < klen; kr += U * STEP) {
    float bv[U][4];
#pragma unroll
    for (int u = 0; u < U; ++u)
      load_b(kr + u * STEP, bv[u]);
#pragma unroll
    for (int u = 0; u < U; ++u)
      fma_row(kr + u * STEP, bv[u]);
  }
  for (; kr < klen; kr += STEP) {
    float bv[4];
    load_b(kr, bv);
    fma_row(kr, bv);
  }

  // Over the 4 lane groups (lane bits 16 and 8): lane l keeps MC of the 4 MC sums, numbers q + (l / 8) MC,
  // each the sum for row (number / 4) and the lane's column number % 4.
  spread_sum<MC * 4, 16, 8>(acc, lane);
#pragma unroll
  for (int q = 0; q < MC; ++q) {
    const int idx = q + (lane / 8) * MC, i = idx / 4, c = idx % 4;
    red[warp][i * COLS + (Vec ? 4 * grp + c : grp + 8 * c)] = acc[q];
  }
  __syncthreads();
  const size_t slice = p.slice;
  for (int t = static_cast<int>(threadIdx.x); t < MC * COLS; t += cfg::k_skinny_threads) {
    float s = red[0][t];
#pragma unroll
    for (int w = 1; w < WARPS; ++w)
      s += red[w][t];
    const int i = t / COLS, col = col_base + t % COLS;
    if (i < p.m && col < p.n) p.out[z * slice + static_cast<size_t>(i * p.n + col)] = s;
  }
  // Split: the last slice to finish this block's columns adds the slices (each thread the outputs it stored).
  if (!p.counters || !splitk_fold_last(p.counters + blockIdx.x, gridDim.z)) return;
  for (int t = static_cast<int>(threadIdx.x); t < MC * COLS; t += cfg::k_skinny_threads) {
    const int i = t / COLS, col = col_base + t % COLS;
    const size_t idx = static_cast<size_t>(i * p.n + col);
    if (i < p.m && col < p.n) p.c[idx] = splitk_fold_sum(p.out, idx, slice, static_cast<int>(gridDim.z));
  }
}

// Small N: C (M x N, N <= NC) = A x B. Each warp owns ROWS rows of A (rows past M read row M - 1 and are never
// stored) and walks the block's k-slice with its 32 lanes side by side: lane l takes k = 4 l + 128 t, a
// float4 of each of its rows (float4 flavour: K a multiple of 4), or k = l + 32 t (4-byte loads, any K), so
// each load of A is one coalesced 512-byte (128-byte) segment of a row. The block first copies its slice of B
// (klen <= KMAX rows of N values) into shared memory transposed, bs[j][k], so that the lanes' reads of it
// are consecutive words (no bank conflicts). Partial sums: spread_sum over the 32 lanes.
template <int NC, bool Vec>
__global__ void __launch_bounds__(cfg::k_skinny_threads) skinny_n(AutoArgs p) {
  constexpr int ROWS = cfg::skinny_n_rows(NC), KMAX = cfg::skinny_n_kmax(NC), WARPS = cfg::k_skinny_threads / 32;
  constexpr int V = ROWS * NC;
  static_assert(cfg::k_skinny_n_kstep == 128 && KMAX % 128 == 0, "a float4 per lane per step");
  // Rows padded by 4 floats: the transposing stores of consecutive (k, j) spread over the banks.
  __shared__ __align__(16) float bs[NC][KMAX + 4];
  const int z = static_cast<int>(blockIdx.z);
  const int k0 = z * p.k_chunk, klen = min(p.k_chunk, p.k - k0);  // klen <= KMAX (AutoConfig::max_k_chunk)
  const float* b = p.b + static_cast<size_t>(k0) * static_cast<size_t>(p.n);
  for (int e = static_cast<int>(threadIdx.x); e < klen * NC; e += cfg::k_skinny_threads) {
    const int kk = e / NC, j = e % NC;
    bs[j][kk] = j < p.n ? __ldg(b + (kk * p.n + j)) : 0.0f;
  }
  __syncthreads();

  const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
  const int row0 = (static_cast<int>(blockIdx.y) * WARPS + warp) * ROWS;
  int a_row[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS; ++r)
    a_row[r] = min(row0 + r, p.m - 1) * p.k + k0;
  float acc[V];
#pragma unroll
  for (int i = 0; i < V; ++i)
    acc[i] = 0.0f;
  if constexpr (Vec) {
#pragma unroll 2
    for (int kk = 4 * lane; kk < klen; kk += 128) {
      float4 av[ROWS], bv[NC];
#pragma unroll
      for (int r = 0; r < ROWS; ++r)
        av[r] = __ldg(reinterpret_cast<const float4*>(p.a + (a_row[r] + kk)));
#pragma unroll
      for (int j = 0; j < NC; ++j)
        bv[j] = *reinterpret_cast<const float4*>(&bs[j][kk]);
#pragma unroll
      for (int r = 0; r < ROWS; ++r)
#pragma unroll
        for (int j = 0; j < NC; ++j) {
          float s = acc[r * NC + j];
          s = fmaf(av[r].x, bv[j].x, s);
          s = fmaf(av[r].y, bv[j].y, s);
          s = fmaf(av[r].z, bv[j].z, s);
          acc[r * NC + j] = fmaf(av[r].w, bv[j].w, s);
        }
    }
  } else {
#pragma unroll 4
    for (int kk = lane; kk < klen; kk += 32) {
      float av[ROWS];
#pragma unroll
      for (int r = 0; r < ROWS; ++r)
        av[r] = __ldg(p.a + (a_row[r] + kk));
#pragma unroll
      for (int j = 0; j < NC; ++j) {
        const float bv = bs[j][kk];
#pragma unroll
        for (int r = 0; r < ROWS; ++r)
          acc[r * NC + j] = fmaf(av[r], bv, acc[r * NC + j]);
      }
    }
  }

  spread_sum<V, 16, 1>(acc, lane);
  const size_t slice = p.slice;
  constexpr int HELD = V >= 32 ? V / 32 : 1;   // totals per lane
  constexpr int SHARED = V >= 32 ? 1 : 32 / V;  // lanes holding each total
#pragma unroll
  for (int i = 0; i < HELD; ++i) {
    const int idx = HELD * lane / SHARED + i;
    const int row = row0 + idx / NC, j = idx % NC;
    if (lane % SHARED == 0 && row < p.m && j < p.n)
      p.out[z * slice + static_cast<size_t>(row * p.n + j)] = acc[i];
  }
  // Split: the last slice to finish this block's rows adds the slices (each lane the outputs it stored).
  if (!p.counters || !splitk_fold_last(p.counters + blockIdx.y, gridDim.z)) return;
#pragma unroll
  for (int i = 0; i < HELD; ++i) {
    const int idx = HELD * lane / SHARED + i;
    const int row = row0 + idx / NC, j = idx % NC;
    const size_t o = static_cast<size_t>(row * p.n + j);
    if (lane % SHARED == 0 && row < p.m && j < p.n)
      p.c[o] = splitk_fold_sum(p.out, o, slice, static_cast<int>(gridDim.z));
  }
}

}  // namespace bs::matmul::kernels
