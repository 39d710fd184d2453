// stats.h: summaries of timing samples (median and 10th/90th percentiles) and a rolling window of recent
// ones.
#pragma once

#include <cstddef>
#include <deque>
#include <span>
#include <vector>

namespace bs {

struct Summary {
  size_t count = 0;
  double median = 0, p10 = 0, p90 = 0, min = 0, max = 0, mean = 0;
};

// Percentile by linear interpolation between order statistics (the "type 7" definition used by numpy).
double percentile(std::span<const double> sorted, double p);
Summary summarize(std::span<const double> samples);

// Keeps the last `capacity` samples after discarding the first `warmup` ones ever pushed: first-call and
// JIT costs never enter the steady-state figures.
class RollingSamples {
 public:
  RollingSamples(size_t capacity = 120, size_t warmup = 3) : m_capacity(capacity), m_warmup(warmup) {}
  void push(double v);
  void clear();  // also restarts the warm-up
  Summary summary() const;
  std::vector<double> values() const { return {m_values.begin(), m_values.end()}; }
  size_t size() const { return m_values.size(); }
  size_t discarded() const { return m_seen < m_warmup ? m_seen : m_warmup; }
  double first_sample() const { return m_first; }

 private:
  size_t m_capacity;
  size_t m_warmup;
  size_t m_seen = 0;
  double m_first = 0;
  std::deque<double> m_values;
};

}  // namespace bs
