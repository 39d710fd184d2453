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
#include "gpu/common/nvtx_range.h"
#include "gpu/reduce/reduce.h"
#include "gpu/reduce/reduce_inputs.h"
#include "gpu/reduce/reduce_kernels.cuh"

namespace bs::reduce {

namespace {

using namespace kernels;  // NOLINT: the bodies and their helpers (reduce_kernels.cuh)

// The kernels: thin wrappers around the bodies, in reduce_bodies.cuh (NVRTC compiles them for the simulator's
// tests) but the look-back scan's, here.
template <class T>
__global__ void __launch_bounds__(1024)
    k_lookback(const T* __restrict__ in, T* __restrict__ out, int64_t n, bool exclusive, bool transpose,
               unsigned long long* __restrict__ state, unsigned* __restrict__ counter) {
  lookback_body<T>(in, out, n, exclusive, transpose, state, counter);
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
  explicit Impl(const DeviceInfo& d) : info(d) {}
  const DeviceInfo& info;  // the runner's (DeviceRunner::device())
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

GpuRunner::GpuRunner() : m(std::make_unique<Impl>(device())) {}

GpuRunner::~GpuRunner() = default;

LaunchPlan GpuRunner::plan(const Params& p) const {
  return m->plan(p);
}

namespace {
template <class T>
const void* first_kernel_of(const Params& p) {
  const auto f = [](auto fn) { return reinterpret_cast<const void*>(fn); };
  if (p.op == Op::Reduce) {
    switch (p.reduce_variant) {
      case ReduceVariant::InterleavedDivergent:
        return f(k_interleaved_divergent<T>);
      case ReduceVariant::InterleavedBankConflicts:
        return f(k_interleaved_bank<T>);
      case ReduceVariant::Sequential:
        return f(k_sequential<T>);
      case ReduceVariant::FirstAddDuringLoad:
        return f(k_first_add<T>);
      case ReduceVariant::UnrollLastWarp:
        return f(k_unroll_last_warp<T>);
      case ReduceVariant::CompleteUnroll:
        return f(by_block<T, CompleteUnrollK>(p.block));
      case ReduceVariant::GridStride:
        return f(by_block<T, GridStrideK>(p.block));
      case ReduceVariant::WarpShuffle:
        return f(k_shuffle<T, false>);
      case ReduceVariant::AtomicPerBlock:
        return f(k_shuffle<T, true>);
      case ReduceVariant::Cub:
        return nullptr;
    }
    return nullptr;
  }
  switch (p.scan_variant) {
    case ScanVariant::HillisSteeleBlock:
      return f(k_hillis_steele<T>);
    case ScanVariant::BlellochBlock:
      return f(k_blelloch<T>);
    case ScanVariant::ScanThenPropagate:
      return f(k_tile_scan<T>);
    case ScanVariant::DecoupledLookback:
      return f(k_lookback<T>);
    case ScanVariant::Cub:
      return nullptr;
  }
  return nullptr;
}
}  // namespace

const void* GpuRunner::first_kernel_function(const Params& p) {
  return p.type == ElemType::F32 ? first_kernel_of<float>(p) : first_kernel_of<int32_t>(p);
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
  const NvtxRange range((p.op == Op::Reduce ? "reduce/" : "scan/") + row.name);
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
  const NvtxRange range("reduce/copy kernel");
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
