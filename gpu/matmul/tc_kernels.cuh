// tc_kernels.cuh: the tensor-core rungs' kernels (tc.h), device code only. Every operand arrives converted and
// zero-padded (rows and columns of A and B up to multiples of the block tile and of BK), so tiles load whole,
// without bounds checks; only C's stores are guarded, which handles partial tiles (odd M, N, K).
// Block tile 128 x 128 x 32, 8 warps as 2 (M) x 4 (N), each warp a 64 x 32 piece of C.
// The bodies need sm_80 (cp.async, BF16 and TF32 tensor cores); compiled for older architectures they trap, and
// the host never launches them there (tc.h: unavailable_reason).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <cstdint>

#include "gpu/matmul/tc_layout.h"

namespace bs::matmul::tc::kernels {

constexpr int k_bm = 128, k_bn = 128, k_bk = 32;
constexpr int k_threads = 256;
constexpr int k_warp_m = 64, k_warp_n = 32;  // C piece per warp; warps laid out 2 x 4

// What the operands hold. Tf32x3 operands are plain float32, split into hi + lo TF32 parts in the kernel.
enum Kind : int { k_fp16 = 0, k_bf16 = 1, k_tf32 = 2, k_tf32x3 = 3, k_fp32 = 4 };

// --- Conversion: float32 -> the rung's precision, zero-padded ------------------------------------------------
// Round to nearest even into TF32 (low 13 bits cleared): the same arithmetic as round_to_tf32 (precision.cpp).
__device__ __forceinline__ float tf32_rne(float x) {
  uint32_t u = __float_as_uint(x);
  if ((u & 0x7F800000u) == 0x7F800000u) return x;  // infinity and NaN unchanged
  u = (u + 0xFFFu + ((u >> 13) & 1u)) & ~0x1FFFu;
  return __uint_as_float(u);
}

template <int KIND>
__global__ void convert_pad(const float* __restrict__ src, int rows, int cols, void* __restrict__ dst,
                            int rows_p, int cols_p) {
  const int64_t total = static_cast<int64_t>(rows_p) * cols_p;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int r = static_cast<int>(i / cols_p), c = static_cast<int>(i % cols_p);
    const float v = r < rows && c < cols ? src[static_cast<int64_t>(r) * cols + c] : 0.0f;
    if constexpr (KIND == k_fp16) static_cast<__half*>(dst)[i] = __float2half_rn(v);
    if constexpr (KIND == k_bf16) static_cast<__nv_bfloat16*>(dst)[i] = __float2bfloat16_rn(v);
    if constexpr (KIND == k_tf32) static_cast<float*>(dst)[i] = tf32_rne(v);
    if constexpr (KIND == k_tf32x3 || KIND == k_fp32) static_cast<float*>(dst)[i] = v;
  }
}

// The padded operand back as float32, unpadded (for the tests' bit-for-bit comparison).
template <int KIND>
__global__ void widen_unpad(const void* __restrict__ src, int rows, int cols, int cols_p, float* __restrict__ dst) {
  const int64_t total = static_cast<int64_t>(rows) * cols;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t j = (i / cols) * cols_p + i % cols;
    if constexpr (KIND == k_fp16) dst[i] = __half2float(static_cast<const __half*>(src)[j]);
    if constexpr (KIND == k_bf16) dst[i] = __bfloat162float(static_cast<const __nv_bfloat16*>(src)[j]);
    if constexpr (KIND >= k_tf32) dst[i] = static_cast<const float*>(src)[j];
  }
}

struct TcArgs {
  const void* a;  // padded, row-major, lda = k_p
  const void* b;  // padded, row-major, ldb = n_p
  float* c;       // m x n row-major, not padded
  int m, n, k_p, n_p;
};

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define BS_TC_SM80 1

// --- cp.async: global -> shared without passing through registers (sm_80) -----------------------------------
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::);
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// The k-loop over shared-memory stages. STAGES == 1: load a tile, wait, compute, repeat (the copy and the math
// never overlap). STAGES >= 2: STAGES - 1 tiles are in flight while one is multiplied; the stage refilled at step
// kt is the one every warp finished at step kt - 1 (the barrier at the top of the step guarantees it).
template <int STAGES, class Load, class Compute>
__device__ __forceinline__ void k_loop(int ktiles, Load&& load, Compute&& compute) {
  if constexpr (STAGES == 1) {
    for (int kt = 0; kt < ktiles; ++kt) {
      load(0, kt);
      cp_async_commit();
      cp_async_wait<0>();
      __syncthreads();
      compute(0);
      __syncthreads();
    }
  } else {
    for (int s = 0; s < STAGES - 1; ++s) {
      if (s < ktiles) load(s, s);
      cp_async_commit();
    }
    for (int kt = 0; kt < ktiles; ++kt) {
      cp_async_wait<STAGES - 2>();
      __syncthreads();
      const int next = kt + STAGES - 1;
      if (next < ktiles) load(next % STAGES, next);
      cp_async_commit();
      compute(kt % STAGES);
    }
    cp_async_wait<0>();
    __syncthreads();  // shared memory is reused by the epilogue
  }
}

