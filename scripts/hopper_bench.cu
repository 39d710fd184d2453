// hopper_bench.cu: benchmark and check of the Hopper tensor-core rungs (gpu/matmul/tc_hopper.*) against
// cuBLAS BF16 (cublasGemmEx, FP32 out, CUBLAS_COMPUTE_32F, the same row-major buffers). Each step's result
// against a float64 reference of the bf16 inputs (every element on small sizes, 512 random ones and the
// corners on large ones; bound 2 k u sum|a b|, u = 2^-24) and its median time of 15 CUDA-event-timed runs
// after 3 warm-ups. Standalone: it compiles tc_hopper.cu into itself (see scripts/hopper-bench.sh for the
// command). Usage: hopper_bench [all|small|tiny|perf|one STEP M N K]   (STEP -1 = cuBLAS; "one" runs a single
// launch, for ncu)
#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "gpu/matmul/tc_hopper.cu"  // the kernels and host code, compiled into this program

using namespace bs::matmul::hopper;

#define CK(x)                                                                                 \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      printf("CUDA error %s at %s:%d: %s\n", cudaGetErrorString(e_), __FILE__, __LINE__, #x); \
      exit(2);                                                                                \
    }                                                                                         \
  } while (0)

struct Prob {
  int64_t m, n, k, lda, ldb;
  std::vector<__nv_bfloat16> a, b;
  std::vector<float> af, bf;  // bf16-rounded values as float
  __nv_bfloat16 *da = nullptr, *db = nullptr;
  float *dc = nullptr, *dref = nullptr;
};

int64_t up8(int64_t x) {
  return (x + 7) / 8 * 8;
}

void make(Prob& p, int64_t m, int64_t n, int64_t k, int64_t extra_ld, uint32_t seed) {
  p.m = m;
  p.n = n;
  p.k = k;
  p.lda = up8(k) + extra_ld;
  p.ldb = up8(n) + extra_ld;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  p.a.assign(m * p.lda, __float2bfloat16(0.f));
  p.af.assign(m * p.lda, 0.f);
  p.b.assign(k * p.ldb, __float2bfloat16(0.f));
  p.bf.assign(k * p.ldb, 0.f);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < k; ++j) {
      auto v = __float2bfloat16(u(rng));
      p.a[i * p.lda + j] = v;
      p.af[i * p.lda + j] = __bfloat162float(v);
    }
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < n; ++j) {
      auto v = __float2bfloat16(u(rng));
      p.b[i * p.ldb + j] = v;
      p.bf[i * p.ldb + j] = __bfloat162float(v);
    }
  CK(cudaMalloc(&p.da, p.a.size() * 2));
  CK(cudaMalloc(&p.db, p.b.size() * 2));
  CK(cudaMalloc(&p.dc, m * n * 4));
  CK(cudaMalloc(&p.dref, m * n * 4));
  CK(cudaMemcpy(p.da, p.a.data(), p.a.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(p.db, p.b.data(), p.b.size() * 2, cudaMemcpyHostToDevice));
}
void release(Prob& p) {
  cudaFree(p.da);
  cudaFree(p.db);
  cudaFree(p.dc);
  cudaFree(p.dref);
}

// float64 reference of one element and its error bound: 2 k u sum|a b| (u = 2^-24, FP32 accumulation).
void ref_at(const Prob& p, int64_t i, int64_t j, double& ref, double& bound) {
  double s = 0, sa = 0;
  for (int64_t q = 0; q < p.k; ++q) {
    double t = (double)p.af[i * p.lda + q] * p.bf[q * p.ldb + j];
    s += t;
    sa += std::fabs(t);
  }
  ref = s;
  bound = 2.0 * p.k * std::ldexp(1.0, -24) * sa + 1e-30;
}

cublasHandle_t g_h;

void run_cublas(Prob& p, float* c) {
  const float alpha = 1.f, beta = 0.f;
  // row-major C = A B  <=>  column-major C^T = B^T A^T
  cublasStatus_t st = cublasGemmEx(g_h, CUBLAS_OP_N, CUBLAS_OP_N, (int)p.n, (int)p.m, (int)p.k, &alpha, p.db,
                                   CUDA_R_16BF, (int)p.ldb, p.da, CUDA_R_16BF, (int)p.lda, &beta, c,
                                   CUDA_R_32F, (int)p.n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  if (st != CUBLAS_STATUS_SUCCESS) {
    printf("cublas error %d\n", (int)st);
    exit(3);
  }
}

// -1: cuBLAS, else step index
void run(Prob& p, int which, float* c) {
  if (which < 0)
    run_cublas(p, c);
  else
    gemm_bf16(steps()[which].id, p.da, p.lda, p.db, p.ldb, c, p.m, p.n, p.k, nullptr);
}

// Returns max err/bound over the checked elements (full when small, else `samples` random ones).
double check(Prob& p, int which, int64_t samples, double* max_vs_cublas) {
  CK(cudaMemset(p.dc, 0xFF, p.m * p.n * 4));  // NaN: unwritten elements fail
  run(p, which, p.dc);
  CK(cudaDeviceSynchronize());
  std::vector<float> c(p.m * p.n), cr(p.m * p.n);
  CK(cudaMemcpy(c.data(), p.dc, c.size() * 4, cudaMemcpyDeviceToHost));
  run_cublas(p, p.dref);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(cr.data(), p.dref, cr.size() * 4, cudaMemcpyDeviceToHost));
  double worst = 0, worst_cb = 0;
  auto one = [&](int64_t i, int64_t j) {
    double ref, bound;
    ref_at(p, i, j, ref, bound);
    double e = std::fabs((double)c[i * p.n + j] - ref) / bound;
    if (!(e == e)) e = 1e30;
    worst = std::max(worst, e);
  };
  if (p.m * p.n * p.k <= (int64_t)1 << 31) {
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j)
        one(i, j);
  } else {
    std::mt19937_64 r(7);
    for (int64_t s = 0; s < samples; ++s)
      one(r() % p.m, r() % p.n);
    one(p.m - 1, p.n - 1);
    one(0, p.n - 1);
    one(p.m - 1, 0);
  }
  for (size_t x = 0; x < c.size(); ++x) {
    double d = std::fabs((double)c[x] - cr[x]) / (1e-6 + std::fabs(cr[x]));
    if (!(d == d)) d = 1e30;
    worst_cb = std::max(worst_cb, std::min(d, std::fabs((double)c[x] - cr[x])));
  }
  *max_vs_cublas = worst_cb;
  return worst;
}

