// matmul_bodies.cuh: the bodies of the tutorials' matmul kernels (naive and shared-memory tiled) as device
// functions: matmul_kernels.cuh wraps them into the lab's kernels, and gpu/anatomy into instrumented copies
// (the same code between a probe's start and end), so the anatomy lab shows the very code the lab times.
#pragma once

#include <cuda_runtime.h>

namespace bs::matmul::kernels {

// One thread per output. RowsAlongX = the tutorials' index order: x (the fastest-varying thread index,
// consecutive lanes of a warp) picks the ROW, so a warp's 32 threads share a column, read 32 different rows
// of A (32 separate cache lines per k) and write 32 values N floats apart. Swapped (x picks the COLUMN), a
// warp reads one value of A (a broadcast) and 32 consecutive values of B per k, and writes 32 consecutive
// values of C: every access is coalesced. (A device function: gpu/anatomy instruments the same code.)
template <bool RowsAlongX>
__device__ __forceinline__ void naive_body(const float* __restrict__ a, const float* __restrict__ b,
                                           float* __restrict__ c, int m, int n, int k) {
  const int u = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = blockIdx.y * blockDim.y + threadIdx.y;
  const int row = RowsAlongX ? u : v, col = RowsAlongX ? v : u;
  if (row >= m || col >= n) return;
  float acc = 0.0f;
  for (int i = 0; i < k; ++i)
    acc += a[row * k + i] * b[i * n + col];
  c[row * n + col] = acc;
}

// The tutorials' tiled kernel: a T x T block stages T x T tiles of A and B in shared memory, one output per
// thread. Threads outside C still load (zeros past the edges) and reach every __syncthreads; only the store
// is guarded.
template <int T>
__device__ __forceinline__ void smem_tile_body(const float* __restrict__ a, const float* __restrict__ b,
                                               float* __restrict__ c, int m, int n, int k) {
  // 16-byte aligned so the compiler may read a thread's row of as[ty][...] four floats at a time.
  __shared__ __align__(16) float as[T][T];
  __shared__ __align__(16) float bs[T][T];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * T + ty;
  const int col = blockIdx.x * T + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += T) {
    as[ty][tx] = (row < m && k0 + tx < k) ? a[row * k + k0 + tx] : 0.0f;
    bs[ty][tx] = (k0 + ty < k && col < n) ? b[(k0 + ty) * n + col] : 0.0f;
    __syncthreads();  // the tiles are complete
#pragma unroll
    for (int i = 0; i < T; ++i)
      acc += as[ty][i] * bs[i][tx];
    __syncthreads();  // everyone is done reading before the next tiles overwrite them
  }
  if (row < m && col < n) c[row * n + col] = acc;
}

}  // namespace bs::matmul::kernels
