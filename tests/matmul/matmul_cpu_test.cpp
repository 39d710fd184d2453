// matmul_cpu_test.cpp: the matmul lab without a GPU: size and memory validation, the variant table and its
// geometry, inputs, the correctness check (and that it catches NaN and TF32-sized errors), the CPU baselines
// against a float64 reference and each other, and cancel.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <future>
#include <limits>
#include <set>
#include <thread>

#include "core/error.h"
#include "gpu/matmul/matmul.h"
#include "test_util.h"

namespace bs::matmul {
namespace {

// --- Validation --------------------------------------------------------------------------------------------

TEST(MatmulValidate, AcceptsTheWholeRange) {
  EXPECT_FALSE(validate({1, 1, 1}));
  EXPECT_FALSE(validate({8192, 8192, 8192}));
  EXPECT_FALSE(validate({1000, 777, 333}));
}

TEST(MatmulValidate, ZeroNegativeAndTooLargeNameTheDimension) {
  const auto zero = validate({0, 5, 5});
  ASSERT_TRUE(zero);
  EXPECT_NE(zero->find("M = 0"), std::string::npos) << *zero;
  EXPECT_NE(zero->find("at least 1"), std::string::npos) << *zero;

  const auto neg = validate({5, -3, 5});
  ASSERT_TRUE(neg);
  EXPECT_NE(neg->find("N = -3"), std::string::npos) << *neg;
  EXPECT_NE(neg->find("negative"), std::string::npos) << *neg;

  const auto big = validate({5, 8193, 5});
  ASSERT_TRUE(big);
  EXPECT_NE(big->find("N = 8193"), std::string::npos) << *big;
  EXPECT_NE(big->find("8192"), std::string::npos) << *big;
  // K may reach 16384 (large-K shapes need split-k), not beyond.
  EXPECT_FALSE(validate({128, 128, 16384}));
  const auto long_k = validate({5, 5, 16385});
  ASSERT_TRUE(long_k);
  EXPECT_NE(long_k->find("16384"), std::string::npos) << *long_k;
}

TEST(MatmulValidate, MemoryCheckWithMadeUpFreeMemory) {
  const Problem p{8192, 8192, 8192};
  // 3 matrices of 8192^2 floats = 768 MiB, plus the reserve.
  EXPECT_EQ(device_bytes_needed(p), size_t{3} * 8192 * 8192 * 4 + k_device_reserve_bytes);
  EXPECT_FALSE(validate_memory(p, size_t{80} << 30));
  const auto err = validate_memory(p, size_t{512} << 20);
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("832 MiB"), std::string::npos) << *err;  // 768 + 64
  EXPECT_NE(err->find("512 MiB are free"), std::string::npos) << *err;
  EXPECT_FALSE(validate_memory({1, 1, 1}, k_device_reserve_bytes + 12));
  EXPECT_TRUE(validate_memory({1, 1, 1}, k_device_reserve_bytes + 11));
}

TEST(MatmulValidate, RunnerRejectsBadSizesBeforeTouchingTheGpu) {
  // Validation comes first, so these throw InvalidRequest with or without a device.
  EXPECT_THROW(GpuRunner({0, 4, 4}), InvalidRequest);
  EXPECT_THROW(GpuRunner({4, -1, 4}), InvalidRequest);
  EXPECT_THROW(GpuRunner({4, 4, 16385}), InvalidRequest);
  EXPECT_THROW(GpuRunner({4, 9000, 4}), InvalidRequest);
  try {
    GpuRunner r({4, 4, 0});
    FAIL() << "K = 0 accepted";
  } catch (const InvalidRequest& e) {
    EXPECT_NE(std::string(e.what()).find("K = 0"), std::string::npos) << e.what();
  }
}

TEST(MatmulValidate, RunnerWithoutGpuSaysWhy) {
  if (test::device().available) GTEST_SKIP() << "a CUDA device is present";
  try {
    GpuRunner r({4, 4, 4});
    FAIL() << "constructed without a device";
  } catch (const GpuError& e) {
    EXPECT_NE(std::string(e.what()).find("no CUDA device"), std::string::npos) << e.what();
  }
}

// --- Variant table and geometry ----------------------------------------------------------------------------

TEST(MatmulVariants, NamesAreUniqueAndParse) {
  std::set<std::string> names;
  for (const auto& v : gpu_variants()) {
    EXPECT_TRUE(names.insert(v.name).second) << v.name;
    EXPECT_EQ(parse_variant(v.name), v.id);
    EXPECT_GT(std::strlen(v.description), 20u) << v.name;
  }
  for (const auto& v : cpu_variants()) {
    EXPECT_TRUE(names.insert(v.name).second) << v.name;
    EXPECT_EQ(parse_cpu_variant(v.name), v.id);
  }
  EXPECT_FALSE(parse_variant("nope"));
  EXPECT_EQ(gpu_variants().back().id, Variant::Cublas);
}

TEST(MatmulVariants, LaunchCoversEveryOutputAndMatchesGeometry) {
  for (const Problem p :
       {Problem{1, 1, 1}, Problem{1000, 777, 333}, Problem{8192, 8192, 8192}, Problem{33, 65, 17}, Problem{3, 999, 100},
        Problem{4096, 8, 4096}}) {
    for (const auto& vi : gpu_variants()) {
      SCOPED_TRACE(std::string(vi.name) + " at " + to_string(p));
      const TileGeometry g = tile_geometry(vi.id, p);
      const LaunchShape s = launch_shape(vi.id, p);
      if (!g.known) {
        EXPECT_EQ(s.block.count(), 0);
        continue;
      }
      EXPECT_EQ(s.block.count(), g.threads);
      EXPECT_LE(s.block.count(), 1024);
      EXPECT_EQ(static_cast<int64_t>(g.threads) * g.tm * g.tn, static_cast<int64_t>(g.bm) * g.bn * g.k_threads)
          << "threads x outputs per thread must equal the block tile (times the threads sharing an output)";
      const bool rows_on_x = vi.id == Variant::NaiveUncoalesced;
      const int64_t rows_covered = (rows_on_x ? s.grid.x : s.grid.y) * g.bm;
      const int64_t cols_covered = (rows_on_x ? s.grid.y : s.grid.x) * g.bn;
      EXPECT_GE(rows_covered, p.m);
      EXPECT_GE(cols_covered, p.n);
      EXPECT_LT(rows_covered - p.m, g.bm) << "no block lies wholly outside C";
      EXPECT_LT(cols_covered - p.n, g.bn);
      EXPECT_LE(s.grid.y, 65535);
      if (g.wm > 0) {
        EXPECT_EQ((g.bm / g.wm) * (g.bn / g.wn) * 32, g.threads);
      }
    }
  }
}

// --- Inputs and the check ----------------------------------------------------------------------------------

TEST(MatmulInputs, RandomNeverZeroAndDeterministic) {
  const auto a = make_matrix(300, 301, 7);
  ASSERT_EQ(a.size(), 300u * 301u);
  for (const float v : a) {
    ASSERT_NE(v, 0.0f);
    ASSERT_GT(v, -1.0f);
    ASSERT_LT(v, 1.0f);
  }
  EXPECT_EQ(a, make_matrix(300, 301, 7));
  EXPECT_NE(a, make_matrix(300, 301, 8));
  double mean = 0;
  for (const float v : a)
    mean += v;
  EXPECT_LT(std::abs(mean / a.size()), 0.02);  // centred: signs mixed, as in real data
}

TEST(MatmulCheck, ExactPassesNanAndLargeErrorsFail) {
  const std::vector<double> ref{1.0, -2.0, 3.0, 4.0};
  const std::vector<float> same{1.0f, -2.0f, 3.0f, 4.0f};
  const CheckResult ok = check_result(same, ref, 16);
  EXPECT_TRUE(ok.pass) << ok.summary();
  EXPECT_EQ(ok.rel_error, 0.0);

  std::vector<float> poisoned = same;
  poisoned[2] = std::numeric_limits<float>::quiet_NaN();
  const CheckResult nan = check_result(poisoned, ref, 16);
  EXPECT_FALSE(nan.pass);
  EXPECT_EQ(nan.nan_count, 1u);
  EXPECT_NE(nan.summary().find("FAIL"), std::string::npos);

  std::vector<float> off = same;
  off[3] = 4.01f;
  EXPECT_FALSE(check_result(off, ref, 16).pass);
  EXPECT_FALSE(check_result(std::vector<float>{1.0f}, ref, 16).pass) << "size mismatch must fail";
}

// Rounds to TF32 (10 explicit mantissa bits, round to nearest even), as tensor cores do to their inputs.
float to_tf32(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  u = (u + 0xFFFu + ((u >> 13) & 1u)) & ~0x1FFFu;
  std::memcpy(&x, &u, 4);
  return x;
}

TEST(MatmulCheck, ToleranceSeparatesFp32FromTf32) {
  // The tolerance must let float32 through and stop TF32, at both ends of the k range we test.
  for (const Problem p : {Problem{64, 64, 1024}, Problem{48, 40, 8192}}) {
    SCOPED_TRACE(to_string(p));
    const auto a = make_matrix(p.m, p.k, 1), b = make_matrix(p.k, p.n, 2);
    const auto ref = reference_cpu(a, b, p);
    std::vector<float> c(p.c_count());
    run_cpu(CpuVariant::Naive, a, b, c, p);  // plain float32 sequential sums: the worst-rounding variant
    const CheckResult fp32 = check_result(c, ref, p.k);
    EXPECT_TRUE(fp32.pass) << fp32.summary();
    EXPECT_LT(fp32.rel_error * 4, fp32.tolerance) << "at least 4x margin for float32";

    std::vector<float> a32(a.size()), b32(b.size());
    for (size_t i = 0; i < a.size(); ++i)
      a32[i] = to_tf32(a[i]);
    for (size_t i = 0; i < b.size(); ++i)
      b32[i] = to_tf32(b[i]);
    const auto tf = reference_cpu(a32, b32, p);  // exact products of TF32-rounded inputs: TF32's best case
    std::vector<float> tf_f(tf.begin(), tf.end());
    const CheckResult tf32 = check_result(tf_f, ref, p.k);
    EXPECT_FALSE(tf32.pass) << tf32.summary();
    EXPECT_GT(tf32.rel_error, 3 * tf32.tolerance) << "TF32 must fail by a wide margin";
  }
}

TEST(MatmulCheck, ToleranceGrowsWithK) {
  EXPECT_DOUBLE_EQ(tolerance(1), 1e-6);
  EXPECT_GT(tolerance(8192), tolerance(1024));
  EXPECT_LT(tolerance(8192), 1e-4);
}

// --- CPU baselines -----------------------------------------------------------------------------------------

// A plain float64 triple loop: the reference's reference.
std::vector<double> triple_loop_f64(const std::vector<float>& a, const std::vector<float>& b,
                                    const Problem& p) {
  std::vector<double> c(p.c_count());
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < p.n; ++j) {
      double s = 0;
      for (int64_t k = 0; k < p.k; ++k)
        s += static_cast<double>(a[static_cast<size_t>(i * p.k + k)]) * b[static_cast<size_t>(k * p.n + j)];
      c[static_cast<size_t>(i * p.n + j)] = s;
    }
  return c;
}

