// ceilings_gpu.cu: the GPU's ceilings, each the median of several timed launches (CUDA events) after a
// warm-up. The kernels are the simplest that reach each limit: what a well-written kernel can hope for.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

#include "core/error.h"
#include "core/stats.h"
#include "gpu/common/cuda_check.h"
#include "gpu/common/device_buffer.h"
#include "gpu/common/device_info.h"
#include "gpu/roofline/ceilings.h"

namespace bs::roofline {

namespace {

__global__ void copy_kernel(const float4* __restrict__ in, float4* __restrict__ out, int64_t n4) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n4;
       i += int64_t{gridDim.x} * blockDim.x)
    out[i] = in[i];
}

// Every thread reads its float4s of an L2-resident buffer `passes` times; one float per thread is written so
// that the loads cannot be dropped.
__global__ void l2_read_kernel(const float4* __restrict__ in, int64_t n4, int passes, float* out) {
  float s = 0;
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int p = 0; p < passes; ++p)
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n4; i += stride) {
      const float4 v = __ldcg(in + i);  // cache in L2 only, not L1: L2 is what is measured
      s += v.x + v.y + v.z + v.w;
    }
  if (s == -1.0f) out[0] = s;  // never true for the positive inputs; the compiler cannot know it
}

constexpr int k_smem_words = 4096;  // 16 KiB of float4s per block
__global__ void smem_read_kernel(int iterations, float* out) {
  __shared__ float4 buf[k_smem_words / 4];
  for (int i = threadIdx.x; i < k_smem_words / 4; i += blockDim.x)
    buf[i] = make_float4(i, i + 1, i + 2, i + 3);
  __syncthreads();
  float4 s = make_float4(0, 0, 0, 0);
  int idx = threadIdx.x;
  for (int it = 0; it < iterations; ++it) {
    const float4 v = buf[idx];  // consecutive lanes read consecutive float4s: no bank conflicts
    s.x += v.x;
    s.y += v.y;
    s.z += v.z;
    s.w += v.w;
    idx = (idx + 32) & (k_smem_words / 4 - 1);
  }
  if (s.x + s.y + s.z + s.w == -1.0f) out[0] = s.x;
}

constexpr int k_fma_chains = 8;
__global__ void fma_kernel(int iterations, float m, float a, float* out) {
  float acc[k_fma_chains];
#pragma unroll
  for (int c = 0; c < k_fma_chains; ++c)
    acc[c] = threadIdx.x * 1e-3f + c;
  for (int it = 0; it < iterations; ++it)
#pragma unroll
    for (int c = 0; c < k_fma_chains; ++c)
      acc[c] = fmaf(acc[c], m, a);
  float s = 0;
#pragma unroll
  for (int c = 0; c < k_fma_chains; ++c)
    s += acc[c];
  if (s == -1.0f) out[0] = s;
}

__global__ void empty_kernel() {}

// Median milliseconds of `reps` timed calls of `launch` after one warm-up.
double time_ms(const std::function<void(cudaStream_t)>& launch, cudaStream_t stream, int reps = 7) {
  Event e0, e1;
  launch(stream);
  BS_CUDA_CHECK_LAUNCH();
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    e0.record(stream);
    launch(stream);
    e1.record(stream);
    BS_CUDA_CHECK(cudaEventSynchronize(e1.get()));
    float t = 0;
    BS_CUDA_CHECK(cudaEventElapsedTime(&t, e0.get(), e1.get()));
    ms.push_back(t);
  }
  BS_CUDA_CHECK_LAUNCH();
  return summarize(ms).median;
}

std::string uuid_text(const cudaUUID_t& u) {
  std::string s;
  char b[3];
  for (int i = 0; i < 16; ++i) {
    std::snprintf(b, sizeof b, "%02x", static_cast<unsigned char>(u.bytes[i]));
    s += b;
  }
  return s;
}

}  // namespace

std::string gpu_key() {
  const DeviceInfo d = query_device(0);
  if (!d.available) throw GpuError(d.reason, 0, false);
  cudaDeviceProp prop{};
  BS_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  return d.name + "|" + uuid_text(prop.uuid) + "|driver " + version_string(d.driver_version);
}

