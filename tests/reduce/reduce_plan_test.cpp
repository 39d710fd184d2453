// reduce_plan_test.cpp: the reduction lab's pure logic: names, validation messages, the memory check, launch
// plans, the float tolerance, the reduction tree and scan-step models (executed on small arrays), inputs,
// references and the checks themselves (they must catch a wrong result).
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "gpu/reduce/reduce.h"

namespace bs::reduce {
namespace {

Params reduce_params(ReduceVariant v, int64_t n, int block = 256) {
  Params p;
  p.op = Op::Reduce;
  p.reduce_variant = v;
  p.n = n;
  p.block = block;
  return p;
}
Params scan_params(ScanVariant v, int64_t n, int block = 256) {
  Params p;
  p.op = Op::Scan;
  p.scan_variant = v;
  p.n = n;
  p.block = block;
  return p;
}

TEST(ReducePlan, NamesRoundTripAndEveryVariantIsDescribed) {
  for (ReduceVariant v : k_reduce_variant_names.values()) {
    EXPECT_EQ(k_reduce_variant_names.parse(k_reduce_variant_names.name_of(v)), v);
    EXPECT_GT(std::string(description(v)).size(), 20u);
    EXPECT_GE(rung(v), 1);
  }
  for (ScanVariant v : k_scan_variant_names.values()) {
    EXPECT_EQ(k_scan_variant_names.parse(k_scan_variant_names.name_of(v)), v);
    EXPECT_GT(std::string(description(v)).size(), 20u);
  }
  EXPECT_EQ(k_reduce_variant_names.size(), 10u);
  EXPECT_EQ(k_scan_variant_names.size(), 5u);
  EXPECT_EQ(describe(reduce_params(ReduceVariant::Sequential, 1 << 20)),
            "reduce float 1M, sequential, block 256");
  Params s = scan_params(ScanVariant::Cub, 1000);
  s.type = ElemType::I32;
  s.scan_kind = ScanKind::Exclusive;
  EXPECT_EQ(describe(s), "scan int 1000 (exclusive), cub");
}

TEST(ReducePlan, ValidateRefusesWithClearMessages) {
  auto err = validate(reduce_params(ReduceVariant::WarpShuffle, 0));
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("n = 0"), std::string::npos) << *err;
  EXPECT_NE(err->find("nothing to reduce"), std::string::npos) << *err;
  err = validate(scan_params(ScanVariant::Cub, 0));
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("nothing to scan"), std::string::npos) << *err;
  EXPECT_TRUE(validate(reduce_params(ReduceVariant::Cub, k_max_n + 1)));
  EXPECT_FALSE(validate(reduce_params(ReduceVariant::Cub, 1)));

  err = validate(reduce_params(ReduceVariant::Sequential, 1000, 96));
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("power of two"), std::string::npos) << *err;
  EXPECT_FALSE(validate(reduce_params(ReduceVariant::WarpShuffle, 1000, 96)));
  err = validate(reduce_params(ReduceVariant::WarpShuffle, 1000, 100));
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("multiple of 32"), std::string::npos) << *err;
  err = validate(reduce_params(ReduceVariant::UnrollLastWarp, 1000, 32));
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("at least 64"), std::string::npos) << *err;
  EXPECT_TRUE(validate(reduce_params(ReduceVariant::Sequential, 1000, 2048)));
  EXPECT_FALSE(validate(reduce_params(ReduceVariant::Cub, 1000, 7)));  // CUB picks its own block

  EXPECT_FALSE(validate(scan_params(ScanVariant::HillisSteeleBlock, 256, 256)));
  err = validate(scan_params(ScanVariant::HillisSteeleBlock, 257, 256));
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("single block of at most 256"), std::string::npos) << *err;
  EXPECT_NE(err->find("n = 257"), std::string::npos) << *err;
  EXPECT_FALSE(validate(scan_params(ScanVariant::BlellochBlock, 512, 256)));
  err = validate(scan_params(ScanVariant::BlellochBlock, 513, 256));
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("2 x 256 = 512"), std::string::npos) << *err;
  EXPECT_FALSE(validate(scan_params(ScanVariant::DecoupledLookback, int64_t{1} << 30, 256)));
  EXPECT_TRUE(validate(scan_params(ScanVariant::DecoupledLookback, 1000, 96)));
  EXPECT_EQ(single_block_max_n(ScanVariant::BlellochBlock, 128), 256);
  EXPECT_EQ(single_block_max_n(ScanVariant::Cub, 128), 0);
}

