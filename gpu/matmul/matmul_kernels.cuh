// matmul_kernels.cuh: the GPU kernels of the matmul ladder (device code; included by matmul_gpu.cu only).
// Every kernel computes C = A x B for row-major float32 A (m x k), B (k x n), C (m x n), any m, n, k >= 1,
// and writes every cell of C exactly once. Indices fit in int: the lab caps each dimension at 8192, so the
// largest offset is 8192 * 8192 - 1 < 2^31.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "gpu/matmul/configs.h"
#include "gpu/matmul/matmul_bodies.cuh"
#include "gpu/matmul/matmul.h"
#include "gpu/matmul/skinny_kernels.cuh"

namespace bs::matmul::kernels {

using KernelFn = void (*)(const float*, const float*, float*, int, int, int);

// --- 1. Naive ----------------------------------------------------------------------------------------------

// One thread per output (naive_body in matmul_bodies.cuh): the tutorials' order, then swapped.
__global__ void __launch_bounds__(cfg::k_naive_threads)
    naive_uncoalesced(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m,
                      int n, int k) {
  naive_body<true>(a, b, c, m, n, k);
}

__global__ void __launch_bounds__(cfg::k_naive_threads)
    naive_coalesced(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m,
                    int n, int k) {
  naive_body<false>(a, b, c, m, n, k);
}

// --- 2. Shared-memory tiles --------------------------------------------------------------------------------

// The tutorials' tiled kernel (smem_tile_body in matmul_bodies.cuh).
template <int T>
__global__ void __launch_bounds__(cfg::tile_threads(T))
    smem_tile(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m, int n,
              int k) {
  smem_tile_body<T>(a, b, c, m, n, k);
}

// --- 3. 1D register blocking -------------------------------------------------------------------------------

// 64x64 C tile, k-step 8, 512 threads. Thread t computes 8 outputs down column t % 64 (rows 8 * (t / 64)
// ...): each value of B read from shared memory feeds 8 multiply-adds held in registers.
__global__ void __launch_bounds__(cfg::RegBlock1D::threads)
    reg_block_1d(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m,
                 int n, int k) {
  using Cfg = cfg::RegBlock1D;
  constexpr int BM = Cfg::bm, BN = Cfg::bn, BK = Cfg::bk, TM = Cfg::tm;
  static_assert(BM * BK == Cfg::threads && BK * BN == Cfg::threads, "one element of each tile per thread");
  __shared__ float as[BM][BK];
  __shared__ float bs[BK][BN];
  const int tid = threadIdx.x;
  const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
  const int a_r = tid / BK, a_c = tid % BK;  // this thread's element of the A tile
  const int b_r = tid / BN, b_c = tid % BN;  // ... and of the B tile
  const int t_col = tid % BN, t_row = (tid / BN) * TM;
  float acc[TM] = {};
  for (int k0 = 0; k0 < k; k0 += BK) {
    const int ar = bm + a_r, ak = k0 + a_c;
    as[a_r][a_c] = (ar < m && ak < k) ? a[ar * k + ak] : 0.0f;
    const int bk = k0 + b_r, bc = bn + b_c;
    bs[b_r][b_c] = (bk < k && bc < n) ? b[bk * n + bc] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < BK; ++i) {
      const float bv = bs[i][t_col];
#pragma unroll
      for (int r = 0; r < TM; ++r)
        acc[r] += as[t_row + r][i] * bv;
    }
    __syncthreads();
  }
  const int col = bn + t_col;
  if (col >= n) return;
#pragma unroll
  for (int r = 0; r < TM; ++r) {
    const int row = bm + t_row + r;
    if (row < m) c[row * n + col] = acc[r];
  }
}

// --- 4. 2D block tiles: register blocking, warp tiling, double buffering -----------------------------------

// The epilogue of the register-blocked kernels: a thread's TM x TN micro-tile, pieces of 4x4 whose piece
// (pi, pj) starts at row row0 + pi * ROW_STEP and column col0 + pj * COL_STEP of C, written row by row in
// runs of 4 columns (one float4 store where Vec and the run lies inside C; single stores at the edge).
template <int TM, int TN, int ROW_STEP, int COL_STEP, bool Vec>
__device__ __forceinline__ void store_micro_tile(float* __restrict__ c, const float (&acc)[TM][TN], int row0,
                                                 int col0, int m, int n) {
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = row0 + (i / 4) * ROW_STEP + i % 4;
    if (row >= m) continue;
#pragma unroll
    for (int pj = 0; pj < TN / 4; ++pj) {
      const int col = col0 + pj * COL_STEP;
      float* dst = c + row * n + col;
      const float* v = &acc[i][4 * pj];
      if (Vec && col + 3 < n) {
        *reinterpret_cast<float4*>(dst) = make_float4(v[0], v[1], v[2], v[3]);
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (col + j < n) dst[j] = v[j];
      }
    }
  }
}