TEST(MatmulCpu, ReferenceMatchesPlainFloat64Loop) {
  for (const Problem p : {Problem{1, 1, 1}, Problem{33, 65, 17}, Problem{70, 3, 129}}) {
    const auto a = make_matrix(p.m, p.k, 3), b = make_matrix(p.k, p.n, 4);
    const auto ref = reference_cpu(a, b, p);
    // Both float64 with different summation orders: agreement to ~1e-15 relative.
    EXPECT_LT(test::rel_l2_error(ref, triple_loop_f64(a, b, p)), 1e-13) << to_string(p);
  }
}

class MatmulCpuSizes : public ::testing::TestWithParam<Problem> {};

TEST_P(MatmulCpuSizes, EveryCpuVariantMatchesReferenceAndTheOthers) {
  const Problem p = GetParam();
  const auto a = make_matrix(p.m, p.k, 11), b = make_matrix(p.k, p.n, 12);
  const auto ref = reference_cpu(a, b, p);
  std::vector<std::vector<float>> results;
  for (const auto& vi : cpu_variants()) {
    std::vector<float> c(p.c_count(), std::numeric_limits<float>::quiet_NaN());
    run_cpu(vi.id, a, b, c, p);
    // Tolerance: see matmul::tolerance (float32 rounding grows like sqrt(K); 8 * 2^-24 * sqrt(K)).
    const CheckResult r = check_result(c, ref, p.k, "float64 CPU");
    EXPECT_TRUE(r.pass) << vi.name << ": " << r.summary();
    std::printf("  %-14s %s: %s\n", vi.name, to_string(p).c_str(), r.summary().c_str());
    results.push_back(std::move(c));
  }
  // Against each other: two float32 results, each within tolerance of the truth, differ by at most twice it.
  for (size_t i = 1; i < results.size(); ++i)
    EXPECT_LT(test::rel_l2_error(results[i], results[0]), 2 * tolerance(p.k)) << cpu_variants()[i].name;
}

