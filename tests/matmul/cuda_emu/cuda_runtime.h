// cuda_emu/cuda_runtime.h: just enough of CUDA to compile gpu/matmul/matmul_kernels.cuh with g++ and run the
// kernels on the CPU (matmul_emu_test.cpp). Blocks run one after another; the threads of a block are
// std::threads, __shared__ becomes `static` (one copy, shared by the block's threads), __syncthreads a
// std::barrier. This checks indexing, edge guards and barrier placement on machines without a GPU; it says
// nothing about speed, warps or the GPU memory model.
#pragma once

#include <barrier>
#include <cmath>
#include <cstddef>

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
};
struct alignas(16) float4 {
  float x, y, z, w;
};
inline float4 make_float4(float a, float b, float c, float d) {
  return {a, b, c, d};
}

inline thread_local dim3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;
inline std::barrier<>* bs_emu_barrier = nullptr;
inline void __syncthreads() {
  bs_emu_barrier->arrive_and_wait();
}
template <class T>
inline T __ldg(const T* p) {
  return *p;
}

// Internal linkage: the library defines host stubs of the same names for the real kernels.
#define __global__ static inline
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
#define __restrict__
