// tc_hopper.cu: the Hopper tensor-core rungs of the matmul lab (see tc_hopper.h): TMA tile loads into
// 128-byte-swizzled shared memory completing on mbarriers, wgmma.mma_async reading both operands from shared
// memory through matrix descriptors; then a producer warpgroup feeding two consumer warpgroups, persistent
// blocks, and an epilogue through shared memory and TMA stores. BF16 in, FP32 accumulate and out. Built for
// sm_90a only (its own CMake target): wgmma and setmaxnreg exist in no other architecture's code. Tensor maps
// come from cuTensorMapEncodeTiled through the runtime's driver entry point, so nothing here links libcuda
// and blockscope still starts where no driver exists.
#include "gpu/matmul/tc_hopper.h"

#include <cuda.h>  // CUtensorMap and its enums only (types; libcuda is never linked)
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <mutex>
#include <vector>

#include "core/error.h"
#include "gpu/common/cuda_check.h"
#include "gpu/common/device_info.h"

// 0 when the CUDA compiler cannot produce sm_90a code (older than 12.0; see gpu/matmul/CMakeLists.txt): the
// library then holds no kernels and unavailable_reason says so.
#ifndef BS_HOPPER_KERNELS
#define BS_HOPPER_KERNELS 1
#endif

namespace bs::matmul::hopper {

namespace {

// ---------------------------------------------------------------------------------------------------------
// Tile geometry shared by host and device.
// A tile row of BK bf16 is 128 bytes: exactly one 128B swizzle row, TMA's widest swizzled box.
constexpr int BK = 64;
constexpr int BM = 128;
constexpr int SWIZZLE_BYTES = 128;
constexpr int COLS_PER_CHUNK = SWIZZLE_BYTES / 2;            // 64 bf16 columns of B per swizzled chunk
[[maybe_unused]] constexpr int A_STAGE_BYTES = BM * BK * 2;  // 16 KiB
[[maybe_unused]] constexpr int B_CHUNK_BYTES = BK * COLS_PER_CHUNK * 2;  // 8 KiB: BK rows of B, 64 columns
[[maybe_unused]] constexpr int GROUP_M = 8;  // tiles of M walked together for L2 reuse
// The same for the warp-specialized 128 x 256 tiles. With 8, the ~130 blocks in flight cover 8 tiles of M and
// every tile of N, so each wave reads all of B (at 4096^3: 187 MB from DRAM, ncu on the H200); with 16 they
// cover 16 x ~8, a squarer patch: 148 MB, and ws_tma_store 0.3-0.6% faster at 4096^3 and 8192^3 (H200,
// 2026-11-28; 32 was slower).
[[maybe_unused]] constexpr int WS_GROUP_M = 16;

template <int BN>
__host__ __device__ constexpr int stage_bytes() {
  return A_STAGE_BYTES + (BN / COLS_PER_CHUNK) * B_CHUNK_BYTES;
}
// Dynamic shared memory: the stages, their barriers, and 1 KiB of slack to align the stages to 1024 bytes
// (the 128B swizzle pattern repeats every 8 rows of 128 bytes and TMA and wgmma both assume 1024-byte-aligned
// tiles).
template <int BN, int STAGES>
__host__ __device__ constexpr int smem_bytes() {
  return 1024 + STAGES * stage_bytes<BN>() + 2 * STAGES * 8;
}

// The TMA-store epilogue: each consumer warpgroup stages its 64 x 256 float results through two 8 KiB buffers
// of 64 rows x 32 floats (one 128-byte swizzled row each), placed after the stages and their barriers.
[[maybe_unused]] constexpr int EPI_COLS = SWIZZLE_BYTES / 4;
[[maybe_unused]] constexpr int EPI_BOX_BYTES = 64 * SWIZZLE_BYTES;
[[maybe_unused]] constexpr int EPI_BYTES = 2 * 2 * EPI_BOX_BYTES;  // 2 consumer warpgroups x 2 buffers

constexpr int TMA_WGMMA_BN = 128;
[[maybe_unused]] constexpr int TMA_WGMMA_STAGES = 4;
[[maybe_unused]] constexpr int WS_BN = 256;
[[maybe_unused]] constexpr int WS_STAGES = 4;
[[maybe_unused]] constexpr int WS_THREADS = 384;  // producer warpgroup + 2 consumer warpgroups (64 rows each)
// How many k-tiles consumer 1 starts after consumer 0 (see ws_consume). At 4096^3 on the H200 (2026-11-28):
// 0: 100.1-100.3% of cuBLAS, 1: 100.4-100.6%, 2: 100.5-100.7%, 3: 100.4-100.6%.
[[maybe_unused]] constexpr unsigned WS_CONSUMER_LAG = 2;

#if BS_HOPPER_KERNELS
// ---------------------------------------------------------------------------------------------------------
// Device helpers: PTX wrappers for mbarriers, TMA and wgmma.

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(count) : "memory");
}

__device__ __forceinline__ void mbar_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// Arrives once and tells the barrier to also wait for `bytes` of asynchronous (TMA) transactions.
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_addr(bar)) : "memory");
}

// Spins until the barrier's phase with parity `parity` has completed. The loop is inside the asm: a retry is
// the try_wait and a branch, nothing recomputed (a C++ loop around try_wait re-derived the barrier's address
// on every retry: 15 instructions per retry, a third of the consumers' instructions at 4096^3).
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n.reg .pred p;\n"
      "WAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      "@!p bra WAIT;\n}\n" ::"r"(smem_addr(bar)),
      "r"(parity)
      : "memory");
}

// One 2D box of the tensor map, global -> shared, completing `bar`'s transaction count. Out-of-bounds
// elements (partial tiles) arrive as zeros, which is what makes the ragged edges of M, N and K correct
// without branches.
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, int x_inner, int y_outer,
                                            uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, "
      "%4}], "
      "[%2];\n" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_addr(bar)), "r"(x_inner), "r"(y_outer)
      : "memory");
}

// wgmma shared-memory matrix descriptor for a 128B-swizzled operand: start address, leading- and stride-
// dimension byte offsets (all in 16-byte units), swizzle mode 1 = 128B.
__device__ __forceinline__ uint64_t make_desc(uint32_t addr, uint32_t lbo_bytes, uint32_t sbo_bytes) {
  uint64_t d = 0;
  d |= static_cast<uint64_t>((addr & 0x3FFFF) >> 4);
  d |= static_cast<uint64_t>((lbo_bytes & 0x3FFFF) >> 4) << 16;
  d |= static_cast<uint64_t>((sbo_bytes & 0x3FFFF) >> 4) << 32;
  d |= 1ull << 62;
  return d;
}

// A tile: BM rows of 128 bytes (K-major). Core matrices of 8 rows are 1024 bytes apart (SBO); the leading
// offset is unused for K-major swizzled layouts. The k-th 16-column slice starts 32 bytes further: the
// hardware applies the swizzle to the address bits, so the slice needs no other change.
__device__ __forceinline__ uint64_t desc_a(uint32_t tile_addr, int kk) {
  return make_desc(tile_addr + kk * 32, 16, 1024);
}

// B tile: chunks of 64 columns (N-major, "transposed" for wgmma), each BK rows of 128 bytes. Groups of 8
// k-rows are 1024 bytes apart; the next 64 columns are one chunk (B_CHUNK_BYTES) further. The k-th slice of
// 16 rows starts 16 x 128 bytes further.
__device__ __forceinline__ uint64_t desc_b(uint32_t tile_addr, int kk) {
  return make_desc(tile_addr + kk * 16 * SWIZZLE_BYTES, B_CHUNK_BYTES, 1024);
}

__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// Registers move from the producer warpgroup (which only issues TMA) to the consumers (which hold
// accumulators).
template <int REGS>
__device__ __forceinline__ void regs_dealloc() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(REGS));
}
template <int REGS>
__device__ __forceinline__ void regs_alloc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REGS));
}

// Epilogue through shared memory: a named barrier for one warpgroup, the fence that makes generic
// shared-memory writes visible to TMA, and the TMA store of a box with its bulk-group bookkeeping.
__device__ __forceinline__ void warpgroup_sync(int id) {
  asm volatile("bar.sync %0, 128;\n" ::"r"(id) : "memory");
}
__device__ __forceinline__ void fence_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, const void* src, int x_inner,
                                             int y_outer) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(smem_addr(src)), "r"(x_inner), "r"(y_outer)
               : "memory");
}
__device__ __forceinline__ void bulk_commit() {
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}
template <int N>
__device__ __forceinline__ void bulk_wait() {
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
}

