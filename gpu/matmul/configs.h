// configs.h: the tile shapes of the matmul kernels, in one place so that the kernels (matmul_kernels.cuh) and
// the geometry the UI draws (tile_geometry, launch_shape) can never disagree. Pure C++.
#pragma once

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
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int Stages, int MinBlocks>
struct AsyncTile : BlockTile<BM, BN, BK, WM, WN, TM, TN, true, true, MinBlocks> {
  static constexpr int stages = Stages;
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

}  // namespace bs::matmul::cfg