TEST(ReducePlan, DeviceMemoryCheckNamesTheSizes) {
  const uint64_t gib = uint64_t{1} << 30;
  Params p = scan_params(ScanVariant::DecoupledLookback, int64_t{32} << 30);  // 32G ints: 128 GiB each array
  auto err = check_device_memory(p, 132, 79 * gib, 80 * gib);
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("n = 34359738368 (32G)"), std::string::npos) << *err;
  EXPECT_NE(err->find("input 128.0 GiB + output 128.0 GiB"), std::string::npos) << *err;
  EXPECT_NE(err->find("79.0 GiB free of 80.0 GiB"), std::string::npos) << *err;
  p.n = int64_t{1} << 28;
  EXPECT_FALSE(check_device_memory(p, 132, 79 * gib, 80 * gib));
  p.op = Op::Reduce;
  EXPECT_LT(device_bytes_needed(p, 132), 2 * (uint64_t{1} << 30));
}

TEST(ReducePlan, PlansMatchTheKernels) {
  // Multi-pass ladder: 2^20 elements, block 256, one element per thread: 4096 blocks, then 16, then 1.
  LaunchPlan pl = make_plan(reduce_params(ReduceVariant::Sequential, 1 << 20), 132);
  EXPECT_EQ(pl.grid, 4096);
  EXPECT_EQ(pl.kernels, 3);
  EXPECT_EQ(pl.depth, 3 * 8);
  pl = make_plan(reduce_params(ReduceVariant::FirstAddDuringLoad, 1 << 20), 132);
  EXPECT_EQ(pl.grid, 2048);
  EXPECT_EQ(pl.kernels, 3);  // 2048 partial sums, then 4, then 1
  EXPECT_EQ(make_plan(reduce_params(ReduceVariant::Sequential, 1), 132).kernels, 1);
  // Grid-stride: the grid is capped at SMs x resident blocks.
  pl = make_plan(reduce_params(ReduceVariant::GridStride, int64_t{1} << 28), 132, 8);
  EXPECT_EQ(pl.grid, 132 * 8);
  EXPECT_EQ(pl.per_thread, (int64_t{1} << 28) / (132 * 8 * 256) + 1);
  EXPECT_EQ(pl.kernels, 2);
  pl = make_plan(reduce_params(ReduceVariant::AtomicPerBlock, int64_t{1} << 28), 132, 8);
  EXPECT_EQ(pl.kernels, 1);
  EXPECT_GT(pl.depth, pl.grid);  // the atomics add the blocks' sums one after another
  pl = make_plan(reduce_params(ReduceVariant::WarpShuffle, 1000), 132, 8);
  EXPECT_EQ(pl.grid, 1);
  EXPECT_EQ(pl.kernels, 1);
  // Scans: tiles of 256 x 32 = 8192.
  pl = make_plan(scan_params(ScanVariant::DecoupledLookback, int64_t{1} << 28), 132);
  EXPECT_EQ(pl.tiles, 32768);
  EXPECT_EQ(pl.kernels, 1);
  EXPECT_EQ(make_plan(scan_params(ScanVariant::ScanThenPropagate, 8192), 132).kernels, 1);
  EXPECT_EQ(make_plan(scan_params(ScanVariant::ScanThenPropagate, 8193), 132).kernels, 3);
  EXPECT_EQ(make_plan(scan_params(ScanVariant::ScanThenPropagate, int64_t{1} << 28), 132).kernels, 5);
  EXPECT_EQ(make_plan(scan_params(ScanVariant::HillisSteeleBlock, 200), 132).depth, 8);
}

