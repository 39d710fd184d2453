// cuda_emu/cuda_runtime.h: just enough of CUDA to compile gpu/matmul/matmul_kernels.cuh with g++ and run the
// kernels on the CPU (matmul_emu_test.cpp). Blocks run one after another; the threads of a block are
// std::threads, __shared__ becomes `static` (one copy, shared by the block's threads), __syncthreads a
// std::barrier. This checks indexing, edge guards and barrier placement on machines without a GPU; it says
// nothing about speed, warps or the GPU memory model (split-k's fold: the last block of a tile is the last
// z in launch order here, one arrival order of the many the GPU has).
#pragma once

#include <atomic>
#include <barrier>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <deque>
#include <vector>

// The kernels take their cp.async helpers from here (see matmul_kernels.cuh).
#define BS_CUDA_EMU 1

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
inline int min(int a, int b) {
  return a < b ? a : b;
}
inline int max(int a, int b) {
  return a > b ? a : b;
}
template <class T>
inline T __ldg(const T* p) {
  return *p;
}
template <class T>
inline T __ldcg(const T* p) {
  return *p;
}

// Blocks run one after another, so device-wide ordering is already sequential: a fence only has to order
// this host thread's own memory operations, and an atomic only has to be atomic among the block's threads.
inline void __threadfence() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
}
inline unsigned atomicAdd(unsigned* p, unsigned v) {
  return std::atomic_ref<unsigned>(*p).fetch_add(v);
}

// A warp shuffle (xor) for one-dimensional blocks of at most 1024 threads whose threads all take part in
// every shuffle, in the same order (the skinny kernels): each thread posts its value, the block meets at the
// barrier, each reads its partner's, and meets again before the slots are reused.
inline float bs_emu_shfl_slot[1024];
inline float __shfl_xor_sync(unsigned, float v, int lane_mask) {
  const unsigned t = threadIdx.x;
  bs_emu_shfl_slot[t] = v;
  __syncthreads();
  const float out = bs_emu_shfl_slot[t ^ static_cast<unsigned>(lane_mask)];
  __syncthreads();
  return out;
}

// cp.async as the hardware may behave at worst: a copy is only recorded when started, and lands when a wait
// lets it (wait N: all but this thread's N most recent committed groups). A kernel that reads a buffer before
// the right wait, or overwrites one still being read, sees stale data and fails the check. A null source
// means zero-fill.
struct BsEmuCopy {
  void* dst;
  const void* src;
  int bytes;
};
inline thread_local std::vector<BsEmuCopy> bs_emu_open_group;
inline thread_local std::deque<std::vector<BsEmuCopy>> bs_emu_groups;
inline void bs_emu_cp_async(void* dst, const void* src, int bytes) {
  bs_emu_open_group.push_back({dst, src, bytes});
}
inline void bs_emu_cp_async_commit() {
  bs_emu_groups.push_back(std::move(bs_emu_open_group));
  bs_emu_open_group.clear();
}
inline void bs_emu_cp_async_wait(int n) {
  while (bs_emu_groups.size() > static_cast<size_t>(n)) {
    for (const BsEmuCopy& cp : bs_emu_groups.front()) {
      if (cp.src)
        std::memcpy(cp.dst, cp.src, static_cast<size_t>(cp.bytes));
      else
        std::memset(cp.dst, 0, static_cast<size_t>(cp.bytes));
    }
    bs_emu_groups.pop_front();
  }
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
