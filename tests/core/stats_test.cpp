// stats_test.cpp: medians and percentiles on known samples; the rolling window's warm-up exclusion.
#include <gtest/gtest.h>

#include "core/stats.h"

namespace bs {

TEST(Stats, KnownSamples) {
  const std::vector<double> v{5, 1, 4, 2, 3};
  const Summary s = summarize(v);
  EXPECT_EQ(s.count, 5u);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  // type-7 percentiles: position p*(n-1) = 0.4 and 3.6
  EXPECT_DOUBLE_EQ(s.p10, 1.4);
  EXPECT_DOUBLE_EQ(s.p90, 4.6);
}

TEST(Stats, EvenCountMedianInterpolates) {
  const std::vector<double> v{1, 2, 3, 10};
  EXPECT_DOUBLE_EQ(summarize(v).median, 2.5);
}

TEST(Stats, EmptyIsZero) {
  EXPECT_EQ(summarize(std::vector<double>{}).count, 0u);
}

TEST(Stats, RollingDropsWarmupAndOldSamples) {
  RollingSamples r(3, 2);
  r.push(100);  // warm-up
  r.push(50);   // warm-up
  EXPECT_EQ(r.size(), 0u);
  EXPECT_DOUBLE_EQ(r.first_sample(), 100);
  for (double v : {1.0, 2.0, 3.0, 4.0})
    r.push(v);
  EXPECT_EQ(r.size(), 3u);
  EXPECT_DOUBLE_EQ(r.summary().median, 3);
  EXPECT_EQ(r.discarded(), 2u);
  r.clear();
  r.push(7);
  EXPECT_EQ(r.size(), 0u);  // warm-up restarts after clear
}

}  // namespace bs