// wgmma's accumulators as asm operands: 64 floats of `d` from d[o] as "+f" outputs, and the register lists
// %0 .. %63 and %64 .. %127 they bind to; the BF16 and TF32 wrappers below share them.
#define BS_WGMMA_D64(d, o)                                                                                  \
  "+f"(d[o + 0]), "+f"(d[o + 1]), "+f"(d[o + 2]), "+f"(d[o + 3]), "+f"(d[o + 4]), "+f"(d[o + 5]),           \
      "+f"(d[o + 6]), "+f"(d[o + 7]), "+f"(d[o + 8]), "+f"(d[o + 9]), "+f"(d[o + 10]), "+f"(d[o + 11]),     \
      "+f"(d[o + 12]), "+f"(d[o + 13]), "+f"(d[o + 14]), "+f"(d[o + 15]), "+f"(d[o + 16]), "+f"(d[o + 17]), \
      "+f"(d[o + 18]), "+f"(d[o + 19]), "+f"(d[o + 20]), "+f"(d[o + 21]), "+f"(d[o + 22]), "+f"(d[o + 23]), \
      "+f"(d[o + 24]), "+f"(d[o + 25]), "+f"(d[o + 26]), "+f"(d[o + 27]), "+f"(d[o + 28]), "+f"(d[o + 29]), \
      "+f"(d[o + 30]), "+f"(d[o + 31]), "+f"(d[o + 32]), "+f"(d[o + 33]), "+f"(d[o + 34]), "+f"(d[o + 35]), \
      "+f"(d[o + 36]), "+f"(d[o + 37]), "+f"(d[o + 38]), "+f"(d[o + 39]), "+f"(d[o + 40]), "+f"(d[o + 41]), \
      "+f"(d[o + 42]), "+f"(d[o + 43]), "+f"(d[o + 44]), "+f"(d[o + 45]), "+f"(d[o + 46]), "+f"(d[o + 47]), \
      "+f"(d[o + 48]), "+f"(d[o + 49]), "+f"(d[o + 50]), "+f"(d[o + 51]), "+f"(d[o + 52]), "+f"(d[o + 53]), \
      "+f"(d[o + 54]), "+f"(d[o + 55]), "+f"(d[o + 56]), "+f"(d[o + 57]), "+f"(d[o + 58]), "+f"(d[o + 59]), \
      "+f"(d[o + 60]), "+f"(d[o + 61]), "+f"(d[o + 62]), "+f"(d[o + 63])
#define BS_WGMMA_REGS_0_63                                                                               \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, " \
  "%22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, " \
  "%42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, " \
  "%62, %63"
#define BS_WGMMA_REGS_64_127                                                                             \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, " \
  "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, "   \
  "%103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, "     \
  "%119, %120, %121, %122, %123, %124, %125, %126, %127"

// D(64x128, f32) += A(64x16, K-major) x B(16x128, N-major: imm-trans-b 1); both from shared memory.
__device__ __forceinline__ void wgmma_m64n128k16(float (&d)[64], uint64_t desc_a, uint64_t desc_b) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
      "{" BS_WGMMA_REGS_0_63 "}, %64, %65, p, 1, 1, 0, 1;\n}\n"
      : BS_WGMMA_D64(d, 0)
      : "l"(desc_a), "l"(desc_b), "r"(1));
}

// D(64x256, f32) += A(64x16, K-major) x B(16x256, N-major: imm-trans-b 1); both from shared memory, their
// descriptors given as low words and the high word they share (desc_a's and desc_b's: stride offset 1024
// bytes, 128B swizzle). A k-slice or a stage is then a 32-bit add to a low word (the start address in 16-byte
// units), and the compiler keeps no 64-bit descriptor arithmetic in the loop.
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], uint32_t a_lo, uint32_t b_lo, uint32_t hi) {
  asm volatile(
      "{\n.reg .pred p;\n.reg .b64 da, db;\n"
      "setp.ne.b32 p, %130, 0;\n"
      "mov.b64 da, {%128, %131};\n"
      "mov.b64 db, {%129, %131};\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
      "{" BS_WGMMA_REGS_0_63 ", " BS_WGMMA_REGS_64_127 "}, da, db, p, 1, 1, 0, 1;\n}\n"
      : BS_WGMMA_D64(d, 0), BS_WGMMA_D64(d, 64)
      : "r"(a_lo), "r"(b_lo), "r"(1), "r"(hi));
}

// Tile (tm, tn) of work item `id` on a rows x cols grid of tiles. Consecutive items walk `group` tiles of M
// for each tile of N, so that blocks running at the same time share both their A rows and their B columns in
// L2.
__device__ __forceinline__ void tile_of(int id, int rows, int cols, int group, int& tm, int& tn) {
  const int per_group = group * cols;
  const int first = (id / per_group) * group;
  const int group_rows = min(rows - first, group);
  const int local = id % per_group;
  tm = first + local % group_rows;
  tn = local / group_rows;
}

// Issues the TMA loads of k-tile `kt` into one stage: A (BM x BK) and B (BK x BN as BN/64 swizzled chunks).
template <int BN>
__device__ __forceinline__ void load_stage(uint8_t* stage, uint64_t* full, const CUtensorMap* ta,
                                           const CUtensorMap* tb, int m0, int n0, int kt) {
  mbar_arrive_expect_tx(full, stage_bytes<BN>());
  tma_load_2d(stage, ta, kt * BK, m0, full);
  uint8_t* b = stage + A_STAGE_BYTES;
#pragma unroll
  for (int j = 0; j < BN / COLS_PER_CHUNK; ++j)
    tma_load_2d(b + j * B_CHUNK_BYTES, tb, n0 + j * COLS_PER_CHUNK, kt * BK, full);
}

// Two neighbours of C's row `row`, columns col and col + 1: one float2 store where the caller knows the whole
// pair is inside C and 8-byte aligned (`whole`), else each element that is inside.
__device__ __forceinline__ void store_pair(float* c, int m, int n, int row, int col, float v0, float v1,
                                           bool whole) {
  float* p = c + static_cast<int64_t>(row) * n + col;
  if (whole) {
    *reinterpret_cast<float2*>(p) = make_float2(v0, v1);
  } else if (row < m) {
    if (col < n) p[0] = v0;
    if (col + 1 < n) p[1] = v1;
  }
}

// Writes one warpgroup's 64 x N accumulator to C. wgmma's layout: thread t of the warpgroup holds rows
// 16 * (t / 32) + (t % 32) / 4 (+ 8), and in each 8-column slice j the columns 8j + 2 (t % 4) (+ 1).
template <int N>
__device__ __forceinline__ void store_tile(const float (&d)[N / 2], float* c, int m, int n, int row0,
                                           int col0) {
  const int t = threadIdx.x % 128;
  const int r = row0 + 16 * (t / 32) + (t % 32) / 4;
  const int cbase = col0 + 2 * (t % 4);
  const bool whole = row0 + 64 <= m && col0 + N <= n && n % 2 == 0;
#pragma unroll
  for (int j = 0; j < N / 8; ++j) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      store_pair(c, m, n, r + 8 * h, cbase + 8 * j, d[4 * j + 2 * h], d[4 * j + 2 * h + 1], whole);
    }
  }
}

// The same 64 x N accumulator written through shared memory: 32 columns at a time into a 128B-swizzled 64 x
// 32 float box (the 8 rows of one store instruction land in 8 different 16-byte bank groups), then one TMA
// store per box, which clips the rows and columns outside C. Two buffers alternate, so the warpgroup fills
// one while the TMA engine reads the other; the global writes drain while the next tile's wgmma run.
template <int N>
__device__ __forceinline__ void store_tile_tma(const float (&d)[N / 2], const CUtensorMap* tc, uint8_t* bufs,
                                               int row0, int col0, int barrier_id) {
  const int t = threadIdx.x % 128;
  const int r = 16 * (t / 32) + (t % 32) / 4;
  const int q = t % 4;
#pragma unroll
  for (int cc = 0; cc < N / EPI_COLS; ++cc) {
    uint8_t* buf = bufs + (cc % 2) * EPI_BOX_BYTES;
    if (t == 0) bulk_wait_read<1>();  // the store that last read this buffer is done with it
    warpgroup_sync(barrier_id);
#pragma unroll
    for (int jj = 0; jj < EPI_COLS / 8; ++jj) {
      const int j = cc * (EPI_COLS / 8) + jj;
      const int byte = jj * 32 + q * 8;  // of column 8 jj + 2 q in the 128-byte row
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = r + 8 * h;
        const int chunk = (byte / 16) ^ (row % 8);
        *reinterpret_cast<float2*>(buf + row * SWIZZLE_BYTES + chunk * 16 + byte % 16) =
            make_float2(d[4 * j + 2 * h], d[4 * j + 2 * h + 1]);
      }
    }
    fence_async_shared();
    warpgroup_sync(barrier_id);
    if (t == 0) {
      tma_store_2d(tc, buf, col0 + cc * EPI_COLS, row0);
      bulk_commit();
    }
  }
}