// One template for reg_2d and the warptile family (see cfg::BlockTile). Per block: a BM x BN tile of C,
// k-steps of BK. Per thread: a TM x TN micro-tile in registers, fed per k by TM values of A and TN of B read
// as float4s from shared memory (8x8: four float4 reads for 64 multiply-adds).
//
// Global -> shared: each thread loads float4s. A is stored transposed (as[k][m]) so that a thread's A values
// for one k are contiguous. Float4 number f of the A tile covers row (f / 2) % BM, k-quad (f % 2) + 2 * (f /
// (2 BM)): pairs of threads read 32 contiguous bytes of a row (full sectors), and, with rows padded by 4
// floats, the transposing scalar stores of a warp hit 32 different banks.
//
// Edges: loads outside A or B are replaced by zeros (guards computed once per thread and k-step; they cost a
// few instructions against TM * TN * BK multiply-adds), stores outside C are skipped. Vec = true (K and N
// multiples of 4, so a float4 is either wholly inside or wholly outside) uses float4 loads and stores; Vec =
// false falls back to guarded scalar loads for any K and N.
//
// Double buffering: while k-tile t is computed from buffer t % 2, tile t + 1 is loaded into registers (its
// latency hidden behind the math) and then stored into the other buffer; one __syncthreads per k-step
// separates "everyone finished reading buffer s" from "someone overwrites buffer s" two steps later.
template <class Cfg, bool Vec>
__global__ void __launch_bounds__(Cfg::threads, Cfg::min_blocks)
    block_tile(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m, int n,
               int k) {
  constexpr int BM = Cfg::bm, BN = Cfg::bn, BK = Cfg::bk;
  constexpr int THREADS = Cfg::threads;
  constexpr int STAGES = Cfg::double_buffer ? 2 : 1;
  // Padding of the A tile's rows; reg_2d keeps the plain layout (and its store conflicts) on purpose.
  constexpr int PAD = Cfg::warp_layout ? 4 : 0;
  constexpr int A_F4 = BM * BK / 4 / THREADS;  // float4s of A per thread per k-step
  constexpr int B_F4 = BK * BN / 4 / THREADS;
  static_assert(BK % 8 == 0, "the A load mapping pairs k-quads");
  static_assert(A_F4 >= 1 && A_F4 * THREADS * 4 == BM * BK, "A tile must split evenly into float4s");
  static_assert(B_F4 >= 1 && B_F4 * THREADS * 4 == BK * BN, "B tile must split evenly into float4s");

  __shared__ __align__(16) float as[STAGES][BK][BM + PAD];
  __shared__ __align__(16) float bs[STAGES][BK][BN];

  const int tid = threadIdx.x;
  const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;

  // This thread's float4s of the A and B tiles. Float4 0 sits at (a_row0, a_kq0) and (b_row0, b_col0); float4
  // i adds compile-time row and k offsets, so the whole mapping costs a handful of registers.
  static_assert(THREADS <= 2 * BM && (2 * BM) % THREADS == 0, "A mapping: pairs of threads per row");
  static_assert(THREADS % (BN / 4) == 0, "B mapping: whole rows of float4s per pass");
  constexpr int A_ROWS_PER_PASS = THREADS / 2;  // rows covered by one pass of all threads over A
  constexpr int B_ROWS_PER_PASS = THREADS / (BN / 4);
  const int a_row0 = tid / 2, a_kq0 = (tid % 2) * 4;
  const int b_row0 = tid / (BN / 4), b_col0 = (tid % (BN / 4)) * 4;
  // Float4 i of A: row a_row0 + a_drow(i), k a_kq0 + a_dk(i) (passes first go down the rows, then across k).
  auto a_drow = [](int i) { return (i * A_ROWS_PER_PASS) % BM; };
  auto a_dk = [](int i) { return 8 * ((i * A_ROWS_PER_PASS) / BM); };
  // Offsets rather than pointers: 32-bit, and the base pointers stay in the kernel-parameter bank.
  const int a_src = (bm + a_row0) * k + a_kq0;  // dereferenced only where the guards allow
  const int b_src = b_row0 * n + bn + b_col0;
  const int a_klim = k - a_kq0;        // float4 i is inside A's columns iff k0 + a_dk(i) (+ r) < a_klim
  const int b_klim = k - b_row0;       // ... B's rows iff k0 + b_drow (+ 0) < b_klim
  const int b_cols = n - bn - b_col0;  // ... B's columns iff r < b_cols
  const int a_rows = m - bm - a_row0;  // ... A's rows iff a_drow(i) < a_rows

  float4 ra[A_F4], rb[B_F4];
  auto load_tile = [&](int k0) {
#pragma unroll
    for (int i = 0; i < A_F4; ++i) {
      const bool row_ok = a_drow(i) < a_rows;
      const int kk = k0 + a_dk(i);
      const float* p = a + (a_src + a_drow(i) * k + kk);
      if constexpr (Vec) {
        ra[i] = (row_ok && kk < a_klim) ? __ldg(reinterpret_cast<const float4*>(p))
                                        : make_float4(0.f, 0.f, 0.f, 0.f);
      } else {
        ra[i].x = (row_ok && kk + 0 < a_klim) ? __ldg(p + 0) : 0.0f;
        ra[i].y = (row_ok && kk + 1 < a_klim) ? __ldg(p + 1) : 0.0f;
        ra[i].z = (row_ok && kk + 2 < a_klim) ? __ldg(p + 2) : 0.0f;
        ra[i].w = (row_ok && kk + 3 < a_klim) ? __ldg(p + 3) : 0.0f;
      }
    }
#pragma unroll
    for (int i = 0; i < B_F4; ++i) {
      const int kr = k0 + i * B_ROWS_PER_PASS;
      const bool row_ok = kr < b_klim;
      const float* p = b + (b_src + kr * n);
      if constexpr (Vec) {
        rb[i] = (row_ok && 0 < b_cols) ? __ldg(reinterpret_cast<const float4*>(p))
                                       : make_float4(0.f, 0.f, 0.f, 0.f);
      } else {
        rb[i].x = (row_ok && 0 < b_cols) ? __ldg(p + 0) : 0.0f;
        rb[i].y = (row_ok && 1 < b_cols) ? __ldg(p + 1) : 0.0f;
        rb[i].z = (row_ok && 2 < b_cols) ? __ldg(p + 2) : 0.0f;
        rb[i].w = (row_ok && 3 < b_cols) ? __ldg(p + 3) : 0.0f;
      }
    }
  };
  auto store_tile = [&](int s) {
#pragma unroll
    for (int i = 0; i < A_F4; ++i) {
      float* dst = &as[s][a_kq0 + a_dk(i)][a_row0 + a_drow(i)];
      dst[0 * (BM + PAD)] = ra[i].x;
      dst[1 * (BM + PAD)] = ra[i].y;
      dst[2 * (BM + PAD)] = ra[i].z;
      dst[3 * (BM + PAD)] = ra[i].w;
    }
#pragma unroll
    for (int i = 0; i < B_F4; ++i)
      *reinterpret_cast<float4*>(&bs[s][b_row0 + i * B_ROWS_PER_PASS][b_col0]) = rb[i];
  };

  // This thread's micro-tile: TM/4 x TN/4 pieces of 4x4; piece (pi, pj) starts at row t_row0 + pi * ROW_STEP
  // and column t_col0 + pj * COL_STEP of the block tile.
  constexpr int TM = Cfg::tm, TN = Cfg::tn;
  constexpr int ROW_STEP = Cfg::warp_layout ? Cfg::wm / (TM / 4) : 4;
  constexpr int COL_STEP = Cfg::warp_layout ? Cfg::wn / (TN / 4) : 4;
  int t_row0, t_col0;
  if constexpr (Cfg::warp_layout) {
    constexpr int WM = Cfg::wm, WN = Cfg::wn;
    constexpr int LANES_N = WN / TN;  // a warp's lanes form (WM / TM) x (WN / TN)
    const int warp = tid / 32, lane = tid % 32;
    const int wm0 = (warp / (BN / WN)) * WM, wn0 = (warp % (BN / WN)) * WN;
    t_row0 = wm0 + (lane / LANES_N) * 4;
    t_col0 = wn0 + (lane % LANES_N) * 4;
  } else {
    t_row0 = (tid / (BN / TN)) * TM;
    t_col0 = (tid % (BN / TN)) * TN;
  }

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j)
      acc[i][j] = 0.0f;

  auto compute_tile = [&](int s) {
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float av[TM], bv[TN];
#pragma unroll
      for (int pi = 0; pi < TM / 4; ++pi) {
        const float4 v = *reinterpret_cast<const float4*>(&as[s][kk][t_row0 + pi * ROW_STEP]);
        av[4 * pi + 0] = v.x;
        av[4 * pi + 1] = v.y;
        av[4 * pi + 2] = v.z;
        av[4 * pi + 3] = v.w;
      }
#pragma unroll
      for (int pj = 0; pj < TN / 4; ++pj) {
        const float4 v = *reinterpret_cast<const float4*>(&bs[s][kk][t_col0 + pj * COL_STEP]);
        bv[4 * pj + 0] = v.x;
        bv[4 * pj + 1] = v.y;
        bv[4 * pj + 2] = v.z;
        bv[4 * pj + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
          acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
    }
  };

  const int ktiles = (k + BK - 1) / BK;
  if constexpr (Cfg::double_buffer) {
    load_tile(0);
    store_tile(0);
    __syncthreads();
    for (int t = 0; t < ktiles; ++t) {
      const int s = t & 1;
      const bool more = t + 1 < ktiles;
      // Vec: the next tile's loads are in flight while we compute. The scalar path has four times as many
      // loads and guards; keeping them live across the math would spill registers, so it loads after
      // computing and relies on the other resident warps to hide the latency.
      if constexpr (Vec) {
        if (more) load_tile((t + 1) * BK);
        compute_tile(s);
      } else {
        compute_tile(s);
        if (more) load_tile((t + 1) * BK);
      }
      // Buffer s ^ 1 was last read in step t - 1, which every thread finished before the barrier ending it.
      if (more) store_tile(s ^ 1);
      __syncthreads();
    }
  } else {
    for (int t = 0; t < ktiles; ++t) {
      load_tile(t * BK);
      store_tile(0);
      __syncthreads();  // tile complete
      compute_tile(0);
      __syncthreads();  // everyone finished reading before the next store
    }
  }

  store_micro_tile<TM, TN, ROW_STEP, COL_STEP, Vec>(c, acc, bm + t_row0, bn + t_col0, m, n);
}