// --- WMMA rungs --------------------------------------------------------------------------------------------
// Shared tiles padded by 16 bytes per row, so the fragment loads of consecutive rows fall in different banks.
template <int KIND>
struct WmmaTraits;
template <>
struct WmmaTraits<k_fp16> {
  using Elem = __half;
  using Frag = __half;
  static constexpr int k = 16;
};
template <>
struct WmmaTraits<k_bf16> {
  using Elem = __nv_bfloat16;
  using Frag = __nv_bfloat16;
  static constexpr int k = 16;
};
template <>
struct WmmaTraits<k_tf32> {
  using Elem = float;
  using Frag = nvcuda::wmma::precision::tf32;
  static constexpr int k = 8;
};
template <>
struct WmmaTraits<k_tf32x3> : WmmaTraits<k_tf32> {};
#endif

template <int KIND, int STAGES>
struct WmmaShape {
  static constexpr int elem = KIND >= k_tf32 ? 4 : 2;
  static constexpr int pad = 16 / elem;
  static constexpr int lda = k_bk + pad, ldb = k_bn + pad;
  static constexpr int a_stage = k_bm * lda * elem, b_stage = k_bk * ldb * elem;  // bytes
  static constexpr int epilogue = (k_threads / 32) * 16 * 20 * 4;                 // a 16x20 float tile per warp
  static constexpr int smem = STAGES * (a_stage + b_stage) > epilogue ? STAGES * (a_stage + b_stage) : epilogue;
};

