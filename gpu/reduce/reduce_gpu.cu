// reduce_gpu.cu: the reduction lab's kernels and the GpuRunner. The reduction ladder follows the classic
// lesson step by step (each kernel changes one thing from the one before), then warp shuffles, one atomic per
// block and CUB; the scans: Hillis-Steele and Blelloch in one block, a three-kernel scan-then-propagate, a
// single-pass decoupled look-back scan and CUB. Every kernel is templated on the element type (float, int).
#include <cub/cub.cuh>
#include <cuda/atomic>

#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

#include "core/launch.h"
#include "gpu/common/device_buffer.h"
#include "gpu/common/device_info.h"
#include "gpu/reduce/reduce.h"
#include "gpu/reduce/reduce_inputs.h"

namespace bs::reduce {

namespace {

constexpr int k_items = 32;  // elements per thread of the tile scans (reduce_plan.cpp's k_scan_items)
constexpr unsigned k_full = 0xffffffffu;

template <class T>
struct Vec4;
template <>
struct Vec4<float> {
  using type = float4;
};
template <>
struct Vec4<int32_t> {
  using type = int4;
};
template <class T>
using vec4_t = typename Vec4<T>::type;

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

// Shared memory for the kernels whose size depends on the block (launched with blockDim.x * sizeof(T)).
template <class T>
__device__ __forceinline__ T* dyn_smem() {
  extern __shared__ __align__(16) unsigned char bs_reduce_smem[];
  return reinterpret_cast<T*>(bs_reduce_smem);
}

// --- The reduction ladder (Harris, "Optimizing parallel reduction in CUDA"): each kernel reduces `n` values
// of `in` to one partial sum per block in out[blockIdx.x]; the host runs it again on the partial sums until
// one value is left (1-6), or once more over a fixed grid's partials (7, 8).

// 1. Interleaved addressing with divergent branching: thread tid works when tid % (2s) == 0.
template <class T>
__global__ void k_interleaved_divergent(const T* __restrict__ in, T* __restrict__ out, int64_t n) {
  T* s = dyn_smem<T>();
  const unsigned tid = threadIdx.x;
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + tid;
  s[tid] = i < n ? in[i] : T(0);
  __syncthreads();
  for (unsigned st = 1; st < blockDim.x; st *= 2) {
    if (tid % (2 * st) == 0) s[tid] += s[tid + st];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// 2. Interleaved addressing, strided index: contiguous threads work (no divergence) but index = 2 s tid
// makes lanes of one warp hit the same shared-memory bank.
template <class T>
__global__ void k_interleaved_bank(const T* __restrict__ in, T* __restrict__ out, int64_t n) {
  T* s = dyn_smem<T>();
  const unsigned tid = threadIdx.x;
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + tid;
  s[tid] = i < n ? in[i] : T(0);
  __syncthreads();
  for (unsigned st = 1; st < blockDim.x; st *= 2) {
    const unsigned index = 2 * st * tid;
    if (index < blockDim.x) s[index] += s[index + st];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// 3. Sequential addressing: the stride halves, thread tid adds s[tid + st]: conflict-free.
template <class T>
__global__ void k_sequential(const T* __restrict__ in, T* __restrict__ out, int64_t n) {
  T* s = dyn_smem<T>();
  const unsigned tid = threadIdx.x;
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + tid;
  s[tid] = i < n ? in[i] : T(0);
  __syncthreads();
  for (unsigned st = blockDim.x / 2; st > 0; st >>= 1) {
    if (tid < st) s[tid] += s[tid + st];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// Loads two elements per thread (a block covers 2 x blockDim.x) and adds them on the way in.
template <class T>
__device__ __forceinline__ T load_two(const T* __restrict__ in, int64_t n, unsigned block) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * (2 * block) + threadIdx.x;
  T v = i < n ? in[i] : T(0);
  if (i + block < n) v += in[i + block];
  return v;
}

// 4. First add during load: half the blocks, the same tree as 3.
template <class T>
__global__ void k_first_add(const T* __restrict__ in, T* __restrict__ out, int64_t n) {
  T* s = dyn_smem<T>();
  const unsigned tid = threadIdx.x;
  s[tid] = load_two(in, n, blockDim.x);
  __syncthreads();
  for (unsigned st = blockDim.x / 2; st > 0; st >>= 1) {
    if (tid < st) s[tid] += s[tid + st];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// The last 6 steps in warp 0 without __syncthreads: each lane keeps its running value in a register and
// __syncwarp orders one step's reads before the next step's writes (the 2007 version relied on volatile and
// implicit warp lockstep, which independent thread scheduling since Volta no longer guarantees).
// Needs the block's first 64 values in s (block >= 64). All 32 lanes add at every step; lanes >= st compute
// values nobody reads.
template <class T>
__device__ __forceinline__ void last_warp(T* s, unsigned tid) {
  T v = s[tid];
#pragma unroll
  for (unsigned st = 32; st > 0; st >>= 1) {
    v += s[tid + st];
    __syncwarp();
    s[tid] = v;
    __syncwarp();
  }
}

// 5. Unroll the last warp.
template <class T>
__global__ void k_unroll_last_warp(const T* __restrict__ in, T* __restrict__ out, int64_t n) {
  T* s = dyn_smem<T>();
  const unsigned tid = threadIdx.x;
  s[tid] = load_two(in, n, blockDim.x);
  __syncthreads();
  for (unsigned st = blockDim.x / 2; st > 32; st >>= 1) {
    if (tid < st) s[tid] += s[tid + st];
    __syncthreads();
  }
  if (tid < 32) last_warp(s, tid);
  if (tid == 0) out[blockIdx.x] = s[0];
}

// The block's tree with the block size known at compile time: every loop and test resolved by the compiler.
template <unsigned B, class T>
__device__ __forceinline__ void tree_unrolled(T* s, unsigned tid) {
  if constexpr (B >= 1024) {
    if (tid < 512) s[tid] += s[tid + 512];
    __syncthreads();
  }
  if constexpr (B >= 512) {
    if (tid < 256) s[tid] += s[tid + 256];
    __syncthreads();
  }
  if constexpr (B >= 256) {
    if (tid < 128) s[tid] += s[tid + 128];
    __syncthreads();
  }
  if constexpr (B >= 128) {
    if (tid < 64) s[tid] += s[tid + 64];
    __syncthreads();
  }
  if (tid < 32) last_warp(s, tid);
}

// 6. Complete unroll: B is a template parameter.
template <unsigned B, class T>
__global__ void __launch_bounds__(B)
    k_complete_unroll(const T* __restrict__ in, T* __restrict__ out, int64_t n) {
  __shared__ T s[B];
  const unsigned tid = threadIdx.x;
  s[tid] = load_two(in, n, B);
  __syncthreads();
  tree_unrolled<B>(s, tid);
  if (tid == 0) out[blockIdx.x] = s[0];
}

// 7. Several elements per thread (Harris' reduce6): a fixed grid strides over the array, each thread sums
// pairs of elements in a register before the unrolled tree.
template <unsigned B, class T>
__global__ void __launch_bounds__(B) k_grid_stride(const T* __restrict__ in, T* __restrict__ out, int64_t n) {
  __shared__ T s[B];
  const unsigned tid = threadIdx.x;
  const int64_t step = static_cast<int64_t>(2 * B) * gridDim.x;
  T v = T(0);
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * (2 * B) + tid; i < n; i += step) {
    v += in[i];
    if (i + B < n) v += in[i + B];
  }
  s[tid] = v;
  __syncthreads();
  tree_unrolled<B>(s, tid);
  if (tid == 0) out[blockIdx.x] = s[0];
}

template <class T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
  for (int off = 16; off > 0; off /= 2)
    v += __shfl_down_sync(k_full, v, off);
  return v;
}

template <class T>
__device__ __forceinline__ T sum4(const vec4_t<T>& a) {
  return (a.x + a.y) + (a.z + a.w);
}

// 8./9. Warp shuffles: a grid-stride loop over float4 (int4) loads, four in flight per thread, then
// __shfl_down_sync within each warp, the warps' sums through 32 words of shared memory, and warp 0 shuffles
// them. Atomic: one atomicAdd per block into out[0] (zeroed before) instead of a second kernel.
template <class T, bool Atomic>
__global__ void k_shuffle(const T* __restrict__ in, T* __restrict__ out, int64_t n) {
  __shared__ T warp_sums[32];
  const unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t n4 = n / 4;
  const auto* in4 = reinterpret_cast<const vec4_t<T>*>(in);
  int64_t v = static_cast<int64_t>(blockIdx.x) * blockDim.x + tid;
  T acc = T(0);
  for (; v + 3 * stride < n4; v += 4 * stride) {
    const vec4_t<T> a = __ldg(in4 + v), b = __ldg(in4 + v + stride), c = __ldg(in4 + v + 2 * stride),
                    d = __ldg(in4 + v + 3 * stride);
    acc += (sum4<T>(a) + sum4<T>(b)) + (sum4<T>(c) + sum4<T>(d));
  }
  for (; v < n4; v += stride)
    acc += sum4<T>(__ldg(in4 + v));
  for (int64_t i = n4 * 4 + static_cast<int64_t>(blockIdx.x) * blockDim.x + tid; i < n; i += stride)
    acc += in[i];
  acc = warp_sum(acc);
  if (lane == 0) warp_sums[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    const unsigned warps = blockDim.x / 32;
    acc = warp_sum(lane < warps ? warp_sums[lane] : T(0));
    if (lane == 0) {
      if constexpr (Atomic)
        atomicAdd(out, acc);
      else
        out[blockIdx.x] = acc;
    }
  }
}

// --- Scans

// One block, n <= blockDim.x: Hillis-Steele (Kogge-Stone) with a double buffer (2 x blockDim.x values).
// Exclusive: the input shifted right by one, as in GPU Gems 3, chapter 39.
template <class T>
__global__ void k_hillis_steele(const T* __restrict__ in, T* __restrict__ out, int n, bool exclusive) {
  T* buf = dyn_smem<T>();
  const int tid = static_cast<int>(threadIdx.x), B = static_cast<int>(blockDim.x);
  int pout = 0;
  if (exclusive)
    buf[tid] = tid > 0 && tid - 1 < n ? in[tid - 1] : T(0);
  else
    buf[tid] = tid < n ? in[tid] : T(0);
  __syncthreads();
  for (int off = 1; off < n; off *= 2) {
    const int pin = pout;
    pout = 1 - pout;
    buf[pout * B + tid] = tid >= off ? buf[pin * B + tid] + buf[pin * B + tid - off] : buf[pin * B + tid];
    __syncthreads();
  }
  if (tid < n) out[tid] = buf[pout * B + tid];
}

// Blelloch's work-efficient scan of m = 2^k <= 2 x blockDim.x values in one block, shared-memory index padded
// by one word per 32 so that the tree's power-of-two strides spread over the banks.
__device__ __forceinline__ int pad(int i) {
  return i + (i >> 5);
}
template <class T>
__global__ void k_blelloch(const T* __restrict__ in, T* __restrict__ out, int n, int m, bool exclusive) {
  T* t = dyn_smem<T>();
  const int tid = static_cast<int>(threadIdx.x);
  const int half = m / 2;
  const int ai = tid, bi = tid + half;
  if (tid < half) {
    t[pad(ai)] = ai < n ? in[ai] : T(0);
    t[pad(bi)] = bi < n ? in[bi] : T(0);
  }
  int offset = 1;
  for (int d = half; d > 0; d >>= 1) {  // up-sweep: partial sums towards the root
    __syncthreads();
    if (tid < d) {
      const int a = offset * (2 * tid + 1) - 1, b = offset * (2 * tid + 2) - 1;
      t[pad(b)] += t[pad(a)];
    }
    offset *= 2;
  }
  __syncthreads();
  if (tid == 0) t[pad(m - 1)] = T(0);
  for (int d = 1; d < m; d *= 2) {  // down-sweep: each node passes its prefix left and prefix + left right
    offset >>= 1;
    __syncthreads();
    if (tid < d) {
      const int a = offset * (2 * tid + 1) - 1, b = offset * (2 * tid + 2) - 1;
      const T x = t[pad(a)];
      t[pad(a)] = t[pad(b)];
      t[pad(b)] += x;
    }
  }
  __syncthreads();
  if (tid < half) {
    if (ai < n) out[ai] = exclusive ? t[pad(ai)] : t[pad(ai)] + in[ai];
    if (bi < n) out[bi] = exclusive ? t[pad(bi)] : t[pad(bi)] + in[bi];
  }
}

// The tile scan shared by scan-then-propagate and the look-back scan: a tile is blockDim.x x k_items
// elements, thread t owns k_items consecutive ones (loaded as float4/int4 when the whole group is inside n).
template <class T>
__device__ __forceinline__ void load_items(const T* __restrict__ in, int64_t base, int64_t n,
                                           T (&x)[k_items]) {
  if (base + k_items <= n) {
    const auto* p = reinterpret_cast<const vec4_t<T>*>(in + base);
#pragma unroll
    for (int k = 0; k < k_items / 4; ++k) {
      const vec4_t<T> v = __ldg(p + k);
      x[4 * k] = v.x;
      x[4 * k + 1] = v.y;
      x[4 * k + 2] = v.z;
      x[4 * k + 3] = v.w;
    }
  } else {
#pragma unroll
    for (int k = 0; k < k_items; ++k)
      x[k] = base + k < n ? in[base + k] : T(0);
  }
}
template <class T>
__device__ __forceinline__ void store_items(T* __restrict__ out, int64_t base, int64_t n,
                                            const T (&y)[k_items]) {
  if (base + k_items <= n) {
    auto* p = reinterpret_cast<vec4_t<T>*>(out + base);
#pragma unroll
    for (int k = 0; k < k_items / 4; ++k) {
      vec4_t<T> v;
      v.x = y[4 * k];
      v.y = y[4 * k + 1];
      v.z = y[4 * k + 2];
      v.w = y[4 * k + 3];
      p[k] = v;
    }
  } else {
#pragma unroll
    for (int k = 0; k < k_items; ++k)
      if (base + k < n) out[base + k] = y[k];
  }
}

// Exclusive scan of one value per thread across the block (warp shuffles, then the warps' totals by warp 0);
// `total` gets the block's sum. Holds two __syncthreads; call once per kernel.
template <class T>
__device__ __forceinline__ T block_exclusive_scan(T v, T& total) {
  __shared__ T warp_tot[32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  T inc = v;
#pragma unroll
  for (int off = 1; off < 32; off *= 2) {
    const T y = __shfl_up_sync(k_full, inc, off);
    if (lane >= static_cast<unsigned>(off)) inc += y;
  }
  T exc = __shfl_up_sync(k_full, inc, 1);
  if (lane == 0) exc = T(0);
  if (lane == 31) warp_tot[warp] = inc;
  __syncthreads();
  if (warp == 0) {
    T w = lane < warps ? warp_tot[lane] : T(0);
#pragma unroll
    for (int off = 1; off < 32; off *= 2) {
      const T y = __shfl_up_sync(k_full, w, off);
      if (lane >= static_cast<unsigned>(off)) w += y;
    }
    if (lane < warps) warp_tot[lane] = w;
  }
  __syncthreads();
  total = warp_tot[warps - 1];
  return warp > 0 ? warp_tot[warp - 1] + exc : exc;
}

// Replaces the thread's items by their scan from `prefix` (the sum of everything before its first item).
template <class T>
__device__ __forceinline__ void scan_items(T (&x)[k_items], T prefix, bool exclusive) {
  T run = prefix;
#pragma unroll
  for (int k = 0; k < k_items; ++k) {
    const T v = x[k];
    if (exclusive) {
      x[k] = run;
      run += v;
    } else {
      run += v;
      x[k] = run;
    }
  }
}

// Whole tiles move between global and shared memory in coalesced vec4 words (word f of the tile goes to
// thread f % blockDim.x on the way in), and each thread then takes its k_items / 4 consecutive words from
// shared memory. One spare word after every 8 keeps those reads free of bank conflicts (8 threads of a
// quarter warp read words 8 apart: padded, they land in distinct banks). A partial last tile (or a device
// whose shared memory cannot hold a tile) uses direct per-thread loads instead.
__device__ __forceinline__ int tpad(int f) {
  return f + f / 8;
}
size_t tile_smem_bytes(int block) {
  const int words = block * k_items / 4;
  return static_cast<size_t>(words + words / 8 + 1) * 16;
}

template <class T>
__device__ __forceinline__ void load_tile(const T* __restrict__ in, int64_t tbase, int64_t n, T (&x)[k_items],
                                          bool transpose) {
  constexpr int V = k_items / 4;
  const int B = static_cast<int>(blockDim.x), tid = static_cast<int>(threadIdx.x);
  if (transpose && tbase + int64_t{B} * k_items <= n) {
    vec4_t<T>* sm = dyn_smem<vec4_t<T>>();
    const auto* p = reinterpret_cast<const vec4_t<T>*>(in + tbase);
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const int f = k * B + tid;
      sm[tpad(f)] = __ldg(p + f);
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const vec4_t<T> v = sm[tpad(tid * V + k)];
      x[4 * k] = v.x;
      x[4 * k + 1] = v.y;
      x[4 * k + 2] = v.z;
      x[4 * k + 3] = v.w;
    }
  } else {
    load_items(in, tbase + int64_t{tid} * k_items, n, x);
  }
}

// The reverse of load_tile. Callers have passed a __syncthreads since load_tile's shared-memory reads.
template <class T>
__device__ __forceinline__ void store_tile(T* __restrict__ out, int64_t tbase, int64_t n,
                                           const T (&x)[k_items], bool transpose) {
  constexpr int V = k_items / 4;
  const int B = static_cast<int>(blockDim.x), tid = static_cast<int>(threadIdx.x);
  if (transpose && tbase + int64_t{B} * k_items <= n) {
    vec4_t<T>* sm = dyn_smem<vec4_t<T>>();
#pragma unroll
    for (int k = 0; k < V; ++k) {
      vec4_t<T> v;
      v.x = x[4 * k];
      v.y = x[4 * k + 1];
      v.z = x[4 * k + 2];
      v.w = x[4 * k + 3];
      sm[tpad(tid * V + k)] = v;
    }
    __syncthreads();
    auto* p = reinterpret_cast<vec4_t<T>*>(out + tbase);
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const int f = k * B + tid;
      p[f] = sm[tpad(f)];
    }
  } else {
    store_items(out, tbase + int64_t{tid} * k_items, n, x);
  }
}

template <class T>
__device__ __forceinline__ T thread_sum(const T (&x)[k_items]) {
  T s = T(0);
#pragma unroll
  for (int k = 0; k < k_items; ++k)
    s += x[k];
  return s;
}

// Scan-then-propagate, kernel 1: each block scans its tile from zero and writes the tile's sum.
template <class T>
__global__ void __launch_bounds__(1024) k_tile_scan(const T* __restrict__ in, T* __restrict__ out, int64_t n,
                                                    T* __restrict__ sums, bool exclusive, bool transpose) {
  const int64_t tbase = static_cast<int64_t>(blockIdx.x) * blockDim.x * k_items;
  T x[k_items];
  load_tile(in, tbase, n, x, transpose);
  T total;
  const T prefix = block_exclusive_scan(thread_sum(x), total);
  scan_items(x, prefix, exclusive);
  store_tile(out, tbase, n, x, transpose);
  if (sums && threadIdx.x == 0) sums[blockIdx.x] = total;
}

// Scan-then-propagate, kernel 3: tile b adds offsets[b] (the exclusive scan of the tile sums) to its
// elements, in coalesced vec4 words.
template <class T>
__global__ void k_add_offsets(T* __restrict__ out, int64_t n, const T* __restrict__ offsets) {
  if (blockIdx.x == 0) return;  // the first tile's offset is zero
  const int64_t tile = int64_t{blockDim.x} * k_items;
  const int64_t tbase = static_cast<int64_t>(blockIdx.x) * tile;
  const int64_t end = std::min(n, tbase + tile);
  const T off = offsets[blockIdx.x];
  if (end - tbase == tile) {
    auto* p = reinterpret_cast<vec4_t<T>*>(out + tbase);
    for (int f = static_cast<int>(threadIdx.x); f < tile / 4; f += static_cast<int>(blockDim.x)) {
      vec4_t<T> v = p[f];
      v.x += off;
      v.y += off;
      v.z += off;
      v.w += off;
      p[f] = v;
    }
  } else {
    for (int64_t i = tbase + threadIdx.x; i < end; i += blockDim.x)
      out[i] += off;
  }
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
__global__ void __launch_bounds__(1024)
    k_lookback(const T* __restrict__ in, T* __restrict__ out, int64_t n, bool exclusive, bool transpose,
               unsigned long long* __restrict__ state, unsigned* __restrict__ counter) {
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
}

// Device-to-device copy of n4 16-byte words, grid-stride: one read and one write per byte.
__global__ void k_copy(const float4* __restrict__ in, float4* __restrict__ out, int64_t n4) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += stride)
    out[i] = in[i];
}

int64_t cdiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

template <class T>
using LadderFn = void (*)(const T*, T*, int64_t);

template <unsigned B, class T>
struct CompleteUnrollK {
  static LadderFn<T> fn() { return k_complete_unroll<B, T>; }
};
template <unsigned B, class T>
struct GridStrideK {
  static LadderFn<T> fn() { return k_grid_stride<B, T>; }
};
template <class T, template <unsigned, class> class K>
LadderFn<T> by_block(int block) {
  switch (block) {
    case 64:
      return K<64, T>::fn();
    case 128:
      return K<128, T>::fn();
    case 256:
      return K<256, T>::fn();
    case 512:
      return K<512, T>::fn();
    case 1024:
      return K<1024, T>::fn();
    default:
      throw InvalidRequest("block " + std::to_string(block) +
                           ": the unrolled kernels take 64 to 1024 threads");
  }
}

}  // namespace

struct GpuRunner::Impl {
  DeviceInfo info;
  Stream stream;
  Event e0, e1;
  DeviceBuffer<uint32_t> in, out;         // 4-byte elements, float or int
  DeviceBuffer<uint32_t> part_a, part_b;  // partial sums of the reductions
  DeviceBuffer<unsigned long long> state;
  DeviceBuffer<unsigned> counter;
  std::vector<DeviceBuffer<uint32_t>> level_sums, level_offsets;  // scan-then-propagate, one per level
  DeviceBuffer<unsigned char> cub_temp;
  // What `in` holds: the generated inputs of this type for filled_n elements (or caller data: -1).
  int64_t filled_n = -1;
  ElemType filled_type = ElemType::F32;

  template <class B>
  static void grow(B& b, int64_t count) {
    if (static_cast<int64_t>(b.size()) < count) {
      b.release();
      b.resize(static_cast<size_t>(count));
    }
  }

  void grow_input(int64_t count) {
    if (static_cast<int64_t>(in.size()) < count) filled_n = -1;  // reallocated: the contents are gone
    grow(in, count);
  }

  int blocks_per_sm(int block) const {
    return std::max(
        1, std::min(info.max_threads_per_sm / std::max(block, 1), std::max(info.max_blocks_per_sm, 1)));
  }
  LaunchPlan plan(const Params& p) const { return make_plan(p, info.sm_count, blocks_per_sm(p.block)); }

  uint64_t owned_bytes() const {
    uint64_t b =
        in.bytes() + out.bytes() + part_a.bytes() + part_b.bytes() + state.bytes() + cub_temp.bytes();
    for (const auto& l : level_sums)
      b += l.bytes();
    for (const auto& l : level_offsets)
      b += l.bytes();
    return b;
  }

  void check_request(const Params& p) {
    if (auto err = validate(p)) throw InvalidRequest(*err);
    size_t free_b = 0, total_b = 0;
    BS_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (auto err = check_device_memory(p, info.sm_count, free_b + owned_bytes(), total_b))
      throw InvalidRequest(*err);
  }

  // Buffers for p (grown, never shrunk).
  void ensure(const Params& p) {
    const LaunchPlan pl = plan(p);
    grow_input(p.n);
    if (p.op == Op::Reduce) {
      if (p.reduce_variant != ReduceVariant::Cub) {
        grow(part_a, std::max<int64_t>(pl.grid, 1) + 1);
        grow(part_b, cdiv(std::max<int64_t>(pl.grid, 1), p.block) + 1);
      } else {
        grow(part_a, 1);
      }
      return;
    }
    grow(out, p.n);
    if (p.scan_variant == ScanVariant::DecoupledLookback) {
      grow(state, pl.tiles);
      grow(counter, 1);
    }
    if (p.scan_variant == ScanVariant::ScanThenPropagate) {
      const int64_t tile = int64_t{p.block} * k_items;
      size_t level = 0;
      for (int64_t c = cdiv(p.n, tile); c > 1; c = cdiv(c, tile), ++level) {
        if (level_sums.size() <= level) {
          level_sums.emplace_back();
          level_offsets.emplace_back();
        }
        grow(level_sums[level], c);
        grow(level_offsets[level], c);
      }
    }
  }

  template <class T>
  void fill(int64_t n) {
    const int block = 256;
    const int64_t grid = std::clamp<int64_t>(cdiv(n, block), 1, int64_t{info.sm_count} * 16);
    fill_kernel<T>
        <<<static_cast<unsigned>(grid), block, 0, stream.get()>>>(reinterpret_cast<T*>(in.data()), n);
    BS_CUDA_CHECK_LAUNCH();
  }
  void fill_inputs_for(const Params& p) {
    if (filled_n >= p.n && filled_type == p.type) return;
    if (p.type == ElemType::F32)
      fill<float>(p.n);
    else
      fill<int32_t>(p.n);
    filled_n = p.n;
    filled_type = p.type;
  }

  // Issues one run of p on the stream; returns where the result is (reduce: one value; scan: out).
  template <class T>
  const T* issue_reduce(const Params& p) {
    cudaStream_t s = stream.get();
    const T* src = reinterpret_cast<const T*>(in.data());
    T* a = reinterpret_cast<T*>(part_a.data());
    T* b = reinterpret_cast<T*>(part_b.data());
    const int B = p.block;
    const LaunchPlan pl = plan(p);
    const ReduceVariant v = p.reduce_variant;
    if (v == ReduceVariant::Cub) {
      size_t bytes = 0;
      BS_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, src, a, p.n, s));
      grow(cub_temp, static_cast<int64_t>(bytes) + 1);
      BS_CUDA_CHECK(cub::DeviceReduce::Sum(cub_temp.data(), bytes, src, a, p.n, s));
      return a;
    }
    if (v == ReduceVariant::WarpShuffle || v == ReduceVariant::AtomicPerBlock) {
      if (v == ReduceVariant::AtomicPerBlock) {
        BS_CUDA_CHECK(cudaMemsetAsync(a, 0, sizeof(T), s));
        k_shuffle<T, true><<<static_cast<unsigned>(pl.grid), B, 0, s>>>(src, a, p.n);
        BS_CUDA_CHECK_LAUNCH();
        return a;
      }
      k_shuffle<T, false><<<static_cast<unsigned>(pl.grid), B, 0, s>>>(src, a, p.n);
      BS_CUDA_CHECK_LAUNCH();
      if (pl.grid == 1) return a;
      k_shuffle<T, false><<<1, B, 0, s>>>(a, b, pl.grid);
      BS_CUDA_CHECK_LAUNCH();
      return b;
    }
    if (v == ReduceVariant::GridStride) {
      const LadderFn<T> fn = by_block<T, GridStrideK>(B);
      fn<<<static_cast<unsigned>(pl.grid), B, 0, s>>>(src, a, p.n);
      BS_CUDA_CHECK_LAUNCH();
      if (pl.grid == 1) return a;
      fn<<<1, B, 0, s>>>(a, b, pl.grid);
      BS_CUDA_CHECK_LAUNCH();
      return b;
    }
    // 1-6: one kernel per level, ping-pong between the partial-sum buffers.
    LadderFn<T> fn = nullptr;
    int ept = 2;
    switch (v) {
      case ReduceVariant::InterleavedDivergent:
        fn = k_interleaved_divergent<T>;
        ept = 1;
        break;
      case ReduceVariant::InterleavedBankConflicts:
        fn = k_interleaved_bank<T>;
        ept = 1;
        break;
      case ReduceVariant::Sequential:
        fn = k_sequential<T>;
        ept = 1;
        break;
      case ReduceVariant::FirstAddDuringLoad:
        fn = k_first_add<T>;
        break;
      case ReduceVariant::UnrollLastWarp:
        fn = k_unroll_last_warp<T>;
        break;
      default:
        fn = by_block<T, CompleteUnrollK>(B);
        break;
    }
    const size_t smem = v == ReduceVariant::CompleteUnroll ? 0 : static_cast<size_t>(B) * sizeof(T);
    const T* from = src;
    int64_t count = p.n;
    bool to_a = true;
    do {
      const int64_t grid = cdiv(count, int64_t{B} * ept);
      T* dst = to_a ? a : b;
      fn<<<static_cast<unsigned>(grid), B, smem, s>>>(from, dst, count);
      BS_CUDA_CHECK_LAUNCH();
      from = dst;
      count = grid;
      to_a = !to_a;
    } while (count > 1);
    return from;
  }

  // Dynamic shared memory of a tile kernel: the transposing buffer where the device can give it (above 48 KiB
  // only on opt-in), else none and direct loads (`transpose` false).
  template <class K>
  size_t tile_smem(K kernel, int block, bool& transpose) {
    const size_t bytes = tile_smem_bytes(block);
    const size_t static_margin = 1024;  // the kernels' own __shared__ variables
    transpose = bytes <= 48 * 1024 - static_margin || bytes + static_margin <= info.smem_per_block_optin;
    if (!transpose) return 0;
    if (bytes > 48 * 1024 - static_margin)
      BS_CUDA_CHECK(
          cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
    return bytes;
  }

  template <class T>
  void scan_levels(const T* src, T* dst, int64_t n, bool exclusive, int B, size_t level) {
    cudaStream_t s = stream.get();
    const int64_t tile = int64_t{B} * k_items;
    const int64_t tiles = cdiv(n, tile);
    bool transpose = false;
    const size_t smem = tile_smem(k_tile_scan<T>, B, transpose);
    if (tiles == 1) {
      k_tile_scan<T><<<1, B, smem, s>>>(src, dst, n, nullptr, exclusive, transpose);
      BS_CUDA_CHECK_LAUNCH();
      return;
    }
    T* sums = reinterpret_cast<T*>(level_sums[level].data());
    T* offsets = reinterpret_cast<T*>(level_offsets[level].data());
    k_tile_scan<T><<<static_cast<unsigned>(tiles), B, smem, s>>>(src, dst, n, sums, exclusive, transpose);
    BS_CUDA_CHECK_LAUNCH();
    scan_levels<T>(sums, offsets, tiles, true, B, level + 1);
    k_add_offsets<T><<<static_cast<unsigned>(tiles), B, 0, s>>>(dst, n, offsets);
    BS_CUDA_CHECK_LAUNCH();
  }

  template <class T>
  const T* issue_scan(const Params& p) {
    cudaStream_t s = stream.get();
    const T* src = reinterpret_cast<const T*>(in.data());
    T* dst = reinterpret_cast<T*>(out.data());
    const bool exclusive = p.scan_kind == ScanKind::Exclusive;
    const int B = p.block;
    const int n32 = static_cast<int>(std::min<int64_t>(p.n, 1 << 30));
    switch (p.scan_variant) {
      case ScanVariant::HillisSteeleBlock:
        k_hillis_steele<T><<<1, B, 2 * static_cast<size_t>(B) * sizeof(T), s>>>(src, dst, n32, exclusive);
        BS_CUDA_CHECK_LAUNCH();
        return dst;
      case ScanVariant::BlellochBlock: {
        const int m = std::max(2, static_cast<int>(std::bit_ceil(static_cast<unsigned>(n32))));
        k_blelloch<T>
            <<<1, B, static_cast<size_t>(m + m / 32 + 1) * sizeof(T), s>>>(src, dst, n32, m, exclusive);
        BS_CUDA_CHECK_LAUNCH();
        return dst;
      }
      case ScanVariant::ScanThenPropagate:
        scan_levels<T>(src, dst, p.n, exclusive, B, 0);
        return dst;
      case ScanVariant::DecoupledLookback: {
        const int64_t tiles = cdiv(p.n, int64_t{B} * k_items);
        BS_CUDA_CHECK(
            cudaMemsetAsync(state.data(), 0, static_cast<size_t>(tiles) * sizeof(unsigned long long), s));
        BS_CUDA_CHECK(cudaMemsetAsync(counter.data(), 0, sizeof(unsigned), s));
        bool transpose = false;
        const size_t smem = tile_smem(k_lookback<T>, B, transpose);
        k_lookback<T><<<static_cast<unsigned>(tiles), B, smem, s>>>(src, dst, p.n, exclusive, transpose,
                                                                    state.data(), counter.data());
        BS_CUDA_CHECK_LAUNCH();
        return dst;
      }
      case ScanVariant::Cub: {
        size_t bytes = 0;
        if (exclusive)
          BS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, src, dst, p.n, s));
        else
          BS_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, src, dst, p.n, s));
        grow(cub_temp, static_cast<int64_t>(bytes) + 1);
        if (exclusive)
          BS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(cub_temp.data(), bytes, src, dst, p.n, s));
        else
          BS_CUDA_CHECK(cub::DeviceScan::InclusiveSum(cub_temp.data(), bytes, src, dst, p.n, s));
        return dst;
      }
    }
    return dst;
  }

  // Untimed runs on caller data: x goes to the device as is.
  template <class T>
  T reduce_on(const Params& q, std::span<const T> x) {
    check_request(q);
    ensure(q);
    // On the runner's stream: a plain cudaMemcpy from pageable memory may return before its DMA has
    // landed, and the stream is non-blocking (no implicit order with the legacy stream).
    BS_CUDA_CHECK(cudaMemcpyAsync(in.data(), x.data(), x.size_bytes(), cudaMemcpyHostToDevice, stream.get()));
    filled_n = -1;
    const void* r = issue(q);
    T v{};
    BS_CUDA_CHECK(cudaMemcpyAsync(&v, r, sizeof(T), cudaMemcpyDeviceToHost, stream.get()));
    stream.sync();
    return v;
  }

  template <class T>
  std::vector<T> scan_on(const Params& q, std::span<const T> x) {
    check_request(q);
    ensure(q);
    // On the runner's stream: a plain cudaMemcpy from pageable memory may return before its DMA has
    // landed, and the stream is non-blocking (no implicit order with the legacy stream).
    BS_CUDA_CHECK(cudaMemcpyAsync(in.data(), x.data(), x.size_bytes(), cudaMemcpyHostToDevice, stream.get()));
    filled_n = -1;
    const void* r = issue(q);
    std::vector<T> host(x.size());
    BS_CUDA_CHECK(cudaMemcpyAsync(host.data(), r, x.size_bytes(), cudaMemcpyDeviceToHost, stream.get()));
    stream.sync();
    return host;
  }

  // Issues one run; returns the device address of the result (reduce: 1 value; scan: n values).
  const void* issue(const Params& p) {
    if (p.op == Op::Reduce)
      return p.type == ElemType::F32 ? static_cast<const void*>(issue_reduce<float>(p))
                                     : static_cast<const void*>(issue_reduce<int32_t>(p));
    return p.type == ElemType::F32 ? static_cast<const void*>(issue_scan<float>(p))
                                   : static_cast<const void*>(issue_scan<int32_t>(p));
  }
};

