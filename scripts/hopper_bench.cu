// hopper_bench.cu: benchmark and check of the Hopper tensor-core rungs (gpu/matmul/tc_hopper.*) against
// cuBLAS BF16 (cublasGemmEx, FP32 out, CUBLAS_COMPUTE_32F, the same row-major buffers). Each step's result
// against a float64 reference of the bf16 inputs (every element on small sizes, 512 random ones and the
// corners on large ones; bound 2 k u sum|a b|, u = 2^-24) and its median time of 15 CUDA-event-timed runs
// after 3 warm-ups. The TF32 steps (gemm_tf32) likewise against cuBLAS TF32 (CUBLAS_COMPUTE_32F_FAST_TF32) and
// strict FP32 SGEMM on the same float32 buffers (see tf32_problem). Standalone: it compiles tc_hopper.cu into
// itself (see scripts/hopper-bench.sh for the command). Usage:
//   hopper_bench [all|small|tiny|perf|tf32|one STEP M N K]   (STEP -1 = cuBLAS; "one" runs a single launch, for
//   ncu; "all" and "tf32" include the TF32 table, "small" and "tiny" the TF32 checks)
#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
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
  float *dc = nullptr, *dref = nullptr, *dsplit = nullptr;  // dsplit: wgmma_splitk's partial tiles
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
  CK(cudaMalloc(&p.dsplit, std::max<int64_t>(16, splitk_workspace_bytes(m, n, k))));
  CK(cudaMemcpy(p.da, p.a.data(), p.a.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(p.db, p.b.data(), p.b.size() * 2, cudaMemcpyHostToDevice));
}
void release(Prob& p) {
  cudaFree(p.da);
  cudaFree(p.db);
  cudaFree(p.dc);
  cudaFree(p.dref);
  cudaFree(p.dsplit);
}

// Calls one(i, j) for every element when the problem is small (up to 2^31 multiply-adds), else for `samples`
// random ones and three corners.
template <class F>
void for_checked(int64_t m, int64_t n, int64_t k, int64_t samples, F one) {
  if (m * n * k <= (int64_t)1 << 31) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        one(i, j);
    return;
  }
  std::mt19937_64 r(7);
  for (int64_t s = 0; s < samples; ++s)
    one(r() % m, r() % n);
  one(m - 1, n - 1);
  one(0, n - 1);
  one(m - 1, 0);
}

// Median of `reps` CUDA-event-timed calls of run() after 3 warm-ups.
template <class F>
double median_ms(F run, int reps) {
  for (int i = 0; i < 3; ++i)
    run();
  CK(cudaDeviceSynchronize());
  std::vector<cudaEvent_t> ev(2 * reps);
  for (auto& e : ev)
    CK(cudaEventCreate(&e));
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(ev[2 * i]));
    run();
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
    gemm_bf16(steps()[which].id, p.da, p.lda, p.db, p.ldb, c, p.m, p.n, p.k, nullptr, p.dsplit);
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
  for_checked(p.m, p.n, p.k, samples, one);
  for (size_t x = 0; x < c.size(); ++x) {
    double d = std::fabs((double)c[x] - cr[x]) / (1e-6 + std::fabs(cr[x]));
    if (!(d == d)) d = 1e30;
    worst_cb = std::max(worst_cb, std::min(d, std::fabs((double)c[x] - cr[x])));
  }
  *max_vs_cublas = worst_cb;
  return worst;
}

double time_ms(Prob& p, int which, int reps) {
  return median_ms([&] { run(p, which, p.dc); }, reps);
}

// ---------------------------------------------------------------------------------------------------------
// TF32 and 3xTF32. A is float32 rounded to TF32 on the host (what the ladder's TF32 conversion gives the
// kernel; gemm_tf32's contract for round-to-nearest), B raw float32 (the kernel rounds it, cvt.rna: to
// nearest, ties away from zero, as tf32_rna below). 3xTF32 gets both raw. Checks:
//   wgmma_tf32: against float64 of the TF32 values, bound 2 k u sum|a b| (products of TF32 values are exact
//     in FP32; only the accumulation rounds), so a wrong fragment, a lost k-slice or B not rounded fails.
//   wgmma_tf32x3: against float64 of the raw inputs, bound (2 k u + 2^-20) sum|a b| (hi + lo is within 2^-22
//     of each input, two inputs and the dropped lo*lo term: 4 x 2^-22 per product).
// Relative RMS error (over the checked elements) is printed for the rungs and both cuBLAS modes.

float tf32_rna(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  u = (u + 0x1000u) & ~0x1FFFu;
  std::memcpy(&x, &u, 4);
  return x;
}

struct FProb {
  int64_t m, n, k, lda, ldb;
  std::vector<float> a, ar, b;  // raw A, A rounded to TF32, raw B (padding zero)
  float *da = nullptr, *dar = nullptr, *db = nullptr, *dc = nullptr, *dws = nullptr, *dtmp = nullptr;
};

