// tc_hopper_test.cpp: the Hopper tensor-core rungs (gpu/matmul/tc_hopper.h). Everywhere: the ladder's
// entries, the reason a device cannot run them, and clean errors for bad arguments or a missing Hopper GPU.
// On a compute capability 9.0 device: every step against a float64 reference of the bf16-rounded inputs, on
// sizes that are not tile multiples (partial tiles in M, N and K) and spot checks at 4096^3. Skips with the
// reason elsewhere.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "gpu/common/device_buffer.h"
#include "gpu/matmul/tc_hopper.h"
#include "test_util.h"

namespace hop = bs::matmul::hopper;

namespace {

// float -> bf16 bits, round to nearest even (the inputs are finite).
uint16_t to_bf16(float f) {
  uint32_t u = 0;
  std::memcpy(&u, &f, 4);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}
float from_bf16(uint16_t h) {
  const uint32_t u = static_cast<uint32_t>(h) << 16;
  float f = 0;
  std::memcpy(&f, &u, 4);
  return f;
}

TEST(HopperSteps, AreListedInLadderOrderWithWhatChanged) {
  const auto steps = hop::steps();
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[0].id, hop::Step::TmaWgmma);
  EXPECT_STREQ(steps[0].name, "wgmma_tma");
  EXPECT_EQ(steps[1].id, hop::Step::WarpSpecialized);
  EXPECT_EQ(steps[2].id, hop::Step::Persistent);
  EXPECT_EQ(steps[3].id, hop::Step::TmaStore);
  std::set<std::string> names;
  for (const auto& s : steps) {
    names.insert(s.name);
    EXPECT_GT(std::strlen(s.title), 10u) << s.name;
    EXPECT_GT(std::strlen(s.description), 100u) << s.name;
  }
  EXPECT_EQ(names.size(), steps.size()) << "step names must be unique";
}

TEST(HopperAvailability, NonexistentDevicesGiveAReason) {
  for (int dev : {-1, 1000}) {
    const auto why = hop::unavailable_reason(dev);
    ASSERT_TRUE(why.has_value()) << "device " << dev;
    EXPECT_FALSE(why->empty());
    std::printf("unavailable_reason(%d): %s\n", dev, why->c_str());
  }
}

TEST(HopperAvailability, DeviceZeroIsUsableOnlyIfItIsAHopper) {
  const auto why = hop::unavailable_reason(0);
  const auto& d = bs::test::device();
  std::printf("unavailable_reason(0): %s\n", why ? why->c_str() : "(none: runs the Hopper rungs)");
  if (!d.available) {
    ASSERT_TRUE(why.has_value());
  } else if (d.cc_major != 9 || d.cc_minor != 0) {
    ASSERT_TRUE(why.has_value());
    EXPECT_NE(why->find("9.0"), std::string::npos) << *why;
    EXPECT_NE(why->find(d.compute_capability()), std::string::npos) << *why;
  } else {
    EXPECT_FALSE(why.has_value()) << *why;
  }
}