GpuRunner::GpuRunner() : m(std::make_unique<Impl>()) {
  m->info = query_device();
  if (!m->info.available) throw GpuError("no CUDA device: " + m->info.reason, 100, false);
}

GpuRunner::~GpuRunner() = default;

const DeviceInfo& GpuRunner::device() const {
  return m->info;
}

LaunchPlan GpuRunner::plan(const Params& p) const {
  return m->plan(p);
}

Row GpuRunner::run(const Params& p, int repetitions, bool check) {
  m->check_request(p);
  if (check && p.op == Op::Scan)
    if (auto err = check_host_memory(p, available_host_bytes())) throw InvalidRequest(*err);
  m->ensure(p);
  m->fill_inputs_for(p);
  cudaStream_t s = m->stream.get();
  Row row;
  row.gpu = true;
  row.name = variant_name(p);
  row.variant =
      std::to_string(p.op == Op::Reduce ? rung(p.reduce_variant) : rung(p.scan_variant)) + " " + row.name;
  row.plan = m->plan(p);
  const void* result = m->issue(p);  // warm-up
  BS_CUDA_CHECK(cudaStreamSynchronize(s));
  std::vector<double> ms;
  const int reps = std::max(repetitions, 1);
  for (int r = 0; r < reps; ++r) {
    m->e0.record(s);
    result = m->issue(p);
    m->e1.record(s);
    BS_CUDA_CHECK(cudaEventSynchronize(m->e1.get()));
    ms.push_back(elapsed_ms(m->e0, m->e1));
  }
  row.ms = summarize(ms);
  row.repetitions = reps;
  const double bytes = static_cast<double>(p.n) * 4 * (p.op == Op::Reduce ? 1 : 2);
  row.gbs = row.ms.median > 0 ? bytes / (row.ms.median * 1e-3) / 1e9 : 0;
  if (p.op == Op::Reduce) {
    uint32_t bits = 0;
    BS_CUDA_CHECK(cudaMemcpy(&bits, result, 4, cudaMemcpyDeviceToHost));
    if (p.type == ElemType::F32) {
      float v;
      std::memcpy(&v, &bits, 4);
      row.value = v;
      if (check) row.check = check_sum(static_cast<double>(v), p.n, row.plan.depth);
    } else {
      int32_t v;
      std::memcpy(&v, &bits, 4);
      row.value = v;
      if (check) row.check = check_sum(static_cast<int64_t>(v), p.n);
    }
  } else if (check) {
    if (p.type == ElemType::F32) {
      std::vector<float> h(static_cast<size_t>(p.n));
      BS_CUDA_CHECK(cudaMemcpy(h.data(), result, h.size() * 4, cudaMemcpyDeviceToHost));
      row.value = h.back();
      row.check = check_scan(h, p.scan_kind, row.plan.depth);
    } else {
      std::vector<int32_t> h(static_cast<size_t>(p.n));
      BS_CUDA_CHECK(cudaMemcpy(h.data(), result, h.size() * 4, cudaMemcpyDeviceToHost));
      row.value = h.back();
      row.check = check_scan(h, p.scan_kind);
    }
  } else {
    uint32_t bits = 0;
    BS_CUDA_CHECK(
        cudaMemcpy(&bits, static_cast<const char*>(result) + (p.n - 1) * 4, 4, cudaMemcpyDeviceToHost));
    if (p.type == ElemType::F32) {
      float v;
      std::memcpy(&v, &bits, 4);
      row.value = v;
    } else {
      int32_t v;
      std::memcpy(&v, &bits, 4);
      row.value = v;
    }
  }
  if (!check) row.check.passed = true;
  return row;
}