TEST(ReducePlan, ToleranceFollowsTheStatedFormula) {
  const double u = 1.0 / 16777216.0;
  EXPECT_DOUBLE_EQ(float_tolerance(1), 8 * u);
  EXPECT_DOUBLE_EQ(float_tolerance(100), 8 * 10 * u);
  EXPECT_DOUBLE_EQ(float_tolerance(0), 8 * u);
  EXPECT_EQ(cpu_summation_depth(1000, CpuMode::OneThread, 16), 1000);
  EXPECT_EQ(cpu_summation_depth(1600, CpuMode::AllThreads, 16), 116);
}

TEST(ReducePlan, InputsAreNeverZeroAndReferencesExact) {
  bool differ = false;
  for (int64_t i = 0; i < 10000; ++i) {
    const float f = input_f32(i);
    EXPECT_GE(f, 0.5f);
    EXPECT_LT(f, 1.5f);
    const int32_t k = input_i32(i);
    EXPECT_GE(k, -7);
    EXPECT_LE(k, 7);
    differ = differ || input_f32(i) != input_f32(0);
  }
  EXPECT_TRUE(differ);
  long double s = 0;
  int64_t si = 0;
  for (int64_t i = 0; i < 100000; ++i) {
    s += input_f32(i);
    si += input_i32(i);
  }
  EXPECT_EQ(reference_sum_f32(100000), static_cast<double>(s));
  EXPECT_EQ(reference_sum_i32(100000), si);
}

TEST(ReducePlan, ChecksCatchWrongResults) {
  const int64_t n = 100000;
  const double ref = reference_sum_f32(n);
  EXPECT_TRUE(check_sum(ref, n, 100).passed);
  const Check bad = check_sum(ref - 1.0, n, 100);  // one element lost
  EXPECT_FALSE(bad.passed);
  EXPECT_NE(bad.text.find("TOLERANCE"), std::string::npos) << bad.text;
  EXPECT_TRUE(check_sum(reference_sum_i32(n), n).passed);
  EXPECT_FALSE(check_sum(reference_sum_i32(n) + 1, n).passed);

  std::vector<int32_t> xi(1000);
  for (int i = 0; i < 1000; ++i)
    xi[static_cast<size_t>(i)] = input_i32(i);
  std::vector<int32_t> oi(1000);
  std::exclusive_scan(xi.begin(), xi.end(), oi.begin(), 0);
  EXPECT_TRUE(check_scan(std::span<const int32_t>(oi), ScanKind::Exclusive).passed);
  EXPECT_FALSE(check_scan(std::span<const int32_t>(oi), ScanKind::Inclusive).passed);
  oi[777] += 1;
  const Check c = check_scan(std::span<const int32_t>(oi), ScanKind::Exclusive);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.first_bad, 777);
  EXPECT_EQ(c.mismatches, 1);

  std::vector<float> xf(1000), of(1000);
  for (int i = 0; i < 1000; ++i)
    xf[static_cast<size_t>(i)] = input_f32(i);
  std::inclusive_scan(xf.begin(), xf.end(), of.begin());
  EXPECT_TRUE(check_scan(std::span<const float>(of), ScanKind::Inclusive, 1000).passed);
  of[500] += 1.0f;
  const Check cf = check_scan(std::span<const float>(of), ScanKind::Inclusive, 1000);
  EXPECT_FALSE(cf.passed);
  EXPECT_EQ(cf.first_bad, 500);
}

TEST(ReducePlan, CountsParseWithSuffixes) {
  EXPECT_EQ(parse_count("256M", "--n").value, int64_t{1} << 28);
  EXPECT_FALSE(parse_count("abc", "--n").value);
  EXPECT_EQ(format_count(int64_t{1} << 28), "256M");
}

}  // namespace
}  // namespace bs::reduce
