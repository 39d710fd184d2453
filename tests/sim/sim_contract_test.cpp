// sim_contract_test.cpp: ptxas's mul + add/sub contraction (contract_mul_add, ptx.h). Hand-written PTX on
// inputs where one rounding (fma) and two roundings (mul, then add) give different bits: each fused form
// (m + x, x + m, m - x, x - m, f64, .sat, .ftz) gives std::fma's bits; every case ptxas must leave apart (an
// explicit rounding modifier, a product used twice, a label or a redefinition between, .sat on the mul, .ftz
// on one only) gives the two roundings' bits.
#include <bit>
#include <cmath>
#include <cstring>

#include "sim_util.h"

namespace bs::sim::test {
namespace {

// a = b = 1 + 2^-12: a * b = 1 + 2^-11 + 2^-24 is a tie in float and rounds to 1 + 2^-11; x = -(1 + 2^-11).
// Rounded twice, a * b + x = 0; fused, 2^-24.
constexpr float k_a = 1.0f + 0x1p-12f;
constexpr float k_x = -(1.0f + 0x1p-11f);
constexpr double k_da = 1.0 + 0x1p-27;  // in double: 1 + 2^-26 + 2^-54 rounds to 1 + 2^-26
constexpr double k_dx = -(1.0 + 0x1p-26);

// Kernel k(in, out): in holds {a, b, x, 1.5} as floats at 0..12 and {da, db, dx} as doubles at 16..32; the
// body computes into %f/%fd registers and stores.
std::string kernel(const std::string& body) {
  return ".version 8.0\n.target sm_90\n.address_size 64\n"
         ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n"
         "  .reg .pred %p<4>;\n  .reg .b32 %r<8>;\n  .reg .f32 %f<24>;\n  .reg .b64 %rd<8>;\n"
         "  .reg .f64 %fd<12>;\n"
         "  ld.param.u64 %rd1, [in];\n  cvta.to.global.u64 %rd1, %rd1;\n"
         "  ld.param.u64 %rd2, [out];\n  cvta.to.global.u64 %rd2, %rd2;\n"
         "  ld.global.f32 %f1, [%rd1];\n  ld.global.f32 %f2, [%rd1+4];\n  ld.global.f32 %f3, [%rd1+8];\n"
         "  ld.global.f32 %f4, [%rd1+12];\n"
         "  ld.global.f64 %fd1, [%rd1+16];\n  ld.global.f64 %fd2, [%rd1+24];\n  ld.global.f64 %fd3, [%rd1+32];\n" +
         body + "  ret;\n}\n";
}

struct Ran {
  Module m;
  std::vector<uint32_t> out;
};

Ran run(const std::string& ptx) {
  Ran r{parse_ptx(ptx), std::vector<uint32_t>(16, 0xdeadbeefu)};
  std::vector<uint32_t> in(10, 0);
  const float f[4] = {k_a, k_a, k_x, 1.5f};
  const double d[3] = {k_da, k_da, k_dx};
  std::memcpy(in.data(), f, sizeof f);
  std::memcpy(in.data() + 4, d, sizeof d);
  LaunchConfig cfg;
  cfg.buffers = {buffer("in", in), buffer("out", r.out)};
  cfg.args = {Arg::pointer(0), Arg::pointer(1)};
  const LaunchResult lr = launch(r.m, "k", cfg);
  EXPECT_TRUE(lr.ok) << lr.failure.message;
  return r;
}

uint32_t bits(float v) { return std::bit_cast<uint32_t>(v); }
uint64_t bits(double v) { return std::bit_cast<uint64_t>(v); }
uint64_t word64(const std::vector<uint32_t>& v, size_t i) {
  uint64_t b = 0;
  std::memcpy(&b, &v[i], 8);
  return b;
}

// The host's fused and twice-rounded results (volatile: nothing folded or contracted at compile time).
template <class T>
T fused(T a, T b, T c) {
  volatile T x = a;
  return std::fma(x, b, c);
}
template <class T>
T twice(T a, T b, T c) {
  volatile T p = a * b;
  return p + c;
}

TEST(SimContract, TheInputsTellOneRoundingFromTwo) {
  EXPECT_NE(bits(fused(k_a, k_a, k_x)), bits(twice(k_a, k_a, k_x)));
  EXPECT_EQ(fused(k_a, k_a, k_x), 0x1p-24f);
  EXPECT_EQ(twice(k_a, k_a, k_x), 0.0f);
  EXPECT_NE(bits(fused(k_da, k_da, k_dx)), bits(twice(k_da, k_da, k_dx)));
}

TEST(SimContract, MulFeedingAddOrSubRunsAsOneFmaAsPtxasFusesIt) {
  const Ran r = run(kernel(R"(
  mul.f32 %f5, %f1, %f2;
  add.f32 %f6, %f5, %f3;          // m + x
  st.global.f32 [%rd2], %f6;
  mul.f32 %f7, %f1, %f2;
  add.f32 %f8, %f3, %f7;          // x + m
  st.global.f32 [%rd2+4], %f8;
  neg.f32 %f9, %f3;
  mul.f32 %f10, %f1, %f2;
  sub.f32 %f11, %f10, %f9;        // m - (-x)
  st.global.f32 [%rd2+8], %f11;
  mul.f32 %f12, %f1, %f2;
  sub.f32 %f13, %f9, %f12;        // (-x) - m
  st.global.f32 [%rd2+12], %f13;
  mul.f32 %f14, %f1, %f2;
  mov.f32 %f15, 0f40000000;       // other instructions between, in the same block
  add.f32 %f16, %f14, %f3;
  st.global.f32 [%rd2+16], %f16;
  mul.f64 %fd4, %fd1, %fd2;
  add.f64 %fd5, %fd4, %fd3;
  st.global.f64 [%rd2+24], %fd5;
  mul.f32 %f17, %f1, %f2;
  add.sat.f32 %f18, %f17, %f3;    // .sat on the add: fma.sat
  st.global.f32 [%rd2+32], %f18;
  mul.ftz.f32 %f19, %f1, %f2;
  add.ftz.f32 %f20, %f19, %f3;    // .ftz on both
  st.global.f32 [%rd2+36], %f20;
)"));
  EXPECT_EQ(r.m.contracted, 8u);
  EXPECT_EQ(r.out[0], bits(fused(k_a, k_a, k_x)));
  EXPECT_EQ(r.out[1], bits(fused(k_a, k_a, k_x)));
  EXPECT_EQ(r.out[2], bits(fused(k_a, k_a, k_x)));   // m - (-x) = fma(a, b, x)
  EXPECT_EQ(r.out[3], bits(fused(-k_a, k_a, -k_x)));  // (-x) - m = fma(-a, b, -x)
  EXPECT_EQ(r.out[3], bits(-0x1p-24f));
  EXPECT_EQ(r.out[4], bits(fused(k_a, k_a, k_x)));
  EXPECT_EQ(word64(r.out, 6), bits(fused(k_da, k_da, k_dx)));
  EXPECT_EQ(r.out[8], bits(0x1p-24f));  // in [0, 1]: saturation keeps it
  EXPECT_EQ(r.out[9], bits(fused(k_a, k_a, k_x)));
  // The fused add's PTX text says what it runs as.
  bool said = false;
  for (const std::string& t : r.m.text) said = said || t.find("runs as fma.rn") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(SimContract, PairsPtxasMustLeaveApartAreRoundedTwice) {
  const Ran r = run(kernel(R"(
  mul.rn.f32 %f5, %f1, %f2;       // explicit rounding on the mul
  add.f32 %f6, %f5, %f3;
  st.global.f32 [%rd2], %f6;
  mul.f32 %f7, %f1, %f2;
  add.rn.f32 %f8, %f7, %f3;       // explicit rounding on the add
  st.global.f32 [%rd2+4], %f8;
  mul.f32 %f9, %f1, %f2;          // the product used twice
  add.f32 %f10, %f9, %f3;
  st.global.f32 [%rd2+8], %f10;
  st.global.f32 [%rd2+12], %f9;
  mul.f32 %f11, %f1, %f2;
  bra.uni $L1;
$L1:
  add.f32 %f12, %f11, %f3;        // another basic block
  st.global.f32 [%rd2+16], %f12;
  mul.f32 %f13, %f1, %f2;
  mov.f32 %f1, 0f3F800000;        // an operand of the mul changes before the add
  add.f32 %f14, %f13, %f3;
  st.global.f32 [%rd2+20], %f14;
  ld.global.f32 %f1, [%rd1];
  mul.sat.f32 %f15, %f1, %f2;     // a saturated product
  add.f32 %f16, %f15, %f3;
  st.global.f32 [%rd2+24], %f16;
  mul.f32 %f17, %f1, %f2;
  add.ftz.f32 %f18, %f17, %f3;    // .ftz on one only
  st.global.f32 [%rd2+28], %f18;
  mul.f64 %fd4, %fd1, %fd2;
  add.rz.f64 %fd5, %fd4, %fd3;
  st.global.f64 [%rd2+32], %fd5;
)"));
  EXPECT_EQ(r.m.contracted, 0u);
  const uint32_t twice_bits = bits(twice(k_a, k_a, k_x));
  // (word 5 fused wrongly would read the new %f1 = 1: fma(1, a, x) = a + x)
  for (int i : {0, 1, 2, 4, 5, 7}) EXPECT_EQ(r.out[static_cast<size_t>(i)], twice_bits) << "word " << i;
  EXPECT_EQ(r.out[3], bits(k_a * k_a));
  EXPECT_EQ(r.out[6], bits(1.0f + k_x));  // min(a * a, 1) + x
  EXPECT_EQ(word64(r.out, 8), bits(twice(k_da, k_da, k_dx)));
}

// A CUDA kernel through NVRTC: NVVM leaves `b - a * inv * dt` (inv shared by two such lines, as in the memory
// lab's particle step) as mul.f32 + sub.f32 in the PTX; the simulator gives std::fma's bits, as the GPU does.
TEST(SimContract, NvrtcsMulAndSubFromCudaSourceGiveTheFusedBits) {
  REQUIRE_NVRTC();
  const Module m = module_of(R"(
extern "C" __global__ void step(const float* r, const float* x, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float inv = 1.0f / r[i];
  const float a = x[2 * i], b = x[2 * i + 1];
  out[2 * i] = b - a * inv * 0.01f;
  out[2 * i + 1] = a - b * inv * 0.01f;
})");
  EXPECT_EQ(m.contracted, 2u);
  const int n = 1000;
  std::vector<float> r(n), x(2 * n), out(2 * n, NAN);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.3f * static_cast<float>(i)) * 7.0f;
  for (size_t i = 0; i < r.size(); ++i) r[i] = 0.5f + 0.37f * static_cast<float>(i % 17);
  LaunchConfig cfg;
  cfg.grid = dim(8);
  cfg.block = dim(128);
  cfg.buffers = {buffer("r", r), buffer("x", x), buffer("out", out, true)};
  cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::pointer(2), Arg::value(n)};
  const LaunchResult res = launch(m, "step", cfg);
  ASSERT_TRUE(res.ok) << res.failure.message;
  int differs = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    volatile float inv = 1.0f / r[i / 2];
    const float prod = x[i] * inv, other = x[i ^ 1];  // element 2i: b - a * inv * dt; 2i + 1: a - b * inv * dt
    const float want = fused(-prod, 0.01f, other);
    ASSERT_EQ(bits(out[i]), bits(want)) << "element " << i;
    volatile float scaled = prod * 0.01f;
    differs += bits(want) != bits(other - scaled);
  }
  EXPECT_GT(differs, 0) << "no input where one rounding differs from two: the test proves nothing";
}

}  // namespace
}  // namespace bs::sim::test