CopyKernel GpuRunner::copy_kernel(int64_t n, int repetitions) {
  CopyKernel c;
  c.n = n;
  const int64_t n4 = n / 4;
  if (n4 <= 0) return c;
  size_t free_b = 0, total_b = 0;
  BS_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  const uint64_t need = static_cast<uint64_t>(n) * 4 * 2;
  if (need > free_b + m->in.bytes() + m->out.bytes())
    throw InvalidRequest("the copy kernel over n = " + std::to_string(n) + " elements needs " +
                         std::to_string(need >> 20) + " MiB of device memory; " +
                         std::to_string(free_b >> 20) + " MiB are free");
  m->grow_input(n);
  Impl::grow(m->out, n);
  if (m->filled_n < n) {  // never copy zeros (or stale memory): the generated floats
    m->fill<float>(n);
    m->filled_n = n;
    m->filled_type = ElemType::F32;
  }
  cudaStream_t s = m->stream.get();
  const int block = 256;
  const int64_t grid =
      std::clamp<int64_t>(int64_t{m->info.sm_count} * m->blocks_per_sm(block) * 2, 1, cdiv(n4, block));
  const auto* src = reinterpret_cast<const float4*>(m->in.data());
  auto* dst = reinterpret_cast<float4*>(m->out.data());
  std::vector<double> ms;
  for (int r = 0; r < repetitions + 2; ++r) {  // the first two are warm-up
    m->e0.record(s);
    k_copy<<<static_cast<unsigned>(grid), block, 0, s>>>(src, dst, n4);
    BS_CUDA_CHECK_LAUNCH();
    m->e1.record(s);
    BS_CUDA_CHECK(cudaEventSynchronize(m->e1.get()));
    if (r >= 2) ms.push_back(elapsed_ms(m->e0, m->e1));
  }
  c.ms = summarize(ms).median;
  c.gbs = c.ms > 0 ? 2.0 * static_cast<double>(n4) * 16 / (c.ms * 1e-3) / 1e9 : 0.0;
  c.read_gbs = c.gbs / 2;
  return c;
}