__device__ __forceinline__ uint8_t* align_1024(uint8_t* p) {
  const uint32_t a = smem_addr(p);
  return p + ((1024 - (a & 1023)) & 1023);
}

// Rung 1: one warpgroup (128 threads) per 128 x 128 tile. Thread 0 keeps STAGES k-tiles in flight with TMA;
// the warpgroup waits for a stage's barrier, runs 2 x 4 wgmma (two 64-row halves, four k16 slices), waits for
// them, and only then lets thread 0 refill that stage. Loads overlap compute, but the tensor cores idle while
// the warpgroup waits for its own wgmma and issues the next loads.
__global__ void __launch_bounds__(128, 1)
    tma_wgmma_kernel(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb,
                     const __grid_constant__ CUtensorMap, float* c, int m, int n, int k) {
  constexpr int BN = TMA_WGMMA_BN, STAGES = TMA_WGMMA_STAGES;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = align_1024(smem_raw);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + STAGES * stage_bytes<BN>());
  int tm = 0, tn = 0;
  tile_of(static_cast<int>(blockIdx.x), (m + BM - 1) / BM, (n + BN - 1) / BN, GROUP_M, tm, tn);
  const int m0 = tm * BM, n0 = tn * BN;
  // Split-K (gridDim.y slices, the wgmma_splitk rung): this block multiplies k-tiles kt0 .. kt0 + ktiles - 1
  // and writes its partial tile to slice blockIdx.y of `c` (then a workspace of gridDim.y m x n floats).
  const int all = (k + BK - 1) / BK,
            per = (all + static_cast<int>(gridDim.y) - 1) / static_cast<int>(gridDim.y);
  const int kt0 = static_cast<int>(blockIdx.y) * per;
  const int ktiles = max(0, min(all, kt0 + per) - kt0);
  c += static_cast<size_t>(blockIdx.y) * static_cast<size_t>(m) * static_cast<size_t>(n);

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s)
      mbar_init(&full[s], 1);
    mbar_init_fence();
  }
  __syncthreads();
  if (threadIdx.x == 0)
    for (int kt = 0; kt < min(STAGES, ktiles); ++kt)
      load_stage<BN>(smem + kt * stage_bytes<BN>(), &full[kt], &ta, &tb, m0, n0, kt0 + kt);

  float acc[2][BN / 2];
#pragma unroll
  for (int h = 0; h < 2; ++h)
#pragma unroll
    for (int i = 0; i < BN / 2; ++i)
      acc[h][i] = 0.0f;

  for (int kt = 0; kt < ktiles; ++kt) {
    const int s = kt % STAGES;
    uint8_t* stage = smem + s * stage_bytes<BN>();
    mbar_wait(&full[s], (kt / STAGES) & 1);
    const uint32_t a = smem_addr(stage), b = smem_addr(stage + A_STAGE_BYTES);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < BK / 16; ++kk) {
#pragma unroll
      for (int h = 0; h < 2; ++h)
        wgmma_m64n128k16(acc[h], desc_a(a + h * 64 * SWIZZLE_BYTES, kk), desc_b(b, kk));
    }
    wgmma_commit();
    wgmma_wait<0>();
    __syncthreads();  // every warp is done reading the stage: it may be refilled
    if (threadIdx.x == 0 && kt + STAGES < ktiles)
      load_stage<BN>(stage, &full[s], &ta, &tb, m0, n0, kt0 + kt + STAGES);
  }
#pragma unroll
  for (int h = 0; h < 2; ++h)
    store_tile<BN>(acc[h], c, m, n, m0 + 64 * h, n0);
}

// Split-K's sum: c[i] = the slices' partial C added in slice order (deterministic).
__global__ void splitk_sum_kernel(const float* __restrict__ ws, float* __restrict__ c, size_t mn,
                                  int slices) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < mn;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    float s = ws[i];
    for (int z = 1; z < slices; ++z)
      s += ws[z * mn + i];
    c[i] = s;
  }
}

// The consumer side of the warp-specialized kernels (below): consumer CW's 64 rows of each 128 x 256 tile.
template <bool TMA_STORE, int CW>
__device__ __forceinline__ void ws_consume(uint8_t* smem, uint64_t* full, uint64_t* empty, uint8_t* epilogue,
                                           const CUtensorMap* tc, float* c, int m, int n, int first,
                                           int stride, int ktiles) {
  constexpr int BN = WS_BN, STAGES = WS_STAGES;
  const int m_tiles = (m + BM - 1) / BM, n_tiles = (n + BN - 1) / BN, work = m_tiles * n_tiles;
  // Lane 0 of each consumer warp tells the producer that stage s may be refilled.
  auto release = [](uint64_t* bar) {
    if (threadIdx.x % 32 == 0) mbar_arrive(bar);
  };
  // The first stage's descriptors (see wgmma_m64n256k16): A's rows 64 CW of the stage, B's chunks. A stage is
  // stage_bytes further, a k16 slice 32 bytes further in A and 16 rows of 128 bytes further in B.
  const uint64_t da0 = desc_a(smem_addr(smem) + CW * 64 * SWIZZLE_BYTES, 0);
  const uint64_t db0 = desc_b(smem_addr(smem) + A_STAGE_BYTES, 0);
  const uint32_t a_lo0 = static_cast<uint32_t>(da0), b_lo0 = static_cast<uint32_t>(db0);
  const uint32_t hi = static_cast<uint32_t>(da0 >> 32);  // db0's too
  unsigned it = 0;  // unsigned: the ring position and phase are a mask and a shift
  // Consumer 1 starts WS_CONSUMER_LAG k-tiles after consumer 0 (named barrier 3): at the end of a tile
  // consumer 0 stores its rows while consumer 1 still multiplies, and consumer 1 stores while consumer 0 has
  // begun the next tile, so the tensor cores idle less during the epilogues. The shared ring keeps the lag
  // (consumer 0 can run at most STAGES k-tiles ahead).
  bool signalled = CW == 1;
  if (CW == 1) asm volatile("bar.sync 3, 256;\n" ::: "memory");
  for (int w = first; w < work; w += stride) {
    int tm = 0, tn = 0;
    tile_of(w, m_tiles, n_tiles, WS_GROUP_M, tm, tn);
    const int m0 = tm * BM, n0 = tn * BN;
    float acc[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; ++i)
      acc[i] = 0.0f;
    for (int kt = 0; kt < ktiles; ++kt, ++it) {
      const unsigned s = it % STAGES;
      mbar_wait(&full[s], (it / STAGES) & 1);
      const uint32_t a_lo = a_lo0 + s * (stage_bytes<BN>() >> 4), b_lo = b_lo0 + s * (stage_bytes<BN>() >> 4);
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < BK / 16; ++kk)
        wgmma_m64n256k16(acc, a_lo + kk * (32 >> 4), b_lo + kk * ((16 * SWIZZLE_BYTES) >> 4), hi);
      wgmma_commit();
      wgmma_wait<1>();  // the batch of the k-tile before is done: its stage can be refilled
      if (kt > 0) release(&empty[(it - 1) % STAGES]);
      if (!signalled && it + 1 == WS_CONSUMER_LAG) {
        asm volatile("bar.arrive 3, 256;\n" ::: "memory");
        signalled = true;
      }
    }
    wgmma_wait<0>();
    release(&empty[(it - 1) % STAGES]);
    if constexpr (TMA_STORE)
      store_tile_tma<BN>(acc, tc, epilogue + CW * 2 * EPI_BOX_BYTES, m0 + 64 * CW, n0, 1 + CW);
    else
      store_tile<BN>(acc, c, m, n, m0 + 64 * CW, n0);
  }
  if (!signalled)
    asm volatile("bar.arrive 3, 256;\n" ::: "memory");  // a block with fewer k-tiles than the lag
  if constexpr (TMA_STORE)
    if (threadIdx.x % 128 == 0) bulk_wait<0>();  // shared memory must outlive the last stores' reads
}

