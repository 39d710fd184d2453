// anatomy_gpu.cu: this lab's kernels and their host side: a copy of the heat stencil (plain and instrumented
// with per-block SM id and start/end times), small demo kernels with different register and shared-memory use
// for the occupancy comparison, and the device-side occupancy queries.
#include <algorithm>
#include <type_traits>

#include "gpu/anatomy/anatomy.h"
#include "gpu/anatomy/probe.cuh"
#include "gpu/common/device_buffer.h"
#include "gpu/common/device_info.h"
#include "gpu/heat/heat.h"
#include "gpu/heat/stencil.h"

namespace bs::anatomy {

namespace {

// One cell of the heat stencil, exactly as gpu/heat's kernel computes it (the math is heat::stencil_update).
template <bool Fixed>
__device__ __forceinline__ void heat_cell(const float* __restrict__ in, float* __restrict__ out, int x, int y,
                                          int nx, int ny, float r, float bt) {
  const size_t i = static_cast<size_t>(y) * nx + x;
  const float c = __ldg(in + i);
  const float w = x > 0 ? __ldg(in + i - 1) : (Fixed ? bt : c);
  const float e = x + 1 < nx ? __ldg(in + i + 1) : (Fixed ? bt : c);
  const float n = y > 0 ? __ldg(in + i - nx) : (Fixed ? bt : c);
  const float s = y + 1 < ny ? __ldg(in + i + nx) : (Fixed ? bt : c);
  out[i] = heat::stencil_update(c, w, e, n, s, r);
}

// The plain stencil (thread (x, y) -> cell (x, y)), for occupancy queries of "the heat kernel".
template <bool Fixed>
__global__ void heat_step_kernel(const float* __restrict__ in, float* __restrict__ out, int nx, int ny,
                                 float r, float bt) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  heat_cell<Fixed>(in, out, x, y, nx, ny, r, bt);
}

// INSTRUMENTED variant: the same stencil, plus thread 0 of each block appends {blockIdx, SM, start, end} to
// `rec`. The barriers make start/end bracket the whole block's work (the first thread to arrive cannot stamp
// the start before the last one has begun; the end comes after every thread's store). They and the atomic
// change the kernel's timing, so this variant is never timed. No early return: every thread must reach both
// barriers. meta[0] counts appended records; meta[1] receives %nsmid.
template <bool Fixed>
__global__ void heat_step_instrumented_kernel(const float* __restrict__ in, float* __restrict__ out, int nx,
                                              int ny, float r, float bt, BlockRecord* __restrict__ rec,
                                              uint32_t* __restrict__ meta, uint32_t capacity) {
  const bool lead = threadIdx.x == 0 && threadIdx.y == 0;
  __syncthreads();
  uint64_t start = 0;
  uint32_t sm = 0;
  if (lead) {
    start = global_timer_ns();
    sm = sm_id();
  }
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < nx && y < ny) heat_cell<Fixed>(in, out, x, y, nx, ny, r, bt);
  __syncthreads();
  if (lead) {
    const uint64_t end = global_timer_ns();
    const uint32_t slot = atomicAdd(&meta[0], 1u);
    if (slot < capacity) {
      BlockRecord b;
      b.block_x = blockIdx.x;
      b.block_y = blockIdx.y;
      b.sm = sm;
      b.pad = 0;
      b.start_ns = start;
      b.end_ns = end;
      rec[slot] = b;
    }
    if (blockIdx.x == 0 && blockIdx.y == 0) meta[1] = sm_id_range();
  }
}

// Demo: many live values per thread, so the compiler assigns many registers (the exact count is read back
// with cudaFuncGetAttributes; the test needs only that it differs from the stencil's). Never launched.
constexpr int k_demo_live = 56;
__global__ void demo_regs_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a[k_demo_live];
#pragma unroll
  for (int k = 0; k < k_demo_live; ++k)
    a[k] = __ldg(in + (i + k * 131) % n);
#pragma unroll
  for (int it = 0; it < 4; ++it) {
#pragma unroll
    for (int k = 0; k < k_demo_live; ++k)
      a[k] = fmaf(a[k], a[(k + 1) % k_demo_live], a[(k + 5) % k_demo_live]);
  }
  float s = 0.f;