// Validation comes before any CUDA call: these hold with or without a GPU. The pointers are never read.
TEST(HopperArgs, BadArgumentsThrowNamingTheRule) {
  alignas(16) static unsigned char fake[64];
  const void* p = fake;
  auto* c = reinterpret_cast<float*>(fake);
  auto expect_throw = [](auto&& call, const char* needle) {
    try {
      call();
      ADD_FAILURE() << "no exception; expected one mentioning '" << needle << "'";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  const auto s = hop::Step::TmaWgmma;
  expect_throw([&] { hop::gemm_bf16(s, p, 8, p, 8, c, 0, 1, 8, nullptr); }, "at least 1");
  expect_throw([&] { hop::gemm_bf16(s, p, 8, p, 8, c, 1, 1, -3, nullptr); }, "at least 1");
  expect_throw([&] { hop::gemm_bf16(s, p, 12, p, 8, c, 1, 1, 8, nullptr); }, "lda (12)");
  expect_throw([&] { hop::gemm_bf16(s, p, 8, p, 8, c, 1, 1, 9, nullptr); }, "lda (8) must be at least k (9)");
  expect_throw([&] { hop::gemm_bf16(s, p, 8, p, 8, c, 1, 9, 8, nullptr); }, "ldb (8) must be at least n (9)");
  expect_throw([&] { hop::gemm_bf16(s, nullptr, 8, p, 8, c, 1, 1, 8, nullptr); }, "not null");
  expect_throw([&] { hop::gemm_bf16(s, fake + 2, 8, p, 8, c, 1, 1, 8, nullptr); }, "16-byte aligned");
  expect_throw([&] { hop::gemm_bf16(static_cast<hop::Step>(7), p, 8, p, 8, c, 1, 1, 8, nullptr); },
               "unknown");
}

TEST(HopperNoHopper, GemmThrowsTheReasonInsteadOfLaunching) {
  const auto why = hop::unavailable_reason(0);
  if (!why) GTEST_SKIP() << "device 0 runs the Hopper rungs; nothing to refuse";
  alignas(16) static unsigned char fake[64];
  try {
    hop::gemm_bf16(hop::Step::WarpSpecialized, fake, 8, fake, 8, reinterpret_cast<float*>(fake), 1, 1, 8,
                   nullptr);
    FAIL() << "gemm_bf16 ran without a usable device";
  } catch (const std::runtime_error& e) {
    std::printf("gemm_bf16 without a Hopper GPU: %s\n", e.what());
    EXPECT_NE(std::string(e.what()).find("gemm_bf16"), std::string::npos) << e.what();
  }
}

// A GEMM problem with bf16 inputs uniform in [-1, 1] (padding columns zero) on the device.
struct Problem {
  int64_t m, n, k, lda, ldb;
  std::vector<uint16_t> a, b;
  bs::CudaBuffer<uint16_t, bs::DeviceMemory> da, db;
  bs::CudaBuffer<float, bs::DeviceMemory> dc;

  Problem(int64_t m_, int64_t n_, int64_t k_, int64_t pad, uint32_t seed)
      : m(m_), n(n_), k(k_), lda((k_ + 7) / 8 * 8 + pad), ldb((n_ + 7) / 8 * 8 + pad) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    a.assign(m * lda, 0);
    b.assign(k * ldb, 0);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < k; ++j)
        a[i * lda + j] = to_bf16(u(rng));
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < n; ++j)
        b[i * ldb + j] = to_bf16(u(rng));
    da.resize(a.size());
    db.resize(b.size());
    dc.resize(m * n);
    BS_CUDA_CHECK(cudaMemcpy(da.data(), a.data(), da.bytes(), cudaMemcpyHostToDevice));
    BS_CUDA_CHECK(cudaMemcpy(db.data(), b.data(), db.bytes(), cudaMemcpyHostToDevice));
  }

  std::vector<float> run(hop::Step s) {
    BS_CUDA_CHECK(cudaMemset(dc.data(), 0xFF, dc.bytes()));  // NaN: an element never written fails
    hop::gemm_bf16(s, da.data(), lda, db.data(), ldb, dc.data(), m, n, k, nullptr);
    BS_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> c(m * n);
    BS_CUDA_CHECK(cudaMemcpy(c.data(), dc.data(), dc.bytes(), cudaMemcpyDeviceToHost));
    return c;
  }

  // |c - ref| / bound at (i, j): ref in float64 from the bf16 inputs; the bound is that of FP32 accumulation,
  // 2 k u sum |a b| with u = 2^-24 (each bf16 x bf16 product is exact in FP32, each addition rounds once; the
  // factor 2 covers the tensor core's own summation order). A lost or doubled k-slice is off by O(|a b|), far
  // past it.
  double error_over_bound(const std::vector<float>& c, int64_t i, int64_t j) const {
    double ref = 0, mag = 0;
    for (int64_t q = 0; q < k; ++q) {
      const double t = static_cast<double>(from_bf16(a[i * lda + q])) * from_bf16(b[q * ldb + j]);
      ref += t;
      mag += std::fabs(t);
    }
    const double bound = 2.0 * static_cast<double>(k) * std::ldexp(1.0, -24) * mag + 1e-30;
    const double e = std::fabs(static_cast<double>(c[i * n + j]) - ref) / bound;
    return std::isnan(e) ? INFINITY : e;
  }
};

class HopperGpu : public ::testing::TestWithParam<hop::Step> {
 protected:
  void SetUp() override {
    BS_REQUIRE_GPU();
    if (const auto why = hop::unavailable_reason(0)) GTEST_SKIP() << "no Hopper GPU: " << *why;
  }
};

TEST_P(HopperGpu, MatchesFloat64OnPartialTiles) {
  struct Size {
    int64_t m, n, k, pad;
  };
  for (const Size& s : {Size{1000, 777, 333, 0}, Size{1000, 777, 333, 24}, Size{129, 65, 40, 0},
                        Size{1, 1, 8, 0}, Size{257, 300, 520, 8}, Size{3, 1000, 1, 0}}) {
    Problem p(s.m, s.n, s.k, s.pad, static_cast<uint32_t>(s.m * 31 + s.n));
    const auto c = p.run(GetParam());
    double worst = 0;
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j)
        worst = std::max(worst, p.error_over_bound(c, i, j));
    std::printf("%s %lldx%lldx%lld (lda %lld, ldb %lld): max error / bound %.3g\n",
                hop::steps()[static_cast<int>(GetParam())].name, static_cast<long long>(s.m),
                static_cast<long long>(s.n), static_cast<long long>(s.k), static_cast<long long>(p.lda),
                static_cast<long long>(p.ldb), worst);
    EXPECT_LE(worst, 1.0) << s.m << "x" << s.n << "x" << s.k;
  }
}

TEST_P(HopperGpu, MatchesFloat64AtSpotsOf4096Cubed) {
  Problem p(4096, 4096, 4096, 0, 4096);
  const auto c = p.run(GetParam());
  std::mt19937_64 rng(11);
  double worst = 0;
  for (int s = 0; s < 400; ++s)
    worst = std::max(worst, p.error_over_bound(c, rng() % 4096, rng() % 4096));
  for (int64_t i : {0, 4095})
    for (int64_t j : {0, 4095})
      worst = std::max(worst, p.error_over_bound(c, i, j));
  std::printf("%s 4096^3, 404 spots: max error / bound %.3g\n",
              hop::steps()[static_cast<int>(GetParam())].name, worst);
  EXPECT_LE(worst, 1.0);
}

INSTANTIATE_TEST_SUITE_P(Steps, HopperGpu,
                         ::testing::Values(hop::Step::TmaWgmma, hop::Step::WarpSpecialized,
                                           hop::Step::Persistent, hop::Step::TmaStore),
                         [](const auto& info) {
                           return std::string(hop::steps()[static_cast<int>(info.param)].name);
                         });

}  // namespace