namespace {

template <class T>
Params with_n(const Params& p, std::span<const T> x) {
  Params q = p;
  q.n = static_cast<int64_t>(x.size());
  q.type = std::is_same_v<T, float> ? ElemType::F32 : ElemType::I32;
  return q;
}

}  // namespace

float GpuRunner::reduce(const Params& p, std::span<const float> x) {
  Params q = with_n(p, x);
  q.op = Op::Reduce;
  return m->reduce_on<float>(q, x);
}
int32_t GpuRunner::reduce(const Params& p, std::span<const int32_t> x) {
  Params q = with_n(p, x);
  q.op = Op::Reduce;
  return m->reduce_on<int32_t>(q, x);
}
std::vector<float> GpuRunner::scan(const Params& p, std::span<const float> x) {
  Params q = with_n(p, x);
  q.op = Op::Scan;
  return m->scan_on<float>(q, x);
}
std::vector<int32_t> GpuRunner::scan(const Params& p, std::span<const int32_t> x) {
  Params q = with_n(p, x);
  q.op = Op::Scan;
  return m->scan_on<int32_t>(q, x);
}

void GpuRunner::abandon() noexcept {
  m->stream.abandon();
  m->e0.abandon();
  m->e1.abandon();
  m->in.abandon();
  m->out.abandon();
  m->part_a.abandon();
  m->part_b.abandon();
  m->state.abandon();
  m->counter.abandon();
  for (auto& l : m->level_sums)
    l.abandon();
  for (auto& l : m->level_offsets)
    l.abandon();
  m->cub_temp.abandon();
  m->filled_n = -1;
}

}  // namespace bs::reduce
