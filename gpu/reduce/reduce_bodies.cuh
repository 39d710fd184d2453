// reduce_bodies.cuh: the reduction lab's kernel bodies that need nothing but CUDA's built-ins (no host header,
// no library): the ladder, the shuffle reduction, the Hillis-Steele, Blelloch and tile scans. NVRTC compiles
// this very text for the simulator's tests (tests/sim/builtin_kernels.h); reduce_kernels.cuh adds the rest
// (the fill kernel, the decoupled look-back with cuda::atomic_ref) and is what the .cu files include. Bodies
// must be reached by every thread of the block (none returns before another's __syncthreads), as the kernels
// are.
#pragma once

#include <cstdint>

namespace bs::reduce::kernels {

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
__device__ __forceinline__ void interleaved_divergent_body(const T* __restrict__ in, T* __restrict__ out,
                                                           int64_t n) {
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
__device__ __forceinline__ void interleaved_bank_body(const T* __restrict__ in, T* __restrict__ out,
                                                      int64_t n) {
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
__device__ __forceinline__ void sequential_body(const T* __restrict__ in, T* __restrict__ out, int64_t n) {
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
__device__ __forceinline__ void first_add_body(const T* __restrict__ in, T* __restrict__ out, int64_t n) {
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
__device__ __forceinline__ void unroll_last_warp_body(const T* __restrict__ in, T* __restrict__ out,
                                                      int64_t n) {
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
__device__ __forceinline__ void complete_unroll_body(const T* __restrict__ in, T* __restrict__ out,
                                                     int64_t n) {
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
__device__ __forceinline__ void grid_stride_body(const T* __restrict__ in, T* __restrict__ out, int64_t n) {
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
__device__ __forceinline__ void shuffle_body(const T* __restrict__ in, T* __restrict__ out, int64_t n) {
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
__device__ __forceinline__ void hillis_steele_body(const T* __restrict__ in, T* __restrict__ out, int n,
                                                   bool exclusive) {
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
__device__ __forceinline__ void blelloch_body(const T* __restrict__ in, T* __restrict__ out, int n, int m,
                                              bool exclusive) {
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
__device__ __forceinline__ void tile_scan_body(const T* __restrict__ in, T* __restrict__ out, int64_t n,
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
__device__ __forceinline__ void add_offsets_body(T* __restrict__ out, int64_t n,
                                                 const T* __restrict__ offsets) {
  if (blockIdx.x == 0) return;  // the first tile's offset is zero
  const int64_t tile = int64_t{blockDim.x} * k_items;
  const int64_t tbase = static_cast<int64_t>(blockIdx.x) * tile;
  const int64_t end = n < tbase + tile ? n : tbase + tile;
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

// --- The kernels: thin wrappers around the bodies (the anatomy lab's instrumented copies run the same bodies);
// reduce_gpu.cu launches them (and k_lookback, whose body is in reduce_kernels.cuh).
template <class T>
__global__ void k_interleaved_divergent(const T* __restrict__ in, T* __restrict__ out, int64_t n) {
  interleaved_divergent_body<T>(in, out, n);
}
template <class T>
__global__ void k_interleaved_bank(const T* __restrict__ in, T* __restrict__ out, int64_t n) {
  interleaved_bank_body<T>(in, out, n);
}
template <class T>
__global__ void k_sequential(const T* __restrict__ in, T* __restrict__ out, int64_t n) {
  sequential_body<T>(in, out, n);
}
template <class T>
__global__ void k_first_add(const T* __restrict__ in, T* __restrict__ out, int64_t n) {
  first_add_body<T>(in, out, n);
}
template <class T>
__global__ void k_unroll_last_warp(const T* __restrict__ in, T* __restrict__ out, int64_t n) {
  unroll_last_warp_body<T>(in, out, n);
}
template <unsigned B, class T>
__global__ void __launch_bounds__(B)
    k_complete_unroll(const T* __restrict__ in, T* __restrict__ out, int64_t n) {
  complete_unroll_body<B, T>(in, out, n);
}
template <unsigned B, class T>
__global__ void __launch_bounds__(B) k_grid_stride(const T* __restrict__ in, T* __restrict__ out, int64_t n) {
  grid_stride_body<B, T>(in, out, n);
}
template <class T, bool Atomic>
__global__ void k_shuffle(const T* __restrict__ in, T* __restrict__ out, int64_t n) {
  shuffle_body<T, Atomic>(in, out, n);
}
template <class T>
__global__ void k_hillis_steele(const T* __restrict__ in, T* __restrict__ out, int n, bool exclusive) {
  hillis_steele_body<T>(in, out, n, exclusive);
}
template <class T>
__global__ void k_blelloch(const T* __restrict__ in, T* __restrict__ out, int n, int m, bool exclusive) {
  blelloch_body<T>(in, out, n, m, exclusive);
}
template <class T>
__global__ void __launch_bounds__(1024) k_tile_scan(const T* __restrict__ in, T* __restrict__ out, int64_t n,
                                                    T* __restrict__ sums, bool exclusive, bool transpose) {
  tile_scan_body<T>(in, out, n, sums, exclusive, transpose);
}
template <class T>
__global__ void k_add_offsets(T* __restrict__ out, int64_t n, const T* __restrict__ offsets) {
  add_offsets_body<T>(out, n, offsets);
}

}  // namespace bs::reduce::kernels
