// matmul_gpu_test.cpp: every GPU variant (and cuBLAS) against a float64 CPU reference at sizes that are not
// multiples of any tile, on a NaN-poisoned C; cuBLAS is strict FP32; kernel attributes are sane (no spills).
// Each test prints one line per result so that a log of a GPU run reads on its own. Skips without a GPU.
#include <gtest/gtest.h>

#include <cstdio>
#include <initializer_list>
#include <map>
#include <mutex>

#include "core/error.h"
#include "gpu/matmul/matmul.h"
#include "test_util.h"

namespace bs::matmul {
namespace {

struct Inputs {
  std::vector<float> a, b;
  std::vector<double> ref;
};

// Inputs and float64 CPU reference per size, computed once per process (several tests share a size).
const Inputs& inputs_for(const Problem& p) {
  static std::mutex mu;
  static std::map<std::tuple<int64_t, int64_t, int64_t>, Inputs> cache;
  std::lock_guard lock(mu);
  auto [it, fresh] = cache.try_emplace({p.m, p.n, p.k});
  if (fresh) {
    it->second.a = make_matrix(p.m, p.k, 21);
    it->second.b = make_matrix(p.k, p.n, 22);
    it->second.ref = reference_cpu(it->second.a, it->second.b, p);
  }
  return it->second;
}

struct Case {
  Problem p;
  Variant v;
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const Problem& p = info.param.p;
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "literal" + std::to_string(...).
  std::string s = "m";
  s += std::to_string(p.m);
  s += "_n";
  s += std::to_string(p.n);
  s += "_k";
  s += std::to_string(p.k);
  s += "_";
  s += matmul::info(info.param.v).name;
  return s;
}

std::vector<Case> all_cases() {
  // Awkward sizes (odd K and N: the scalar-load path; 1x1x1; sizes just past a tile), one with K and N
  // multiples of 4 but not of any tile (the float4 path with partial tiles on every edge and a partial last
  // k-step), and one aligned size.
  const Problem sizes[] = {{1000, 777, 333}, {1, 1, 1},     {33, 65, 17},   {257, 129, 511},
                           {260, 196, 132},  {129, 68, 20}, {256, 256, 256}};
  std::vector<Case> out;
  for (const Problem& p : sizes)
    for (const auto& vi : gpu_variants())
      out.push_back({p, vi.id});
  return out;
}

class MatmulGpu : public ::testing::TestWithParam<Case> {};

TEST_P(MatmulGpu, MatchesFloat64Reference) {
  BS_REQUIRE_GPU();
  const auto [p, v] = GetParam();
  const Inputs& in = inputs_for(p);
  GpuRunner runner(p);
  runner.set_inputs(in.a, in.b);
  runner.run_once(v);  // C is NaN-poisoned first: cells the kernel never writes fail the check
  const std::vector<float> c = runner.download_c();
  // Tolerance: matmul::tolerance(K) = 8 * 2^-24 * sqrt(K) (floor 1e-6): float32 rounding of K-term sums with
  // random signs grows like sqrt(K); measured errors are ~20x below, TF32 would be ~10x above.
  const CheckResult r = check_result(c, in.ref, p.k, "float64 CPU (OpenBLAS dgemm)");
  std::printf("  %-20s %-28s %s\n", info(v).name, to_string(p).c_str(), r.summary().c_str());
  EXPECT_TRUE(r.pass) << info(v).name << " at " << to_string(p) << ": " << r.summary();
  EXPECT_EQ(r.nan_count, 0u) << "cells never written";
}

INSTANTIATE_TEST_SUITE_P(Sizes, MatmulGpu, ::testing::ValuesIn(all_cases()), case_name);

TEST(MatmulGpuRunner, PoisonIsDetected) {
  BS_REQUIRE_GPU();
  const Problem p{33, 65, 17};
  const Inputs& in = inputs_for(p);
  GpuRunner runner(p);
  runner.set_inputs(in.a, in.b);
  runner.poison_c();
  runner.sync();
  const CheckResult r = check_result(runner.download_c(), in.ref, p.k);
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.nan_count, p.c_count()) << "poison must turn every cell into NaN";
}

TEST(MatmulGpuRunner, CublasIsStrictFp32) {
  BS_REQUIRE_GPU();
  // At K = 1024 float32 gives ~1e-6 relative error and TF32 ~3e-4: require < 2e-5 (the tolerance is 1.5e-5).
  const Problem p{1024, 1024, 1024};
  const Inputs& in = inputs_for(p);
  GpuRunner runner(p);
  runner.set_inputs(in.a, in.b);
  runner.run_once(Variant::Cublas);
  const CheckResult r = check_result(runner.download_c(), in.ref, p.k);
  std::printf("  cublas 1024^3: %s (%s)\n", r.summary().c_str(), GpuRunner::cublas_mode().c_str());
  EXPECT_TRUE(r.pass) << r.summary();
  EXPECT_LT(r.rel_error, 2e-5) << "cuBLAS error looks like TF32, not FP32";
}

TEST(MatmulGpuRunner, AllVariantsAt1024Cubed) {
  BS_REQUIRE_GPU();
  // One larger aligned size where every block is interior (the fast path of the block-tile kernels).
  const Problem p{1024, 1024, 1024};
  const Inputs& in = inputs_for(p);
  GpuRunner runner(p);
  runner.set_inputs(in.a, in.b);
  for (const auto& vi : gpu_variants()) {
    runner.run_once(vi.id);
    const CheckResult r = check_result(runner.download_c(), in.ref, p.k);
    std::printf("  %-20s 1024^3 %s\n", vi.name, r.summary().c_str());
    EXPECT_TRUE(r.pass) << vi.name << ": " << r.summary();
  }
}

TEST(MatmulGpuRunner, GpuReferenceMatchesCpuReference) {
  BS_REQUIRE_GPU();
  for (const Problem p : {Problem{257, 129, 511}, Problem{1, 1, 1}}) {
    const Inputs& in = inputs_for(p);
    GpuRunner runner(p);
    runner.set_inputs(in.a, in.b);
    const std::vector<double> gpu_ref = runner.reference_f64();
    // Two float64 results, different summation orders: ~1e-16 relative.
    EXPECT_LT(test::rel_l2_error(gpu_ref, in.ref), 1e-12) << to_string(p);
  }
}

TEST(MatmulGpuRunner, AttributesAndNoSpills) {
  BS_REQUIRE_GPU();
  for (const Problem p : {Problem{4096, 4096, 4096}, Problem{1000, 777, 333}}) {
    GpuRunner runner(p);
    std::printf("  attributes at %s:\n", to_string(p).c_str());
    for (const auto& vi : gpu_variants()) {
      const KernelAttributes a = runner.attributes(vi.id);
      const TileGeometry g = vi.id == Variant::Auto ? tile_geometry(runner.auto_choice()) : tile_geometry(vi.id);
      const LaunchShape s = runner.launch(vi.id);
      if (vi.id == Variant::Cublas) {
        EXPECT_FALSE(a.known);
        continue;
      }
      std::printf(
          "    %-20s regs %3d  smem %6zu B  local %zu B  blocks/SM %d  warps/SM %2d  block %s grid %s\n",
          vi.name, a.regs_per_thread, a.static_smem_bytes, a.local_bytes, a.blocks_per_sm, a.warps_per_sm,
          bs::to_string(s.block).c_str(), bs::to_string(s.grid).c_str());
      EXPECT_TRUE(a.known);
      EXPECT_GT(a.regs_per_thread, 0) << vi.name;
      EXPECT_EQ(a.local_bytes, 0u) << vi.name << " spills registers to local memory";
      EXPECT_GE(a.blocks_per_sm, 1) << vi.name;
      EXPECT_GE(a.max_threads_per_block, g.threads) << vi.name;
      if (g.bk > 0) {
        EXPECT_GT(a.static_smem_bytes, 0u) << vi.name;
      }
      if (vi.id == Variant::SmemTile32) {
        EXPECT_EQ(a.static_smem_bytes, 2u * 32 * 32 * 4);
      }
      // The double-buffered kernels are built (__launch_bounds__) for at least 2 resident blocks per SM.
      if (g.stages == 2) {
        EXPECT_GE(a.blocks_per_sm, 2) << vi.name << " occupancy below design";
      }
    }
  }
}

TEST(MatmulGpuRunner, TimingAndEnqueue) {
  BS_REQUIRE_GPU();
  const Problem p{512, 512, 512};
  const Inputs& in = inputs_for(p);
  GpuRunner runner(p);
  runner.set_inputs(in.a, in.b);
  const auto ms = runner.time_runs(Variant::WarpTileDb, 1, 5);
  ASSERT_EQ(ms.size(), 5u);
  for (const double t : ms)
    EXPECT_GT(t, 0.0);
  runner.enqueue(Variant::SmemTile16);
  runner.enqueue(Variant::Cublas);
  runner.sync();
  EXPECT_EQ(runner.poll_ms().size(), 2u);
  EXPECT_NE(runner.device_c(), nullptr);
}

// Runs every auto config of `kind` (tile or skinny) that fits each shape, unsplit (with the block-order swizzle
// on) and split into 3 and 7 k-slices (the last slice partial), against the float64 reference; configs that do
// not fit a shape are refused. Returns the runs.
int check_auto_configs(std::initializer_list<Problem> shapes, bool skinny) {
  int runs = 0;
  for (const Problem p : shapes) {
    const Inputs& in = inputs_for(p);
    GpuRunner runner(p);
    runner.set_inputs(in.a, in.b);
    for (size_t ci = 0; ci < auto_configs().size(); ++ci) {
      if ((auto_configs()[ci].kind != AutoKind::Tile) != skinny) continue;
      for (const int split : {1, 3, 7}) {
        const AutoChoice c{static_cast<int>(ci), split, split == 1 ? 2 : 1, 0};
        if (!auto_fits(auto_configs()[ci], p)) {
          EXPECT_THROW(runner.set_auto_choice(c), InvalidRequest)
              << auto_configs()[ci].name << " does not fit " << to_string(p);
          continue;
        }
        runner.set_auto_choice(c);
        runner.run_once(Variant::Auto);
        const CheckResult r = check_result(runner.download_c(), in.ref, p.k, "float64 CPU (OpenBLAS dgemm)");
        std::printf("  auto %-34s %-26s %s\n", to_string(c, true).c_str(), to_string(p).c_str(),
                    r.summary().c_str());
        EXPECT_TRUE(r.pass) << to_string(c) << " at " << to_string(p) << ": " << r.summary();
        EXPECT_EQ(r.nan_count, 0u) << to_string(c) << ": cells never written";
        ++runs;
      }
    }
  }
  return runs;
}

// auto's tile configs at sizes that are not multiples of any tile: N not a multiple of 4 (B read from its
// row-padded copy, C stored one float at a time), the float4 path, and odd K on the float4 path (130x132x203).
// The heuristic's own choice runs in MatchesFloat64Reference above. Small sizes: this test also runs under
// compute-sanitizer memcheck and racecheck.
TEST(MatmulGpuAuto, EveryConfigAndSplitMatchesReference) {
  BS_REQUIRE_GPU();
  EXPECT_EQ(check_auto_configs({Problem{257, 129, 511}, Problem{33, 65, 17}, Problem{260, 196, 132},
                                Problem{129, 68, 200}, Problem{130, 132, 203}},
                               false),
            5 * 8 * 3);
}

// The matrix-vector kernels (skinny_m, skinny_n) on M or N of 1 to 8 with partial blocks, odd K and N (their
// 4-byte flavours), K up to 9001 (skinny_n's slices capped at its shared-memory stage); the configs that do
// not fit a shape are refused. Also under memcheck and racecheck.
TEST(MatmulGpuAuto, SkinnyConfigsMatchReference) {
  BS_REQUIRE_GPU();
  const int runs = check_auto_configs({Problem{1, 517, 1000}, Problem{3, 260, 2051}, Problem{8, 1024, 333},
                                       Problem{6, 129, 4100}, Problem{777, 1, 1000}, Problem{1000, 3, 2051},
                                       Problem{259, 8, 1028}, Problem{130, 5, 9001}},
                                      true);
  EXPECT_EQ(runs, (4 + 2 + 1 + 1 + 4 + 2 + 1 + 1) * 3) << "every shape ran the skinny configs that fit it";
}

// The split-k reduction sums the slices in a fixed order (and the skinny kernels their lanes and warps):
// two runs give the same bits, whether a separate launch adds the slices (the tile configs; 64x64x16 with N
// odd: the reduction's 4-byte path) or the last block of each tile does (the skinny configs' fold), whichever
// block arrives last.
TEST(MatmulGpuAuto, SplitKIsDeterministic) {
  BS_REQUIRE_GPU();
  const struct {
    Problem p;
    const char* config;
  } cases[] = {{{128, 128, 16384}, "128x128x32s2"},
               {{5, 1000, 16384}, "skinny_m8"},
               {{1000, 7, 16384}, "skinny_n8"},
               {{1001, 999, 2003}, "64x64x16"}};
  for (const auto& [p, name] : cases) {
    const auto a = make_matrix(p.m, p.k, 5), b = make_matrix(p.k, p.n, 6);
    GpuRunner runner(p);
    runner.set_inputs(a, b);
    AutoChoice c;
    while (c.config < static_cast<int>(auto_configs().size()) && std::string(auto_configs()[static_cast<size_t>(c.config)].name) != name)
      ++c.config;
    ASSERT_LT(c.config, static_cast<int>(auto_configs().size())) << name;
    c.split_k = 16;
    EXPECT_EQ(auto_folds(c, p), auto_configs()[static_cast<size_t>(c.config)].kind != AutoKind::Tile) << name;
    runner.set_auto_choice(c);
    runner.run_once(Variant::Auto);
    const std::vector<float> first = runner.download_c();
    for (int i = 0; i < 3; ++i) {
      runner.run_once(Variant::Auto);
      EXPECT_EQ(runner.download_c(), first) << name << ": run " << i + 2 << " differs from the first";
    }
    runner.set_auto_choice(std::nullopt);
    EXPECT_EQ(runner.auto_choice(), choose_auto(p, runner.device().sm_count));
  }
}

TEST(MatmulGpuBench, RowsCarryEverything) {
  BS_REQUIRE_GPU();
  const Problem p{300, 200, 100};
  const Inputs& in = inputs_for(p);
  Reference ref;
  const Variant want[] = {Variant::SmemTile32, Variant::WarpTileDb};
  const GpuBenchResult r = bench_gpu(p, in.a, in.b, ref, want, 5, 0.2);
  ASSERT_EQ(r.rows.size(), 3u) << "the two requested rows plus cuBLAS";
  EXPECT_FALSE(ref.values.empty());
  EXPECT_GT(r.peak_gflops, 0.0);
  for (const BenchRow& row : r.rows) {
    EXPECT_TRUE(row.check.pass) << row.variant << ": " << row.check.summary();
    EXPECT_GT(row.gflops, 0.0);
    EXPECT_GT(row.pct_cublas, 0.0);
    EXPECT_GT(row.pct_peak, 0.0);
    EXPECT_GE(row.runs, 3);
  }
}

}  // namespace
}  // namespace bs::matmul
