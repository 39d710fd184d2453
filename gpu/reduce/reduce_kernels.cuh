// reduce_kernels.cuh: the reduction lab's kernel bodies (device code; include from .cu files only): those of
// reduce_bodies.cuh (built-ins only, which NVRTC compiles for the simulator's tests) and here the ones that need
// more (the fill kernel, the decoupled look-back scan with cuda::atomic_ref). Each kernel of gpu/reduce is a
// thin __global__ wrapper around one of these bodies (reduce_gpu.cu), so that gpu/anatomy's instrumented copies
// run the very same code between their per-block probes. Bodies must be reached by every thread of the block
// (none returns before another's __syncthreads), as the kernels are.
#pragma once

#include <cub/cub.cuh>
#include <cuda/atomic>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "gpu/reduce/reduce.h"
#include "gpu/reduce/reduce_bodies.cuh"
#include "gpu/reduce/reduce_inputs.h"

namespace bs::reduce::kernels {

template <class T>
__device__ __forceinline__ T input_at(int64_t i) {
  if constexpr (std::is_same_v<T, float>)
    return detail::input_f32(i, 1);
  else
    return detail::input_i32(i, 1);
}

template <class T>
__global__ void fill_kernel(T* __restrict__ x, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    x[i] = input_at<T>(i);
}

inline size_t tile_smem_bytes(int block) {
  return static_cast<size_t>(tile_scan_smem_bytes(block));
}

// The decoupled look-back scan (Merrill & Garland, 2016). Tiles are taken in launch order from an atomic
// counter, so every tile's predecessors are running or done and waiting for them cannot deadlock. A tile
// publishes its own sum as soon as it has it (flag A), then warp 0 walks back over the predecessors 32 at a
// time, adding aggregates until it meets an inclusive prefix (flag P), and publishes its own inclusive
// prefix. Flag and value share one 64-bit word, so a single relaxed load sees a consistent pair.
constexpr unsigned long long k_flag_a = 1, k_flag_p = 2;

template <class T>
__device__ __forceinline__ unsigned long long pack(unsigned long long flag, T v) {
  uint32_t bits;
  memcpy(&bits, &v, 4);
  return (flag << 32) | bits;
}
template <class T>
__device__ __forceinline__ T unpack(unsigned long long s) {
  const uint32_t bits = static_cast<uint32_t>(s);
  T v;
  memcpy(&v, &bits, 4);
  return v;
}

template <class T>
__device__ __forceinline__ int64_t lookback_body(const T* __restrict__ in, T* __restrict__ out, int64_t n,
                                                 bool exclusive, bool transpose,
                                                 unsigned long long* __restrict__ state,
                                                 unsigned* __restrict__ counter) {
  __shared__ unsigned s_tile;
  __shared__ T s_prefix;
  if (threadIdx.x == 0) s_tile = atomicAdd(counter, 1u);
  __syncthreads();
  const int64_t tile = s_tile;
  const int64_t tbase = tile * blockDim.x * k_items;
  T x[k_items];
  load_tile(in, tbase, n, x, transpose);
  T total;
  const T local = block_exclusive_scan(thread_sum(x), total);
  if (threadIdx.x < 32) {
    const unsigned lane = threadIdx.x;
    if (lane == 0)
      cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(state[tile])
          .store(pack(tile == 0 ? k_flag_p : k_flag_a, total), cuda::memory_order_relaxed);
    T excl = T(0);
    if (tile > 0) {
      int64_t top = tile - 1;
      while (true) {
        const int64_t idx = top - lane;  // lane 0: the nearest predecessor
        unsigned long long s = pack(k_flag_p, T(0));
        if (idx >= 0) {
          cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> ref(state[idx]);
          do {
            s = ref.load(cuda::memory_order_relaxed);
          } while ((s >> 32) == 0);
        }
        const unsigned p_lanes = __ballot_sync(k_full, (s >> 32) == k_flag_p);
        const int first_p = p_lanes ? __ffs(static_cast<int>(p_lanes)) - 1 : 32;
        T v = static_cast<int>(lane) <= first_p ? unpack<T>(s) : T(0);
#pragma unroll
        for (int off = 16; off > 0; off /= 2)
          v += __shfl_xor_sync(k_full, v, off);
        excl += v;
        if (p_lanes) break;
        top -= 32;
      }
      if (lane == 0)
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(state[tile])
            .store(pack(k_flag_p, excl + total), cuda::memory_order_relaxed);
    }
    if (lane == 0) s_prefix = excl;
  }
  __syncthreads();
  scan_items(x, s_prefix + local, exclusive);
  store_tile(out, tbase, n, x, transpose);
  return tile;
}

}  // namespace bs::reduce::kernels
