// tc_layout.h: where data sits in the tensor-core rungs, as plain functions shared by the kernels
// (tc_kernels.cuh) and the lab's pictures (ui/matmul/tc_views.cpp): the XOR swizzle of the mma.sync rungs'
// shared-memory tiles, the bank a 16-byte chunk lands in, and which lane holds which element of an m16n8k16
// fragment (PTX ISA, "Matrix Fragments for mma.m16n8k16"). Plain C++ (BS_HD marks them for device code too).
#pragma once

#include "gpu/common/hd.h"

namespace bs::matmul::tc {

// A tile: 128 rows x 32 k of 16-bit values, 64 bytes (4 chunks of 16 bytes) a row; chunk c of row r is stored at
// chunk c ^ ((r / 2) % 4). B tile: 32 k-rows x 128 columns, 256 bytes (16 chunks) a row; chunk c of row r at
// c ^ (r % 8). Both return the chunk's index in the tile (16-byte units). `swizzled` false: the plain layout.
BS_HD int smem_chunk_a(int row, int chunk, bool swizzled = true) {
  return row * 4 + (swizzled ? chunk ^ ((row >> 1) & 3) : chunk);
}
BS_HD int smem_chunk_b(int row, int chunk, bool swizzled = true) {
  return row * 16 + (swizzled ? chunk ^ (row & 7) : chunk);
}
// The first of the 4 banks (4 bytes each, 32 banks) a 16-byte chunk at chunk index `c` covers.
BS_HD int chunk_first_bank(int c) {
  return (c * 4) % 32;
}

// How many ways one ldmatrix phase conflicts: 8 consecutive rows from `first_row` each read logical chunk `chunk`
// of the A tile (b_tile false) or the B tile; 8 chunks of 16 bytes cover the 32 banks once, so the answer is the
// most chunks that land on the same 16-byte bank group (1: conflict-free).
BS_HD int ldmatrix_phase_ways(bool b_tile, bool swizzled, int first_row, int chunk) {
  int count[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int ways = 0;
  for (int r = first_row; r < first_row + 8; ++r) {
    const int c = b_tile ? smem_chunk_b(r, chunk, swizzled) : smem_chunk_a(r, chunk, swizzled);
    const int n = ++count[c % 8];
    ways = n > ways ? n : ways;
  }
  return ways;
}

// Which lane of the warp holds element (row, col) of an m16n8k16 operand, and in which 32-bit register (each
// register holds two 16-bit values, `half` 0 or 1; C's registers hold one float each, half 0).
enum class Operand { A, B, C };  // A 16x16 (row x k), B 16x8 (k x col), C 16x8
struct FragSlot {
  int lane = 0;
  int reg = 0;
  int half = 0;
};
BS_HD FragSlot fragment_slot(Operand op, int row, int col) {
  FragSlot s;
  if (op == Operand::A) {  // a0: (g, 2t..2t+1), a1: (g+8, ..), a2: (g, 2t+8..), a3: (g+8, 2t+8..)
    s.lane = (row % 8) * 4 + (col % 8) / 2;
    s.reg = (row >= 8 ? 1 : 0) + (col >= 8 ? 2 : 0);
    s.half = col % 2;
  } else if (op == Operand::B) {  // b0: (k 2t..2t+1, n g), b1: (k 2t+8.., n g); here row = k, col = n
    s.lane = col * 4 + (row % 8) / 2;
    s.reg = row >= 8 ? 1 : 0;
    s.half = row % 2;
  } else {  // c0, c1: (g, 2t), (g, 2t+1); c2, c3: (g+8, 2t), (g+8, 2t+1)
    s.lane = (row % 8) * 4 + col / 2;
    s.reg = (row >= 8 ? 2 : 0) + col % 2;
  }
  return s;
}

}  // namespace bs::matmul::tc
