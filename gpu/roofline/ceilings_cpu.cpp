// ceilings_cpu.cpp: the CPU's ceilings. Built with the same flags as the CPU baselines (the project's
// Release flags, x86-64 baseline: SSE2, no FMA instructions), so the FP32 figure is what those baselines can
// reach, not the CPU's datasheet peak with AVX-512.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "core/stats.h"
#include "gpu/roofline/ceilings.h"

namespace bs::roofline {

namespace {

using Clock = std::chrono::steady_clock;

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "unknown CPU";
}

// 48 independent multiply-add chains held in 12 registers of 4 floats (GCC vector types: plain SSE with the
// baselines' flags), so the chains hide the multiply and add latencies and nothing goes through memory.
// Returns FLOPs done (2 per multiply-add).
typedef float V4 __attribute__((vector_size(16)));
constexpr int k_vregs = 12;
double fma_loop(float seed, float m, float a, int64_t iterations, float* out) {
  V4 acc[k_vregs];
  for (int r = 0; r < k_vregs; ++r)
    acc[r] = V4{seed + r, seed + r + 0.25f, seed + r + 0.5f, seed + r + 0.75f};
  const V4 mv = V4{m, m, m, m}, av = V4{a, a, a, a};
  for (int64_t it = 0; it < iterations; ++it)
#pragma GCC unroll 12
    for (int r = 0; r < k_vregs; ++r)
      acc[r] = acc[r] * mv + av;
  V4 s = acc[0];
  for (int r = 1; r < k_vregs; ++r)
    s += acc[r];
  *out = s[0] + s[1] + s[2] + s[3];
  return 2.0 * 4 * k_vregs * static_cast<double>(iterations);
}

}  // namespace

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

double cpu_last_level_cache_bytes() {
  int best_level = 0;
  double best = 0;
  for (int i = 0; i < 16; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    std::ifstream level(dir + "level"), size(dir + "size");
    int lv = 0;
    std::string sz;
    if (!(level >> lv) || !(size >> sz) || sz.empty()) continue;
    double bytes = std::atof(sz.c_str());
    if (sz.back() == 'K') bytes *= 1024;
    if (sz.back() == 'M') bytes *= 1024 * 1024;
    if (lv >= best_level && bytes > 0) best_level = lv, best = bytes;
  }
  return best;
}

std::string cpu_key() {
  return cpu_model_name() + "|" + std::to_string(omp_get_max_threads()) + " threads";
}

Ceilings measure_cpu(size_t bytes, double flop_seconds) {
  Ceilings c;
  c.gpu = false;
  c.device = cpu_model_name();
  c.key = cpu_key();
  c.measured_utc = utc_now();
  const int threads = omp_get_max_threads();

  // Bandwidth: a copy with all threads, each thread first-touching the part it copies (NUMA locality).
  const size_t n = std::max<size_t>(bytes / sizeof(float), 1024);
  std::unique_ptr<float[]> a(new float[n]), b(new float[n]);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) {
    a[i] = 1.0f + static_cast<float>(i % 7);
    b[i] = 0.0f;
  }
  std::vector<double> gbs;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = Clock::now();
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < static_cast<int64_t>(n); ++i)
      b[i] = a[i];
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (rep > 0) gbs.push_back(2.0 * static_cast<double>(n) * sizeof(float) / s / 1e9);  // rep 0: warm-up
  }
  c.dram_gbs = *std::max_element(gbs.begin(), gbs.end());
  volatile float sink = b[n / 2];
  (void)sink;

  // FP32: every thread runs the FMA loop; repeated until about flop_seconds have passed.
  int64_t iterations = 1 << 14;
  double best = 0;
  const auto start = Clock::now();
  do {
    double flops = 0;
    const auto t0 = Clock::now();
#pragma omp parallel reduction(+ : flops)
    {
      float result = 0;
      flops += fma_loop(1.0f + 1e-3f * omp_get_thread_num(), 0.999999f, 1e-7f, iterations, &result);
      volatile float keep = result;  // the result is used: the loop cannot be removed
      (void)keep;
    }
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    best = std::max(best, flops / s / 1e9);
    if (s < 0.02) iterations *= 4;
  } while (std::chrono::duration<double>(Clock::now() - start).count() < flop_seconds);
  c.fp32_gflops = best;
  c.how = "copy of 2 x " + std::to_string(n * sizeof(float) >> 20) + " MiB with " + std::to_string(threads) +
          " threads (best of 4); 48 multiply-add chains per thread, the CPU baselines' flags";
  return c;
}

}  // namespace bs::roofline