// --- 5. cp.async pipeline ----------------------------------------------------------------------------------

// cp.async (sm_80+): a copy global -> shared that the thread only starts; it lands in the background and the
// thread waits for it later. Copies are grouped: commit closes the group of copies started since the last
// commit, wait<N> blocks until at most N of this thread's groups are still in flight. Another thread sees the
// data only after the copying thread has waited AND a __syncthreads has followed. `valid` false writes zeros
// (src-size 0: nothing is read; callers still pass a valid address).
// Below sm_80 the copies are plain synchronous loads and stores and commit/wait do nothing: the same pipeline
// stays correct, with latency hidden only by other warps. Under the CPU stand-in (BS_CUDA_EMU) the copies are
// deferred until the wait that allows them, as late as the hardware may land them.
__device__ __forceinline__ void cp_async_f32(float* dst, const float* src, bool valid) {
#if defined(BS_CUDA_EMU)
  bs_emu_cp_async(dst, valid ? src : nullptr, 4);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(src), "r"(valid ? 4 : 0)
               : "memory");
#else
  *dst = valid ? __ldg(src) : 0.0f;
#endif
}
// 16 bytes, both addresses 16-byte aligned; wholly inside or wholly outside the matrix.
__device__ __forceinline__ void cp_async_f4(float* dst, const float* src, bool valid) {
#if defined(BS_CUDA_EMU)
  bs_emu_cp_async(dst, valid ? src : nullptr, 16);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(valid ? 16 : 0)
               : "memory");