std::string size_name(const ::testing::TestParamInfo<Problem>& info) {
  return "m" + std::to_string(info.param.m) + "_n" + std::to_string(info.param.n) + "_k" +
         std::to_string(info.param.k);
}

INSTANTIATE_TEST_SUITE_P(Sizes, MatmulCpuSizes,
                         ::testing::Values(Problem{1000, 777, 333}, Problem{1, 1, 1}, Problem{33, 65, 17},
                                           Problem{257, 129, 511}, Problem{260, 196, 132}),
                         size_name);

TEST(MatmulCpu, RejectsMismatchedBuffers) {
  const Problem p{4, 4, 4};
  std::vector<float> a(16, 1.0f), b(15, 1.0f), c(16);
  EXPECT_THROW(run_cpu(CpuVariant::Naive, a, b, c, p), InvalidRequest);
  EXPECT_THROW(run_cpu(CpuVariant::Blocked, a, std::vector<float>(16, 1.0f), c, {0, 4, 4}), InvalidRequest);
}

TEST(MatmulCpu, LabelsSayThreads) {
  EXPECT_NE(cpu_label(CpuVariant::Naive).find("1 thread"), std::string::npos);
  EXPECT_NE(cpu_label(CpuVariant::Blocked).find("OpenMP"), std::string::npos);
  EXPECT_NE(cpu_label(CpuVariant::OpenBlas).find("OpenBLAS"), std::string::npos);
}

