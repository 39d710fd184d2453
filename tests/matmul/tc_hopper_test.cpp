// tc_hopper_test.cpp: the Hopper tensor-core rungs (gpu/matmul/tc_hopper.h). Everywhere: the ladder's
// entries, the reason a device cannot run them, and clean errors for bad arguments or a missing Hopper GPU.
// On a compute capability 9.0 device: every BF16 step against a float64 reference of the bf16-rounded inputs,
// the TF32 and 3xTF32 steps against float64 of their float32 inputs, on sizes that are not tile multiples
// (partial tiles in M, N and K), and spot checks at 4096^3. Skips with the reason elsewhere.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
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
  ASSERT_EQ(steps.size(), 5u);
  EXPECT_EQ(steps[0].id, hop::Step::TmaWgmma);
  EXPECT_STREQ(steps[0].name, "wgmma_tma");
  EXPECT_EQ(steps[1].id, hop::Step::WarpSpecialized);
  EXPECT_EQ(steps[2].id, hop::Step::Persistent);
  EXPECT_EQ(steps[3].id, hop::Step::TmaStore);
  EXPECT_EQ(steps[4].id, hop::Step::SplitK);
  EXPECT_STREQ(steps[4].name, "wgmma_splitk");
  std::set<std::string> names;
  for (const auto& s : steps) {
    names.insert(s.name);
    EXPECT_GT(std::strlen(s.title), 10u) << s.name;
    EXPECT_GT(std::strlen(s.description), 100u) << s.name;
  }
  EXPECT_EQ(names.size(), steps.size()) << "step names must be unique";
}

TEST(HopperSteps, Tf32StepsFollowWithTheirOwnEntryPoint) {
  const auto steps = hop::tf32_steps();
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].id, hop::Step::Tf32);
  EXPECT_STREQ(steps[0].name, "wgmma_tf32");
  EXPECT_EQ(steps[1].id, hop::Step::Tf32x3);
  EXPECT_STREQ(steps[1].name, "wgmma_tf32x3");
  for (const auto& s : steps) {
    EXPECT_GT(std::strlen(s.description), 100u) << s.name;
    for (const auto& b : hop::steps())
      EXPECT_STRNE(s.name, b.name);
  }
  EXPECT_EQ(hop::tf32x3_workspace_bytes(3, 8), 2 * 3 * 8 * 4);
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
               "not a BF16 Hopper step");
  expect_throw([&] { hop::gemm_bf16(hop::Step::Tf32, p, 8, p, 8, c, 1, 1, 8, nullptr); }, "gemm_tf32");
  // gemm_tf32: float32 rows are 16 bytes per 4 elements; 3xTF32 needs its workspace.
  const auto* f = reinterpret_cast<const float*>(fake);
  const auto t = hop::Step::Tf32;
  expect_throw([&] { hop::gemm_tf32(hop::Step::TmaStore, f, 4, f, 4, c, 1, 1, 4, nullptr, nullptr); },
               "gemm_bf16");
  expect_throw([&] { hop::gemm_tf32(t, f, 6, f, 4, c, 1, 1, 4, nullptr, nullptr); },
               "lda (6) must be at least k (4) and a multiple of 4");
  expect_throw([&] { hop::gemm_tf32(t, f, 4, f, 4, c, 1, 5, 4, nullptr, nullptr); },
               "ldb (4) must be at least n (5)");
  expect_throw([&] { hop::gemm_tf32(t, f, 4, f, 4, c, 1, 1, 0, nullptr, nullptr); }, "at least 1");
  expect_throw([&] { hop::gemm_tf32(t, f + 1, 4, f, 4, c, 1, 1, 4, nullptr, nullptr); }, "16-byte aligned");
  expect_throw([&] { hop::gemm_tf32(hop::Step::Tf32x3, f, 4, f, 4, c, 1, 1, 4, nullptr, nullptr); },
               "workspace");
}