#else
  *reinterpret_cast<float4*>(dst) =
      valid ? __ldg(reinterpret_cast<const float4*>(src)) : make_float4(0.f, 0.f, 0.f, 0.f);
#endif
}
__device__ __forceinline__ void cp_async_commit() {
#if defined(BS_CUDA_EMU)
  bs_emu_cp_async_commit();
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
#if defined(BS_CUDA_EMU)
  bs_emu_cp_async_wait(N);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

// The warptile layout and inner product of block_tile, fed by a ring of STAGES shared-memory buffers that
// cp.async fills STAGES - 1 k-tiles ahead. No register holds a tile in flight, so the registers go to the
// accumulators and the copies need no second pass through the thread.
//
// A (transposed into as[k][m] as before): each copy is one float. Copy i of a thread covers row
// tid / 8 + i * (THREADS / 8) (mod BM) and k tid % 8 (+ 8 per pass over BM): a warp copies 8 consecutive k of
// 4 rows (four full 32-byte sectors), and its shared stores, at k * (BM + 4) + row, hit 32 different banks.
// B (bs[k][n]): 16-byte copies of 4 columns (Vec), or 4 one-float copies (any N).
//
// Pipeline: STAGES buffers, tiles t+1 .. t+STAGES-1 in flight while tile t is computed (details at the loop).
//
// The body works on a k-slice: `k` is the slice's length (the guards and the tile count), `lda` the row
// stride of A (the full K), `ldb` B's (N, or with Vec a multiple of 4 above it: auto's row-padded copy of B
// where N is not a multiple of 4, whose columns past N are zeros); `a` and `b` already point at the slice's
// first column of A and row of B. (bm, bn): the block's C tile origin; `as` / `bs`: STAGES buffers in shared
// memory (static or dynamic). VecC: float4 stores of C (N a multiple of 4).
constexpr int k_async_pad = 4;  // floats of padding per k-row of the transposed A tile
// The source offsets of offset copies (cfg::AsyncTile's OffsetCopies): A's per row pass, B's first and its
// step between row passes; empty where a config doesn't use them.
template <int APasses, bool On>
struct CopyOffsets {
  int a_row[APasses];
  int b0, b_pass;
};
template <int APasses>
struct CopyOffsets<APasses, false> {};
template <class Cfg, bool Vec, bool FullTilePath, bool VecC = Vec>
__device__ __forceinline__ void async_tile_body(const float* __restrict__ a, const float* __restrict__ b,
                                                float* __restrict__ c, int m, int n, int k, int lda, int ldb, int bm,
                                                int bn, float (*as)[Cfg::bk][Cfg::bm + k_async_pad],
                                                float (*bs)[Cfg::bk][Cfg::bn]) {
  constexpr int BM = Cfg::bm, BN = Cfg::bn, BK = Cfg::bk;
  constexpr int THREADS = Cfg::threads;
  constexpr int STAGES = Cfg::stages;
  constexpr int A_PER = BM * BK / THREADS;  // floats of A per thread per k-tile
  constexpr int B_F4 = BK * BN / 4 / THREADS;
  constexpr int A_ROWS_PER_PASS = THREADS / 8;
  constexpr int B_ROWS_PER_PASS = THREADS / (BN / 4);
  static_assert(Cfg::warp_layout, "async_tile uses the warp layout");
  static_assert(THREADS % 32 == 0 && BM % A_ROWS_PER_PASS == 0, "A mapping: whole passes over the rows");
  static_assert(A_PER >= 1 && A_PER * THREADS == BM * BK, "A tile must split evenly into threads");
  static_assert(B_F4 >= 1 && B_F4 * THREADS * 4 == BK * BN, "B tile must split evenly into float4s");
  static_assert(THREADS % (BN / 4) == 0, "B mapping: whole rows of float4s per pass");

  const int tid = threadIdx.x;

  // Edges. Rows of A past M and columns of B past N feed only outputs past the edges of C, which are never
  // stored, so those copies read a clamped row / column (valid memory, any values) instead of being guarded.
  // Only k needs a guard: A and B past K must contribute zeros, so those copies zero-fill (from a clamped,
  // valid address). One compare per k-tile and row pass instead of a guard per copy and edge.
  const int a_row0 = tid / 8, a_k0 = tid % 8;
  auto a_drow = [](int i) { return (i * A_ROWS_PER_PASS) % BM; };
  auto a_dk = [](int i) { return 8 * ((i * A_ROWS_PER_PASS) / BM); };
  const int b_row0 = tid / (BN / 4), b_col0 = (tid % (BN / 4)) * 4;
  // Vec: ldb is a multiple of 4, so the last whole float4 of a row starts at ldb - 4.
  const int b_col = Vec ? min(bn + b_col0, ldb - 4) : bn + b_col0;

  // `full` (a compile-time flag): the k-tile lies wholly inside K, so no copy needs the k clamp or zero-fill.
  // With FullTilePath every tile but the last takes that path (a few integer instructions fewer per copy; on
  // the H100 it helped 128x256x8 and cost 128x128x8 a little, so the ladder's async_pipe keeps one path).
  // Cfg::offset_copies (float4 flavour, full tiles): the sources are `a` / `b` plus a 32-bit unsigned offset
  // (offsets stay below 2^27, matmul.h's limits), so each row pass's address is formed once per k-tile with
  // no sign extension, and its k-groups of 8 are immediate offsets of it in the copy instruction: the 16
  // copies of A per k-tile of 128x128x32 cost about 20 integer instructions instead of about 80. The
  // per-row-pass offsets are fixed at the start (rows clamped as below). Only such configs hold them: the
  // others' code is unchanged.
  constexpr bool OFFSETS = Vec && Cfg::offset_copies;
  constexpr int A_PASSES = BM / A_ROWS_PER_PASS;
  CopyOffsets<A_PASSES, OFFSETS> offs;
  if constexpr (OFFSETS) {
#pragma unroll
    for (int r = 0; r < A_PASSES; ++r)
      offs.a_row[r] = min(bm + a_row0 + r * A_ROWS_PER_PASS, m - 1) * lda + a_k0;
    offs.b0 = b_row0 * ldb + b_col;
    offs.b_pass = B_ROWS_PER_PASS * ldb;
  }

  // The clamped copies: every tile of the other configs, and the partial last tile of any.
  auto load_clamped = [&](int s, int k0, auto full) {
    constexpr bool FULL = decltype(full)::value;
#pragma unroll
    for (int i = 0; i < A_PER; ++i) {
      const int row = min(bm + a_row0 + a_drow(i), m - 1);
      const int kk = k0 + a_k0 + a_dk(i);
      cp_async_f32(&as[s][a_k0 + a_dk(i)][a_row0 + a_drow(i)], a + (row * lda + (FULL ? kk : min(kk, k - 1))),
                   FULL || kk < k);
    }
#pragma unroll
    for (int i = 0; i < B_F4; ++i) {
      const int kr = k0 + b_row0 + i * B_ROWS_PER_PASS;
      const int off = (FULL ? kr : min(kr, k - 1)) * ldb;
      float* dst = &bs[s][b_row0 + i * B_ROWS_PER_PASS][b_col0];
      if constexpr (Vec) {
        cp_async_f4(dst, b + (off + b_col), FULL || kr < k);
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
          cp_async_f32(dst + j, b + (off + min(b_col + j, n - 1)), FULL || kr < k);
      }
    }
  };
  auto load_tile_impl = [&](int s, int k0, auto full) {
    if constexpr (OFFSETS) {  // (nested so that other configs never see `offs`'s members)
      if constexpr (decltype(full)::value) {
#pragma unroll
        for (int i = 0; i < A_PER; ++i) {
          const float* src =
              (a + static_cast<unsigned>(offs.a_row[a_drow(i) / A_ROWS_PER_PASS] + k0)) + a_dk(i);
          cp_async_f32(&as[s][a_k0 + a_dk(i)][a_row0 + a_drow(i)], src, true);
        }
        const float* src = b + static_cast<unsigned>(offs.b0 + k0 * ldb);
#pragma unroll
        for (int i = 0; i < B_F4; ++i, src += offs.b_pass)
          cp_async_f4(&bs[s][b_row0 + i * B_ROWS_PER_PASS][b_col0], src, true);
      } else {
        load_clamped(s, k0, full);
      }
    } else {
      load_clamped(s, k0, full);
    }
  };
  auto load_tile = [&](int s, int k0) {
    if constexpr (FullTilePath) {
      if (k0 + BK <= k)
        load_tile_impl(s, k0, std::true_type{});
      else
        load_tile_impl(s, k0, std::false_type{});
    } else {
      load_tile_impl(s, k0, std::false_type{});
    }
  };

  constexpr int TM = Cfg::tm, TN = Cfg::tn;
  constexpr int WM = Cfg::wm, WN = Cfg::wn;
  constexpr int ROW_STEP = WM / (TM / 4);
  constexpr int COL_STEP = WN / (TN / 4);
  constexpr int LANES_N = WN / TN;
  const int warp = tid / 32, lane = tid % 32;
  const int t_row0 = (warp / (BN / WN)) * WM + (lane / LANES_N) * 4;
  const int t_col0 = (warp % (BN / WN)) * WN + (lane % LANES_N) * 4;

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j)
      acc[i][j] = 0.0f;

  // Fragments: the TM values of A and TN of B for one k, double-buffered in registers so that the shared
  // reads for k + 1 are in flight while the multiply-adds of k run, across tile boundaries too.
  float af[2][TM], bf[2][TN];
  auto load_frag = [&](int s, int kk, int f) {
#pragma unroll
    for (int pi = 0; pi < TM / 4; ++pi) {
      const float4 v = *reinterpret_cast<const float4*>(&as[s][kk][t_row0 + pi * ROW_STEP]);
      af[f][4 * pi + 0] = v.x;
      af[f][4 * pi + 1] = v.y;
      af[f][4 * pi + 2] = v.z;
      af[f][4 * pi + 3] = v.w;
    }
#pragma unroll
    for (int pj = 0; pj < TN / 4; ++pj) {
      const float4 v = *reinterpret_cast<const float4*>(&bs[s][kk][t_col0 + pj * COL_STEP]);
      bf[f][4 * pj + 0] = v.x;
      bf[f][4 * pj + 1] = v.y;
      bf[f][4 * pj + 2] = v.z;
      bf[f][4 * pj + 3] = v.w;
    }
  };
  auto fma_frag = [&](int f) {
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j)
        acc[i][j] = fmaf(af[f][i], bf[f][j], acc[i][j]);
  };

  // Pipeline. Exactly one commit per tile, empty past the last, so that group i is always tile i. The
  // prologue starts tiles 0 .. STAGES-1 (one per buffer) and waits for tile 0. At the last k of tile t (its
  // fragments are all in registers by then): wait until at most STAGES-2 groups are in flight, i.e. groups
  // 0 .. t+1 (STAGES + t committed) have landed for this thread; __syncthreads makes everyone's copies of
  // tile t+1 visible AND guarantees everyone has finished reading buffer `rs` (tile t), which the copies of
  // tile t + STAGES then overwrite. One barrier per tile.
  const int ktiles = (k + BK - 1) / BK;