TEST(MatmulCpu, CancelledBeforeStartThrows) {
  const Problem p{256, 256, 256};
  const auto a = make_matrix(p.m, p.k, 1), b = make_matrix(p.k, p.n, 2);
  std::vector<float> c(p.c_count());
  for (const auto& vi : cpu_variants()) {
    JobControl ctl;
    ctl.cancel();
    EXPECT_THROW(run_cpu(vi.id, a, b, c, p, &ctl), JobCancelled) << vi.name;
  }
  JobControl ctl;
  ctl.cancel();
  EXPECT_THROW(reference_cpu(a, b, p, &ctl), JobCancelled);
}

TEST(MatmulCpu, NaiveAndBlockedStopPromptlyWhenCancelled) {
  // Minutes for the naive loop; the blocked one takes ~0.2 s on a 16-core machine (seen on the GPU machine),
  // so the cancel comes after 20 ms. Each must stop within about a second.
  const Problem p{4096, 4096, 4096};
  const auto a = make_matrix(p.m, p.k, 1), b = make_matrix(p.k, p.n, 2);
  for (const CpuVariant v : {CpuVariant::Naive, CpuVariant::Blocked}) {
    std::vector<float> c(p.c_count());
    JobControl ctl;
    auto fut = std::async(std::launch::async, [&] {
      try {
        run_cpu(v, a, b, c, p, &ctl);
        return false;
      } catch (const JobCancelled&) {
        return true;
      }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const double progress_at_cancel = ctl.progress();
    const auto t0 = std::chrono::steady_clock::now();
    ctl.cancel();
    ASSERT_EQ(fut.wait_for(std::chrono::seconds(5)), std::future_status::ready)
        << info(v).name << " ignored cancel";
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_TRUE(fut.get()) << info(v).name << " finished before the cancel (machine too fast for this test?)";
    EXPECT_LT(waited, 2.0) << info(v).name;
    EXPECT_LT(progress_at_cancel, 1.0);
  }
}

TEST(MatmulCpu, BenchRowIsLabelledAndChecked) {
  const Problem p{96, 80, 64};
  const auto a = make_matrix(p.m, p.k, 1), b = make_matrix(p.k, p.n, 2);
  Reference ref{reference_cpu(a, b, p), "float64 CPU (OpenBLAS dgemm)"};
  for (const auto& vi : cpu_variants()) {
    const BenchRow row = bench_cpu(vi.id, p, a, b, ref, 3, 0.5);
    EXPECT_EQ(row.variant, vi.name);
    EXPECT_FALSE(row.gpu);
    EXPECT_TRUE(row.checked);
    EXPECT_TRUE(row.check.pass) << row.check.summary();
    EXPECT_GT(row.ms.median, 0.0);
    EXPECT_GT(row.gflops, 0.0);
    EXPECT_GE(row.runs, 1);
  }
}

}  // namespace
}  // namespace bs::matmul

