// anatomy_gpu.cu: this lab's kernels and their host side: a copy of the heat stencil (plain and instrumented
// with per-block SM id and start/end times), small demo kernels with different register and shared-memory use
// for the occupancy comparison, and the device-side occupancy queries.
#include <algorithm>
#include <type_traits>

#include "gpu/anatomy/anatomy.h"
#include "gpu/anatomy/probe.cuh"
#include "gpu/anatomy/record.cuh"
#include "gpu/common/device_buffer.h"
#include "gpu/common/device_info.h"
#include "gpu/heat/heat.h"
#include "gpu/heat/stencil_column.cuh"
#include "gpu/matmul/matmul.h"
#include "gpu/matmul/matmul_bodies.cuh"

namespace bs::anatomy {

using detail::BlockProbe;
using detail::check_record_size;
using detail::record_launches;
using detail::require_device;

namespace {

using heat::stencil_column;  // the heat lab's own per-thread code (gpu/heat/stencil_column.cuh)

// The plain stencil (thread (x, y) -> cells (x, y*C) .. (x, y*C + C - 1)), for occupancy queries of "the heat
// kernel" at each cells-per-thread setting.
template <bool Fixed, int C>
__global__ void heat_step_kernel(const float* __restrict__ in, float* __restrict__ out, int nx, int ny,
                                 float r, float bt) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * C;
  if (x >= nx || y0 >= ny) return;
  stencil_column<Fixed, C>(in, out, x, y0, nx, ny, r, bt);
}

// INSTRUMENTED heat stencil: gpu/heat's coarsened kernel plus the probe.
template <bool Fixed, int C>
__global__ void heat_step_instrumented_kernel(const float* __restrict__ in, float* __restrict__ out, int nx,
                                              int ny, float r, float bt, BlockRecord* __restrict__ rec,
                                              uint32_t* __restrict__ meta, uint32_t capacity) {
  BlockProbe probe;
  probe.begin();
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * C;
  if (x < nx && y0 < ny) stencil_column<Fixed, C>(in, out, x, y0, nx, ny, r, bt);
  probe.end(rec, meta, capacity);
}

// INSTRUMENTED versions of gpu/matmul's naive and tiled kernels: the lab's own kernel bodies
// (gpu/matmul/matmul_bodies.cuh) between the probe's start and end.
template <bool RowsAlongX>
__global__ void matmul_naive_instrumented(const float* __restrict__ a, const float* __restrict__ b,
                                          float* __restrict__ c, int m, int n, int k,
                                          BlockRecord* __restrict__ rec, uint32_t* __restrict__ meta,
                                          uint32_t capacity) {
  BlockProbe probe;
  probe.begin();
  matmul::kernels::naive_body<RowsAlongX>(a, b, c, m, n, k);
  probe.end(rec, meta, capacity);
}

template <int T>
__global__ void matmul_smem_instrumented(const float* __restrict__ a, const float* __restrict__ b,
                                         float* __restrict__ c, int m, int n, int k,
                                         BlockRecord* __restrict__ rec, uint32_t* __restrict__ meta,
                                         uint32_t capacity) {
  BlockProbe probe;
  probe.begin();
  matmul::kernels::smem_tile_body<T>(a, b, c, m, n, k);
  probe.end(rec, meta, capacity);
}

using MatmulInstrumentedFn = void (*)(const float*, const float*, float*, int, int, int, BlockRecord*,
                                      uint32_t*, uint32_t);

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
      {"heat", reinterpret_cast<const void*>(&heat_step_kernel<true, 1>)},
      {"heat_c2", reinterpret_cast<const void*>(&heat_step_kernel<true, 2>)},
      {"heat_c4", reinterpret_cast<const void*>(&heat_step_kernel<true, 4>)},
      {"heat_c8", reinterpret_cast<const void*>(&heat_step_kernel<true, 8>)},
      {"heat_instrumented", reinterpret_cast<const void*>(&heat_step_instrumented_kernel<true, 1>)},
      {"heat_instrumented_c2", reinterpret_cast<const void*>(&heat_step_instrumented_kernel<true, 2>)},
      {"heat_instrumented_c4", reinterpret_cast<const void*>(&heat_step_instrumented_kernel<true, 4>)},
      {"heat_instrumented_c8", reinterpret_cast<const void*>(&heat_step_instrumented_kernel<true, 8>)},
      {"matmul_naive_uncoalesced_instrumented",
       reinterpret_cast<const void*>(&matmul_naive_instrumented<true>)},
      {"matmul_naive_coalesced_instrumented",
       reinterpret_cast<const void*>(&matmul_naive_instrumented<false>)},
      {"matmul_smem_tile8_instrumented", reinterpret_cast<const void*>(&matmul_smem_instrumented<8>)},
      {"matmul_smem_tile16_instrumented", reinterpret_cast<const void*>(&matmul_smem_instrumented<16>)},
      {"matmul_smem_tile32_instrumented", reinterpret_cast<const void*>(&matmul_smem_instrumented<32>)},
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
  return kernel_attributes(find_kernel(kernel), kernel);
}

