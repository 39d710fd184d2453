// memory_kernels.cuh: the memory lab's kernels, device code only (no host code, no CUDA runtime calls), so
// that NVRTC compiles this very text for the simulator's tests (tests/sim/sim_builtin_test.cpp: each kernel
// in the PTX simulator against the CPU reference, and on a GPU bit for bit against the GPU). Every kernel
// computes its addresses with the functions of memory_index.h, the same ones the access model
// (memory_model.cpp) and the CPU references use. memory_gpu.cu launches them.
#pragma once

#include "gpu/memory/memory_index.h"

namespace bs::memory::kernels {

// --- Transpose ladder ----------------------------------------------------------------------------------

__global__ void naive_kernel(const float* __restrict__ in, float* __restrict__ out, int64_t rows,
                             int64_t cols) {
  const Cell e = naive_cell(blockIdx.x, blockIdx.y, threadIdx.x, threadIdx.y, blockDim.x, blockDim.y);
  if (inside(e, rows, cols)) out[out_index(e, rows)] = in[in_index(e, cols)];
}

// The copy walks the same 32 x 32 tiles with the same block as the multi-element transpose, so the two differ
// only in where the second access goes.
template <int DY>
__global__ void copy_kernel(const float* __restrict__ in, float* __restrict__ out, int64_t rows,
                            int64_t cols) {
#pragma unroll
  for (int j = 0; j < k_tile / DY; ++j) {
    const Cell e = tile_load_cell(blockIdx.x, blockIdx.y, threadIdx.x, threadIdx.y, j, DY);
    if (inside(e, rows, cols)) out[in_index(e, cols)] = in[in_index(e, cols)];
  }
}

// Through a shared tile: read rows of `in` (coalesced) into rows of the tile, then write rows of `out`
// (coalesced) from columns of the tile. PITCH 32: a column of the tile lies in one bank (32-way conflict);
// PITCH 33: the padding column spreads it over all 32 banks.
template <int DY, int PITCH>
__global__ void tiled_kernel(const float* __restrict__ in, float* __restrict__ out, int64_t rows,
                             int64_t cols) {
  __shared__ float tile[k_tile * PITCH];
#pragma unroll
  for (int j = 0; j < k_tile / DY; ++j) {
    const Cell e = tile_load_cell(blockIdx.x, blockIdx.y, threadIdx.x, threadIdx.y, j, DY);
    if (inside(e, rows, cols))
      tile[tile_load_word(threadIdx.x, threadIdx.y, j, DY, PITCH)] = in[in_index(e, cols)];
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < k_tile / DY; ++j) {
    const Cell e = tile_store_cell(blockIdx.x, blockIdx.y, threadIdx.x, threadIdx.y, j, DY);
    if (inside(e, rows, cols))
      out[out_index(e, rows)] = tile[tile_store_word(threadIdx.x, threadIdx.y, j, DY, PITCH)];
  }
}

// --- Strided read and random gather --------------------------------------------------------------------

__global__ void strided_kernel(const float* __restrict__ in, float* __restrict__ out, int64_t n, int s,
                               int64_t rows) {
  const int64_t row = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  const int64_t col = blockIdx.y;
  if (row >= rows) return;
  const int64_t i = strided_element(row, col, s);
  out[strided_out(row, col, rows)] = i < n ? in[i] : 0.0f;
}

__global__ void random_kernel(const float* __restrict__ in, float* __restrict__ out, int64_t n, int k,
                              uint64_t mask, uint32_t seed) {
  const int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (t >= n) return;
  out[t] = in[random_index(t, n, k, mask, seed)];
}

// --- Shared-memory banks -------------------------------------------------------------------------------

// One kernel for both layouts (padded is an argument, not a template parameter), so the plain and the padded
// runs execute the same instructions and differ only in the addresses.
__global__ void banks_kernel(const float* __restrict__ init, float* __restrict__ out, int64_t n, int s,
                             bool padded) {
  __shared__ float buf[k_max_bank_words];
  const int words = bank_words(s, padded);
  for (int i = threadIdx.x; i < words; i += blockDim.x)
    buf[i] = init[i];
  __syncthreads();
  // volatile: every iteration is a shared-memory load (the compiler may not keep the word in a register).
  const volatile float* word = buf + bank_word(threadIdx.x % k_warp, s, padded);
  float acc = 0.0f;
#pragma unroll 16
  for (int it = 0; it < k_bank_iterations; ++it)
    acc += *word;
  const int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (t < n) out[t] = acc;
}

// --- Particles -----------------------------------------------------------------------------------------

template <bool SOA>
__global__ void particles_kernel(const float* __restrict__ in, float* __restrict__ out, int64_t n) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  float r[k_fields_read], w[k_fields_written];
#pragma unroll
  for (int f = 0; f < k_fields_read; ++f)
    r[f] = in[SOA ? soa_index(i, f, n) : aos_index(i, f)];
  particle_step(r, w);
#pragma unroll
  for (int f = 0; f < k_fields_written; ++f)
    out[SOA ? soa_index(i, f, n) : aos_index(i, f)] = w[f];
}

}  // namespace bs::memory::kernels
