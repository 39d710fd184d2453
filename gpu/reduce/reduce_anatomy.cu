// reduce_anatomy.cu: instrumented copies of the reduction lab's kernels (the bodies of
// gpu/reduce/reduce_kernels.cuh between the per-block probes of record.cuh) and the occupancy of the lab's
// own kernels (see reduce_anatomy.h). Only the launch that passes over the input is instrumented: the later
// launches of the multi-pass variants work on the per-block partial sums.
#include <bit>

#include "gpu/anatomy/record.cuh"
#include "gpu/reduce/reduce_anatomy.h"
#include "gpu/reduce/reduce_kernels.cuh"

namespace bs::anatomy {

namespace {

namespace rk = reduce::kernels;
using detail::BlockProbe;

// A ladder body (in, out, n) between the probe's start and end.
template <class Body, class T>
__global__ void ladder_instrumented(const T* __restrict__ in, T* __restrict__ out, int64_t n,
                                    BlockRecord* __restrict__ rec, uint32_t* __restrict__ meta,
                                    uint32_t cap) {
  BlockProbe probe;
  probe.begin();
  Body::run(in, out, n);
  probe.end(rec, meta, cap);
}

#define BS_REDUCE_BODY(NAME, CALL)                                               \
  struct NAME {                                                                  \
    template <class T>                                                           \
    __device__ __forceinline__ static void run(const T* in, T* out, int64_t n) { \
      CALL;                                                                      \
    }                                                                            \
  }
BS_REDUCE_BODY(Divergent, rk::interleaved_divergent_body<T>(in, out, n));
BS_REDUCE_BODY(Bank, rk::interleaved_bank_body<T>(in, out, n));
BS_REDUCE_BODY(Sequential, rk::sequential_body<T>(in, out, n));
BS_REDUCE_BODY(FirstAdd, rk::first_add_body<T>(in, out, n));
BS_REDUCE_BODY(UnrollLastWarp, rk::unroll_last_warp_body<T>(in, out, n));
BS_REDUCE_BODY(Shuffle, (rk::shuffle_body<T, false>(in, out, n)));
BS_REDUCE_BODY(ShuffleAtomic, (rk::shuffle_body<T, true>(in, out, n)));
#undef BS_REDUCE_BODY
template <unsigned B>
struct CompleteUnroll {
  template <class T>
  __device__ __forceinline__ static void run(const T* in, T* out, int64_t n) {
    rk::complete_unroll_body<B, T>(in, out, n);
  }
};
template <unsigned B>
struct GridStride {
  template <class T>
  __device__ __forceinline__ static void run(const T* in, T* out, int64_t n) {
    rk::grid_stride_body<B, T>(in, out, n);
  }
};

template <class T>
__global__ void hillis_steele_instrumented(const T* __restrict__ in, T* __restrict__ out, int n,
                                           bool exclusive, BlockRecord* __restrict__ rec,
                                           uint32_t* __restrict__ meta, uint32_t cap) {
  BlockProbe probe;
  probe.begin();
  rk::hillis_steele_body<T>(in, out, n, exclusive);
  probe.end(rec, meta, cap);
}

template <class T>
__global__ void blelloch_instrumented(const T* __restrict__ in, T* __restrict__ out, int n, int m,
                                      bool exclusive, BlockRecord* __restrict__ rec,
                                      uint32_t* __restrict__ meta, uint32_t cap) {
  BlockProbe probe;
  probe.begin();
  rk::blelloch_body<T>(in, out, n, m, exclusive);
  probe.end(rec, meta, cap);
}

template <class T>
__global__ void __launch_bounds__(1024)
    tile_scan_instrumented(const T* __restrict__ in, T* __restrict__ out, int64_t n, T* __restrict__ sums,
                           bool exclusive, bool transpose, BlockRecord* __restrict__ rec,
                           uint32_t* __restrict__ meta, uint32_t cap) {
  BlockProbe probe;
  probe.begin();
  rk::tile_scan_body<T>(in, out, n, sums, exclusive, transpose);
  probe.end(rec, meta, cap);
}

// The look-back files each block under the tile it took from the counter (tiles go out in start order).
template <class T>
__global__ void __launch_bounds__(1024)
    lookback_instrumented(const T* __restrict__ in, T* __restrict__ out, int64_t n, bool exclusive,
                          bool transpose, unsigned long long* __restrict__ state,
                          unsigned* __restrict__ counter, BlockRecord* __restrict__ rec,
                          uint32_t* __restrict__ meta, uint32_t cap) {
  BlockProbe probe;
  probe.begin();
  const int64_t tile = rk::lookback_body<T>(in, out, n, exclusive, transpose, state, counter);
  probe.end(rec, meta, cap, static_cast<uint32_t>(tile));
}

template <class T>
using LadderInstrumentedFn = void (*)(const T*, T*, int64_t, BlockRecord*, uint32_t*, uint32_t);

template <class T, template <unsigned> class K>
LadderInstrumentedFn<T> by_block(int block) {
  switch (block) {
    case 64:
      return ladder_instrumented<K<64>, T>;
    case 128:
      return ladder_instrumented<K<128>, T>;
    case 256:
      return ladder_instrumented<K<256>, T>;
    case 512:
      return ladder_instrumented<K<512>, T>;
    case 1024:
      return ladder_instrumented<K<1024>, T>;
    default:
      throw InvalidRequest("block " + std::to_string(block) +
                           ": the unrolled kernels take 64 to 1024 threads");
  }
}

template <class T>
LadderInstrumentedFn<T> ladder_kernel(reduce::ReduceVariant v, int block) {
  using V = reduce::ReduceVariant;
  switch (v) {
    case V::InterleavedDivergent:
      return ladder_instrumented<Divergent, T>;
    case V::InterleavedBankConflicts:
      return ladder_instrumented<Bank, T>;
    case V::Sequential:
      return ladder_instrumented<Sequential, T>;
    case V::FirstAddDuringLoad:
      return ladder_instrumented<FirstAdd, T>;
    case V::UnrollLastWarp:
      return ladder_instrumented<UnrollLastWarp, T>;
    case V::CompleteUnroll:
      return by_block<T, CompleteUnroll>(block);
    case V::GridStride:
      return by_block<T, GridStride>(block);
    case V::WarpShuffle:
      return ladder_instrumented<Shuffle, T>;
    case V::AtomicPerBlock:
      return ladder_instrumented<ShuffleAtomic, T>;
    case V::Cub:
      break;
  }
  throw InvalidRequest("cub has no instrumented copy: the library picks its own kernels");
}

// The instrumented kernel for p (its device function, for the attribute and occupancy queries).
template <class T>
const void* instrumented_function(const reduce::Params& p) {
  using S = reduce::ScanVariant;
  if (p.op == reduce::Op::Reduce)
    return reinterpret_cast<const void*>(ladder_kernel<T>(p.reduce_variant, p.block));
  switch (p.scan_variant) {
    case S::HillisSteeleBlock:
      return reinterpret_cast<const void*>(hillis_steele_instrumented<T>);
    case S::BlellochBlock:
      return reinterpret_cast<const void*>(blelloch_instrumented<T>);
    case S::ScanThenPropagate:
      return reinterpret_cast<const void*>(tile_scan_instrumented<T>);
    case S::DecoupledLookback:
      return reinterpret_cast<const void*>(lookback_instrumented<T>);
    case S::Cub:
      break;
  }
  throw InvalidRequest("cub has no instrumented copy: the library picks its own kernels");
}

reduce::KernelShape shape_on(const reduce::Params& p, const DeviceInfo& info) {
  return reduce_launch_shape(p, info.sm_count, info.max_threads_per_sm, info.max_blocks_per_sm,
                             static_cast<int64_t>(info.smem_per_block_optin));
}

template <class T>
void record_typed(const reduce::Params& p, ReduceRecord& out) {
  const reduce::KernelShape& s = out.shape;
  const int64_t n = p.n;
  const bool exclusive = p.scan_kind == reduce::ScanKind::Exclusive;
  const bool scan = p.op == reduce::Op::Scan;
  DeviceBuffer<T> in(static_cast<size_t>(n));
  DeviceBuffer<T> dst(static_cast<size_t>(scan ? n : s.grid + 1));
  DeviceBuffer<T> sums(static_cast<size_t>(s.grid));
  DeviceBuffer<unsigned long long> state(static_cast<size_t>(s.grid));
  DeviceBuffer<unsigned> counter(1);
  Stream stream;
  cudaStream_t st = stream.get();
  const int fill_grid = static_cast<int>(std::clamp<int64_t>((n + 255) / 256, 1, int64_t{out.sm_count} * 16));
  rk::fill_kernel<T><<<fill_grid, 256, 0, st>>>(in.data(), n);
  BS_CUDA_CHECK_LAUNCH();
  const unsigned g = static_cast<unsigned>(s.grid), b = static_cast<unsigned>(s.threads);
  const size_t dyn = static_cast<size_t>(s.dynamic_smem);
  const int n32 = static_cast<int>(std::min<int64_t>(n, 1 << 30));
  const int m = std::max(2, static_cast<int>(std::bit_ceil(static_cast<unsigned>(n32))));
  out.blocks = detail::record_launches(
      out.grid, st, out.appended, out.nsmid, [&](BlockRecord* rec, uint32_t* meta, uint32_t cap) {
        if (!scan) {
          if (p.reduce_variant == reduce::ReduceVariant::AtomicPerBlock)
            BS_CUDA_CHECK(cudaMemsetAsync(dst.data(), 0, sizeof(T), st));
          ladder_kernel<T>(p.reduce_variant, p.block)<<<g, b, dyn, st>>>(in.data(), dst.data(), n, rec, meta,
                                                                         cap);
          return;
        }
        switch (p.scan_variant) {
          case reduce::ScanVariant::HillisSteeleBlock:
            hillis_steele_instrumented<T>
                <<<1, b, dyn, st>>>(in.data(), dst.data(), n32, exclusive, rec, meta, cap);
            break;
          case reduce::ScanVariant::BlellochBlock:
            blelloch_instrumented<T>
                <<<1, b, dyn, st>>>(in.data(), dst.data(), n32, m, exclusive, rec, meta, cap);
            break;
          case reduce::ScanVariant::ScanThenPropagate:
            tile_scan_instrumented<T><<<g, b, dyn, st>>>(in.data(), dst.data(), n, sums.data(), exclusive,
                                                         s.transposed, rec, meta, cap);
            break;
          default:
            BS_CUDA_CHECK(cudaMemsetAsync(state.data(), 0, state.bytes(), st));
            BS_CUDA_CHECK(cudaMemsetAsync(counter.data(), 0, sizeof(unsigned), st));
            lookback_instrumented<T><<<g, b, dyn, st>>>(in.data(), dst.data(), n, exclusive, s.transposed,
                                                        state.data(), counter.data(), rec, meta, cap);
            break;
        }
      });
}

}  // namespace

ReduceRecord record_reduce_blocks(const reduce::Params& p) {
  if (auto err = reduce::validate(p)) throw InvalidRequest(*err);
  if (!is_instrumented_reduce(p))
    throw InvalidRequest("cub has no instrumented copy: the library picks its own kernels");
  const DeviceInfo info = detail::require_device();
  ReduceRecord out;
  out.params = p;
  out.shape = shape_on(p, info);
  out.block = Dim2{p.block, 1};
  out.grid = Dim2{out.shape.grid, 1};
  detail::check_record_size(out.grid, reduce::describe(p));
  if (auto err = validate_grid(out.grid, info.limits)) throw InvalidRequest(*err);
  const uint64_t need = reduce::device_bytes_needed(p, info.sm_count) +
                        static_cast<uint64_t>(out.grid.count()) * (sizeof(BlockRecord) + 16);
  if (need > info.free_mem)
    throw InvalidRequest("recording needs " + std::to_string(need >> 20) + " MiB of device memory; " +
                         std::to_string(info.free_mem >> 20) + " MiB are free");
  out.device_name = info.name;
  out.sm_count = info.sm_count;
  const void* f =
      p.type == reduce::ElemType::F32 ? instrumented_function<float>(p) : instrumented_function<int32_t>(p);
  const std::string name = out.shape.kernel + " (instrumented)";
  const KernelAttributes attrs = kernel_attributes(f, name);
  out.regs_per_thread = attrs.regs_per_thread;
  out.static_smem = attrs.static_smem;
  out.arch = device_arch();
  KernelUsage u;
  u.threads_per_block = p.block;
  u.regs_per_thread = attrs.regs_per_thread;
  u.static_smem = attrs.static_smem;
  u.dynamic_smem = out.shape.dynamic_smem;
  out.model = compute_occupancy(out.arch, u);
  // Also opts the kernel in to dynamic shared memory beyond 48 KiB (the tile scans' buffer), as the lab does.
  out.runtime_blocks_per_sm = runtime_blocks_per_sm(f, p.block, out.shape.dynamic_smem);
  if (out.runtime_blocks_per_sm < 1)
    throw InvalidRequest("the instrumented " + out.shape.kernel + " cannot run with block " +
                         std::to_string(p.block) + " on this device");
  if (p.type == reduce::ElemType::F32)
    record_typed<float>(p, out);
  else
    record_typed<int32_t>(p, out);
  return out;
}

DeviceOccupancy reduce_device_occupancy(const reduce::Params& p) {
  if (auto err = reduce::validate(p)) throw InvalidRequest(*err);
  if (!is_instrumented_reduce(p))
    throw InvalidRequest("cub picks its own kernels and launches: nothing to query");
  const DeviceInfo info = detail::require_device();
  const reduce::KernelShape s = shape_on(p, info);
  const void* f = reduce::GpuRunner::first_kernel_function(p);
  DeviceOccupancy d;
  d.arch = device_arch();
  d.attrs = kernel_attributes(f, s.kernel);
  d.usage.threads_per_block = p.block;
  d.usage.regs_per_thread = d.attrs.regs_per_thread;
  d.usage.static_smem = d.attrs.static_smem;
  d.usage.dynamic_smem = s.dynamic_smem;
  d.model = compute_occupancy(d.arch, d.usage);
  d.runtime_blocks_per_sm = runtime_blocks_per_sm(f, p.block, s.dynamic_smem);
  return d;
}

}  // namespace bs::anatomy
