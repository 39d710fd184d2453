// configs.h: the tile shapes of the matmul kernels, in one place so that the kernels (matmul_kernels.cuh) and
// the geometry the UI draws (tile_geometry, launch_shape) can never disagree. Pure C++.
#pragma once

#include <array>
#include <cstddef>

namespace bs::matmul::cfg {

// Naive kernels: one thread per output, 32x32 threads per block (the tutorials' choice).
constexpr int k_naive_block = 32;
constexpr int k_naive_threads = k_naive_block * k_naive_block;
// Shared-memory tiled kernels: T x T threads per block.
constexpr int tile_threads(int tile) {
  return tile * tile;
}

// 1D register blocking: 64x64 C tile, k-step 8, each of 512 threads computes 8 outputs down one column.
struct RegBlock1D {
  static constexpr int bm = 64, bn = 64, bk = 8, tm = 8;
  static constexpr int threads = (bm / tm) * bn;
};

// 2D block tiles: each thread computes a TM x TN micro-tile of C in registers, made of (TM/4) x (TN/4) pieces
// of 4x4. warp_layout = false: a thread's pieces are contiguous, thread t owning rows TM*(t / (BN/TN)) ...
// and columns TN*(t % (BN/TN)) ... (this costs 2-way shared-memory bank conflicts on reads of B). warp_layout
// = true: a warp owns a WM x WN sub-tile, its lanes form a (WM/TM) x (WN/TN) grid, and a thread's pieces are
// spaced WM/(TM/4) rows and WN/(TN/4) columns apart, which makes every float4 shared-memory read
// conflict-free. min_blocks: resident blocks per SM the compiler must allow (it caps registers at 65536 /
// (threads * min_blocks)).
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, bool WarpLayout, bool DoubleBuffer,
          int MinBlocks>
struct BlockTile {
  static constexpr int bm = BM, bn = BN, bk = BK, wm = WM, wn = WN, tm = TM, tn = TN;
  static constexpr bool warp_layout = WarpLayout, double_buffer = DoubleBuffer;
  static constexpr int threads = (BM / TM) * (BN / TN);
  static constexpr int min_blocks = MinBlocks;
  static constexpr int wm_or_1 = WarpLayout ? WM : 1, wn_or_1 = WarpLayout ? WN : 1;  // (no % 0 when unused)
  static_assert(!WarpLayout || (WM / TM) * (WN / TN) == 32, "a warp tile must hold exactly 32 threads");
  static_assert(BM % wm_or_1 == 0 && BN % wn_or_1 == 0, "warp tiles must tile the block tile");
  static_assert(TM % 4 == 0 && TN % 4 == 0, "micro-tiles are made of 4x4 pieces");
};

// clang-format off
//                                 BM   BN  BK  WM  WN  TM  TN  warp   double min_blocks
using RegBlock2D = BlockTile<      128, 128, 8,  0,  0,  8,  8, false, false, 2>;
using WarpTile = BlockTile<        128, 128, 8, 64, 32,  8,  8, true,  false, 2>;
using WarpTileDb = BlockTile<      128, 128, 8, 64, 32,  8,  8, true,  true,  2>;
using WarpTileDbK16 = BlockTile<   128, 128, 16, 64, 32, 8,  8, true,  true,  2>;
using WarpTileDb128x64 = BlockTile<128, 64,  8, 64, 32,  8,  8, true,  true,  4>;
// 4 warps of 64x64, 16x8 outputs per thread (128 accumulators): more math per shared-memory read, fewer warps.
using WarpTileDb16x8 = BlockTile<  128, 128, 8, 64, 64, 16,  8, true,  true,  2>;
// clang-format on

// cp.async pipeline (sm_80+): a BlockTile with warp layout whose global -> shared copies are asynchronous and
// run Stages k-tiles ahead in a ring of Stages shared-memory buffers, with no register staging.
// OffsetCopies (auto kernels, float4 flavour): full k-tiles address their copies as a base pointer plus a
// 32-bit unsigned offset, one address per row pass and k-tile (its k-groups as immediate offsets) instead of
// about five integer instructions per copy.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int Stages, int MinBlocks,
          bool OffsetCopies = false>
struct AsyncTile : BlockTile<BM, BN, BK, WM, WN, TM, TN, true, true, MinBlocks> {
  static constexpr int stages = Stages;
  static constexpr bool offset_copies = OffsetCopies;
  static_assert(Stages >= 2, "a pipeline needs at least two buffers");
  static_assert(BK % 8 == 0, "the A copy mapping covers k in runs of 8");
};

// clang-format off
//                             BM   BN  BK  WM  WN  TM  TN stages min_blocks
// 8 warps of 64x32, 8x8 per thread, 4 stages: 33280 B of shared memory, 2 blocks (16 warps) per SM.
using AsyncPipe = AsyncTile<   128, 128, 8, 64, 32,  8,  8, 4,     2>;
// 4 warps of 64x64, 16x8 per thread, 4 stages: as warptile_db_16x8 without the register staging.
using AsyncPipe16x8 = AsyncTile<128, 128, 8, 64, 64, 16,  8, 4,     2>;
// clang-format on

// The `auto` variant's kernels: the async_tile pipeline in dynamic shared memory (so that BK 16 and deeper
// pipelines fit past 48 KB), over a k-slice (split-k: blockIdx.z picks the slice). Each config is compiled in
// a float4 and a scalar flavour; the split count and the block-order swizzle are launch-time choices.
// clang-format off
//                             BM   BN  BK  WM  WN  TM  TN stages min_blocks
using Auto128x128k8 = AsyncTile< 128, 128, 8, 64, 32,  8,  8, 4,     2>;
using Auto128x128k16 = AsyncTile<128, 128, 16, 64, 32, 8,  8, 3,     2>;
using Auto128x128k16s4 = AsyncTile<128, 128, 16, 64, 32, 8, 8, 4,    2>;
using Auto128x256k8 = AsyncTile< 128, 256, 8, 64, 64,  8, 16, 3,     1>;
using Auto128x64k8 = AsyncTile<  128, 64,  8, 64, 32,  8,  8, 4,     4>;
using Auto64x64k16 = AsyncTile<  64,  64, 16, 32, 32,  8,  4, 4,     4>;
using Auto128x128k32 = AsyncTile<128, 128, 32, 64, 32, 8,  8, 3,     2>;
// 2 stages of k-step 32 (66560 B, 2 blocks/SM) with offset copies: on the H100 (2026-11-27) 92.6% of cuBLAS
// at 4096^3 where 128x128x16 gives 89.9%, and faster at 1024^3 to 8192^3. One k-tile of 32 is about 4 us of
// math per block, so a single tile in flight hides the copy of the next.
using Auto128x128k32s2 = AsyncTile<128, 128, 32, 64, 32, 8, 8, 2,    2, true>;
// clang-format on

// auto's kernels for matrix-vector shapes (gpu/matmul/skinny_kernels.cuh): when M or N is 1 to 8 a tile
// kernel computes mostly padding, and the problem is bound by reading its one big operand (B when M is small,
// A when N is small) once. 256 threads per block.
constexpr int k_skinny_threads = 256;
// Small M (skinny_m<MC>): a block covers all MC rows of C and 32 columns; its 8 warps walk 32 rows of B (k)
// per step, 4 per warp, a 128-byte segment of each.
constexpr int k_skinny_m_cols = 32, k_skinny_m_kstep = 32;
// Small N (skinny_n<NC, ROWS>): each of the 8 warps owns ROWS rows of A and walks the block's k-slice, 128 k
// per step (a float4 per lane); the block stages its slice of B (at most skinny_n_kmax(NC) rows, 32 KB) in
// shared memory.
constexpr int k_skinny_n_kstep = 128;
constexpr int skinny_n_rows(int nc) {
  return nc >= 8 ? 4 : 8;  // ROWS x NC accumulators: 32 at most at NC 8 (registers), else 8 rows
}
constexpr int skinny_n_kmax(int nc) {
  return 8192 / nc;
}

enum class AutoKind { Tile, SkinnyM, SkinnyN };

// What the host (heuristic, geometry, UI) knows of an auto config; built from the types above so the two
// never disagree.
struct AutoConfig {
  const char* name;
  int bm, bn, bk, wm, wn, tm, tn, threads, stages, min_blocks;
  AutoKind kind = AutoKind::Tile;
  int max_k_chunk = 0;  // longest k-slice the kernel takes (0: any)
  constexpr size_t smem_bytes() const {  // dynamic shared memory: A tile padded by 4 floats per k-row, as in
                                         // async_tile (the skinny kernels' is static)
    if (kind != AutoKind::Tile) return 0;
    return static_cast<size_t>(stages) * static_cast<size_t>(bk) * static_cast<size_t>(bm + 4 + bn) * 4;
  }
};
template <class C>
constexpr AutoConfig describe_auto(const char* name) {
  return {name, C::bm, C::bn, C::bk, C::wm, C::wn, C::tm, C::tn, C::threads, C::stages, C::min_blocks};
}
// skinny_m<MC>: C tile MC x 32, 4 columns x MC rows per thread before the reduction.
constexpr AutoConfig describe_skinny_m(const char* name, int mc) {
  return {name, mc, k_skinny_m_cols, k_skinny_m_kstep, 0, 0, mc, 4, k_skinny_threads, 0, 1, AutoKind::SkinnyM, 0};
}
// skinny_n<NC>: C tile (8 warps x ROWS) x NC, ROWS x NC per thread before the reduction; B's slice in shared
// memory (one stage).
constexpr AutoConfig describe_skinny_n(const char* name, int nc) {
  return {name, 8 * skinny_n_rows(nc), nc, k_skinny_n_kstep, 0, 0, skinny_n_rows(nc), nc, k_skinny_threads, 1, 1,
          AutoKind::SkinnyN, skinny_n_kmax(nc)};
}
// Index = the kernel's place in kernels::auto_kernel_for. The skinny configs come last, each for M (or N)
// from half its width + 1 to its width (skinny_m4: M = 3 or 4).
inline constexpr std::array<AutoConfig, 16> k_auto_configs{{
    describe_auto<Auto128x128k8>("128x128x8"),
    describe_auto<Auto128x128k16>("128x128x16"),
    describe_auto<Auto128x128k16s4>("128x128x16s4"),
    describe_auto<Auto128x256k8>("128x256x8"),
    describe_auto<Auto128x64k8>("128x64x8"),
    describe_auto<Auto64x64k16>("64x64x16"),
    describe_auto<Auto128x128k32>("128x128x32"),
    describe_auto<Auto128x128k32s2>("128x128x32s2"),
    describe_skinny_m("skinny_m1", 1),
    describe_skinny_m("skinny_m2", 2),
    describe_skinny_m("skinny_m4", 4),
    describe_skinny_m("skinny_m8", 8),
    describe_skinny_n("skinny_n1", 1),
    describe_skinny_n("skinny_n2", 2),
    describe_skinny_n("skinny_n4", 4),
    describe_skinny_n("skinny_n8", 8),
}};

}  // namespace bs::matmul::cfg