template <int KIND, int STAGES>
__global__ void __launch_bounds__(k_threads) wmma_gemm(TcArgs args) {
#if defined(BS_TC_SM80)
  namespace wmma = nvcuda::wmma;
  using T = WmmaTraits<KIND>;
  using Elem = typename T::Elem;
  using S = WmmaShape<KIND, STAGES>;
  constexpr int chunk = 16 / S::elem;  // elements per 16-byte copy
  extern __shared__ __align__(128) unsigned char smem[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm = warp / 4, wn = warp % 4;
  const int bm0 = blockIdx.y * k_bm, bn0 = blockIdx.x * k_bn;
  const Elem* A = static_cast<const Elem*>(args.a);
  const Elem* B = static_cast<const Elem*>(args.b);
  auto a_tile = [&](int s) { return reinterpret_cast<Elem*>(smem + s * (S::a_stage + S::b_stage)); };
  auto b_tile = [&](int s) { return reinterpret_cast<Elem*>(smem + s * (S::a_stage + S::b_stage) + S::a_stage); };

  auto load = [&](int s, int kt) {
    Elem* as = a_tile(s);
    Elem* bs = b_tile(s);
    constexpr int a_chunks = k_bm * k_bk / chunk, b_chunks = k_bk * k_bn / chunk;
    for (int id = threadIdx.x; id < a_chunks; id += k_threads) {
      const int r = id / (k_bk / chunk), c = (id % (k_bk / chunk)) * chunk;
      cp_async16(as + r * S::lda + c, A + static_cast<int64_t>(bm0 + r) * args.k_p + kt * k_bk + c);
    }
    for (int id = threadIdx.x; id < b_chunks; id += k_threads) {
      const int r = id / (k_bn / chunk), c = (id % (k_bn / chunk)) * chunk;
      cp_async16(bs + r * S::ldb + c, B + static_cast<int64_t>(kt * k_bk + r) * args.n_p + bn0 + c);
    }
  };

  wmma::fragment<wmma::accumulator, 16, 16, T::k, float> acc[4][2];
  for (auto& row : acc)
    for (auto& f : row)
      wmma::fill_fragment(f, 0.0f);

  // 3xTF32 only: the tensor core's FP32 accumulation is not round-to-nearest (it truncates, so each of the
  // 3 * K / 8 additions into a running sum loses a little in the same direction, measured on an H100: error growing
  // like K * 1.4e-8, 1.2e-4 at K = 8192). So each k-tile is summed into `part`, from zero, and then added to `acc`
  // on the CUDA cores (round to nearest): the truncation is relative to one tile's partial sum, not the whole.
  constexpr bool promote = KIND == k_tf32x3;
  wmma::fragment<wmma::accumulator, 16, 16, T::k, float> part[promote ? 4 : 1][promote ? 2 : 1];

  auto compute = [&](int s) {
    const Elem* as = a_tile(s);
    const Elem* bs = b_tile(s);
    if constexpr (promote)
      for (auto& row : part)
        for (auto& f : row)
          wmma::fill_fragment(f, 0.0f);
#pragma unroll
    for (int kk = 0; kk < k_bk; kk += T::k) {
      using FragA = wmma::fragment<wmma::matrix_a, 16, 16, T::k, typename T::Frag, wmma::row_major>;
      using FragB = wmma::fragment<wmma::matrix_b, 16, 16, T::k, typename T::Frag, wmma::row_major>;
      FragA a[4];
      FragB b[2];
#pragma unroll
      for (int i = 0; i < 4; ++i)
        wmma::load_matrix_sync(a[i], as + (wm * k_warp_m + i * 16) * S::lda + kk, S::lda);
#pragma unroll
      for (int j = 0; j < 2; ++j)
        wmma::load_matrix_sync(b[j], bs + kk * S::ldb + wn * k_warp_n + j * 16, S::ldb);
      if constexpr (KIND == k_tf32x3) {
        // hi = tf32(x), lo = tf32(x - hi): three products, the small ones first so they are not lost
        // against the large one (a_lo * b_lo, about 2^-22 of a product, is dropped).
        FragA a_lo[4];
        FragB b_lo[2];
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
          for (int t = 0; t < a[i].num_elements; ++t) {
            const float x = a[i].x[t], hi = wmma::__float_to_tf32(x);
            a[i].x[t] = hi;
            a_lo[i].x[t] = wmma::__float_to_tf32(x - hi);
          }
#pragma unroll
        for (int j = 0; j < 2; ++j)
#pragma unroll
          for (int t = 0; t < b[j].num_elements; ++t) {
            const float x = b[j].x[t], hi = wmma::__float_to_tf32(x);
            b[j].x[t] = hi;
            b_lo[j].x[t] = wmma::__float_to_tf32(x - hi);
          }
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
          for (int j = 0; j < 2; ++j) {
            wmma::mma_sync(part[i][j], a_lo[i], b[j], part[i][j]);
            wmma::mma_sync(part[i][j], a[i], b_lo[j], part[i][j]);
            wmma::mma_sync(part[i][j], a[i], b[j], part[i][j]);
          }
      } else {
        // TF32 operands were rounded to nearest even when converted: their low 13 bits are already zero.
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
          for (int j = 0; j < 2; ++j)
            wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
      }
    }
    if constexpr (promote)
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j)
#pragma unroll
          for (int t = 0; t < acc[i][j].num_elements; ++t)
            acc[i][j].x[t] += part[i][j].x[t];
  };

  k_loop<STAGES>(args.k_p / k_bk, load, compute);

  // Epilogue: each 16x16 accumulator through a per-warp shared tile, then guarded stores (partial tiles).
  float* scratch = reinterpret_cast<float*>(smem) + warp * 16 * 20;
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      wmma::store_matrix_sync(scratch, acc[i][j], 20, wmma::mem_row_major);
      __syncwarp();
      for (int e = lane; e < 256; e += 32) {
        const int row = bm0 + wm * k_warp_m + i * 16 + e / 16, col = bn0 + wn * k_warp_n + j * 16 + e % 16;
        if (row < args.m && col < args.n) args.c[static_cast<int64_t>(row) * args.n + col] = scratch[(e / 16) * 20 + e % 16];
      }
      __syncwarp();
    }
#else
  (void)args;
  __trap();
#endif
}

// --- mma.sync rungs (m16n8k16, BF16 or FP16 in, FP32 accumulate) ----------------------------------------------
// Shared tiles unpadded and swizzled in 16-byte chunks. A tile: 128 rows x 32 k (64 bytes a row, 4 chunks);
// chunk c of row r lives at chunk c ^ ((r / 2) % 4). B tile: 32 k-rows x 128 columns (256 bytes, 16 chunks);
// chunk c of row r lives at c ^ (r % 8). An ldmatrix phase reads one chunk from each of 8 consecutive rows:
// unswizzled those share banks (4-way for A, 8-way for B); swizzled they cover all 32 banks once.
// (The formulas live in tc_layout.h, shared with the lab's pictures.)
__device__ __forceinline__ int swizzle_a(int row, int chunk) {
  return smem_chunk_a(row, chunk);
}
__device__ __forceinline__ int swizzle_b(int row, int chunk) {
  return smem_chunk_b(row, chunk);
}