KernelAttributes kernel_attributes(const void* f, std::string_view kernel) {
  if (!f) throw InvalidRequest("kernel '" + std::string(kernel) + "': no device function to query");
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
  return runtime_blocks_per_sm(find_kernel(kernel), threads_per_block, dynamic_smem);
}

int runtime_blocks_per_sm(const void* f, int threads_per_block, int64_t dynamic_smem) {
  if (!f) throw InvalidRequest("no device function to query");
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

std::string heat_kernel_name(int cells_per_thread) {
  return cells_per_thread <= 1 ? std::string("heat") : "heat_c" + std::to_string(cells_per_thread);
}

namespace {

using HeatInstrumentedFn = void (*)(const float*, float*, int, int, float, float, BlockRecord*, uint32_t*,
                                    uint32_t);
HeatInstrumentedFn heat_instrumented_for(int cells_per_thread) {
  switch (cells_per_thread) {
    case 1:
      return heat_step_instrumented_kernel<true, 1>;
    case 2:
      return heat_step_instrumented_kernel<true, 2>;
    case 4:
      return heat_step_instrumented_kernel<true, 4>;
    default:
      return heat_step_instrumented_kernel<true, 8>;
  }
}

// Fills the fields every record shares (attributes, arch, model, runtime occupancy) for kernel `name`.
template <class Record>
void fill_occupancy(Record& out, const std::string& name, int threads) {
  const KernelAttributes attrs = kernel_attributes(name);
  out.regs_per_thread = attrs.regs_per_thread;
  out.arch = device_arch();
  KernelUsage u;
  u.threads_per_block = threads;
  u.regs_per_thread = attrs.regs_per_thread;
  u.static_smem = attrs.static_smem;
  out.model = compute_occupancy(out.arch, u);
  out.runtime_blocks_per_sm = runtime_blocks_per_sm(name, threads, 0);
}

}  // namespace

HeatRecord record_heat_blocks(const HeatRecordRequest& req) {
  heat::Params p;
  p.nx = req.nx;
  p.ny = req.ny;
  if (auto err = heat::validate(p)) throw InvalidRequest(*err);
  if (auto err = heat::validate_cells_per_thread(req.cells_per_thread)) throw InvalidRequest(*err);
  if (auto err = validate_block(req.block, DeviceLimits{})) throw InvalidRequest(*err);
  // Checked before looking for a device, so that the answer does not depend on having one.
  const Dim2 grid = covering_grid(heat::cells_of(req.block, req.cells_per_thread), {p.nx, p.ny});
  check_record_size(grid, "a " + to_string({p.nx, p.ny}) + " field with block " + to_string(req.block));
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
  out.cells_per_thread = req.cells_per_thread;
  out.device_name = info.name;
  out.sm_count = info.sm_count;

  const std::vector<float> field = heat::make_initial(p, heat::InitialPattern::HotSpots);
  DeviceBuffer<float> in(cells), dst(cells);
  Stream stream;
  BS_CUDA_CHECK(cudaMemcpyAsync(in.data(), field.data(), in.bytes(), cudaMemcpyHostToDevice, stream.get()));
  const dim3 b(static_cast<unsigned>(req.block.x), static_cast<unsigned>(req.block.y));
  const dim3 g(static_cast<unsigned>(grid.x), static_cast<unsigned>(grid.y));
  const HeatInstrumentedFn kernel = heat_instrumented_for(req.cells_per_thread);
  out.blocks = record_launches(
      grid, stream.get(), out.appended, out.nsmid, [&](BlockRecord* rec, uint32_t* meta, uint32_t capacity) {
        kernel<<<g, b, 0, stream.get()>>>(in.data(), dst.data(), static_cast<int>(p.nx),
                                          static_cast<int>(p.ny), p.r(), p.boundary_temp, rec, meta,
                                          capacity);
      });
  const std::string name = req.cells_per_thread == 1
                               ? std::string("heat_instrumented")
                               : "heat_instrumented_c" + std::to_string(req.cells_per_thread);
  fill_occupancy(out, name, static_cast<int>(req.block.count()));
  return out;
}

std::vector<std::string> instrumented_matmul_variants() {
  return {"naive_uncoalesced", "naive_coalesced", "smem_tile8", "smem_tile16", "smem_tile32"};
}

bool is_instrumented_matmul_variant(std::string_view variant) {
  for (const auto& v : instrumented_matmul_variants())
    if (v == variant) return true;
  return false;
}

MatmulRecord record_matmul_blocks(const MatmulRecordRequest& req) {
  const matmul::Problem p{req.m, req.n, req.k};
  if (auto err = matmul::validate(p)) throw InvalidRequest(*err);
  const auto v = matmul::parse_variant(req.variant);
  if (!v || !is_instrumented_matmul_variant(req.variant)) {
    std::string names;
    for (const auto& n : instrumented_matmul_variants())
      names += (names.empty() ? "" : ", ") + n;
    throw InvalidRequest("variant '" + req.variant + "' has no instrumented copy; instrumented: " + names);
  }
  const matmul::LaunchShape shape = matmul::launch_shape(*v, p);
  check_record_size(shape.grid,
                    "C " + std::to_string(p.m) + "x" + std::to_string(p.n) + " with " + req.variant);
  const DeviceInfo info = require_device();
  if (auto err = validate_grid(shape.grid, info.limits)) throw InvalidRequest(*err);
  if (auto err = matmul::validate_memory(p, info.free_mem)) throw InvalidRequest(*err);

  MatmulRecord out;
  out.m = p.m;
  out.n = p.n;
  out.k = p.k;
  out.variant = req.variant;
  out.block = shape.block;
  out.grid = shape.grid;
  out.device_name = info.name;
  out.sm_count = info.sm_count;

  const std::vector<float> a = matmul::make_matrix(p.m, p.k, 1), bm = matmul::make_matrix(p.k, p.n, 2);
  DeviceBuffer<float> da(a.size()), db(bm.size()), dc(p.c_count());
  Stream stream;
  BS_CUDA_CHECK(cudaMemcpyAsync(da.data(), a.data(), da.bytes(), cudaMemcpyHostToDevice, stream.get()));
  BS_CUDA_CHECK(cudaMemcpyAsync(db.data(), bm.data(), db.bytes(), cudaMemcpyHostToDevice, stream.get()));
  MatmulInstrumentedFn kernel = nullptr;
  switch (*v) {
    case matmul::Variant::NaiveUncoalesced:
      kernel = matmul_naive_instrumented<true>;
      break;
    case matmul::Variant::NaiveCoalesced:
      kernel = matmul_naive_instrumented<false>;
      break;
    case matmul::Variant::SmemTile8:
      kernel = matmul_smem_instrumented<8>;
      break;
    case matmul::Variant::SmemTile16:
      kernel = matmul_smem_instrumented<16>;
      break;
    default:
      kernel = matmul_smem_instrumented<32>;
      break;
  }
  const dim3 b(static_cast<unsigned>(shape.block.x), static_cast<unsigned>(shape.block.y));
  const dim3 g(static_cast<unsigned>(shape.grid.x), static_cast<unsigned>(shape.grid.y));
  out.blocks = record_launches(shape.grid, stream.get(), out.appended, out.nsmid,
                               [&](BlockRecord* rec, uint32_t* meta, uint32_t capacity) {
                                 kernel<<<g, b, 0, stream.get()>>>(
                                     da.data(), db.data(), dc.data(), static_cast<int>(p.m),
                                     static_cast<int>(p.n), static_cast<int>(p.k), rec, meta, capacity);
                               });
  const std::string name = "matmul_" + req.variant + "_instrumented";
  out.static_smem = kernel_attributes(name).static_smem;
  fill_occupancy(out, name, static_cast<int>(shape.block.count()));
  return out;
}

}  // namespace bs::anatomy