// The persistent grid: never more blocks than SMs or tiles, the same number of rounds as one block per SM,
// and the tiles spread evenly (no block has more than one tile more than another).
TEST(HopperPersistentGrid, SameRoundsFewestBlocksEvenShares) {
  EXPECT_EQ(hop::persistent_blocks(512, 132), 128);   // 4096^3: 4 tiles each, not 132 with 16 idle at the end
  EXPECT_EQ(hop::persistent_blocks(2048, 132), 128);  // 8192^3: 16 each
  EXPECT_EQ(hop::persistent_blocks(264, 132), 132);
  EXPECT_EQ(hop::persistent_blocks(133, 132), 67);
  EXPECT_EQ(hop::persistent_blocks(100, 132), 100);
  EXPECT_EQ(hop::persistent_blocks(1, 132), 1);
  for (const int64_t sms : {1, 7, 114, 132}) {
    for (int64_t tiles = 1; tiles <= 3000; ++tiles) {
      const int64_t blocks = hop::persistent_blocks(tiles, sms);
      ASSERT_GE(blocks, 1);
      ASSERT_LE(blocks, std::min(tiles, sms)) << tiles << " tiles on " << sms << " SMs";
      const int64_t rounds = (tiles + sms - 1) / sms;
      ASSERT_EQ((tiles + blocks - 1) / blocks, rounds) << tiles << " tiles on " << sms << " SMs";
      ASSERT_GE(tiles / blocks, rounds - 1) << tiles << " tiles on " << sms << " SMs";
    }
  }
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
  bs::CudaBuffer<float, bs::DeviceMemory> dc, ws;

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
    ws.resize(std::max<int64_t>(1, hop::splitk_workspace_bytes(m, n, k) / 4));  // split-K's partial tiles
    hop::gemm_bf16(s, da.data(), lda, db.data(), ldb, dc.data(), m, n, k, nullptr, ws.data());
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

// float32 inputs uniform in [-1, 1] (padding zero) on the device, for gemm_tf32, both as they are: TF32's
// tensor core uses A's TF32 bits (truncation, tf32_trunc) and the kernel rounds B (cvt.rna, tf32).
struct F32Problem {
  int64_t m, n, k, lda, ldb;
  std::vector<float> a, b;
  bs::CudaBuffer<float, bs::DeviceMemory> da, db, dc, ws;

  static float tf32(float x) {  // cvt.rna.tf32.f32 for finite x
    uint32_t u = 0;
    std::memcpy(&u, &x, 4);
    u = (u + 0x1000u) & ~0x1FFFu;
    std::memcpy(&x, &u, 4);
    return x;
  }
  static float tf32_trunc(float x) {  // the low 13 mantissa bits dropped, as the tensor core reads a float32
    uint32_t u = 0;
    std::memcpy(&u, &x, 4);
    u &= ~0x1FFFu;
    std::memcpy(&x, &u, 4);
    return x;
  }

  F32Problem(int64_t m_, int64_t n_, int64_t k_, int64_t pad, uint32_t seed)
      : m(m_), n(n_), k(k_), lda((k_ + 3) / 4 * 4 + pad), ldb((n_ + 3) / 4 * 4 + pad) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    a.assign(m * lda, 0.f);
    b.assign(k * ldb, 0.f);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < k; ++j)
        a[i * lda + j] = u(rng);
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < n; ++j)
        b[i * ldb + j] = u(rng);
    da.resize(a.size());
    db.resize(b.size());
    dc.resize(m * n);
    ws.resize(hop::tf32x3_workspace_bytes(m, lda) / 4);
    BS_CUDA_CHECK(cudaMemcpy(da.data(), a.data(), da.bytes(), cudaMemcpyHostToDevice));
    BS_CUDA_CHECK(cudaMemcpy(db.data(), b.data(), db.bytes(), cudaMemcpyHostToDevice));
  }

  std::vector<float> run(hop::Step s) {
    BS_CUDA_CHECK(cudaMemset(dc.data(), 0xFF, dc.bytes()));  // NaN: an element never written fails
    hop::gemm_tf32(s, da.data(), lda, db.data(), ldb, dc.data(), m, n, k, ws.data(), nullptr);
    BS_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> c(m * n);
    BS_CUDA_CHECK(cudaMemcpy(c.data(), dc.data(), dc.bytes(), cudaMemcpyDeviceToHost));
    return c;
  }

  // |c - ref| / bound at (i, j). TF32: ref from the TF32 values (A truncated as the tensor core reads it, B
  // rounded as the kernel does); products of TF32 values are exact in FP32, so the bound is FP32
  // accumulation's, 2 k u sum|a b|: A or B rounded otherwise (e.g. A to nearest: up to 2^-11 of an element at
  // k = 1), a wrong fragment or a lost k-slice fail it. 3xTF32: ref from the raw inputs, bound (2 k u +
  // 2^-20) sum|a b| (hi + lo is within 2^-22 of each input; two inputs and the dropped lo*lo term), 500 times
  // tighter than TF32's input rounding.
  double error_over_bound(hop::Step s, const std::vector<float>& c, int64_t i, int64_t j) const {
    double ref = 0, mag = 0;
    for (int64_t q = 0; q < k; ++q) {
      const float bq = s == hop::Step::Tf32 ? tf32(b[q * ldb + j]) : b[q * ldb + j];
      const float aq = s == hop::Step::Tf32 ? tf32_trunc(a[i * lda + q]) : a[i * lda + q];
      const double t = static_cast<double>(aq) * bq;
      ref += t;
      mag += std::fabs(t);
    }
    const double u = std::ldexp(1.0, -24);
    const double bound =
        (2.0 * static_cast<double>(k) * u + (s == hop::Step::Tf32 ? 0.0 : std::ldexp(1.0, -20))) * mag;
    const double e = std::fabs(static_cast<double>(c[i * n + j]) - ref) / (bound + 1e-30);
    return std::isnan(e) ? INFINITY : e;
  }
};

class HopperTf32Gpu : public HopperGpu {};