#pragma unroll
  for (int s = 0; s < STAGES; ++s) {
    if (s < ktiles) load_tile(s, s * BK);
    cp_async_commit();
  }
  cp_async_wait<STAGES - 1>();  // tile 0 has landed (this thread's copies)
  __syncthreads();              // ... everyone's
  load_frag(0, 0, 0);
  int rs = 0;  // buffer holding tile t
  for (int t = 0; t < ktiles; ++t) {
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      if (kk < BK - 1) {
        load_frag(rs, kk + 1, (kk + 1) & 1);
      } else {
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        if (t + STAGES < ktiles) load_tile(rs, (t + STAGES) * BK);
        cp_async_commit();
        rs = rs + 1 == STAGES ? 0 : rs + 1;
        if (t + 1 < ktiles) load_frag(rs, 0, 0);  // BK is even: k 0 of the next tile goes to fragment 0
      }
      fma_frag(kk & 1);
    }
  }
  cp_async_wait<0>();  // (only empty groups remain) leave no copy in flight at exit

  store_micro_tile<TM, TN, ROW_STEP, COL_STEP, VecC>(c, acc, bm + t_row0, bn + t_col0, m, n);
}

template <class Cfg, bool Vec>
__global__ void __launch_bounds__(Cfg::threads, Cfg::min_blocks)
    async_tile(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m, int n,
               int k) {
  __shared__ __align__(16) float as[Cfg::stages][Cfg::bk][Cfg::bm + k_async_pad];
  __shared__ __align__(16) float bs[Cfg::stages][Cfg::bk][Cfg::bn];
  async_tile_body<Cfg, Vec, false>(a, b, c, m, n, k, k, n, blockIdx.y * Cfg::bm, blockIdx.x * Cfg::bn, as, bs);
}