Ceilings measure_gpu() {
  const DeviceInfo d = query_device(0);
  if (!d.available) throw GpuError(d.reason, 0, false);
  BS_CUDA_CHECK(cudaSetDevice(0));
  Ceilings c;
  c.gpu = true;
  c.device = d.name;
  c.key = gpu_key();
  c.measured_utc = utc_now();
  Stream stream;
  DeviceBuffer<float> sink(1);
  const int blocks_per_sm = 8, threads = 256;
  const int grid = d.sm_count * blocks_per_sm;

  // DRAM: copy 2 x 512 MiB (far beyond L2), or a quarter of free memory when that is less.
  int64_t n = int64_t{128} << 20;
  n = std::min<int64_t>(n, static_cast<int64_t>(d.free_mem / 4 / sizeof(float)));
  n = std::max<int64_t>(n & ~int64_t{3}, 1 << 20);
  DeviceBuffer<float> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
  BS_CUDA_CHECK(cudaMemsetAsync(a.data(), 0x3f, n * sizeof(float), stream.get()));
  const int64_t n4 = n / 4;
  const double copy_ms = time_ms(
      [&](cudaStream_t s) {
        copy_kernel<<<grid, threads, 0, s>>>(reinterpret_cast<const float4*>(a.data()),
                                             reinterpret_cast<float4*>(b.data()), n4);
      },
      stream.get());
  c.dram_gbs = 2.0 * n * sizeof(float) / (copy_ms * 1e-3) / 1e9;

  // L2: a buffer of a quarter of L2 (resident in both partitions of an H100), read 64 times.
  const int64_t l2_floats = std::max<int64_t>(d.l2_bytes / 4 / sizeof(float), 1 << 16) & ~int64_t{3};
  const int passes = 64;
  const double l2_ms = time_ms(
      [&](cudaStream_t s) {
        l2_read_kernel<<<grid, threads, 0, s>>>(reinterpret_cast<const float4*>(a.data()), l2_floats / 4,
                                                passes, sink.data());
      },
      stream.get());
  c.l2_gbs = static_cast<double>(l2_floats) * sizeof(float) * passes / (l2_ms * 1e-3) / 1e9;

  // Shared memory: every thread loads a float4 per iteration.
  const int smem_iters = 4096;
  const double smem_ms =
      time_ms([&](cudaStream_t s) { smem_read_kernel<<<grid, threads, 0, s>>>(smem_iters, sink.data()); },
              stream.get());
  c.smem_gbs = static_cast<double>(grid) * threads * smem_iters * 16.0 / (smem_ms * 1e-3) / 1e9;

  // FP32: independent FMA chains per thread.
  const int fma_iters = 8192;
  const double fma_ms = time_ms(
      [&](cudaStream_t s) { fma_kernel<<<grid, threads, 0, s>>>(fma_iters, 0.9999f, 1e-6f, sink.data()); },
      stream.get());
  c.fp32_gflops =
      2.0 * k_fma_chains * fma_iters * static_cast<double>(grid) * threads / (fma_ms * 1e-3) / 1e9;

  // Launch overhead: 1000 empty kernels back to back, per launch.
  const int launches = 1000;
  const double launch_ms = time_ms(
      [&](cudaStream_t s) {
        for (int i = 0; i < launches; ++i)
          empty_kernel<<<1, 32, 0, s>>>();
      },
      stream.get(), 5);
  c.launch_us = launch_ms * 1e3 / launches;
  c.how = "float4 copy of 2 x " + std::to_string((n * sizeof(float)) >> 20) +
          " MiB; L2: " + std::to_string((l2_floats * sizeof(float)) >> 20) + " MiB read " +
          std::to_string(passes) + " times; shared: float4 loads; FP32: " + std::to_string(k_fma_chains) +
          " FMA chains per thread; " + std::to_string(grid) + " blocks of " + std::to_string(threads) +
          "; medians of 7 (CUDA events)";
  return c;
}

}  // namespace bs::roofline
