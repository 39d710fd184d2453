// anatomy_gpu.cu: the anatomy tools' device side: small demo kernels with different register and
// shared-memory use for the occupancy comparison, the by-name kernel registry the labs add to, and the
// device-side occupancy queries.
#include <algorithm>
#include <type_traits>

#include "gpu/anatomy/anatomy.h"
#include "gpu/anatomy/probe.cuh"
#include "gpu/anatomy/record.cuh"
#include "gpu/common/device_buffer.h"
#include "gpu/common/device_info.h"

namespace bs::anatomy {

using detail::require_device;

namespace {

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

const std::vector<NamedKernel>& demo_kernels() {
  static const std::vector<NamedKernel> kernels = {
      {"demo_regs", reinterpret_cast<const void*>(&demo_regs_kernel)},
      {"demo_smem_static", reinterpret_cast<const void*>(&demo_smem_static_kernel)},
      {"demo_smem_dynamic", reinterpret_cast<const void*>(&demo_smem_dynamic_kernel)},
  };
  return kernels;
}

// The labs' kernels (register_kernels), kept in name order.
std::vector<NamedKernel>& lab_kernels() {
  static std::vector<NamedKernel> kernels;
  return kernels;
}

std::vector<NamedKernel> registry() {
  std::vector<NamedKernel> all = lab_kernels();
  all.insert(all.end(), demo_kernels().begin(), demo_kernels().end());
  return all;
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

bool register_kernels(std::initializer_list<NamedKernel> kernels) {
  std::vector<NamedKernel>& all = lab_kernels();
  all.insert(all.end(), kernels.begin(), kernels.end());
  std::stable_sort(all.begin(), all.end(),
                   [](const NamedKernel& a, const NamedKernel& b) { return std::string_view(a.name) < b.name; });
  return true;
}

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

}  // namespace bs::anatomy