#pragma unroll
  for (int k = 0; k < k_demo_live; ++k)
    s += a[k] * static_cast<float>(k + 1);
  out[i] = s;
}

// Demo: 40 KiB of static shared memory per block, so shared memory limits residency. Never launched.
constexpr int k_demo_static_floats = 40 * 1024 / 4;
__global__ void demo_smem_static_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[k_demo_static_floats];
  for (int k = threadIdx.x; k < k_demo_static_floats; k += blockDim.x)
    tile[k] = k < n ? in[k] : 0.f;
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tile[(i * 7) % k_demo_static_floats] + tile[threadIdx.x % k_demo_static_floats];
}

// Demo: dynamic shared memory only (the launch's third parameter). Never launched.
__global__ void demo_smem_dynamic_kernel(const float* __restrict__ in, float* __restrict__ out, int n,
                                         int floats) {
  extern __shared__ float buf[];
  for (int k = threadIdx.x; k < floats; k += blockDim.x)
    buf[k] = k < n ? in[k] : 0.f;
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && floats > 0) out[i] = buf[(i * 7) % floats];
}

struct NamedKernel {
  const char* name;
  const void* func;
};

const std::vector<NamedKernel>& registry() {
  static const std::vector<NamedKernel> kernels = {
      {"heat", reinterpret_cast<const void*>(&heat_step_kernel<true>)},
      {"heat_instrumented", reinterpret_cast<const void*>(&heat_step_instrumented_kernel<true>)},
      {"demo_regs", reinterpret_cast<const void*>(&demo_regs_kernel)},
      {"demo_smem_static", reinterpret_cast<const void*>(&demo_smem_static_kernel)},
      {"demo_smem_dynamic", reinterpret_cast<const void*>(&demo_smem_dynamic_kernel)},
  };
  return kernels;
}

const void* find_kernel(std::string_view name) {
  for (const auto& k : registry())
    if (name == k.name) return k.func;
  std::string names;
  for (const auto& k : registry())
    names += (names.empty() ? "" : ", ") + std::string(k.name);
  throw InvalidRequest("unknown kernel '" + std::string(name) + "'; known kernels: " + names);
}

DeviceInfo require_device() {
  DeviceInfo info = query_device();
  if (!info.available) throw GpuError("no CUDA device: " + info.reason, 100, false);
  return info;
}

}  // namespace

std::vector<std::string> kernel_names() {
  std::vector<std::string> out;
  for (const auto& k : registry())
    out.emplace_back(k.name);
  return out;
}

ArchSpec device_arch() {
  const DeviceInfo info = require_device();
  cudaDeviceProp p{};
  BS_CUDA_CHECK(cudaGetDeviceProperties(&p, info.index));
  const std::string sm = "sm_" + std::to_string(p.major) + std::to_string(p.minor);
  std::optional<ArchSpec> base = find_arch(sm);
  ArchSpec a;
  if (base) {
    a = *base;
  } else {
    // Not in the table: keep the newest entry's granularities, with the device's own shared memory as the
    // only carve-out.
    a = arch_table().back();
    a.smem_carveouts = {static_cast<int64_t>(p.sharedMemPerMultiprocessor)};
    a.note = "compute capability " + std::to_string(p.major) + "." + std::to_string(p.minor) +
             " is not in the table: carve-outs and granularities are assumed as for " + a.name;
  }
  a.name = sm;
  a.family = p.name;
  a.cc_major = p.major;
  a.cc_minor = p.minor;
  a.from_device = true;
  // What the device reports wins; say where it differs from the table, since that would make the model wrong.
  std::string diffs;
  auto take = [&](const char* what, auto& field, auto value) {
    if (base && static_cast<int64_t>(field) != static_cast<int64_t>(value))
      diffs += std::string(diffs.empty() ? "" : "; ") + what + " " + std::to_string(value) + " (table " +
               std::to_string(field) + ")";
    field = static_cast<std::remove_reference_t<decltype(field)>>(value);
  };
  take("warp size", a.warp_size, p.warpSize);
  take("max threads per block", a.max_threads_per_block, p.maxThreadsPerBlock);
  take("max threads per SM", a.max_threads_per_sm, p.maxThreadsPerMultiProcessor);
  take("max warps per SM", a.max_warps_per_sm, p.maxThreadsPerMultiProcessor / p.warpSize);
  take("max blocks per SM", a.max_blocks_per_sm, p.maxBlocksPerMultiProcessor);
  take("registers per SM", a.regs_per_sm, p.regsPerMultiprocessor);
  take("registers per block", a.regs_per_block, p.regsPerBlock);
  take("shared memory per SM", a.smem_per_sm, p.sharedMemPerMultiprocessor);
  take("shared memory per block", a.smem_per_block_default, p.sharedMemPerBlock);
  take("shared memory per block (opt-in)", a.smem_per_block_optin, p.sharedMemPerBlockOptin);
  take("reserved shared memory per block", a.smem_reserved_per_block, p.reservedSharedMemPerBlock);
  if (!diffs.empty())
    a.note += (a.note.empty() ? "" : "; ") + std::string("the device differs from the table: ") + diffs;
  return a;
}