// Rungs 2 to 4: warp specialization. Warpgroup 0 only produces: it gives most of its registers away
// (setmaxnreg) and one thread streams k-tiles into a ring of STAGES buffers, each guarded by a `full` barrier
// (TMA bytes landed) and an `empty` barrier (every consumer warp finished reading). Warpgroups 1 and 2 only
// consume: each owns 64 rows of a 128 x 256 tile, keeps 128 accumulator registers per thread (hence
// setmaxnreg.inc), and keeps one batch of wgmma in flight while it releases the stage before. Loads,
// tensor-core work and barrier waits overlap, and the 256-wide B tile halves the shared-memory traffic per
// flop against 128. PERSISTENT (rung 3) launches at most one block per SM (persistent_blocks) that walks its
// tiles: the ring's position
// carries over from tile to tile, so the producer already fills the stages of the next tile while the
// consumers store this one, and no block pays for launch, barrier set-up and an empty pipeline more than
// once. TMA_STORE (rung 4) writes C through shared memory and TMA stores (store_tile_tma) instead of from
// registers; it needs a tensor map of C, so n a multiple of 4.
template <bool PERSISTENT, bool TMA_STORE>
__global__ void __launch_bounds__(WS_THREADS, 1)
    warp_specialized_kernel(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb,
                            const __grid_constant__ CUtensorMap tc, float* c, int m, int n, int k) {
  constexpr int BN = WS_BN, STAGES = WS_STAGES;
  constexpr int CONSUMER_WARPS = 8;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = align_1024(smem_raw);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + STAGES * stage_bytes<BN>());
  uint64_t* empty = full + STAGES;
  uint8_t* epilogue = smem + STAGES * stage_bytes<BN>() + 1024;  // after the barriers, 1024-aligned
  const int m_tiles = (m + BM - 1) / BM, n_tiles = (n + BN - 1) / BN;
  const int work = m_tiles * n_tiles;
  const int first = static_cast<int>(blockIdx.x);
  const int stride = PERSISTENT ? static_cast<int>(gridDim.x) : work;
  const int ktiles = (k + BK - 1) / BK;
  const int wg = threadIdx.x / 128;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], CONSUMER_WARPS);
    }
    mbar_init_fence();
  }
  __syncthreads();

  if (wg == 0) {
    regs_dealloc<40>();
    if (threadIdx.x == 0) {
      unsigned it = 0;  // k-tiles loaded so far over all tiles: the ring position and phase
      for (int w = first; w < work; w += stride) {
        int tm = 0, tn = 0;
        tile_of(w, m_tiles, n_tiles, WS_GROUP_M, tm, tn);
        for (int kt = 0; kt < ktiles; ++kt, ++it) {
          const unsigned s = it % STAGES;
          if (it >= STAGES) mbar_wait(&empty[s], ((it / STAGES) + 1) & 1);
          load_stage<BN>(smem + s * stage_bytes<BN>(), &full[s], &ta, &tb, tm * BM, tn * BN, kt);
        }
      }
    }
  } else {
    regs_alloc<232>();
    // Consumer 0 or 1 (rows 64 * cw of the tile) as a template argument: then every address the loop computes
    // is the same for all threads of the warp, and the compiler keeps it in uniform registers.
    if (wg == 1)
      ws_consume<TMA_STORE, 0>(smem, full, empty, epilogue, &tc, c, m, n, first, stride, ktiles);
    else
      ws_consume<TMA_STORE, 1>(smem, full, empty, epilogue, &tc, c, m, n, first, stride, ktiles);
  }
}

#endif  // BS_HOPPER_KERNELS

// ---------------------------------------------------------------------------------------------------------
// The TF32 rungs. wgmma reads .tf32 operands from shared memory only K-major (no transpose bit, unlike BF16),
// and B is row-major K x N: N-major. So these kernels compute the transposed product, C^T = B^T A^T: A's
// tile (rows of m, K-major, as TMA brings it) is wgmma's shared-memory operand, and B's tile is wgmma's
// register operand, each thread loading its fragment from the N-major tile with two 8-byte loads per k8
// step. The load is the transpose; nothing is copied beforehand. The register operand is also where B is
// rounded to TF32 (cvt.rna, round to nearest); the shared-memory operand is read as it is and the tensor core
// ignores the low 13 mantissa bits, so A must already be TF32 values for round-to-nearest (gemm_tf32's
// contract; 3xTF32 splits A into two such matrices first).
//
// Which n a fragment row stands for is ours to choose, as long as the epilogue agrees: thread (g = lane / 4,
// t = lane % 4) of a warp holds fragment rows g and g + 8 at k = t and t + 4, and we make those rows the
// neighbours n and n + 1, so one 8-byte load gives both. The 8 pairs of a warp sit in 16-byte chunks {0, 1,
// 4, 5} (even warps) or {2, 3, 6, 7} (odd) of a 128-byte swizzled row: the swizzle XORs the chunk with the
// row (k mod 8), so the 4 rows one load instruction reads hit every bank exactly twice (2 wavefronts for 256
// bytes, no conflict), and so do the epilogue's float2 stores, 32 bytes per row segment.
constexpr int TF_BK = SWIZZLE_BYTES / 4;  // 32 floats: one 128-byte swizzled row
constexpr int TF_BN = 128;                // n per block: two consumer warpgroups x 64
[[maybe_unused]] constexpr int TF_B_CHUNK_BYTES = TF_BK * SWIZZLE_BYTES;  // 32 k-rows of 32 floats: 4 KiB
[[maybe_unused]] constexpr int TF_STAGES = 4;

// m per block: 256 for TF32 (wgmma n = 256, 128 accumulators per thread); 128 for 3xTF32, which keeps a
// second accumulator for the k-tile's partial sum (see tf32_kernel).
template <bool X3>
__host__ __device__ constexpr int tf_bm() {
  return X3 ? 128 : 256;
}
template <bool X3>
__host__ __device__ constexpr int tf_a_bytes() {
  return tf_bm<X3>() * SWIZZLE_BYTES;  // one A tile: BM rows of 32 floats
}
template <bool X3>
__host__ __device__ constexpr int tf_stage_bytes() {
  return (X3 ? 2 : 1) * tf_a_bytes<X3>() + (TF_BN / TF_BK) * TF_B_CHUNK_BYTES;
}
template <bool X3>
__host__ __device__ constexpr int tf_smem_bytes() {
  return 1024 + TF_STAGES * tf_stage_bytes<X3>() + 2 * TF_STAGES * 8;
}

#if BS_HOPPER_KERNELS
// D(64x128, f32) += A(64x8, tf32, registers) x B(8x128, tf32, K-major in shared memory).
__device__ __forceinline__ void wgmma_m64n128k8_tf32(float (&d)[64], const uint32_t (&a)[4], uint64_t desc_b,
                                                     int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
      "{" BS_WGMMA_REGS_0_63 "}, {%64, %65, %66, %67}, %68, p, 1, 1;\n}\n"
      : BS_WGMMA_D64(d, 0)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
}

// D(64x256, f32) += A(64x8, tf32, registers) x B(8x256, tf32, K-major in shared memory).
__device__ __forceinline__ void wgmma_m64n256k8_tf32(float (&d)[128], const uint32_t (&a)[4], uint64_t desc_b,
                                                     int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 "
      "{" BS_WGMMA_REGS_0_63 ", " BS_WGMMA_REGS_64_127 "}, {%128, %129, %130, %131}, %132, p, 1, 1;\n}\n"
      : BS_WGMMA_D64(d, 0), BS_WGMMA_D64(d, 64)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
}

template <int N>
__device__ __forceinline__ void wgmma_tf32(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t db,
                                           int scale_d) {
  if constexpr (N == 256)
    wgmma_m64n256k8_tf32(d, a, db, scale_d);
  else
    wgmma_m64n128k8_tf32(d, a, db, scale_d);
}

__device__ __forceinline__ uint32_t to_tf32(float x) {
  uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
}

__device__ __forceinline__ float2 lds_f2(uint32_t addr) {
  float2 v;
  asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];\n" : "=f"(v.x), "=f"(v.y) : "r"(addr));
  return v;
}

// K-major A tile of BM rows x 32 floats, 128B swizzle: the k8 slice kk starts 32 bytes further (as desc_a).
__device__ __forceinline__ uint64_t desc_tf32(uint32_t tile_addr, int kk) {
  return make_desc(tile_addr + kk * 32, 16, 1024);
}

// The column (within its 32-float chunk) of the pair n, n + 1 that thread (warp w, g) holds; see above.
__device__ __forceinline__ int tf_pair_col(int w, int g) {
  return 4 * ((g >> 1) & 1) + 16 * (g >> 2) + 8 * (w & 1) + 2 * (g & 1);
}

// TMA loads of k-tile kt into one stage: A (BM x 32 floats; 3xTF32: A_hi and A_lo) and B (32 x 128 as four
// 32-column chunks).
template <bool X3>
__device__ __forceinline__ void tf_load_stage(uint8_t* stage, uint64_t* full, const CUtensorMap* ta,
                                              const CUtensorMap* ta_lo, const CUtensorMap* tb, int m0, int n0,
                                              int kt) {
  mbar_arrive_expect_tx(full, tf_stage_bytes<X3>());
  tma_load_2d(stage, ta, kt * TF_BK, m0, full);
  if constexpr (X3) tma_load_2d(stage + tf_a_bytes<X3>(), ta_lo, kt * TF_BK, m0, full);
  uint8_t* b = stage + (X3 ? 2 : 1) * tf_a_bytes<X3>();
#pragma unroll
  for (int j = 0; j < TF_BN / TF_BK; ++j)
    tma_load_2d(b + j * TF_B_CHUNK_BYTES, tb, n0 + j * TF_BK, kt * TF_BK, full);
}

