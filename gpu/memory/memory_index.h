// memory_index.h: the index expressions of every memory-lab kernel, as BS_HD functions (gpu/common/hd.h) that
// the kernels (memory_gpu.cu), the CPU references (memory_cpu.cpp) and the access model (memory_model.h: the
// lane -> address -> sector / bank pictures and the predicted counts) all call. A picture or a predicted
// count therefore describes the very addresses the kernel touches. Plain C++ (g++ compiles it; nvcc adds
// __host__ __device__).
//
// Conventions: indices are in elements (floats, 4 bytes) from the start of their buffer; a thread is named by
// its block index (bx, by), its thread index (tx, ty) and the block's shape (dx, dy), as in CUDA.
#pragma once

#include <cstdint>

#include "gpu/common/hd.h"

namespace bs::memory {

constexpr int k_warp = 32;          // lanes of a warp
constexpr int k_banks = 32;         // shared-memory banks, 4 bytes wide
constexpr int k_sector_bytes = 32;  // the unit a global access moves between L1/L2/DRAM
constexpr int k_line_bytes = 128;   // a cache line: 4 sectors
constexpr int k_tile = 32;          // transpose tile: 32 x 32 floats

// --- Transpose
// -----------------------------------------------------------------------------------------------------
// `in` is rows x cols, row-major: element (r, c) at r * cols + c. `out` is cols x rows, row-major: element
// (r, c) of `in` lands at c * rows + r.
struct Cell {
  int64_t r = 0;
  int64_t c = 0;
};
BS_HD int64_t in_index(Cell e, int64_t cols) {
  return e.r * cols + e.c;
}
BS_HD int64_t out_index(Cell e, int64_t rows) {  // e is a cell of `in`
  return e.c * rows + e.r;
}
BS_HD bool inside(Cell e, int64_t rows, int64_t cols) {
  return e.r < rows && e.c < cols;
}

// Naive: one element per thread, block dx x dy anywhere. Thread x walks the columns, so the read
// in[r * cols + c] is coalesced and the write out[c * rows + r] strides by `rows` floats from lane to lane.
BS_HD Cell naive_cell(int64_t bx, int64_t by, int tx, int ty, int dx, int dy) {
  return {by * dy + ty, bx * dx + tx};
}

// Tiled kernels (and the copy, which walks the same tiles): block (32, dy) with dy dividing 32; the block
// (bx, by) owns the 32 x 32 tile of `in` at rows by*32.., columns bx*32..; a thread handles
// k_tile / dy elements, j = 0 .. k_tile/dy - 1, one row of dy apart each.
BS_HD int tile_steps(int dy) {
  return k_tile / dy;
}
// Load phase, step j: the cell of `in` read (coalesced: lanes are consecutive columns) ...
BS_HD Cell tile_load_cell(int64_t bx, int64_t by, int tx, int ty, int j, int dy) {
  return {by * k_tile + ty + static_cast<int64_t>(j) * dy, bx * k_tile + tx};
}
// ... and the tile word it is stored to: row ty + j*dy, column tx. pitch = 32 (plain) or 33 (padded).
BS_HD int tile_load_word(int tx, int ty, int j, int dy, int pitch) {
  return (ty + j * dy) * pitch + tx;
}
// Store phase, step j: the tile word read (row tx, column ty + j*dy: a column of the tile, the bank
// conflict when pitch = 32) ...
BS_HD int tile_store_word(int tx, int ty, int j, int dy, int pitch) {
  return tx * pitch + ty + j * dy;
}
// ... and the cell of `in` whose transposed place it writes: out[out_index(cell, rows)] is coalesced
// (lanes are consecutive rows of `in`, i.e. consecutive columns of `out`).
BS_HD Cell tile_store_cell(int64_t bx, int64_t by, int tx, int ty, int j, int dy) {
  return {by * k_tile + tx, bx * k_tile + ty + static_cast<int64_t>(j) * dy};
}
BS_HD int tile_pitch(bool padded) {
  return padded ? k_tile + 1 : k_tile;
}

// --- Strided read
// --------------------------------------------------------------------------------------------------
// Every element of in[0, n) is read exactly once, but lane to lane the reads are `s` floats apart: the array
// is viewed as rows = ceil(n / s) rows of s floats, and column `col` of that view is walked by the threads of
// grid row blockIdx.y = col, row = blockIdx.x * blockDim.x + threadIdx.x (a 2-D grid: no division in the
// kernel). The value goes to out[col * rows + row], a coalesced write (out holds rows * s floats; where
// row * s + col >= n, at most s - 1 places, the kernel writes 0).
BS_HD int64_t stride_rows(int64_t n, int64_t s) {
  return n / s + (n % s != 0 ? 1 : 0);
}
BS_HD int64_t stride_outputs(int64_t n, int64_t s) {
  return stride_rows(n, s) * s;
}
BS_HD int64_t strided_element(int64_t row, int64_t col, int64_t s) {  // the element of `in` read
  return row * s + col;
}
BS_HD int64_t strided_out(int64_t row, int64_t col, int64_t rows) {  // the element of `out` written
  return col * rows + row;
}

// Random gather: thread t (0 <= t < n) reads in[random_index(t, n, seed)], a permutation of [0, n) (so every
// element is read once, as in the strided read), and writes out[t]. The permutation is a bijective mix of
// the k bits of the smallest power of two >= n (xor-shifts, multiplications by odd constants mod 2^k and an
// added seed are each bijective), walked until it lands inside [0, n) ("cycle walking": on average < 2
// rounds, and it always ends because t's own cycle returns to [0, n)).
BS_HD int random_bits(int64_t n) {
  int k = 0;
  while ((int64_t{1} << k) < n)
    ++k;
  return k;
}
BS_HD uint64_t random_mix(uint64_t x, int k, uint64_t mask, uint32_t seed) {
  const int h = k / 2 + 1;
  x = (x + seed * uint64_t{0x9E3779B9u}) & mask;
  x ^= x >> h;
  x = (x * uint64_t{0x2C1B3C6Du}) & mask;  // odd multipliers: bijective mod 2^k
  x ^= x >> h;
  x = (x * uint64_t{0x297A2D39u}) & mask;
  x ^= x >> h;
  return x;
}
// The inverse of random_mix: each step undone in reverse order (x ^= x >> h is its own inverse because
// 2h > k; a multiplication by the inverse of the odd constant mod 2^64, masked).
BS_HD uint64_t
inverse_odd(uint64_t a) {  // a * inverse_odd(a) = 1 mod 2^64 (Newton: each step doubles the bits)
  uint64_t x = a;          // correct to 3 bits for odd a
  for (int i = 0; i < 5; ++i)
    x *= 2 - a * x;
  return x;
}
BS_HD uint64_t random_unmix(uint64_t x, int k, uint64_t mask, uint32_t seed) {
  const int h = k / 2 + 1;
  x ^= x >> h;
  x = (x * inverse_odd(uint64_t{0x297A2D39u})) & mask;
  x ^= x >> h;
  x = (x * inverse_odd(uint64_t{0x2C1B3C6Du})) & mask;
  x ^= x >> h;
  x = (x - seed * uint64_t{0x9E3779B9u}) & mask;
  return x;
}
// k = random_bits(n) and mask = 2^k - 1 are computed once per launch (kernel argument).
BS_HD int64_t random_index(int64_t t, int64_t n, int k, uint64_t mask, uint32_t seed) {
  uint64_t x = static_cast<uint64_t>(t);
  do {
    x = random_mix(x, k, mask, seed);
  } while (x >= static_cast<uint64_t>(n));
  return static_cast<int64_t>(x);
}
BS_HD int64_t random_index(int64_t t, int64_t n, uint32_t seed) {
  const int k = random_bits(n);
  return random_index(t, n, k, (uint64_t{1} << k) - 1, seed);
}
// The thread that reads element e (0 <= e < n): the walk run backwards, random_thread(random_index(t)) = t.
BS_HD int64_t random_thread(int64_t e, int64_t n, uint32_t seed) {
  const int k = random_bits(n);
  const uint64_t mask = (uint64_t{1} << k) - 1;
  uint64_t x = static_cast<uint64_t>(e);
  do {
    x = random_unmix(x, k, mask, seed);
  } while (x >= static_cast<uint64_t>(n));
  return static_cast<int64_t>(x);
}

// --- Shared-memory banks
// -------------------------------------------------------------------------------------------
// Each block fills a small shared array (bank_words(s, padded) floats) from global memory, then every lane
// loads its word k_bank_iterations times (a volatile load: each one a real shared-memory access) and sums
// them. Lane `lane` reads the logical word lane * s, so the 32 lanes of a warp are s words apart, and
// gcd(s, 32) of them share each bank they touch: a gcd(s, 32)-way conflict (2-way for s = 2, 32-way for
// s = 32, none for odd s). Logical word w sits at physical word w (plain) or w + w / 32 (padded: one spare
// word after every 32, i.e. rows of 33 words), which spreads any power-of-two stride over all banks; it is no
// universal fix (stride 31 padded puts lanes 1..31 at words 32 * lane - 1, all in bank 31: the model counts
// it). The plain and the padded kernel run the same instructions: only the address differs.
constexpr int k_bank_iterations = 256;
constexpr int k_max_bank_stride = 32;
constexpr int k_max_bank_words = k_max_bank_stride * (k_banks + 1);
BS_HD int bank_physical_word(int w, bool padded) {
  return padded ? w + w / k_banks : w;
}
BS_HD int bank_word(int lane, int s, bool padded) {  // the word lane `lane` loads at every iteration
  return bank_physical_word(lane * s, padded);
}
BS_HD int bank_words(int s, bool padded) {  // the shared array's length in floats
  return padded ? s * (k_banks + 1) : s * k_banks;
}
BS_HD int bank_of_word(int64_t word) {
  return static_cast<int>(word % k_banks);
}

// --- Particles: array of structures vs structure of arrays
// -----------------------------------------------------------------
// One step of a particle on a spring towards the origin: a = -x / mass, v += a dt, x += v dt. The AoS
// layout keeps all 8 fields of a particle together (32 bytes, `charge` unused by the step), so lane to lane
// a field is 32 bytes apart; the SoA layout keeps each field in its own array (lanes 4 bytes apart).
// Out of place: `in` stays the same between repetitions and the step reads 7 fields and writes 6.
constexpr int k_particle_fields = 8;  // x y z vx vy vz mass charge
enum Field : int { FX = 0, FY, FZ, FVX, FVY, FVZ, FMASS, FCHARGE };
constexpr int k_fields_read = 7;     // x y z vx vy vz mass, in this order
constexpr int k_fields_written = 6;  // x y z vx vy vz, in this order
constexpr float k_particle_dt = 0.01f;
struct Particle {
  float x, y, z, vx, vy, vz, mass, charge;
};
static_assert(sizeof(Particle) == k_particle_fields * 4, "a particle is 8 floats, 32 bytes");
// Index (in floats) of field f of particle i: AoS buffer (one array of n particles) or SoA buffer (8 arrays
// of n floats, field f at f * n).
BS_HD int64_t aos_index(int64_t i, int f) {
  return i * k_particle_fields + f;
}
BS_HD int64_t soa_index(int64_t i, int f, int64_t n) {
  return static_cast<int64_t>(f) * n + i;
}
// The step on the 7 values read (x y z vx vy vz mass); writes the 6 new ones (x y z vx vy vz).
BS_HD void particle_step(const float* r, float* w) {
  const float inv_m = 1.0f / r[6];
  for (int d = 0; d < 3; ++d) {
    const float v = r[3 + d] - r[d] * inv_m * k_particle_dt;
    w[3 + d] = v;
    w[d] = r[d] + v * k_particle_dt;
  }
}

}  // namespace bs::memory