KernelAttributes kernel_attributes(std::string_view kernel) {
  const void* f = find_kernel(kernel);
  require_device();
  cudaFuncAttributes fa{};
  BS_CUDA_CHECK(cudaFuncGetAttributes(&fa, f));
  KernelAttributes k;
  k.name = std::string(kernel);
  k.regs_per_thread = fa.numRegs;
  k.static_smem = static_cast<int64_t>(fa.sharedSizeBytes);
  k.local_bytes = static_cast<int64_t>(fa.localSizeBytes);
  k.max_threads_per_block = fa.maxThreadsPerBlock;
  k.binary_version = fa.binaryVersion;
  return k;
}

int runtime_blocks_per_sm(std::string_view kernel, int threads_per_block, int64_t dynamic_smem) {
  const void* f = find_kernel(kernel);
  const DeviceInfo info = require_device();
  if (threads_per_block < 1) throw InvalidRequest("threads per block must be at least 1");
  if (dynamic_smem < 0) throw InvalidRequest("dynamic shared memory cannot be negative");
  cudaFuncAttributes fa{};
  BS_CUDA_CHECK(cudaFuncGetAttributes(&fa, f));
  const int64_t total = static_cast<int64_t>(fa.sharedSizeBytes) + dynamic_smem;
  // Beyond the opt-in maximum no launch can run, and the attribute below would be rejected.
  if (total > static_cast<int64_t>(info.smem_per_block_optin)) return 0;
  if (total > static_cast<int64_t>(info.smem_per_block))
    BS_CUDA_CHECK(
        cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(dynamic_smem)));
  int blocks = 0;
  BS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, threads_per_block,
                                                              static_cast<size_t>(dynamic_smem)));
  return blocks;
}

DeviceOccupancy device_occupancy(std::string_view kernel, int threads_per_block, int64_t dynamic_smem) {
  DeviceOccupancy d;
  d.arch = device_arch();
  d.attrs = kernel_attributes(kernel);
  if (threads_per_block > d.attrs.max_threads_per_block)
    throw InvalidRequest("kernel '" + d.attrs.name + "' runs at most " +
                         std::to_string(d.attrs.max_threads_per_block) + " threads per block (its " +
                         std::to_string(d.attrs.regs_per_thread) +
                         " registers per thread allow no more); got " + std::to_string(threads_per_block));
  d.usage.threads_per_block = threads_per_block;
  d.usage.regs_per_thread = d.attrs.regs_per_thread;
  d.usage.static_smem = d.attrs.static_smem;
  d.usage.dynamic_smem = dynamic_smem;
  d.model = compute_occupancy(d.arch, d.usage);
  d.runtime_blocks_per_sm = runtime_blocks_per_sm(kernel, threads_per_block, dynamic_smem);
  return d;
}