void make_f(FProb& p, int64_t m, int64_t n, int64_t k, int64_t extra_ld, uint32_t seed) {
  p.m = m;
  p.n = n;
  p.k = k;
  p.lda = (k + 3) / 4 * 4 + extra_ld;
  p.ldb = (n + 3) / 4 * 4 + extra_ld;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  p.a.assign(m * p.lda, 0.f);
  p.ar.assign(m * p.lda, 0.f);
  p.b.assign(k * p.ldb, 0.f);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < k; ++j) {
      p.a[i * p.lda + j] = u(rng);
      p.ar[i * p.lda + j] = tf32_rna(p.a[i * p.lda + j]);
    }
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < n; ++j)
      p.b[i * p.ldb + j] = u(rng);
  CK(cudaMalloc(&p.da, p.a.size() * 4));
  CK(cudaMalloc(&p.dar, p.a.size() * 4));
  CK(cudaMalloc(&p.db, p.b.size() * 4));
  CK(cudaMalloc(&p.dc, m * n * 4));
  CK(cudaMalloc(&p.dws, tf32x3_workspace_bytes(m, p.lda)));
  CK(cudaMalloc(&p.dtmp, p.a.size() * 4));
  CK(cudaMemcpy(p.da, p.a.data(), p.a.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(p.dar, p.ar.data(), p.a.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(p.db, p.b.data(), p.b.size() * 4, cudaMemcpyHostToDevice));
}
void release_f(FProb& p) {
  for (float* q : {p.da, p.dar, p.db, p.dc, p.dws, p.dtmp})
    cudaFree(q);
}

// What runs: the TF32 rungs through gemm_tf32, a rounding pass of A plus the TF32 kernel (the pre-pass the
// kernel needs from raw float32), and cuBLAS in both modes.
enum FWhich { F_SGEMM, F_CUBLAS_TF32, F_TF32, F_TF32_ROUND_A, F_TF32X3 };
const char* f_name(int w) {
  static const char* names[] = {"cublas_sgemm", "cublas_tf32", "wgmma_tf32", "  + A rounding pass",
                                "wgmma_tf32x3"};
  return names[w];
}

__global__ void round_tf32_kernel(const float4* a, float4* out, int64_t count4) {
  using bs::matmul::hopper::to_tf32;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count4; i += (int64_t)gridDim.x * blockDim.x) {
    const float4 x = a[i];
    out[i] = make_float4(__uint_as_float(to_tf32(x.x)), __uint_as_float(to_tf32(x.y)), __uint_as_float(to_tf32(x.z)),
                         __uint_as_float(to_tf32(x.w)));
  }
}

void run_f(FProb& p, int w) {
  const float alpha = 1.f, beta = 0.f;
  if (w == F_SGEMM || w == F_CUBLAS_TF32) {
    cublasStatus_t st = cublasGemmEx(g_h, CUBLAS_OP_N, CUBLAS_OP_N, (int)p.n, (int)p.m, (int)p.k, &alpha, p.db,
                                     CUDA_R_32F, (int)p.ldb, p.da, CUDA_R_32F, (int)p.lda, &beta, p.dc, CUDA_R_32F,
                                     (int)p.n, w == F_SGEMM ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_32F_FAST_TF32,
                                     CUBLAS_GEMM_DEFAULT);
    if (st != CUBLAS_STATUS_SUCCESS) {
      printf("cublas error %d\n", (int)st);
      exit(3);
    }
  } else if (w == F_TF32) {
    gemm_tf32(Step::Tf32, p.dar, p.lda, p.db, p.ldb, p.dc, p.m, p.n, p.k, nullptr, nullptr);
  } else if (w == F_TF32_ROUND_A) {
    round_tf32_kernel<<<132 * 4, 256>>>((const float4*)p.da, (float4*)p.dtmp, p.m * p.lda / 4);
    gemm_tf32(Step::Tf32, p.dtmp, p.lda, p.db, p.ldb, p.dc, p.m, p.n, p.k, nullptr, nullptr);
  } else {
    gemm_tf32(Step::Tf32x3, p.da, p.lda, p.db, p.ldb, p.dc, p.m, p.n, p.k, p.dws, nullptr);
  }
}