TEST_P(HopperTf32Gpu, MatchesFloat64OnPartialTiles) {
  struct Size {
    int64_t m, n, k, pad;
  };
  // Partial tiles in every direction (the TF32 tile is 256 (m) x 128 (n) x 32 (k), 3xTF32's 128 x 128 x 32),
  // an ldb with padding, k = 1, and more tiles than SMs (each persistent block walks several).
  for (const Size& s : {Size{1000, 777, 333, 0}, Size{129, 65, 40, 4}, Size{1, 1, 1, 0},
                        Size{257, 300, 520, 8}, Size{3, 1000, 37, 0}, Size{3000, 1500, 100, 0}}) {
    F32Problem p(s.m, s.n, s.k, s.pad, static_cast<uint32_t>(s.m * 17 + s.k));
    const auto c = p.run(GetParam());
    double worst = 0;
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j)
        worst = std::max(worst, p.error_over_bound(GetParam(), c, i, j));
    std::printf("%s %lldx%lldx%lld (lda %lld, ldb %lld): max error / bound %.3g\n",
                hop::tf32_steps()[GetParam() == hop::Step::Tf32 ? 0 : 1].name, static_cast<long long>(s.m),
                static_cast<long long>(s.n), static_cast<long long>(s.k), static_cast<long long>(p.lda),
                static_cast<long long>(p.ldb), worst);
    EXPECT_LE(worst, 1.0) << s.m << "x" << s.n << "x" << s.k;
  }
}

TEST_P(HopperTf32Gpu, MatchesFloat64AtSpotsOf4096Cubed) {
  F32Problem p(4096, 4096, 4096, 0, 4096);
  const auto c = p.run(GetParam());
  std::mt19937_64 rng(11);
  double worst = 0;
  for (int s = 0; s < 400; ++s)
    worst = std::max(worst, p.error_over_bound(GetParam(), c, rng() % 4096, rng() % 4096));
  for (int64_t i : {0, 4095})
    for (int64_t j : {0, 4095})
      worst = std::max(worst, p.error_over_bound(GetParam(), c, i, j));
  std::printf("%s 4096^3, 404 spots: max error / bound %.3g\n",
              hop::tf32_steps()[GetParam() == hop::Step::Tf32 ? 0 : 1].name, worst);
  EXPECT_LE(worst, 1.0);
}

INSTANTIATE_TEST_SUITE_P(Tf32Steps, HopperTf32Gpu, ::testing::Values(hop::Step::Tf32, hop::Step::Tf32x3),
                         [](const auto& info) {
                           return std::string(hop::tf32_steps()[info.param == hop::Step::Tf32 ? 0 : 1].name);
                         });

// Split-K where C has few tiles: one tile over K = 4000 (21 slices on 132 SMs), a matrix-vector shape, and a
// shape with enough tiles that it runs unsplit; each against float64, and the workspace it needs is asked
// for.
TEST_F(HopperGpu, SplitKSlicesKWhereTheTilesAreFew) {
  EXPECT_GT(hop::splitk_workspace_bytes(129, 65, 4000), 0);
  EXPECT_GT(hop::splitk_workspace_bytes(1, 1000, 2048), 0);
  EXPECT_EQ(hop::splitk_workspace_bytes(4096, 4096, 4096), 0) << "1024 tiles: no split";
  EXPECT_EQ(hop::splitk_workspace_bytes(100, 100, 100), 0) << "two k-tiles: no split";
  for (const auto& sz : {std::array<int64_t, 3>{129, 65, 4000}, std::array<int64_t, 3>{1, 1000, 2048},
                         std::array<int64_t, 3>{8, 300, 1031}}) {
    Problem p(sz[0], sz[1], sz[2], 0, static_cast<uint32_t>(sz[2]));
    const auto c = p.run(hop::Step::SplitK);
    double worst = 0;
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j)
        worst = std::max(worst, p.error_over_bound(c, i, j));
    std::printf("wgmma_splitk %lldx%lldx%lld (%lld workspace bytes): max error / bound %.3g\n",
                static_cast<long long>(p.m), static_cast<long long>(p.n), static_cast<long long>(p.k),
                static_cast<long long>(hop::splitk_workspace_bytes(p.m, p.n, p.k)), worst);
    EXPECT_LE(worst, 1.0) << sz[0] << "x" << sz[1] << "x" << sz[2];
  }
  // Without its workspace a split call is refused, naming the bytes it needs.
  Problem p(129, 65, 4000, 0, 1);
  try {
    hop::gemm_bf16(hop::Step::SplitK, p.da.data(), p.lda, p.db.data(), p.ldb, p.dc.data(), p.m, p.n, p.k,
                   nullptr);
    ADD_FAILURE() << "a split call without its workspace ran";
  } catch (const bs::InvalidRequest& e) {
    EXPECT_NE(std::string(e.what()).find("splitk_workspace_bytes"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Steps, HopperGpu,
                         ::testing::Values(hop::Step::TmaWgmma, hop::Step::WarpSpecialized,
                                           hop::Step::Persistent, hop::Step::TmaStore, hop::Step::SplitK),
                         [](const auto& info) {
                           return std::string(hop::steps()[static_cast<int>(info.param)].name);
                         });

}  // namespace