HeatRecord record_heat_blocks(const HeatRecordRequest& req) {
  heat::Params p;
  p.nx = req.nx;
  p.ny = req.ny;
  if (auto err = heat::validate(p)) throw InvalidRequest(*err);
  if (auto err = validate_block(req.block, DeviceLimits{})) throw InvalidRequest(*err);
  // Checked before looking for a device, so that the answer does not depend on having one.
  const Dim2 grid = covering_grid(req.block, {p.nx, p.ny});
  if (grid.count() > k_max_recorded_blocks)
    throw InvalidRequest("a " + to_string({p.nx, p.ny}) + " field with block " + to_string(req.block) +
                         " has " + std::to_string(grid.count()) + " blocks; the record holds at most " +
                         std::to_string(k_max_recorded_blocks) + ": use larger blocks or a smaller field");
  const DeviceInfo info = require_device();
  if (auto err = validate_block(req.block, info.limits)) throw InvalidRequest(*err);
  if (auto err = validate_grid(grid, info.limits)) throw InvalidRequest(*err);
  const size_t cells = static_cast<size_t>(p.cells());
  const size_t need = 2 * cells * sizeof(float) + static_cast<size_t>(grid.count()) * sizeof(BlockRecord);
  if (need > info.free_mem)
    throw InvalidRequest("recording needs " + std::to_string(need >> 20) + " MiB of device memory; " +
                         std::to_string(info.free_mem >> 20) + " MiB are free");

  HeatRecord out;
  out.nx = p.nx;
  out.ny = p.ny;
  out.block = req.block;
  out.grid = grid;
  out.device_name = info.name;
  out.sm_count = info.sm_count;

  const std::vector<float> field = heat::make_initial(p, heat::InitialPattern::HotSpots);
  DeviceBuffer<float> in(cells), dst(cells);
  DeviceBuffer<BlockRecord> rec(static_cast<size_t>(grid.count()));
  DeviceBuffer<uint32_t> meta(2);
  Stream stream;
  BS_CUDA_CHECK(cudaMemcpyAsync(in.data(), field.data(), in.bytes(), cudaMemcpyHostToDevice, stream.get()));

  const dim3 b(static_cast<unsigned>(req.block.x), static_cast<unsigned>(req.block.y));
  const dim3 g(static_cast<unsigned>(grid.x), static_cast<unsigned>(grid.y));
  const auto capacity = static_cast<uint32_t>(grid.count());
  // Launch 0 warms up (module load, clocks); launch 1 is the one recorded.
  for (int launch = 0; launch < 2; ++launch) {
    BS_CUDA_CHECK(cudaMemsetAsync(meta.data(), 0, meta.bytes(), stream.get()));
    BS_CUDA_CHECK(cudaMemsetAsync(rec.data(), 0xff, rec.bytes(), stream.get()));
    heat_step_instrumented_kernel<true>
        <<<g, b, 0, stream.get()>>>(in.data(), dst.data(), static_cast<int>(p.nx), static_cast<int>(p.ny),
                                    p.r(), p.boundary_temp, rec.data(), meta.data(), capacity);
    BS_CUDA_CHECK_LAUNCH();
  }
  uint32_t host_meta[2] = {0, 0};
  out.blocks.resize(static_cast<size_t>(grid.count()));
  BS_CUDA_CHECK(cudaMemcpyAsync(host_meta, meta.data(), meta.bytes(), cudaMemcpyDeviceToHost, stream.get()));
  BS_CUDA_CHECK(
      cudaMemcpyAsync(out.blocks.data(), rec.data(), rec.bytes(), cudaMemcpyDeviceToHost, stream.get()));
  stream.sync();
  out.appended = host_meta[0];
  out.nsmid = host_meta[1];
  // Slots no block wrote still hold the 0xff fill; keep only the written ones so that a missing block shows.
  out.blocks.resize(std::min<size_t>(out.appended, out.blocks.size()));

  const KernelAttributes attrs = kernel_attributes("heat_instrumented");
  out.regs_per_thread = attrs.regs_per_thread;
  out.arch = device_arch();
  KernelUsage u;
  u.threads_per_block = static_cast<int>(req.block.count());
  u.regs_per_thread = attrs.regs_per_thread;
  u.static_smem = attrs.static_smem;
  out.model = compute_occupancy(out.arch, u);
  out.runtime_blocks_per_sm = runtime_blocks_per_sm("heat_instrumented", u.threads_per_block, 0);
  return out;
}

}  // namespace bs::anatomy