double time_ms(Prob& p, int which, int reps) {
  for (int i = 0; i < 3; ++i)
    run(p, which, p.dc);
  CK(cudaDeviceSynchronize());
  std::vector<cudaEvent_t> ev(2 * reps);
  for (auto& e : ev)
    CK(cudaEventCreate(&e));
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(ev[2 * i]));
    run(p, which, p.dc);
    CK(cudaEventRecord(ev[2 * i + 1]));
  }
  CK(cudaDeviceSynchronize());
  std::vector<float> t(reps);
  for (int i = 0; i < reps; ++i)
    CK(cudaEventElapsedTime(&t[i], ev[2 * i], ev[2 * i + 1]));
  for (auto& e : ev)
    cudaEventDestroy(e);
  std::sort(t.begin(), t.end());
  return t[reps / 2];
}

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "all";
  if (auto why = unavailable_reason(0)) {
    printf("unavailable: %s\n", why->c_str());
    return 1;
  }
  cublasCreate(&g_h);
  if (mode == "one" && argc >= 6) {  // one launch of one variant, for ncu
    Prob p;
    make(p, atoll(argv[3]), atoll(argv[4]), atoll(argv[5]), 0, 1);
    run(p, atoi(argv[2]), p.dc);
    CK(cudaDeviceSynchronize());
    printf("ran %s\n", atoi(argv[2]) < 0 ? "cublas" : steps()[atoi(argv[2])].name);
    return 0;
  }
  struct S {
    int64_t m, n, k, extra;
    bool timed;
  };
  std::vector<S> sizes;
  if (mode == "tiny")
    sizes = {{129, 65, 40, 0, false}, {1, 1, 8, 0, false}, {300, 520, 100, 0, false}};
  else if (mode == "small")
    sizes = {{129, 65, 40, 0, false},   {1, 1, 8, 0, false},     {1000, 777, 333, 24, false},
             {257, 300, 520, 0, false}, {64, 256, 64, 0, false}, {300, 1000, 200, 0, false},
             {520, 520, 777, 0, false}};
  else if (mode == "perf")
    sizes = {{4096, 4096, 1024, 0, true}, {4096, 4096, 4096, 0, true}, {8192, 8192, 8192, 0, true}};
  else
    sizes = {{129, 65, 40, 0, false},     {1, 1, 8, 0, false},         {1000, 777, 333, 24, true},
             {1000, 777, 333, 0, true},   {2048, 2048, 2048, 0, true}, {4096, 4096, 1024, 0, true},
             {4096, 4096, 4096, 0, true}, {8192, 1024, 8192, 0, true}, {8192, 8192, 8192, 0, true}};
  bool all_ok = true;
  for (const S& s : sizes) {
    Prob p;
    make(p, s.m, s.n, s.k, s.extra, 1234 + (uint32_t)s.m);
    printf("== %lld x %lld x %lld (lda %lld, ldb %lld)\n", (long long)s.m, (long long)s.n, (long long)s.k,
           (long long)p.lda, (long long)p.ldb);
    double cb_ms = 0;
    if (s.timed) {
      cb_ms = time_ms(p, -1, 15);
    }
    {
      double vs;
      double e = check(p, -1, 512, &vs);
      printf("  %-18s err/bound %.3g  %s", "cublas", e, e <= 1 ? "ok" : "FAIL");
      if (s.timed) printf("  %.4f ms  %.1f TFLOP/s", cb_ms, 2.0 * s.m * s.n * s.k / (cb_ms * 1e9));
      printf("\n");
    }
    for (int w = 0; w < (int)steps().size(); ++w) {
      double vs;
      double e = check(p, (int)w, 512, &vs);
      bool ok = e <= 1;
      all_ok = all_ok && ok;
      printf("  %-18s err/bound %.3g  %s  (max diff vs cuBLAS %.3g)", steps()[w].name, e, ok ? "ok" : "FAIL",
             vs);
      if (s.timed) {
        double ms = time_ms(p, (int)w, 15);
        printf("  %.4f ms  %.1f TFLOP/s  %.1f%% of cuBLAS", ms, 2.0 * s.m * s.n * s.k / (ms * 1e9),
               100.0 * cb_ms / ms);
      }
      printf("\n");
    }
    release(p);
  }
  // bad arguments throw with a message
  try {
    gemm_bf16(Step::TmaWgmma, nullptr, 12, nullptr, 8, nullptr, 1, 1, 8, nullptr);
    printf("no throw: FAIL\n");
    all_ok = false;
  } catch (const std::exception& e) {
    printf("bad lda throws: %s\n", e.what());
  }
  printf(all_ok ? "ALL OK\n" : "SOME FAILED\n");
  return all_ok ? 0 : 1;
}
