// precision_test.cpp: the CPU precision model (gpu/matmul/precision.h): rounding bit for bit on the edge cases
// (ties, overflow, subnormals, NaN), every BF16 and FP16 bit pattern round-tripped, the 3xTF32 split, the error
// measure, the inputs and the GEMM with rounded inputs against float64. Always run (no GPU needed).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/error.h"
#include "gpu/matmul/matmul.h"
#include "gpu/matmul/precision.h"

namespace mm = bs::matmul;

namespace {

uint32_t bits(float x) {
  return std::bit_cast<uint32_t>(x);
}
float from_bits(uint32_t u) {
  return std::bit_cast<float>(u);
}

}  // namespace

TEST(Precision, Tf32RoundsToNearestEvenBitForBit) {
  EXPECT_EQ(bits(mm::round_to_tf32(1.0f)), 0x3F800000u);
  EXPECT_EQ(bits(mm::round_to_tf32(from_bits(0x3F801000u))), 0x3F800000u);  // 1 + 2^-11: tie, to even (down)
  EXPECT_EQ(bits(mm::round_to_tf32(from_bits(0x3F803000u))), 0x3F804000u);  // 1 + 3*2^-11: tie, to even (up)
  EXPECT_EQ(bits(mm::round_to_tf32(from_bits(0x3F801001u))), 0x3F802000u);  // just above the tie
  EXPECT_EQ(bits(mm::round_to_tf32(from_bits(0x3F800FFFu))), 0x3F800000u);  // just below it
  EXPECT_EQ(bits(mm::round_to_tf32(from_bits(0xBF803000u))), 0xBF804000u);  // sign kept
  EXPECT_EQ(bits(mm::round_to_tf32(std::numeric_limits<float>::max())), 0x7F800000u);  // overflows to inf
  EXPECT_EQ(bits(mm::round_to_tf32(from_bits(0x00003000u))), 0x00004000u);  // subnormal tie, up to even
  EXPECT_EQ(bits(mm::round_to_tf32(from_bits(0x00001000u))), 0x00000000u);  // subnormal tie, down to zero
  EXPECT_EQ(bits(mm::round_to_tf32(-0.0f)), 0x80000000u);
  EXPECT_TRUE(std::isnan(mm::round_to_tf32(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_EQ(mm::round_to_tf32(std::numeric_limits<float>::infinity()), std::numeric_limits<float>::infinity());
}

TEST(Precision, Bf16RoundsToNearestEvenBitForBit) {
  EXPECT_EQ(mm::to_bf16_bits(1.0f), 0x3F80u);
  EXPECT_EQ(mm::to_bf16_bits(from_bits(0x3F808000u)), 0x3F80u);  // tie, to even (down)
  EXPECT_EQ(mm::to_bf16_bits(from_bits(0x3F818000u)), 0x3F82u);  // tie, to even (up)
  EXPECT_EQ(mm::to_bf16_bits(from_bits(0x3F808001u)), 0x3F81u);
  EXPECT_EQ(mm::to_bf16_bits(from_bits(0x40490FDBu)), 0x4049u);  // pi
  EXPECT_EQ(mm::to_bf16_bits(std::numeric_limits<float>::max()), 0x7F80u);  // overflows to inf
  EXPECT_EQ(mm::to_bf16_bits(-std::numeric_limits<float>::infinity()), 0xFF80u);
  EXPECT_EQ(mm::to_bf16_bits(from_bits(0x00018000u)), 0x0002u);  // subnormal tie, up to even
  EXPECT_TRUE(std::isnan(mm::round_to_bf16(std::numeric_limits<float>::quiet_NaN())));
  // A NaN whose payload sits only in the low 16 bits must not become infinity.
  EXPECT_TRUE(std::isnan(mm::round_to_bf16(from_bits(0x7F800001u))));
}

TEST(Precision, Fp16RoundsToNearestEvenWithOverflowAndSubnormals) {
  EXPECT_EQ(mm::to_fp16_bits(1.0f), 0x3C00u);
  EXPECT_EQ(mm::to_fp16_bits(0.1f), 0x2E66u);
  EXPECT_EQ(mm::to_fp16_bits(65504.0f), 0x7BFFu);  // largest finite
  EXPECT_EQ(mm::to_fp16_bits(std::nextafter(65520.0f, 0.0f)), 0x7BFFu);
  EXPECT_EQ(mm::to_fp16_bits(65520.0f), 0x7C00u);  // the tie above 65504 goes to even: infinity
  EXPECT_EQ(mm::to_fp16_bits(-1e6f), 0xFC00u);
  EXPECT_EQ(mm::to_fp16_bits(std::ldexp(1.0f, -14)), 0x0400u);  // smallest normal
  EXPECT_EQ(mm::to_fp16_bits(std::ldexp(1023.5f, -24)), 0x0400u);  // tie between 1023 and 1024 ulps: even
  EXPECT_EQ(mm::to_fp16_bits(std::ldexp(1.0f, -24)), 0x0001u);  // smallest subnormal
  EXPECT_EQ(mm::to_fp16_bits(std::ldexp(1.0f, -25)), 0x0000u);  // tie between 0 and 1 ulp: even (zero)
  EXPECT_EQ(mm::to_fp16_bits(std::ldexp(1.5f, -25)), 0x0001u);
  EXPECT_EQ(mm::to_fp16_bits(std::ldexp(3.0f, -25)), 0x0002u);  // 1.5 ulps: tie, to even 2
  EXPECT_EQ(mm::to_fp16_bits(-std::ldexp(1.0f, -30)), 0x8000u);  // underflow keeps the sign
  EXPECT_EQ(mm::to_fp16_bits(from_bits(0x3F801000u)), 0x3C00u);  // 1 + 2^-11: tie, down to even
  EXPECT_EQ(mm::to_fp16_bits(from_bits(0x3F803000u)), 0x3C02u);  // 1 + 3*2^-11: tie, up to even
  EXPECT_EQ(mm::to_fp16_bits(from_bits(0x3FFFF000u)), 0x4000u);  // carry into the exponent: 2.0
  EXPECT_EQ(mm::to_fp16_bits(std::numeric_limits<float>::infinity()), 0x7C00u);
  EXPECT_EQ(mm::to_fp16_bits(std::numeric_limits<float>::quiet_NaN()) & 0x7E00u, 0x7E00u);
  EXPECT_EQ(mm::round_to_fp16(1e5f), std::numeric_limits<float>::infinity());
}

TEST(Precision, EveryHalfPrecisionBitPatternRoundTrips) {
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    const uint16_t b = static_cast<uint16_t>(h);
    const float f16 = mm::fp16_bits_to_float(b), bf = mm::bf16_bits_to_float(b);
    if (!std::isnan(f16)) {
      ASSERT_EQ(mm::to_fp16_bits(f16), b) << "fp16 0x" << std::hex << h;
      // Halfway to the next pattern up (in magnitude) ties to the even one of the two.
      if ((h & 0x7FFFu) < 0x7BFFu) {
        const float next = mm::fp16_bits_to_float(static_cast<uint16_t>(h + 1));
        const float mid = static_cast<float>((static_cast<double>(f16) + static_cast<double>(next)) / 2);
        ASSERT_EQ(mm::to_fp16_bits(mid), (h & 1u) ? h + 1 : h) << "fp16 tie above 0x" << std::hex << h;
      }
    }
    if (!std::isnan(bf)) {
      ASSERT_EQ(mm::to_bf16_bits(bf), b) << "bf16 0x" << std::hex << h;
    }
  }
}

TEST(Precision, Tf32SplitRecoversTwentyTwoBits) {
  const auto xs = mm::make_matrix(1, 4096, 7);
  for (float x : xs) {
    const mm::Tf32Split s = mm::split_tf32(x * 1000.0f);
    EXPECT_EQ(bits(s.hi) & 0x1FFFu, 0u);
    EXPECT_EQ(bits(s.lo) & 0x1FFFu, 0u);
    const double v = static_cast<double>(x) * 1000.0;
    EXPECT_LE(std::abs(v - s.hi), std::ldexp(std::abs(v), -11));
    EXPECT_LE(std::abs(v - (static_cast<double>(s.hi) + s.lo)), std::ldexp(std::abs(v), -22));
  }
}

TEST(Precision, BoundFollowsTheStatedFormula) {
  EXPECT_DOUBLE_EQ(mm::error_bound(mm::Precision::Bf16, 1024), 4 * 0x1p-8 + 8 * 0x1p-24 * 32);
  EXPECT_DOUBLE_EQ(mm::error_bound(mm::Precision::Tf32, 4096), 4 * 0x1p-11 + 8 * 0x1p-24 * 64);
  EXPECT_DOUBLE_EQ(mm::error_bound(mm::Precision::Fp32, 4096), mm::tolerance(4096));
  EXPECT_DOUBLE_EQ(mm::error_bound(mm::Precision::Fp32, 1), 1e-6);
  EXPECT_LT(mm::error_bound(mm::Precision::Tf32x3, 4096), 2 * mm::error_bound(mm::Precision::Fp32, 4096));
}

TEST(Precision, MeasureErrorFindsTheWorstCellAndNonFiniteOnes) {
  const std::vector<double> ref = {1, 2, 3, 4, 5, 6};
  std::vector<float> c = {1, 2, 3.5f, 4, 5, 6.25f};
  mm::ErrorStats s = mm::measure_error(c, ref, 3, 0.1);
  // Cell 2 is off by 0.5, cell 5 only by 0.25: the worst is (0, 2).
  EXPECT_EQ(s.worst_row, 0);
  EXPECT_EQ(s.worst_col, 2);
  EXPECT_DOUBLE_EQ(s.worst_abs, 0.5);
  EXPECT_NEAR(s.rel_frobenius, std::sqrt(0.25 + 0.0625) / std::sqrt(91.0), 1e-12);
  EXPECT_TRUE(s.within_bound);
  c[4] = std::numeric_limits<float>::infinity();
  s = mm::measure_error(c, ref, 3, 0.1);
  EXPECT_EQ(s.nonfinite, 1u);
  EXPECT_EQ(s.worst_row, 1);
  EXPECT_EQ(s.worst_col, 1);
  EXPECT_FALSE(s.within_bound);
  EXPECT_NE(s.summary().find("not finite"), std::string::npos);
  EXPECT_THROW(mm::measure_error(c, std::vector<double>{1.0}, 3, 0.1), bs::InvalidRequest);
}

TEST(Precision, InputsStayInRangeAndAreNeverZero) {
  const auto v = mm::make_input(33, 17, 3, {0.25, false});
  for (float x : v) {
    EXPECT_NE(x, 0.0f);
    EXPECT_LT(std::abs(x), 0.25f);
  }
  EXPECT_EQ(v, mm::make_input(33, 17, 3, {0.25, false}));
  const auto w = mm::make_input(64, 64, 3, {1.0, true});
  int over_fp16 = 0, under_fp16 = 0;
  for (float x : w) {
    EXPECT_NE(x, 0.0f);
    over_fp16 += std::abs(x) > 65504.0f;
    under_fp16 += std::abs(x) < 0x1p-25f;
  }
  EXPECT_GT(over_fp16, 0);   // the wide option must show FP16's overflow ...
  EXPECT_GT(under_fp16, 0);  // ... and its underflow
  ASSERT_TRUE(mm::validate(mm::InputRange{0.0, false}).has_value());
  EXPECT_NE(mm::validate(mm::InputRange{std::nan(""), false})->find("--range"), std::string::npos);
  EXPECT_THROW(mm::make_input(2, 2, 1, {-1.0, false}), bs::InvalidRequest);
}

TEST(Precision, RoundedInputGemmShowsEachPrecisionsError) {
  const mm::Problem p{67, 45, 301};  // odd everywhere
  const auto a = mm::make_input(p.m, p.k, 1, {2.0, false}), b = mm::make_input(p.k, p.n, 2, {2.0, false});
  const auto ref = mm::reference_cpu(a, b, p);
  auto err = [&](mm::Precision q) {
    return mm::measure_error(mm::gemm_precision_cpu(q, a, b, p), ref, p.n, mm::error_bound(q, p.k));
  };
  const mm::ErrorStats f32 = err(mm::Precision::Fp32), bf = err(mm::Precision::Bf16), h = err(mm::Precision::Fp16),
                       t = err(mm::Precision::Tf32), x3 = err(mm::Precision::Tf32x3);
  for (const auto* s : {&f32, &bf, &h, &t, &x3})
    EXPECT_TRUE(s->within_bound) << s->summary();
  // Each precision shows its own size of error, not FP32's: BF16 about 8x TF32/FP16, which are far above FP32;
  // 3xTF32 comes back to FP32's order.
  EXPECT_GT(bf.rel_frobenius, 1e-3);
  EXPECT_GT(bf.rel_frobenius, 4 * t.rel_frobenius);
  EXPECT_GT(t.rel_frobenius, 1e-4);
  EXPECT_GT(h.rel_frobenius, 1e-4);
  EXPECT_GT(t.rel_frobenius, 100 * f32.rel_frobenius);
  EXPECT_LT(x3.rel_frobenius, 4 * f32.rel_frobenius + 1e-7);
  EXPECT_GT(bf.rel_frobenius, mm::error_bound(mm::Precision::Fp32, p.k));  // would fail FP32's check
}

TEST(Precision, WideInputsOverflowFp16ButNotBf16) {
  const mm::Problem p{31, 29, 65};
  const auto a = mm::make_input(p.m, p.k, 1, {1.0, true}), b = mm::make_input(p.k, p.n, 2, {1.0, true});
  const auto ref = mm::reference_cpu(a, b, p);
  const auto h = mm::measure_error(mm::gemm_precision_cpu(mm::Precision::Fp16, a, b, p), ref, p.n, 1e-2);
  EXPECT_GT(h.nonfinite, 0u) << h.summary();
  const auto bf = mm::measure_error(mm::gemm_precision_cpu(mm::Precision::Bf16, a, b, p), ref, p.n,
                                    mm::error_bound(mm::Precision::Bf16, p.k));
  EXPECT_EQ(bf.nonfinite, 0u);
  EXPECT_TRUE(bf.within_bound) << bf.summary();
}

TEST(Precision, GemmRejectsMismatchedInputsAndHonoursCancel) {
  const mm::Problem p{8, 8, 8};
  const std::vector<float> a(64, 1.0f), b(63, 1.0f);
  EXPECT_THROW(mm::gemm_precision_cpu(mm::Precision::Bf16, a, b, p), bs::InvalidRequest);
  bs::JobControl ctl;
  ctl.cancel();
  EXPECT_THROW(mm::gemm_precision_cpu(mm::Precision::Bf16, a, a, p, &ctl), bs::JobCancelled);
}

TEST(Precision, ModelReportsEveryPrecisionAgainstOneReference) {
  const mm::Problem p{40, 33, 129};
  const auto a = mm::make_input(p.m, p.k, 1, {1.0, false}), b = mm::make_input(p.k, p.n, 2, {1.0, false});
  const auto reports = mm::precision_model(a, b, p);
  ASSERT_EQ(reports.size(), mm::precisions().size());
  for (size_t i = 0; i < reports.size(); ++i) {
    EXPECT_EQ(reports[i].precision, mm::precisions()[i].id);
    EXPECT_TRUE(reports[i].error.within_bound) << mm::worst_text(reports[i].error);
    EXPECT_NE(mm::worst_text(reports[i].error).find(" at ("), std::string::npos);
  }
  EXPECT_GT(reports[0].error.rel_frobenius, 4 * reports[2].error.rel_frobenius);  // BF16 vs TF32
  bs::JobControl ctl;
  ctl.cancel();
  EXPECT_THROW(mm::precision_model(a, b, p, &ctl), bs::JobCancelled);
}