// One consumer warpgroup's accumulator (64 n x BM m of C^T) written to C: element 4j + 2h + e is
// C[m0 + 8j + 2t + e][n + h] with n this thread's pair, so h = 0, 1 go out as one float2.
template <int BM_>
__device__ __forceinline__ void tf_store(const float (&d)[BM_ / 2], float* c, int m, int n, int m0,
                                         int ncol) {
  const int t = threadIdx.x % 4;
  const bool whole = m0 + BM_ <= m && ncol + 2 <= n && n % 2 == 0;
#pragma unroll
  for (int j = 0; j < BM_ / 8; ++j) {
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      store_pair(c, m, n, m0 + 8 * j + 2 * t + e, ncol, d[4 * j + e], d[4 * j + 2 + e], whole);
    }
  }
}

// The TF32 and 3xTF32 rungs: warp-specialized and persistent as ws_persistent (a producer warpgroup streaming
// k-tiles into a ring of stages; two consumer warpgroups, 64 n each, of a 128 (n) x BM (m) tile), on the
// transposed product described above. 3xTF32 (X3): A comes as TF32 hi and lo matrices, B is split in the
// registers (hi = tf32(b), lo = tf32(b - hi)), and each k8 step runs three wgmma: A_hi b_hi + A_hi b_lo +
// A_lo b_hi. The tensor core's FP32 accumulation truncates, and three products per k8 step would add up
// those losses along K (the WMMA 3xTF32 rung measured it: 50x SGEMM's error at 4096^3); so the products go
// into a second accumulator started from zero at every k-tile (32 deep), which is added to the total on the
// CUDA cores (rounded to nearest). Unlike the BF16 consumers, each waits for its wgmma at every k-tile: the
// next k-tile's fragments would otherwise be loaded while wgmma still reads the registers of the last (ptxas
// then serializes the wgmma: 84.5% of cuBLAS at 4096^3 against 97.3% without the overlap, and without that
// protection the results were wrong). The two consumer warpgroups take turns on the tensor cores instead.
template <bool X3>
__global__ void __launch_bounds__(WS_THREADS, 1)
    tf32_kernel(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap ta_lo,
                const __grid_constant__ CUtensorMap tb, float* c, int m, int n, int k) {
  constexpr int BM_ = tf_bm<X3>(), STAGES = TF_STAGES;
  constexpr int CONSUMER_WARPS = 8;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = align_1024(smem_raw);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + STAGES * tf_stage_bytes<X3>());
  uint64_t* empty = full + STAGES;
  const int m_tiles = (m + BM_ - 1) / BM_, n_tiles = (n + TF_BN - 1) / TF_BN;
  const int work = m_tiles * n_tiles;
  const int ktiles = (k + TF_BK - 1) / TF_BK;
  const int wg = threadIdx.x / 128;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], CONSUMER_WARPS);
    }
    mbar_init_fence();
  }
  __syncthreads();

  if (wg == 0) {
    regs_dealloc<40>();
    if (threadIdx.x == 0) {
      int it = 0;
      for (int w = blockIdx.x; w < work; w += gridDim.x) {
        int tm = 0, tn = 0;
        tile_of(w, m_tiles, n_tiles, GROUP_M, tm, tn);
        for (int kt = 0; kt < ktiles; ++kt, ++it) {
          const int s = it % STAGES;
          if (it >= STAGES) mbar_wait(&empty[s], ((it / STAGES) + 1) & 1);
          tf_load_stage<X3>(smem + s * tf_stage_bytes<X3>(), &full[s], &ta, &ta_lo, &tb, tm * BM_, tn * TF_BN,
                            kt);
        }
      }
    }
  } else {
    regs_alloc<232>();
    const int cw = wg - 1;
    const int warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int pair = tf_pair_col(warp, g);
    const int chunk = 2 * cw + warp / 2;  // which 32-column chunk of the B tile holds this warp's n
    // Byte offsets of this thread's pair at k = t and k = t + 4 of a k8 slice (the swizzle XORs the 16-byte
    // chunk with the row mod 8, and the slices are 8 rows = 1024 bytes apart, so it is the same in each).
    const uint32_t off_lo =
        chunk * TF_B_CHUNK_BYTES + t * SWIZZLE_BYTES + (((pair >> 2) ^ t) << 4) + (pair & 3) * 4;
    const uint32_t off_hi =
        chunk * TF_B_CHUNK_BYTES + (t + 4) * SWIZZLE_BYTES + (((pair >> 2) ^ (t + 4)) << 4) + (pair & 3) * 4;
    auto release = [](uint64_t* bar) {
      if (threadIdx.x % 32 == 0) mbar_arrive(bar);
    };
    int it = 0;
    for (int w = blockIdx.x; w < work; w += gridDim.x) {
      int tm = 0, tn = 0;
      tile_of(w, m_tiles, n_tiles, GROUP_M, tm, tn);
      const int m0 = tm * BM_, n0 = tn * TF_BN;
      float acc[BM_ / 2];
#pragma unroll
      for (int i = 0; i < BM_ / 2; ++i)
        acc[i] = 0.0f;
      [[maybe_unused]] float part[X3 ? BM_ / 2 : 1];
#pragma unroll
      for (int i = 0; i < (X3 ? BM_ / 2 : 1); ++i)
        part[i] = 0.0f;
      for (int kt = 0; kt < ktiles; ++kt, ++it) {
        const int s = it % STAGES;
        uint8_t* stage = smem + s * tf_stage_bytes<X3>();
        mbar_wait(&full[s], (it / STAGES) & 1);
        const uint32_t a = smem_addr(stage);
        const uint32_t b = smem_addr(stage + (X3 ? 2 : 1) * tf_a_bytes<X3>());
        // B's fragments of this k-tile (16 registers; 3xTF32: hi and lo, 32), rounded to TF32 on the way.
        uint32_t hi[TF_BK / 8][4];
        [[maybe_unused]] uint32_t lo[TF_BK / 8][4];
#pragma unroll
        for (int kk = 0; kk < TF_BK / 8; ++kk) {
          const float2 v0 = lds_f2(b + off_lo + kk * 1024), v1 = lds_f2(b + off_hi + kk * 1024);
          const float x[4] = {v0.x, v0.y, v1.x, v1.y};  // fragment rows g, g + 8 at k = t; the same at t + 4
#pragma unroll
          for (int q = 0; q < 4; ++q) {
            hi[kk][q] = to_tf32(x[q]);
            if constexpr (X3) lo[kk][q] = to_tf32(x[q] - __uint_as_float(hi[kk][q]));
          }
        }
        wgmma_fence();
        if constexpr (X3) {
#pragma unroll
          for (int kk = 0; kk < TF_BK / 8; ++kk) {
            wgmma_tf32<BM_>(part, lo[kk], desc_tf32(a, kk), kk == 0 ? 0 : 1);  // scale-d 0: from zero
            wgmma_tf32<BM_>(part, hi[kk], desc_tf32(a + tf_a_bytes<X3>(), kk), 1);
            wgmma_tf32<BM_>(part, hi[kk], desc_tf32(a, kk), 1);
          }
        } else {
#pragma unroll
          for (int kk = 0; kk < TF_BK / 8; ++kk)
            wgmma_tf32<BM_>(acc, hi[kk], desc_tf32(a, kk), 1);
        }
        wgmma_commit();
        // All of this k-tile's wgmma done before the stage is released, before the next k-tile's fragments
        // are loaded (wgmma reads its register operand asynchronously), and for 3xTF32 before the CUDA cores
        // add the partial sum; meanwhile the other consumer warpgroup keeps the tensor cores busy.
        wgmma_wait<0>();
        release(&empty[s]);
        if constexpr (X3) {
#pragma unroll
          for (int i = 0; i < BM_ / 2; ++i)
            acc[i] += part[i];
        }
      }
      tf_store<BM_>(acc, c, m, n, m0, n0 + 64 * cw + 32 * (warp / 2) + pair);
    }
  }
}

// 3xTF32's A split into TF32 hi and lo matrices (hi = tf32(a), lo = tf32(a - hi)), as the tensor core reads A
// from shared memory without rounding it. count4 = m * lda / 4 (lda is a multiple of 4, the pointers 16-byte
// aligned).
__global__ void split_tf32_kernel(const float4* __restrict__ a, float4* __restrict__ hi,
                                  float4* __restrict__ lo, int64_t count4) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count4;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float4 x = a[i];
    const float4 h = make_float4(__uint_as_float(to_tf32(x.x)), __uint_as_float(to_tf32(x.y)),
                                 __uint_as_float(to_tf32(x.z)), __uint_as_float(to_tf32(x.w)));
    hi[i] = h;
    lo[i] = make_float4(__uint_as_float(to_tf32(x.x - h.x)), __uint_as_float(to_tf32(x.y - h.y)),
                        __uint_as_float(to_tf32(x.z - h.z)), __uint_as_float(to_tf32(x.w - h.w)));
  }
}
#endif  // BS_HOPPER_KERNELS