template <int STAGES>
struct MmaShape {
  static constexpr int a_stage = k_bm * k_bk * 2, b_stage = k_bk * k_bn * 2;  // bytes
  static constexpr int smem = STAGES * (a_stage + b_stage);
};

#if defined(BS_TC_SM80)
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* p) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s));
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], const void* p) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s));
}
template <int KIND>
__device__ __forceinline__ void mma_16816(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  if constexpr (KIND == k_bf16)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
#endif

template <int KIND, int STAGES>
__global__ void __launch_bounds__(k_threads) mma_gemm(TcArgs args) {
#if defined(BS_TC_SM80)
  using S = MmaShape<STAGES>;
  extern __shared__ __align__(128) unsigned char smem[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm = warp / 4, wn = warp % 4;
  const int bm0 = blockIdx.y * k_bm, bn0 = blockIdx.x * k_bn;
  const uint16_t* A = static_cast<const uint16_t*>(args.a);
  const uint16_t* B = static_cast<const uint16_t*>(args.b);
  // 16-byte chunks of stage s.
  auto a_chunks = [&](int s) { return reinterpret_cast<uint4*>(smem + s * (S::a_stage + S::b_stage)); };
  auto b_chunks = [&](int s) {
    return reinterpret_cast<uint4*>(smem + s * (S::a_stage + S::b_stage) + S::a_stage);
  };

  auto load = [&](int s, int kt) {
    uint4* as = a_chunks(s);
    uint4* bs = b_chunks(s);
#pragma unroll
    for (int id = threadIdx.x; id < k_bm * 4; id += k_threads) {
      const int r = id / 4, c = id % 4;
      cp_async16(as + swizzle_a(r, c), A + static_cast<int64_t>(bm0 + r) * args.k_p + kt * k_bk + c * 8);
    }
#pragma unroll
    for (int id = threadIdx.x; id < k_bk * 16; id += k_threads) {
      const int r = id / 16, c = id % 16;
      cp_async16(bs + swizzle_b(r, c), B + static_cast<int64_t>(kt * k_bk + r) * args.n_p + bn0 + c * 8);
    }
  };

  float acc[4][4][4] = {};
  auto compute = [&](int s) {
    const uint4* as = a_chunks(s);
    const uint4* bs = b_chunks(s);
#pragma unroll
    for (int kk = 0; kk < k_bk; kk += 16) {
      uint32_t a[4][4], b[4][2];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        // Lanes 0-15 give rows 0-15 at k 0-7, lanes 16-31 the same rows at k 8-15: the four 8x8 matrices
        // come back as a0..a3 of the m16n8k16 A fragment.
        const int row = wm * k_warp_m + i * 16 + (lane & 15);
        ldmatrix_x4(a[i], as + swizzle_a(row, kk / 8 + (lane >> 4)));
      }
#pragma unroll
      for (int jj = 0; jj < 2; ++jj) {
        // Transposed loads of k-rows: lanes 0-15 give k 0-15 at columns 0-7, lanes 16-31 at columns 8-15:
        // b0, b1 of two adjacent n8 tiles.
        uint32_t r[4];
        const int krow = kk + (lane & 15);
        ldmatrix_x4_trans(r, bs + swizzle_b(krow, (wn * k_warp_n + jj * 16) / 8 + (lane >> 4)));
        b[2 * jj][0] = r[0];
        b[2 * jj][1] = r[1];
        b[2 * jj + 1][0] = r[2];
        b[2 * jj + 1][1] = r[3];
      }
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
          mma_16816<KIND>(acc[i][j], a[i], b[j][0], b[j][1]);
    }
  };

  k_loop<STAGES>(args.k_p / k_bk, load, compute);

  // The m16n8 accumulator: lane holds rows lane/4 and lane/4 + 8, columns 2*(lane%4) and the next.
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = bm0 + wm * k_warp_m + i * 16 + g + 8 * h;
        const int col = bn0 + wn * k_warp_n + j * 8 + 2 * t;
        if (row >= args.m) continue;
        float* out = args.c + static_cast<int64_t>(row) * args.n + col;
        if (col < args.n) out[0] = acc[i][j][2 * h];
        if (col + 1 < args.n) out[1] = acc[i][j][2 * h + 1];
      }
#else
  (void)args;
  __trap();
#endif
}

}  // namespace bs::matmul::tc::kernels
