// ceilings_gpu.cu: the GPU's ceilings, each the median of several timed launches (CUDA events) after a
// warm-up. The kernels are the simplest that reach each limit: what a well-written kernel can hope for.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
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

// Inputs for the tensor-core GEMMs: values in (-1, 1) from an index hash, never zero (tensor cores multiplying
// zeros draw less power and may clock higher than on real data).
template <typename T>
__global__ void fill_kernel(T* out, int64_t n, uint32_t seed) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    uint32_t h = static_cast<uint32_t>(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    const float v = (static_cast<float>(h >> 8) + 0.5f) / 8388608.0f - 1.0f;  // (-1, 1), never 0
    out[i] = static_cast<T>(v);
  }
}

#define BS_ROOF_CUBLAS(expr)                                                                                   \
  do {                                                                                                         \
    const cublasStatus_t bs_st_ = (expr);                                                                      \
    if (bs_st_ != CUBLAS_STATUS_SUCCESS)                                                                       \
      throw GpuError(std::string("cuBLAS error ") + cublasGetStatusName(bs_st_) + " in " #expr, 0, false);     \
  } while (0)

// A cuBLAS handle on one stream, destroyed with the object (the error only logged: destructors do not throw).
class Blas {
 public:
  explicit Blas(cudaStream_t s) {
    BS_ROOF_CUBLAS(cublasCreate(&m_h));
    BS_ROOF_CUBLAS(cublasSetStream(m_h, s));
  }
  ~Blas() {
    if (m_h && cublasDestroy(m_h) != CUBLAS_STATUS_SUCCESS)
      log_cuda_error(cudaErrorUnknown, "cublasDestroy", __FILE__, __LINE__);
  }
  Blas(const Blas&) = delete;
  Blas& operator=(const Blas&) = delete;
  cublasHandle_t get() const { return m_h; }

 private:
  cublasHandle_t m_h = nullptr;
};

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
  measure_tensor_cores(c);
  c.how = "float4 copy of 2 x " + std::to_string((n * sizeof(float)) >> 20) +
          " MiB; L2: " + std::to_string((l2_floats * sizeof(float)) >> 20) + " MiB read " +
          std::to_string(passes) + " times; shared: float4 loads; FP32: " + std::to_string(k_fma_chains) +
          " FMA chains per thread; " + std::to_string(grid) + " blocks of " + std::to_string(threads) +
          "; medians of 7 (CUDA events)";
  return c;
}

void measure_tensor_cores(Ceilings& c) {
  const DeviceInfo d = query_device(0);
  if (!d.available) throw GpuError(d.reason, 0, false);
  BS_CUDA_CHECK(cudaSetDevice(0));
  c.bf16_gflops = c.fp16_gflops = c.tf32_gflops = 0;
  c.tc_how.clear();
  c.tc_absent.clear();
  const int cc = d.cc_major * 10 + d.cc_minor;
  if (cc < 70) {
    c.tc_absent = "no tensor cores: this GPU is compute capability " + d.compute_capability() +
                  " (FP16 tensor cores came with 7.0, BF16 and TF32 with 8.0)";
    return;
  }
  if (cc < 80)
    c.tc_absent = "BF16 and TF32: no such tensor cores on compute capability " + d.compute_capability() +
                  " (they came with 8.0)";
  // 4096 and 8192 where it fits: A and B as float32 (TF32 reads them), their FP16 and BF16 copies, C as
  // float32: 20 bytes per element, with a quarter to spare.
  auto fits = [&](double n) { return static_cast<double>(d.free_mem) > n * n * 20 * 1.25; };
  if (!fits(4096)) {
    const int need_mib = static_cast<int>(4096.0 * 4096 * 20 * 1.25 / (1 << 20));
    c.tc_absent = "not measured: 4096^3 GEMMs need " + std::to_string(need_mib) + " MiB of free GPU memory, " +
                  std::to_string(d.free_mem >> 20) + " MiB free";
    return;
  }
  std::vector<int> sizes{4096};
  if (fits(8192)) sizes.push_back(8192);
  const int64_t n_max = sizes.back();
  const size_t count = static_cast<size_t>(n_max * n_max);
  Stream stream;
  DeviceBuffer<float> a32(count), b32(count), out(count);
  DeviceBuffer<__half> a16(count), b16(count);
  DeviceBuffer<__nv_bfloat16> ab(count), bb(count);
  const unsigned blocks = static_cast<unsigned>(std::max(1, d.sm_count) * 8);
  fill_kernel<<<blocks, 256, 0, stream.get()>>>(a32.data(), static_cast<int64_t>(count), 1u);
  fill_kernel<<<blocks, 256, 0, stream.get()>>>(b32.data(), static_cast<int64_t>(count), 2u);
  fill_kernel<<<blocks, 256, 0, stream.get()>>>(a16.data(), static_cast<int64_t>(count), 1u);
  fill_kernel<<<blocks, 256, 0, stream.get()>>>(b16.data(), static_cast<int64_t>(count), 2u);
  fill_kernel<<<blocks, 256, 0, stream.get()>>>(ab.data(), static_cast<int64_t>(count), 1u);
  fill_kernel<<<blocks, 256, 0, stream.get()>>>(bb.data(), static_cast<int64_t>(count), 2u);
  BS_CUDA_CHECK_LAUNCH();
  Blas blas(stream.get());
  // The default math mode: the compute type of each call alone decides whether TF32 is used.
  BS_ROOF_CUBLAS(cublasSetMathMode(blas.get(), CUBLAS_DEFAULT_MATH));
  struct Kind {
    work::Math math;
    int min_cc;
    const void *a, *b;
    cudaDataType_t type;
    cublasComputeType_t compute;
    double* into;
  };
  const Kind kinds[] = {
      {work::Math::Bf16, 80, ab.data(), bb.data(), CUDA_R_16BF, CUBLAS_COMPUTE_32F, &c.bf16_gflops},
      {work::Math::Fp16, 70, a16.data(), b16.data(), CUDA_R_16F, CUBLAS_COMPUTE_32F, &c.fp16_gflops},
      {work::Math::Tf32, 80, a32.data(), b32.data(), CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, &c.tf32_gflops},
  };
  const float alpha = 1.0f, beta = 0.0f;
  for (const Kind& k : kinds) {
    if (cc < k.min_cc) continue;
    for (const int n : sizes) {
      const double ms = time_ms(
          [&](cudaStream_t) {
            BS_ROOF_CUBLAS(cublasGemmEx(blas.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, k.a, k.type, n, k.b,
                                        k.type, n, &beta, out.data(), CUDA_R_32F, n, k.compute,
                                        CUBLAS_GEMM_DEFAULT));
          },
          stream.get(), 5);
      *k.into = std::max(*k.into, 2.0 * n * static_cast<double>(n) * n / (ms * 1e-3) / 1e9);
    }
  }
  std::string at;
  for (const int n : sizes)
    at += (at.empty() ? "" : " and ") + std::to_string(n) + "^3";
  c.tc_how = "best of cuBLAS cublasGemmEx (FP32 accumulate and output) at " + at +
             ", each the median of 5 after a warm-up (CUDA events)";
}

}  // namespace bs::roofline