// ---------------------------------------------------------------------------------------------------------
// Host side.

using EncodeTiledFn = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                   const cuuint64_t*, const cuuint32_t*, const cuuint32_t*,
                                   CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
                                   CUtensorMapFloatOOBfill);

// cuTensorMapEncodeTiled from the driver the runtime loaded (nullptr when there is none or it is too old).
EncodeTiledFn encode_tiled() {
  static std::once_flag once;
  static EncodeTiledFn fn = nullptr;
  std::call_once(once, [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) ==
            cudaSuccess &&
        q == cudaDriverEntryPointSuccess)
      fn = reinterpret_cast<EncodeTiledFn>(p);
    else
      cudaGetLastError();  // not sticky: clear it so the caller's next check is not confused
  });
  return fn;
}

#if BS_HOPPER_KERNELS
// A 2D bf16 tensor (rows x cols, leading dimension ld elements) read in boxes of box_rows x 64 columns with
// the 128B swizzle. Maps are cached per (pointer, shape, box): encoding one costs a driver call, and the lab
// calls gemm_bf16 on the same buffers every frame.
struct MapKey {
  const void* ptr;
  int64_t rows, cols, ld;  // ld in elements
  int box_rows;
  int elem_bytes;  // 2: bf16 operand, 4: the float32 C of the TMA-store epilogue
  bool operator==(const MapKey&) const = default;
};

class TensorMapCache {
 public:
  CUtensorMap get(const MapKey& key) {
    std::lock_guard lock(m_mutex);
    for (const Entry& e : m_entries)
      if (e.key == key) return e.map;
    Entry e{key, encode(key)};
    if (m_entries.size() >= MAX_ENTRIES) m_entries.erase(m_entries.begin());
    m_entries.push_back(e);
    return e.map;
  }

 private:
  struct Entry {
    MapKey key;
    CUtensorMap map;
  };
  static constexpr size_t MAX_ENTRIES = 64;

  static CUtensorMap encode(const MapKey& key) {
    EncodeTiledFn fn = encode_tiled();
    if (!fn)
      throw GpuError(
          "Hopper GEMM: the CUDA driver does not provide cuTensorMapEncodeTiled (TMA tensor maps): "
          "update the NVIDIA driver",
          0, false);
    CUtensorMap map;
    const cuuint64_t dims[2] = {static_cast<cuuint64_t>(key.cols), static_cast<cuuint64_t>(key.rows)};
    const cuuint64_t strides[1] = {static_cast<cuuint64_t>(key.ld * key.elem_bytes)};  // bytes between rows
    const cuuint32_t box[2] = {static_cast<cuuint32_t>(SWIZZLE_BYTES / key.elem_bytes),
                               static_cast<cuuint32_t>(key.box_rows)};
    const cuuint32_t elem_strides[2] = {1, 1};
    const CUresult r =
        fn(&map, key.elem_bytes == 4 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2,
           const_cast<void*>(key.ptr), dims, strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
           CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
      throw GpuError("Hopper GEMM: cuTensorMapEncodeTiled failed (CUresult " +
                         std::to_string(static_cast<int>(r)) + ") for a " + std::to_string(key.rows) + " x " +
                         std::to_string(key.cols) + (key.elem_bytes == 4 ? " float32" : " bf16") +
                         " matrix with leading dimension " + std::to_string(key.ld),
                     static_cast<int>(r), false);
    return map;
  }

  std::mutex m_mutex;
  std::vector<Entry> m_entries;
};

TensorMapCache& map_cache() {
  static TensorMapCache cache;
  return cache;
}
#endif

constexpr StepInfo STEPS[] = {
    {Step::TmaWgmma, "wgmma_tma", "TMA + wgmma (BF16, 128x128 tile, 1 warpgroup)",
     "Tensor cores, Hopper style. TMA copies whole boxes from global to shared memory, one instruction "
     "each (A's 128x64 tile in one box, B's 64x128 tile as two 64x64 boxes of 128-byte rows), "
     "128B-swizzled so that the tensor cores read them without bank conflicts, and signals an "
     "mbarrier when the bytes have landed; four stages stay in flight. wgmma.mma_async then multiplies "
     "64x128x16 "
     "blocks straight from shared memory (no register staging as with mma.sync): one warpgroup of 128 "
     "threads "
     "owns a 128x128 tile. It still waits for its own wgmma before the next loads are issued, so the tensor "
     "cores "
     "idle in between."},
    {Step::WarpSpecialized, "warp_specialized", "Warp specialization (producer + 2 consumers, 128x256 tile)",
     "Producer/consumer warpgroups. One warpgroup only issues TMA loads and hands most of its registers to "
     "the "
     "others (setmaxnreg); two consumer warpgroups only run wgmma, each on 64 rows of a 128x256 tile with "
     "128 "
     "accumulator registers per thread. A ring of four stages with 'full' and 'empty' mbarriers lets "
     "loading, "
     "multiplying and releasing overlap, and each consumer keeps one batch of wgmma in flight while it frees "
     "the "
     "stage before. The wider tile halves the shared-memory reads per flop. The second consumer starts two "
     "k-tiles after the first, so at a tile's end one consumer writes its rows out while the other still "
     "multiplies."},
    {Step::Persistent, "ws_persistent", "Persistent blocks (one per SM walking its tiles)",
     "The same producer and consumers, but launched at most once per SM: each block walks a list of tiles "
     "(grouped by 16 tiles of M so that blocks running together share A rows and B columns in L2), and only "
     "as many blocks start as the rounds of tiles need, so each gets the same number (at 4096^3, 128 blocks "
     "of 4 tiles: the 4 idle SMs let the others clock higher under the power limit). The ring of stages "
     "carries "
     "over from tile to tile, so the producer already loads the next tile while the consumers write this one "
     "out, and launch, barrier set-up and the empty pipeline at a tile's start are paid once per SM instead "
     "of "
     "once per tile. It helps most where blocks are short, e.g. k = 1024."},
    {Step::TmaStore, "ws_tma_store", "Epilogue through shared memory and TMA stores",
     "The consumers no longer write C from registers (each store instruction touching 8 rows, and every SM "
     "writing its tile at the same moment while its tensor cores idle). Each consumer warpgroup copies its "
     "results 64x32 at a time into a swizzled shared-memory buffer and one thread hands the buffer to TMA, "
     "which "
     "writes whole rows to global memory and clips the edges; two buffers alternate and the warpgroup goes "
     "on to "
     "the next tile's wgmma while the stores drain. Needs n a multiple of 4 (TMA's 16-byte row rule); other "
     "widths run the previous rung."},
    {Step::SplitK, "wgmma_splitk", "Split-K for few tiles (wgmma_tma's kernel over slices of K)",
     "Where C has fewer 128x128 tiles than half the SMs (one tile for 128x128x16384, 32 for a matrix-vector "
     "product), the tiled rungs leave most SMs idle while one block walks all of K. This rung splits K into "
     "slices (at least two 64-deep k-tiles each, about one block per SM in all): each block runs wgmma_tma's "
     "kernel on its slice and writes a partial tile to a workspace, and a second kernel adds the slices in "
     "order (deterministic). Shapes with enough tiles run unsplit, as wgmma_tma."},
};

constexpr StepInfo TF32_STEPS[] = {
    {Step::Tf32, "wgmma_tf32", "TF32 on wgmma (transposed product, B through registers)",
     "The warp-specialized persistent kernel in TF32 (float32 storage, 10-bit mantissa, half BF16's "
     "tensor-core rate). wgmma reads TF32 from shared memory only K-major, and B is N-major, so the kernel "
     "computes C^T = B^T A^T: A's tile (K-major as TMA brings it) is wgmma's shared-memory operand and B "
     "becomes the register operand, each thread loading its fragment with 8-byte loads from the swizzled "
     "tile (the load is the transpose) and rounding it to TF32 on the way (cvt.rna). A goes to the tensor "
     "core "
     "as the caller gave it, which uses its TF32 bits (the low 13 mantissa bits dropped): nothing is "
     "converted "
     "or copied before the kernel. 128 x 256 tiles, four 48 KiB stages."},
    {Step::Tf32x3, "wgmma_tf32x3", "3xTF32 on wgmma (FP32 accuracy)",
     "FP32 accuracy on TF32 tensor cores: a pass splits A into TF32 hi and lo matrices (its time is part of "
     "the rung's), the kernel splits B in registers, and each k8 step runs three wgmma: A_hi B_hi + A_hi "
     "B_lo + A_lo B_hi (A_lo B_lo, about 2^-22 of the product, is left out). The tensor core's accumulation "
     "truncates, so each 32-deep k-tile is summed from zero in a second accumulator and added to the total "
     "on "
     "the CUDA cores; 128 x 128 tiles."},
};

// The verdict of unavailable_reason per device, cached: gemm_bf16 checks it on every call and must stay
// cheap.
constexpr int MAX_DEVICES = 64;
std::array<std::atomic<int>, MAX_DEVICES> g_device_ok{};  // 0 unknown, 1 usable, 2 not usable

std::string size_text(int64_t m, int64_t n, int64_t k) {
  return "m=" + std::to_string(m) + ", n=" + std::to_string(n) + ", k=" + std::to_string(k);
}

bool is_bf16(Step s) {
  return s == Step::TmaWgmma || s == Step::WarpSpecialized || s == Step::Persistent || s == Step::TmaStore ||
         s == Step::SplitK;
}

// The rules every entry point shares. `fn` names it in the messages; `ld_multiple` is 16 bytes in elements
// (8 bf16, 4 float); the tile of `tile_m` x `tile_n` bounds the count of tiles (int in the kernels).
void validate(const char* fn, int64_t ld_multiple, const void* a, int64_t lda, const void* b, int64_t ldb,
              const float* c, int64_t m, int64_t n, int64_t k, int64_t tile_m, int64_t tile_n) {
  const std::string f = std::string(fn) + ": ";
  if (m < 1 || n < 1 || k < 1)
    throw InvalidRequest(f + "m, n and k must all be at least 1 (got " + size_text(m, n, k) + ")");
  constexpr int64_t LIMIT = int64_t{1} << 30;  // int32 tile coordinates with room for a tile past the end
  if (m > LIMIT || n > LIMIT || k > LIMIT)
    throw InvalidRequest(f + "m, n and k must each be at most 2^30 (got " + size_text(m, n, k) + ")");
  const std::string rule = ") and a multiple of " + std::to_string(ld_multiple) +
                           " elements (16 bytes, TMA's rule for row strides)";
  if (lda % ld_multiple != 0 || lda < k)
    throw InvalidRequest(f + "lda (" + std::to_string(lda) + ") must be at least k (" + std::to_string(k) +
                         rule);
  if (ldb % ld_multiple != 0 || ldb < n)
    throw InvalidRequest(f + "ldb (" + std::to_string(ldb) + ") must be at least n (" + std::to_string(n) +
                         rule);
  if (!a || !b || !c) throw InvalidRequest(f + "a, b and c must be device pointers, not null");
  if (reinterpret_cast<uintptr_t>(a) % 16 != 0 || reinterpret_cast<uintptr_t>(b) % 16 != 0)
    throw InvalidRequest(f + "a and b must be 16-byte aligned (TMA's rule for global addresses)");
  if (reinterpret_cast<uintptr_t>(c) % 8 != 0)
    throw InvalidRequest(f + "c must be 8-byte aligned (the epilogue stores float pairs)");
  const int64_t tiles = ((m + tile_m - 1) / tile_m) * ((n + tile_n - 1) / tile_n);
  if (tiles > int64_t{0x7FFFFFFF})
    throw InvalidRequest(f + size_text(m, n, k) + " needs more than 2^31 - 1 tiles");
}

// Throws the reason when the current device cannot run the kernels (cached per device: every call checks).
void require_hopper(const char* fn) {
  int device = -1;
  if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) {
    cudaGetLastError();
    const auto why = unavailable_reason(0);
    throw GpuError(std::string(fn) + ": " +
                       why.value_or(std::string("no current CUDA device: ") + cudaGetErrorString(e)),
                   static_cast<int>(e), false);
  }
  std::atomic<int>* verdict = device < MAX_DEVICES ? &g_device_ok[device] : nullptr;
  if (!verdict || verdict->load(std::memory_order_relaxed) != 1) {
    if (const auto why = unavailable_reason(device)) {
      if (verdict) verdict->store(2, std::memory_order_relaxed);
      throw GpuError(std::string(fn) + ": " + *why, 0, false);
    }
    if (verdict) verdict->store(1, std::memory_order_relaxed);
  }
}

