// gpu_engine.cpp: see gpu_runner.h (the pure part: the engine's choice, the timing's arithmetic and text).
#include <algorithm>
#include <cstdio>

#include "gpu/exercise/gpu_runner.h"

namespace bs::exercise {

EngineChoice choose_engine(Engine requested, const GpuStatus& s) {
  if (requested == Engine::Simulator) return {false, "simulator"};
  if (!s.available) return {false, "simulator (no GPU: " + (s.reason.empty() ? std::string("no CUDA device") : s.reason) + ")"};
  return {true, "GPU: " + s.device};
}

double median_ms(std::vector<double> ms) {
  if (ms.empty()) return 0;
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  return n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
}

GpuTiming make_timing(const std::string& test, const std::vector<double>& ms, uint64_t bytes, const GpuStatus& s) {
  GpuTiming t;
  t.test = test;
  t.runs = static_cast<int>(ms.size());
  t.median_ms = median_ms(ms);
  if (!ms.empty()) {
    t.min_ms = *std::min_element(ms.begin(), ms.end());
    t.max_ms = *std::max_element(ms.begin(), ms.end());
  }
  t.bytes = bytes;
  t.gbs = t.median_ms > 0 ? static_cast<double>(bytes) / (t.median_ms * 1e-3) / 1e9 : 0;
  t.ceiling_gbs = s.dram_gbs;
  t.ceiling_source = s.dram_source;
  return t;
}

std::string timing_text(const GpuTiming& t) {
  char b[320];
  std::snprintf(b, sizeof b, "test %s: %.4g ms median of %d runs (%.4g..%.4g ms), %.3g MB moved: %.4g GB/s", t.test.c_str(),
                t.median_ms, t.runs, t.min_ms, t.max_ms, static_cast<double>(t.bytes) / 1e6, t.gbs);
  std::string s = b;
  if (t.ceiling_gbs <= 0) return s + " (no bandwidth ceiling known for this device)";
  std::snprintf(b, sizeof b, " = %.3g%% of %.4g GB/s", t.roofline_percent(), t.ceiling_gbs);
  s += b;
  s += " (" + t.ceiling_source + ")";
  if (t.roofline_percent() > 100) s += "; over 100%: the test's data stayed in L2 between runs";
  return s;
}

}  // namespace bs::exercise