// --- 6. auto: the pipeline per shape, with split-k ------------------------------------------------------

// One launch: AutoArgs (gpu/matmul/auto_args.h). B is always copied in 16-byte pieces: from B itself where N
// is a multiple of 4 (VecC: C stored as float4s too), else from the runner's copy of B with rows padded to
// p.ldb (pad_rows below), C then stored one float at a time.
template <class Cfg, bool VecC>
__global__ void __launch_bounds__(Cfg::threads, Cfg::min_blocks) auto_tile(AutoArgs p) {
  constexpr int BM = Cfg::bm, BN = Cfg::bn, BK = Cfg::bk;
#if defined(BS_CUDA_EMU)
  __shared__ float smem[Cfg::stages * BK * (BM + k_async_pad + BN)];  // the stand-in has no dynamic smem
#else
  extern __shared__ __align__(16) float smem[];
#endif
  auto as = reinterpret_cast<float(*)[BK][BM + k_async_pad]>(smem);
  auto bs = reinterpret_cast<float(*)[BK][BN]>(smem + Cfg::stages * BK * (BM + k_async_pad));
  // Swizzle: blocks launched close together share rows of A and columns of B in L2. Linear block id ->
  // (tile row, tile col), going down `group` tile rows, then one column right.
  const int tiles_n = static_cast<int>(gridDim.x), tiles_m = static_cast<int>(gridDim.y);
  const int lin = static_cast<int>(blockIdx.y) * tiles_n + static_cast<int>(blockIdx.x);
  const int band = lin / (p.group * tiles_n);
  const int first = band * p.group;
  const int rows = min(tiles_m - first, p.group);
  const int in_band = lin - band * p.group * tiles_n;
  const int tile_m = first + in_band % rows, tile_n = in_band / rows;
  const int z = static_cast<int>(blockIdx.z);
  const int k0 = z * p.k_chunk;
  const int klen = min(p.k_chunk, p.k - k0);
  async_tile_body<Cfg, true, true, VecC>(p.a + k0, p.b + static_cast<size_t>(k0) * p.ldb, p.out + z * p.slice,
                                         p.m, p.n, klen, p.k, p.ldb, tile_m * BM, tile_n * BN, as, bs);
}