int sm_count() {
  int device = 0, sms = 0;
  BS_CUDA_CHECK(cudaGetDevice(&device));
  BS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

// Split-K's slices for an m x n x k problem: 1 where C has at least half as many 128 x 128 tiles as the GPU
// has SMs, or K is under four k-tiles; else enough slices for about one block per SM, each at least two
// k-tiles.
int splitk_slices(int64_t m, int64_t n, int64_t k) {
  const int64_t tiles = ((m + BM - 1) / BM) * ((n + TMA_WGMMA_BN - 1) / TMA_WGMMA_BN);
  const int64_t ktiles = (k + BK - 1) / BK, sms = sm_count();
  if (2 * tiles >= sms || ktiles < 4) return 1;
  const int64_t want = std::min<int64_t>(ktiles / 2, (sms + tiles - 1) / tiles);
  const int64_t per = (ktiles + want - 1) / want;
  return static_cast<int>((ktiles + per - 1) / per);
}

#if BS_HOPPER_KERNELS
using KernelFn = void (*)(CUtensorMap, CUtensorMap, CUtensorMap, float*, int, int, int);

// Launches `kernel` on tiles of BM x bn: one block per tile, or at most one per SM when `persistent`.
void launch(KernelFn kernel, int bn, int smem, int threads, bool persistent, bool tma_store, const void* a,
            int64_t lda, const void* b, int64_t ldb, float* c, int64_t m, int64_t n, int64_t k,
            cudaStream_t st, int slices = 1) {
  const CUtensorMap ta = map_cache().get({a, m, k, lda, BM, 2});
  const CUtensorMap tb = map_cache().get({b, k, n, ldb, BK, 2});
  CUtensorMap tc{};  // only the TMA-store epilogue reads it
  if (tma_store) tc = map_cache().get({c, m, n, n, 64, 4});
  BS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int64_t blocks = ((m + BM - 1) / BM) * ((n + bn - 1) / bn);
  if (persistent) blocks = persistent_blocks(blocks, sm_count());
  const dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>(slices));
  kernel<<<grid, threads, smem, st>>>(ta, tb, tc, c, static_cast<int>(m), static_cast<int>(n),
                                      static_cast<int>(k));
  BS_CUDA_CHECK_LAUNCH();
}

// The TF32 kernel (a_lo == nullptr) or 3xTF32 on A's hi and lo parts, one block per SM at most.
void launch_tf32(const float* a, const float* a_lo, int64_t lda, const float* b, int64_t ldb, float* c,
                 int64_t m, int64_t n, int64_t k, cudaStream_t st) {
  const bool x3 = a_lo != nullptr;
  const int bm = x3 ? tf_bm<true>() : tf_bm<false>();
  const CUtensorMap ta = map_cache().get({a, m, k, lda, bm, 4});
  const CUtensorMap ta_lo = x3 ? map_cache().get({a_lo, m, k, lda, bm, 4}) : ta;
  const CUtensorMap tb = map_cache().get({b, k, n, ldb, TF_BK, 4});
  const auto kernel = x3 ? tf32_kernel<true> : tf32_kernel<false>;
  const int smem = x3 ? tf_smem_bytes<true>() : tf_smem_bytes<false>();
  BS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  const int64_t tiles = ((m + bm - 1) / bm) * ((n + TF_BN - 1) / TF_BN);
  const auto blocks = static_cast<unsigned>(persistent_blocks(tiles, sm_count()));
  kernel<<<blocks, WS_THREADS, smem, st>>>(ta, ta_lo, tb, c, static_cast<int>(m), static_cast<int>(n),
                                           static_cast<int>(k));
  BS_CUDA_CHECK_LAUNCH();
}

void split_tf32(const float* a, float* hi, float* lo, int64_t count, cudaStream_t st) {
  split_tf32_kernel<<<static_cast<unsigned>(sm_count() * 4), 256, 0, st>>>(
      reinterpret_cast<const float4*>(a), reinterpret_cast<float4*>(hi), reinterpret_cast<float4*>(lo),
      count / 4);
  BS_CUDA_CHECK_LAUNCH();
}
#endif

}  // namespace

std::span<const StepInfo> steps() {
  return STEPS;
}

std::span<const StepInfo> tf32_steps() {
  return TF32_STEPS;
}

int64_t tf32x3_workspace_bytes(int64_t m, int64_t lda) {
  return 2 * m * lda * static_cast<int64_t>(sizeof(float));
}

