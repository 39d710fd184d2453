// reduce_cpu_test.cpp: the CPU baselines (std::reduce / std::inclusive_scan / std::exclusive_scan on one
// thread and on all threads) against the exact reference at awkward sizes, float within the stated tolerance
// and int exactly; cancel and progress.
#include <gtest/gtest.h>

#include <vector>

#include "gpu/reduce/reduce.h"

namespace bs::reduce {
namespace {

// The all-threads path splits from 2 slabs (2M elements) up; smaller sizes run on one thread.
const int64_t k_sizes[] = {1, 2, 31, 1000, (int64_t{1} << 20) + 17, (int64_t{3} << 20) + 5};

TEST(ReduceCpu, ReduceMatchesTheReference) {
  for (int64_t n : k_sizes) {
    std::vector<float> xf(static_cast<size_t>(n));
    std::vector<int32_t> xi(static_cast<size_t>(n));
    fill_inputs(xf.data(), n);
    fill_inputs(xi.data(), n);
    for (CpuMode m : {CpuMode::OneThread, CpuMode::AllThreads}) {
      SCOPED_TRACE(std::string(cpu_mode_label(m)) + " n " + std::to_string(n));
      const float f = reduce_cpu(std::span<const float>(xf), m);
      const Check cf = check_sum(static_cast<double>(f), n, cpu_summation_depth(n, m, cpu_thread_count()));
      EXPECT_TRUE(cf.passed) << cf.text;
      const int32_t i = reduce_cpu(std::span<const int32_t>(xi), m);
      EXPECT_TRUE(check_sum(static_cast<int64_t>(i), n).passed) << i;
    }
  }
}

TEST(ReduceCpu, ScansMatchTheReference) {
  for (int64_t n : k_sizes) {
    std::vector<float> xf(static_cast<size_t>(n)), of(static_cast<size_t>(n));
    std::vector<int32_t> xi(static_cast<size_t>(n)), oi(static_cast<size_t>(n));
    fill_inputs(xf.data(), n);
    fill_inputs(xi.data(), n);
    for (CpuMode m : {CpuMode::OneThread, CpuMode::AllThreads})
      for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive}) {
        SCOPED_TRACE(std::string(cpu_mode_label(m)) + " " + std::string(k_scan_kind_names.name_of(k)) +
                     " n " + std::to_string(n));
        scan_cpu(std::span<const float>(xf), std::span<float>(of), k, m);
        const Check cf =
            check_scan(std::span<const float>(of), k, cpu_summation_depth(n, m, cpu_thread_count()));
        EXPECT_TRUE(cf.passed) << cf.text;
        scan_cpu(std::span<const int32_t>(xi), std::span<int32_t>(oi), k, m);
        const Check ci = check_scan(std::span<const int32_t>(oi), k);
        EXPECT_TRUE(ci.passed) << ci.text;
      }
  }
}

TEST(ReduceCpu, CancelStopsAndProgressReachesOne) {
  const int64_t n = int64_t{4} << 20;
  std::vector<float> x(static_cast<size_t>(n)), out(static_cast<size_t>(n));
  fill_inputs(x.data(), n);
  for (CpuMode m : {CpuMode::OneThread, CpuMode::AllThreads}) {
    JobControl ctl;
    (void)reduce_cpu(std::span<const float>(x), m, &ctl);
    EXPECT_DOUBLE_EQ(ctl.progress(), 1.0);
    JobControl cancelled;
    cancelled.cancel();
    EXPECT_THROW((void)reduce_cpu(std::span<const float>(x), m, &cancelled), JobCancelled);
    EXPECT_THROW(
        scan_cpu(std::span<const float>(x), std::span<float>(out), ScanKind::Inclusive, m, &cancelled),
        JobCancelled);
  }
}

}  // namespace
}  // namespace bs::reduce