// out (rows x ldb, ldb a multiple of 4 above n) = in (rows x n) with zeros in columns n .. ldb-1: B's rows
// made 16-byte aligned for auto's copies when N is not a multiple of 4. A block per row (grid-stride over the
// rows), a float4 of out per thread: 32-bit column arithmetic, no division per element.
__global__ void pad_rows(const float* __restrict__ in, float* __restrict__ out, int rows, int n, int ldb) {
  const int q = ldb / 4;
  for (int r = static_cast<int>(blockIdx.x); r < rows; r += static_cast<int>(gridDim.x)) {
    const float* src = in + static_cast<size_t>(r) * static_cast<size_t>(n);
    float4* dst = reinterpret_cast<float4*>(out + static_cast<size_t>(r) * static_cast<size_t>(ldb));
    for (int i = static_cast<int>(threadIdx.x); i < q; i += static_cast<int>(blockDim.x)) {
      const int c = 4 * i;
      dst[i] = make_float4(c + 0 < n ? __ldg(src + c) : 0.0f, c + 1 < n ? __ldg(src + c + 1) : 0.0f,
                           c + 2 < n ? __ldg(src + c + 2) : 0.0f, c + 3 < n ? __ldg(src + c + 3) : 0.0f);
    }
  }
}

// C (count floats) = the sum over the slices of the workspace, in slice order (deterministic). The slices lie
// `stride` floats apart, a multiple of 4 (count rounded up), so every slice's float4s are 16-byte aligned
// whatever m * n is: the quads are added as float4s, the last count % 4 floats one by one.
__global__ void splitk_reduce(const float* __restrict__ ws, float* __restrict__ c, size_t count,
                              size_t stride, int slices) {
  const size_t step = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t first = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  const size_t n4 = count / 4, s4 = stride / 4;
  const float4* w = reinterpret_cast<const float4*>(ws);
  // Slices U at a time, all U loaded before the first is added: U loads in flight per thread instead of one
  // (128x128x16384 adds 64 slices over only 4096 float4s), the additions still in slice order.
  constexpr int U = 8;
  for (size_t i = first; i < n4; i += step) {
    float4 s = w[i];
    int z = 1;
    for (; z + U <= slices; z += U) {
      float4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u)
        v[u] = w[(z + u) * s4 + i];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        s.x += v[u].x;
        s.y += v[u].y;
        s.z += v[u].z;
        s.w += v[u].w;
      }
    }
    for (; z < slices; ++z) {
      const float4 v = w[z * s4 + i];
      s.x += v.x;
      s.y += v.y;
      s.z += v.z;
      s.w += v.w;
    }
    reinterpret_cast<float4*>(c)[i] = s;
  }
  for (size_t i = 4 * n4 + first; i < count; i += step) {
    float s = ws[i];
    for (int z = 1; z < slices; ++z)
      s += ws[z * stride + i];
    c[i] = s;
  }
}