void gemm_tf32(Step s, const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t m,
               int64_t n, int64_t k, void* workspace, void* stream) {
  if (s != Step::Tf32 && s != Step::Tf32x3)
    throw InvalidRequest("gemm_tf32: step " + std::to_string(static_cast<int>(s)) +
                         " is not a TF32 Hopper step (the BF16 steps run through gemm_bf16)");
  const bool x3 = s == Step::Tf32x3;
  validate("gemm_tf32", 4, a, lda, b, ldb, c, m, n, k, x3 ? tf_bm<true>() : tf_bm<false>(), TF_BN);
  if (x3 && (!workspace || reinterpret_cast<uintptr_t>(workspace) % 16 != 0))
    throw InvalidRequest(
        "gemm_tf32: 3xTF32 needs a 16-byte aligned device workspace of tf32x3_workspace_bytes(m, "
        "lda) = " +
        std::to_string(tf32x3_workspace_bytes(m, lda)) + " bytes for A's hi and lo parts");
  require_hopper("gemm_tf32");
#if BS_HOPPER_KERNELS
  const auto st = static_cast<cudaStream_t>(stream);
  if (x3) {
    float* hi = static_cast<float*>(workspace);
    float* lo = hi + m * lda;
    split_tf32(a, hi, lo, m * lda, st);
    launch_tf32(hi, lo, lda, b, ldb, c, m, n, k, st);
  } else {
    launch_tf32(a, nullptr, lda, b, ldb, c, m, n, k, st);
  }
#else
  (void)stream;
#endif
}

std::optional<std::string> unavailable_reason(int device) {
  if (!BS_HOPPER_KERNELS)
    return std::string(
        "this build of blockscope has no sm_90a code for the Hopper rungs (its CUDA compiler "
        "is older than 12.0)");
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();
    // query_device tells "no driver" from "driver too old" in words a user can act on.
    return "no usable CUDA device (" + query_device(0).reason +
           "); the Hopper rungs need a compute capability 9.0 GPU";
  }
  if (device < 0 || device >= count)
    return "CUDA device " + std::to_string(device) + " does not exist (this machine has " +
           std::to_string(count) + ")";
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
    const cudaError_t err = cudaGetLastError();
    return std::string("cannot query CUDA device ") + std::to_string(device) + ": " + cudaGetErrorString(err);
  }
  if (major != 9 || minor != 0)
    return "needs a Hopper GPU (compute capability 9.0, sm_90a code); this one is " + std::to_string(major) +
           "." + std::to_string(minor);
  if (!encode_tiled())
    return std::string(
        "the CUDA driver does not provide cuTensorMapEncodeTiled (TMA tensor maps): update the "
        "NVIDIA driver");
  return std::nullopt;
}

int64_t persistent_blocks(int64_t tiles, int64_t sms) {
  const int64_t rounds = (tiles + sms - 1) / sms;
  return rounds < 1 ? 1 : (tiles + rounds - 1) / rounds;
}

int64_t splitk_workspace_bytes(int64_t m, int64_t n, int64_t k) {
  const int slices = splitk_slices(m, n, k);
  return slices > 1 ? slices * m * n * static_cast<int64_t>(sizeof(float)) : 0;
}

void gemm_bf16(Step s, const void* a, int64_t lda, const void* b, int64_t ldb, float* c, int64_t m, int64_t n,
               int64_t k, void* stream, void* workspace) {
  if (!is_bf16(s))
    throw InvalidRequest("gemm_bf16: step " + std::to_string(static_cast<int>(s)) +
                         " is not a BF16 Hopper step (the TF32 steps run through gemm_tf32)");
  validate("gemm_bf16", 8, a, lda, b, ldb, c, m, n, k, BM, TMA_WGMMA_BN);
  require_hopper("gemm_bf16");
#if BS_HOPPER_KERNELS
  const auto st = static_cast<cudaStream_t>(stream);
  constexpr int WS_SMEM = smem_bytes<WS_BN, WS_STAGES>();
  // The same, plus 1 KiB after the barriers (the buffers are 1024-aligned) and the epilogue's buffers.
  constexpr int WS_TMA_SMEM = 1024 + WS_STAGES * stage_bytes<WS_BN>() + 1024 + EPI_BYTES;
  switch (s) {
    case Step::TmaWgmma:
      launch(tma_wgmma_kernel, TMA_WGMMA_BN, smem_bytes<TMA_WGMMA_BN, TMA_WGMMA_STAGES>(), 128, false, false,
             a, lda, b, ldb, c, m, n, k, st);
      break;
    case Step::SplitK: {
      const int slices = splitk_slices(m, n, k);
      float* out = c;
      if (slices > 1) {
        if (!workspace || reinterpret_cast<uintptr_t>(workspace) % 16 != 0)
          throw InvalidRequest("gemm_bf16: split-K over " + std::to_string(slices) + " slices at " +
                               size_text(m, n, k) +
                               " needs a 16-byte aligned device workspace of "
                               "splitk_workspace_bytes(m, n, k) = " +
                               std::to_string(splitk_workspace_bytes(m, n, k)) + " bytes");
        out = static_cast<float*>(workspace);
      }
      launch(tma_wgmma_kernel, TMA_WGMMA_BN, smem_bytes<TMA_WGMMA_BN, TMA_WGMMA_STAGES>(), 128, false, false,
             a, lda, b, ldb, out, m, n, k, st, slices);
      if (slices > 1) {
        const auto mn = static_cast<size_t>(m) * static_cast<size_t>(n);
        const auto blocks = static_cast<unsigned>(std::min<size_t>((mn + 255) / 256, size_t{8} * sm_count()));
        splitk_sum_kernel<<<blocks, 256, 0, st>>>(out, c, mn, slices);
        BS_CUDA_CHECK_LAUNCH();
      }
      break;
    }
    case Step::WarpSpecialized:
      launch(warp_specialized_kernel<false, false>, WS_BN, WS_SMEM, WS_THREADS, false, false, a, lda, b, ldb,
             c, m, n, k, st);
      break;
    case Step::Persistent:
      launch(warp_specialized_kernel<true, false>, WS_BN, WS_SMEM, WS_THREADS, true, false, a, lda, b, ldb, c,
             m, n, k, st);
      break;
    case Step::TmaStore:
      // TMA needs C's rows 16-byte aligned: other widths keep the register epilogue of the rung before.
      if (n % 4 == 0 && reinterpret_cast<uintptr_t>(c) % 16 == 0)
        launch(warp_specialized_kernel<true, true>, WS_BN, WS_TMA_SMEM, WS_THREADS, true, true, a, lda, b,
               ldb, c, m, n, k, st);
      else
        launch(warp_specialized_kernel<true, false>, WS_BN, WS_SMEM, WS_THREADS, true, false, a, lda, b, ldb,
               c, m, n, k, st);
      break;
    case Step::Tf32:
    case Step::Tf32x3:
      break;  // refused above (gemm_tf32's)
  }
#else
  (void)stream;
  (void)workspace;
#endif
}

}  // namespace bs::matmul::hopper

// The plain header the lab's pictures draw from (tc_geometry.h) must state this file's tile shape.
#include "gpu/matmul/tc_hopper_shape.h"
static_assert(bs::matmul::hopper::BM == bs::matmul::hopper::shape::k_tile_m,
              "tc_hopper_shape.h: k_tile_m != BM");
static_assert(bs::matmul::hopper::BK == bs::matmul::hopper::shape::k_tile_k,
              "tc_hopper_shape.h: k_tile_k != BK");
static_assert(bs::matmul::hopper::SWIZZLE_BYTES == bs::matmul::hopper::shape::k_swizzle_bytes,
              "tc_hopper_shape.h: k_swizzle_bytes != SWIZZLE_BYTES");
static_assert(bs::matmul::hopper::COLS_PER_CHUNK == bs::matmul::hopper::shape::k_cols_per_chunk,
              "tc_hopper_shape.h: k_cols_per_chunk != COLS_PER_CHUNK");
static_assert(bs::matmul::hopper::TMA_WGMMA_BN == bs::matmul::hopper::shape::k_tma_wgmma_bn,
              "tc_hopper_shape.h: k_tma_wgmma_bn != TMA_WGMMA_BN");
static_assert(bs::matmul::hopper::TMA_WGMMA_STAGES == bs::matmul::hopper::shape::k_tma_wgmma_stages,
              "tc_hopper_shape.h: k_tma_wgmma_stages != TMA_WGMMA_STAGES");
static_assert(bs::matmul::hopper::WS_BN == bs::matmul::hopper::shape::k_ws_bn,
              "tc_hopper_shape.h: k_ws_bn != WS_BN");
static_assert(bs::matmul::hopper::WS_STAGES == bs::matmul::hopper::shape::k_ws_stages,
              "tc_hopper_shape.h: k_ws_stages != WS_STAGES");
