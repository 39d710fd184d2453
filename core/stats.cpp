// stats.cpp: see stats.h.
#include "core/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace bs {

double percentile(std::span<const double> sorted, double p) {
  if (sorted.empty()) return 0.0;
  const double pos = std::clamp(p, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

Summary summarize(std::span<const double> samples) {
  Summary s;
  if (samples.empty()) return s;
  std::vector<double> v(samples.begin(), samples.end());
  std::sort(v.begin(), v.end());
  s.count = v.size();
  s.median = percentile(v, 0.5);
  s.p10 = percentile(v, 0.1);
  s.p90 = percentile(v, 0.9);
  s.min = v.front();
  s.max = v.back();
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  return s;
}

void RollingSamples::push(double v) {
  if (m_seen++ == 0) m_first = v;
  if (m_seen <= m_warmup) return;
  m_values.push_back(v);
  while (m_values.size() > m_capacity)
    m_values.pop_front();
}

void RollingSamples::clear() {
  m_values.clear();
  m_seen = 0;
  m_first = 0;
}

Summary RollingSamples::summary() const {
  std::vector<double> v(m_values.begin(), m_values.end());
  return summarize(v);
}

}  // namespace bs