namespace bs::matmul {
namespace {

// The auto heuristic: a valid choice for any shape, slices never empty, workspace bounded, and the shapes the
// suite names get the kind of config they need.
TEST(MatmulAuto, ChoiceIsValidEverywhere) {
  for (const int64_t m : {1, 17, 128, 1000, 4096, 8192})
    for (const int64_t n : {1, 64, 517, 4096, 8192})
      for (const int64_t k : {1, 9, 128, 2049, 16384}) {
        const Problem p{m, n, k};
        const AutoChoice c = choose_auto(p, k_auto_default_sms);
        ASSERT_GE(c.config, 0);
        ASSERT_LT(c.config, static_cast<int>(auto_configs().size()));
        EXPECT_TRUE(auto_fits(auto_configs()[static_cast<size_t>(c.config)], p)) << to_string(p);
        const int slices = auto_slices(c, p), chunk = auto_k_chunk(c, p);
        EXPECT_EQ(slices, c.split_k) << to_string(p);
        EXPECT_EQ(chunk % auto_configs()[static_cast<size_t>(c.config)].bk, 0);
        EXPECT_GE(static_cast<int64_t>(slices) * chunk, k) << "slices cover K at " << to_string(p);
        EXPECT_LT(static_cast<int64_t>(slices - 1) * chunk, k) << "no empty slice at " << to_string(p);
        if (slices > 1) {
          EXPECT_LE(static_cast<double>(slices) * static_cast<double>(p.c_count()) * 4.0, 32.0 * (1 << 20));
        }
        EXPECT_GT(c.predicted_ms, 0.0);
        EXPECT_GE(c.group, 1);
      }
}

TEST(MatmulAuto, SuiteShapesGetWhatTheyNeed) {
  // Large K on a small C: a 128x128 C has at most 4 tiles of 64x64, so only split-k fills 132 SMs.
  EXPECT_GE(choose_auto({128, 128, 16384}, 132).split_k, 8);
  // Large cubes: big tiles, no split.
  const AutoChoice big = choose_auto({4096, 4096, 4096}, 132);
  EXPECT_EQ(big.split_k, 1);
  EXPECT_GE(auto_configs()[static_cast<size_t>(big.config)].bm * auto_configs()[static_cast<size_t>(big.config)].bn,
            128 * 128);
  // Odd N: the tile kernels read a row-padded copy of B (16-byte copies, as at aligned sizes), so the pick is
  // that of the aligned neighbour, and the model charges the copy.
  for (const Problem p : {Problem{4095, 4097, 1023}, Problem{4096, 4095, 4096}}) {
    const Problem aligned{p.m, p.n + 3 - (p.n + 3) % 4, p.k};
    const AutoChoice c = choose_auto(p, 132), ca = choose_auto(aligned, 132);
    EXPECT_TRUE(auto_pads_b(auto_configs()[static_cast<size_t>(c.config)], p)) << to_string(p);
    EXPECT_FALSE(auto_pads_b(auto_configs()[static_cast<size_t>(ca.config)], aligned));
    EXPECT_EQ(c.config, ca.config) << to_string(p);
    EXPECT_GT(c.predicted_ms, ca.predicted_ms) << "the copy of B costs time";
  }
  // Odd K alone keeps B and C in place (A is copied 4 bytes at a time) and the 4096^3 config.
  const AutoChoice odd_k = choose_auto({4096, 4096, 4095}, 132);
  EXPECT_TRUE(auto_float4(auto_configs()[static_cast<size_t>(odd_k.config)], Problem{4096, 4096, 4095}));
  EXPECT_EQ(odd_k.config, big.config) << "odd K: the same pick as 4096^3";
  // Matrix-vector shapes: the narrowest skinny kernel that fits, named in the choice.
  const struct {
    Problem p;
    const char* config;
  } skinny[] = {{{4096, 1, 4096}, "skinny_n1"}, {{4096, 8, 4096}, "skinny_n8"}, {{8192, 3, 4096}, "skinny_n4"},
                {{1, 4096, 4096}, "skinny_m1"}, {{8, 8192, 8192}, "skinny_m8"}, {{5, 999, 2003}, "skinny_m8"}};
  for (const auto& [p, name] : skinny) {
    const AutoChoice c = choose_auto(p, 132);
    EXPECT_STREQ(auto_configs()[static_cast<size_t>(c.config)].name, name) << to_string(p);
    EXPECT_NE(to_string(c).find("GEMV-like"), std::string::npos) << to_string(c);
    // Enough blocks to fill the SMs (split-k where the columns or rows alone are too few).
    const LaunchShape ls = launch_shape(c, p);
    EXPECT_GE(ls.grid.x * ls.grid.y * auto_slices(c, p), 2 * 132) << to_string(p) << ": " << to_string(c);
  }
  // skinny_n's k-slices never exceed its shared-memory stage, whatever split is asked for.
  for (const AutoConfigInfo& ci : auto_configs())
    if (ci.kind == AutoKind::SkinnyN) {
      const AutoChoice c{static_cast<int>(&ci - auto_configs().data()), 1, 1, 0};
      EXPECT_LE(auto_k_chunk(c, {1000, 1, 16384}), ci.max_k_chunk) << ci.name;
      EXPECT_GE(static_cast<int64_t>(auto_slices(c, {1000, 1, 16384})) * auto_k_chunk(c, {1000, 1, 16384}), 16384);
    }
  // Just past 8 (M or N of 9 to 16) the tile kernels take over.
  EXPECT_EQ(auto_configs()[static_cast<size_t>(choose_auto({9, 4096, 4096}, 132).config)].kind, AutoKind::Tile);
  EXPECT_EQ(auto_configs()[static_cast<size_t>(choose_auto({4096, 9, 4096}, 132).config)].kind, AutoKind::Tile);
  // Fewer SMs never call for more slices on the same problem.
  EXPECT_LE(choose_auto({128, 128, 16384}, 16).split_k, choose_auto({128, 128, 16384}, 132).split_k);
  // The choice is shown: the long form names tile, threads, stages and split.
  const std::string s = to_string(big);
  EXPECT_NE(s.find("stages"), std::string::npos) << s;
  EXPECT_NE(s.find("split-k 1"), std::string::npos) << s;
  // launch_shape covers C with the chosen tile.
  const LaunchShape ls = launch_shape(Variant::Auto, Problem{1000, 777, 333});
  const AutoChoice c = choose_auto({1000, 777, 333}, k_auto_default_sms);
  EXPECT_EQ(ls.grid.x * auto_configs()[static_cast<size_t>(c.config)].bn >= 777, true);
  EXPECT_EQ(ls.grid.y * auto_configs()[static_cast<size_t>(c.config)].bm >= 1000, true);
  EXPECT_EQ(ls.block.x, auto_configs()[static_cast<size_t>(c.config)].threads);
}

}  // namespace
}  // namespace bs::matmul
