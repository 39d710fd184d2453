// vector_cpu_test.cpp: the vector lab's CPU side: inputs, the CPU baselines (one thread and all threads agree
// bitwise), the result check and JobControl progress/cancel. No GPU needed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "gpu/vector/elementwise.h"
#include "gpu/vector/vector.h"
#include "test_util.h"

namespace bs::vector {
namespace {

const int64_t k_sizes[] = {1, 255, 256, 257, 1000003};

struct Arrays {
  std::vector<float> a, b, c;
  explicit Arrays(int64_t n)
      : a(static_cast<size_t>(n)), b(static_cast<size_t>(n)), c(static_cast<size_t>(n), -1.0f) {
    fill_inputs(a.data(), b.data(), n);
  }
};

TEST(VectorInputs, DeterministicNonZeroInRange) {
  Arrays x(100000), y(100000);
  EXPECT_EQ(x.a, y.a);
  EXPECT_EQ(x.b, y.b);
  EXPECT_NE(x.a, x.b);
  for (size_t i = 0; i < x.a.size(); ++i) {
    ASSERT_GE(x.a[i], 0.5f);
    ASSERT_LT(x.a[i], 1.5f);
    ASSERT_GE(x.b[i], 0.5f);
    ASSERT_LT(x.b[i], 1.5f);
  }
  // Element i depends only on i: a shorter fill is a prefix of a longer one (threads split the work
  // differently).
  Arrays small(1000);
  EXPECT_TRUE(std::equal(small.a.begin(), small.a.end(), x.a.begin()));
}

TEST(VectorCpu, AddIsExactAndFormulaMatchesDouble) {
  for (int64_t n : k_sizes) {
    Arrays x(n);
    compute_cpu(Op::Add, x.a.data(), x.b.data(), x.c.data(), n, CpuMode::OneThread);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(x.c[i], x.a[i] + x.b[i]);
    compute_cpu(Op::Formula, x.a.data(), x.b.data(), x.c.data(), n, CpuMode::OneThread);
    // Against the formula in double: five float roundings, each <= 2^-24 relative -> well below 1e-6.
    for (int64_t i = 0; i < n; ++i) {
      const double a = x.a[i], b = x.b[i];
      const double ref = (a * 10 + 2) * ((b + 2) * 10 - 5) * 5;
      ASSERT_LE(std::abs(x.c[i] - ref) / ref, 1e-6) << i;
    }
  }
}

TEST(VectorCpu, OneThreadAndAllThreadsAgreeBitwise) {
  for (Op op : {Op::Add, Op::Formula})
    for (int64_t n : k_sizes) {
      Arrays x(n);
      std::vector<float> all(static_cast<size_t>(n), -2.0f);
      compute_cpu(op, x.a.data(), x.b.data(), x.c.data(), n, CpuMode::OneThread);
      compute_cpu(op, x.a.data(), x.b.data(), all.data(), n, CpuMode::AllThreads);
      ASSERT_EQ(std::memcmp(all.data(), x.c.data(), all.size() * sizeof(float)), 0)
          << to_string(op) << " n " << n;
    }
}

TEST(VectorCheck, PassesCorrectResultsAndFindsErrors) {
  const int64_t n = 1000003;
  Arrays x(n);
  compute_cpu(Op::Add, x.a.data(), x.b.data(), x.c.data(), n, CpuMode::AllThreads);
  Check ok = check_result(Op::Add, x.a.data(), x.b.data(), x.c.data(), n);
  EXPECT_TRUE(ok.passed);
  EXPECT_EQ(ok.text, "exact");
  // One ulp off is a failure for the add: the GPU's single correctly rounded addition must match exactly.
  x.c[777] = std::nextafter(x.c[777], 10.0f);
  Check bad = check_result(Op::Add, x.a.data(), x.b.data(), x.c.data(), n);
  EXPECT_FALSE(bad.passed);
  EXPECT_EQ(bad.mismatches, 1);
  EXPECT_EQ(bad.first_bad, 777);
  EXPECT_NE(bad.text.find("i = 777"), std::string::npos) << bad.text;

  compute_cpu(Op::Formula, x.a.data(), x.b.data(), x.c.data(), n, CpuMode::AllThreads);
  EXPECT_TRUE(check_result(Op::Formula, x.a.data(), x.b.data(), x.c.data(), n).passed);
  // A couple of ulps (what FMA contraction can do) pass the formula's 1e-6; a 1e-4 error does not.
  x.c[5] = std::nextafter(std::nextafter(x.c[5], 1e9f), 1e9f);
  EXPECT_TRUE(check_result(Op::Formula, x.a.data(), x.b.data(), x.c.data(), n).passed);
  x.c[9] *= 1.0001f;
  Check f = check_result(Op::Formula, x.a.data(), x.b.data(), x.c.data(), n);
  EXPECT_FALSE(f.passed);
  EXPECT_EQ(f.first_bad, 9);
  // An element nobody wrote (NaN from the poisoned output) fails too.
  x.c[9] = std::nanf("");
  EXPECT_FALSE(check_result(Op::Formula, x.a.data(), x.b.data(), x.c.data(), n).passed);
}

TEST(VectorCpu, ProgressAndCancel) {
  const int64_t n = 3 << 20;
  Arrays x(n);
  for (CpuMode m : {CpuMode::OneThread, CpuMode::AllThreads}) {
    JobControl ctl;
    compute_cpu(Op::Formula, x.a.data(), x.b.data(), x.c.data(), n, m, &ctl);
    EXPECT_DOUBLE_EQ(ctl.progress(), 1.0) << cpu_mode_label(m);
    JobControl cancelled;
    cancelled.cancel();
    EXPECT_THROW(compute_cpu(Op::Add, x.a.data(), x.b.data(), x.c.data(), n, m, &cancelled), JobCancelled);
  }
  JobControl cancelled;
  cancelled.cancel();
  EXPECT_THROW(time_cpu(Op::Add, x.a.data(), x.b.data(), x.c.data(), 1000, CpuMode::OneThread, 3, &cancelled),
               JobCancelled);
}

TEST(VectorCpu, TimingIsPositiveAndLabelled) {
  Arrays x(4096);
  const Summary s = time_cpu(Op::Add, x.a.data(), x.b.data(), x.c.data(), 4096, CpuMode::OneThread, 3);
  EXPECT_EQ(s.count, 3u);
  EXPECT_GT(s.median, 0);
  EXPECT_STREQ(cpu_mode_label(CpuMode::OneThread), "CPU, 1 thread");
  EXPECT_NE(std::string(cpu_mode_label(CpuMode::AllThreads)).find("OpenMP"), std::string::npos);
  EXPECT_GE(cpu_thread_count(), 1);
}

TEST(VectorOps, SharedDefinitions) {
  EXPECT_EQ(add_op(1.5f, 2.25f), 3.75f);
  EXPECT_EQ(formula_op(1.0f, 1.0f), (10.0f + 2.0f) * (30.0f - 5.0f) * 5.0f);  // 12 * 25 * 5 = 1500
  EXPECT_EQ(apply_op<Op::Formula>(1.0f, 1.0f), 1500.0f);
  EXPECT_EQ(parse_op("add"), Op::Add);
  EXPECT_EQ(parse_op("formula"), Op::Formula);
  EXPECT_FALSE(parse_op("mul"));
}

}  // namespace
}  // namespace bs::vector
