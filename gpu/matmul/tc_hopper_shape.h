// tc_hopper_shape.h: the tile shape of the Hopper rungs (tc_hopper.cu), as plain constants: what the lab's TMA
// and pipeline pictures (tc_geometry.h) draw. tc_hopper.cu keeps its own names for the kernels and checks at its
// end, with static_assert, that they equal these, so a change to the kernels that is not made here fails to build.
// Plain C++ (no CUDA).
#pragma once

namespace bs::matmul::hopper::shape {

inline constexpr int k_tile_m = 128;       // BM: rows of A per CTA tile and per TMA box
inline constexpr int k_tile_k = 64;        // BK: 64 bf16 = one 128-byte swizzled row
inline constexpr int k_swizzle_bytes = 128;  // TMA's widest swizzle: a box row
inline constexpr int k_cols_per_chunk = k_swizzle_bytes / 2;  // bf16 columns of B per box
inline constexpr int k_tma_wgmma_bn = 128;   // wgmma_tma: one warpgroup, 128 x 128 tiles
inline constexpr int k_tma_wgmma_stages = 4;
inline constexpr int k_ws_bn = 256;          // the warp-specialized rungs: 128 x 256 tiles
inline constexpr int k_ws_stages = 4;

}  // namespace bs::matmul::hopper::shape