// max err/bound and relative RMS error over the checked elements (all on small sizes).
void check_f(FProb& p, int w, int64_t samples, double* worst, double* rel_rms) {
  CK(cudaMemset(p.dc, 0xFF, p.m * p.n * 4));  // NaN: unwritten elements fail
  run_f(p, w);
  CK(cudaDeviceSynchronize());
  std::vector<float> c(p.m * p.n);
  CK(cudaMemcpy(c.data(), p.dc, c.size() * 4, cudaMemcpyDeviceToHost));
  const bool tf32 = w != F_TF32X3;
  double wst = 0, se = 0, sr = 0;
  auto one = [&](int64_t i, int64_t j) {
    double s = 0, mag = 0, s_rounded = 0, mag_rounded = 0;
    for (int64_t q = 0; q < p.k; ++q) {
      const double raw = (double)p.a[i * p.lda + q] * p.b[q * p.ldb + j];
      const double rounded = (double)p.ar[i * p.lda + q] * tf32_rna(p.b[q * p.ldb + j]);
      s += raw;
      mag += std::fabs(raw);
      s_rounded += rounded;
      mag_rounded += std::fabs(rounded);
    }
    const double u = std::ldexp(1.0, -24);
    const double ref = tf32 ? s_rounded : s;
    const double bound = tf32 ? 2.0 * p.k * u * mag_rounded : (2.0 * p.k * u + std::ldexp(1.0, -20)) * mag;
    double e = std::fabs((double)c[i * p.n + j] - ref) / (bound + 1e-30);
    if (!(e == e)) e = 1e30;
    wst = std::max(wst, e);
    se += ((double)c[i * p.n + j] - s) * ((double)c[i * p.n + j] - s);  // against the raw inputs' product
    sr += s * s;
  };
  for_checked(p.m, p.n, p.k, samples, one);
  *worst = wst;
  *rel_rms = std::sqrt(se / sr);
}

double time_f(FProb& p, int w, int reps) {
  return median_ms([&] { run_f(p, w); }, reps);
}

// Checks (and times, when `timed`) every TF32 variant on one size; returns whether all passed.
bool tf32_size(int64_t m, int64_t n, int64_t k, int64_t extra, bool timed) {
  FProb p;
  make_f(p, m, n, k, extra, 99 + (uint32_t)m);
  printf("== TF32 %lld x %lld x %lld (lda %lld, ldb %lld)\n", (long long)m, (long long)n, (long long)k,
         (long long)p.lda, (long long)p.ldb);
  double ms[5] = {};
  bool ok = true;
  for (int w = F_SGEMM; w <= F_TF32X3; ++w) {
    if (!timed && w == F_TF32_ROUND_A) continue;
    double worst = 0, rel = 0;
    check_f(p, w, 512, &worst, &rel);
    const bool mine = w >= F_TF32;
    const bool pass = !mine || worst <= 1;
    ok = ok && pass;
    printf("  %-20s rel rms err %.3g", f_name(w), rel);
    if (mine) printf("  err/bound %.3g %s", worst, pass ? "ok" : "FAIL");
    if (timed) {
      ms[w] = time_f(p, w, 15);
      const int lib = w == F_SGEMM || w == F_TF32X3 ? F_SGEMM : F_CUBLAS_TF32;
      printf("  %.4f ms  %.1f TFLOP/s", ms[w], 2.0 * m * n * k / (ms[w] * 1e9));
      if (w >= F_TF32) printf("  %.1f%% of %s", 100.0 * ms[lib] / ms[w], f_name(lib));
      if (w == F_TF32X3) printf("  (%.2fx SGEMM's speed)", ms[F_SGEMM] / ms[w]);
    }
    printf("\n");
  }
  release_f(p);
  return ok;
}

bool tf32_suite(const std::string& mode) {
  struct S {
    int64_t m, n, k, extra;
    bool timed;
  };
  std::vector<S> sizes;
  if (mode == "tiny")
    sizes = {{129, 65, 40, 0, false}, {1, 1, 8, 0, false}, {300, 260, 100, 4, false}};
  else if (mode == "small")
    sizes = {{129, 65, 40, 0, false},    {1, 1, 1, 0, false},     {1000, 777, 333, 12, false},
             {257, 300, 520, 0, false},  {3, 1000, 37, 0, false}, {520, 130, 777, 0, false}};
  else
    sizes = {{1000, 777, 333, 0, false},  {129, 65, 40, 0, false},    {257, 300, 520, 4, false},
             {2048, 2048, 2048, 0, true}, {4096, 4096, 4096, 0, true}, {8192, 8192, 8192, 0, true},
             {4095, 4097, 1023, 0, true}};
  bool ok = true;
  for (const S& s : sizes)
    ok = tf32_size(s.m, s.n, s.k, s.extra, s.timed) && ok;
  return ok;
}

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "all";
  setvbuf(stdout, nullptr, _IOLBF, 0);  // line by line, so a log piped to tee keeps what came before a crash
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
  if (mode == "tf32") {
    const bool ok = tf32_suite(mode);
    printf(ok ? "ALL OK\n" : "SOME FAILED\n");
    return ok ? 0 : 1;
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
  if (mode != "perf") all_ok = tf32_suite(mode) && all_ok;
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