using AutoKernelFn = void (*)(AutoArgs);
// The auto kernel of config `index` (cfg::k_auto_configs), float4 flavour when `vec` (auto_float4: the tile
// kernels and skinny_m need N a multiple of 4, skinny_n K; the tile kernels' other flavour reads the padded
// copy of B).
inline AutoKernelFn auto_kernel_for(int index, bool vec) {
  switch (index) {
    case 0:
      return vec ? auto_tile<cfg::Auto128x128k8, true> : auto_tile<cfg::Auto128x128k8, false>;
    case 1:
      return vec ? auto_tile<cfg::Auto128x128k16, true> : auto_tile<cfg::Auto128x128k16, false>;
    case 2:
      return vec ? auto_tile<cfg::Auto128x128k16s4, true> : auto_tile<cfg::Auto128x128k16s4, false>;
    case 3:
      return vec ? auto_tile<cfg::Auto128x256k8, true> : auto_tile<cfg::Auto128x256k8, false>;
    case 4:
      return vec ? auto_tile<cfg::Auto128x64k8, true> : auto_tile<cfg::Auto128x64k8, false>;
    case 5:
      return vec ? auto_tile<cfg::Auto64x64k16, true> : auto_tile<cfg::Auto64x64k16, false>;
    case 6:
      return vec ? auto_tile<cfg::Auto128x128k32, true> : auto_tile<cfg::Auto128x128k32, false>;
    case 7:
      return vec ? auto_tile<cfg::Auto128x128k32s2, true> : auto_tile<cfg::Auto128x128k32s2, false>;
    case 8:
      return vec ? skinny_m<1, true> : skinny_m<1, false>;
    case 9:
      return vec ? skinny_m<2, true> : skinny_m<2, false>;
    case 10:
      return vec ? skinny_m<4, true> : skinny_m<4, false>;
    case 11:
      return vec ? skinny_m<8, true> : skinny_m<8, false>;
    case 12:
      return vec ? skinny_n<1, true> : skinny_n<1, false>;
    case 13:
      return vec ? skinny_n<2, true> : skinny_n<2, false>;
    case 14:
      return vec ? skinny_n<4, true> : skinny_n<4, false>;
    case 15:
      return vec ? skinny_n<8, true> : skinny_n<8, false>;
    default:
      return nullptr;
  }
}

// --- Helpers -----------------------------------------------------------------------------------------------

// float -> double, for the float64 cuBLAS reference.
__global__ void widen(const float* __restrict__ in, double* __restrict__ out, size_t count) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

// The kernel a variant launches (nullptr for cuBLAS); one list, used by the GPU runner and by the CPU
// emulation test. The block-tile kernels come in a float4 flavour (K and N multiples of 4, so every float4 of
// A and B is aligned and wholly inside or outside) and a scalar one.
inline KernelFn kernel_for(Variant v, bool vec) {
  switch (v) {
    case Variant::NaiveUncoalesced:
      return naive_uncoalesced;
    case Variant::NaiveCoalesced:
      return naive_coalesced;
    case Variant::SmemTile8:
      return smem_tile<8>;
    case Variant::SmemTile16:
      return smem_tile<16>;
    case Variant::SmemTile32:
      return smem_tile<32>;
    case Variant::RegBlock1D:
      return reg_block_1d;
    case Variant::RegBlock2D:
      return vec ? block_tile<cfg::RegBlock2D, true> : block_tile<cfg::RegBlock2D, false>;
    case Variant::WarpTile:
      return vec ? block_tile<cfg::WarpTile, true> : block_tile<cfg::WarpTile, false>;
    case Variant::WarpTileDb:
      return vec ? block_tile<cfg::WarpTileDb, true> : block_tile<cfg::WarpTileDb, false>;
    case Variant::WarpTileDbK16:
      return vec ? block_tile<cfg::WarpTileDbK16, true> : block_tile<cfg::WarpTileDbK16, false>;
    case Variant::WarpTileDb128x64:
      return vec ? block_tile<cfg::WarpTileDb128x64, true> : block_tile<cfg::WarpTileDb128x64, false>;
    case Variant::WarpTileDb16x8:
      return vec ? block_tile<cfg::WarpTileDb16x8, true> : block_tile<cfg::WarpTileDb16x8, false>;
    case Variant::AsyncPipe:
      return vec ? async_tile<cfg::AsyncPipe, true> : async_tile<cfg::AsyncPipe, false>;
    case Variant::AsyncPipe16x8:
      return vec ? async_tile<cfg::AsyncPipe16x8, true> : async_tile<cfg::AsyncPipe16x8, false>;
    case Variant::Auto:  // its own signature and launch: auto_kernel_for
    case Variant::Cublas:
      return nullptr;
  }
  return nullptr;
}

}  // namespace bs::matmul::kernels
