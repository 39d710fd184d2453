// tc_test.cpp: the tensor-core rungs (gpu/matmul/tc.h). The table and the skip reasons are checked everywhere;
// on a GPU every rung runs against float64 at odd sizes (partial tiles in M, N and K), the conversions match the
// CPU's rounding bit for bit, and 3xTF32 reaches FP32's accuracy. GPU tests skip with the reason without a device.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <tuple>

#include "core/error.h"
#include "gpu/matmul/matmul.h"
#include "gpu/matmul/precision.h"
#include "gpu/matmul/tc.h"
#include "gpu/matmul/tc_geometry.h"
#include "gpu/matmul/tc_layout.h"
#include "test_util.h"

namespace mm = bs::matmul;
namespace tc = bs::matmul::tc;

TEST(TcRungs, TableIsCompleteAndNamesAreUnique) {
  std::set<std::string> names;
  size_t index = 0;
  for (const auto& r : tc::rungs()) {
    // In enum order, every Rung once: the runner keeps per-rung state indexed by the enum's value.
    EXPECT_EQ(static_cast<size_t>(r.id), index++) << r.name;
    EXPECT_TRUE(names.insert(r.name).second) << r.name;
    EXPECT_GT(std::string(r.title).size(), 5u);
    EXPECT_GT(std::string(r.description).size(), 40u) << r.name;
    EXPECT_EQ(tc::parse_rung(r.name), r.id);
    EXPECT_EQ(&tc::info(r.id), &r);
    // Every precision a rung runs at has a cuBLAS row to be a % of.
    EXPECT_TRUE(tc::info(tc::cublas_rung(r.precision)).library);
  }
  EXPECT_FALSE(tc::parse_rung("wmma"));
  // The Hopper steps of tc_hopper.h are rungs of the ladder, BF16, each launched through gemm_bf16.
  for (const auto r : {tc::Rung::WgmmaTma, tc::Rung::WarpSpecialized, tc::Rung::WsPersistent, tc::Rung::WsTmaStore,
                       tc::Rung::WgmmaSplitK}) {
    EXPECT_EQ(tc::info(r).precision, mm::Precision::Bf16);
    EXPECT_EQ(tc::info(r).min_cc, 90);
    EXPECT_NE(tc::info(r).external, nullptr);
  }
  EXPECT_EQ(tc::parse_rung("ws_tma_store"), tc::Rung::WsTmaStore);
  EXPECT_EQ(tc::parse_rung("wgmma_splitk"), tc::Rung::WgmmaSplitK);
  EXPECT_NE(tc::info(tc::Rung::WgmmaSplitK).workspace_bytes, nullptr) << "split-K's partial tiles";
  // The Hopper TF32 rungs: float32 in, compared with cuBLAS TF32 and strict SGEMM; 3xTF32 asks for a workspace.
  EXPECT_EQ(tc::info(tc::Rung::WgmmaTf32).precision, mm::Precision::Tf32);
  EXPECT_EQ(tc::info(tc::Rung::WgmmaTf32x3).precision, mm::Precision::Tf32x3);
  for (const auto r : {tc::Rung::WgmmaTf32, tc::Rung::WgmmaTf32x3}) {
    EXPECT_EQ(tc::info(r).min_cc, 90);
    EXPECT_NE(tc::info(r).external, nullptr);
    EXPECT_NE(tc::info(r).unavailable, nullptr);
    EXPECT_TRUE(tc::info(r).float32_inputs) << "takes the float32 inputs as cuBLAS TF32 does, nothing rounded first";
  }
  for (const auto r : {tc::Rung::WmmaTf32, tc::Rung::WmmaTf32Pipe, tc::Rung::Tf32x3, tc::Rung::WsTmaStore})
    EXPECT_FALSE(tc::info(r).float32_inputs) << tc::info(r).name;
  EXPECT_EQ(tc::info(tc::Rung::WgmmaTf32).workspace_bytes, nullptr);
  ASSERT_NE(tc::info(tc::Rung::WgmmaTf32x3).workspace_bytes, nullptr);
  EXPECT_EQ(tc::info(tc::Rung::WgmmaTf32x3).workspace_bytes(100, 7, 9, 64), 2 * 100 * 64 * 4);
  EXPECT_EQ(tc::parse_rung("wgmma_tf32x3"), tc::Rung::WgmmaTf32x3);
  EXPECT_EQ(tc::cublas_rung(mm::Precision::Tf32x3), tc::Rung::CublasFp32);
}

TEST(TcRungs, OlderGpusAndNoGpuGiveTheReason) {
  bs::DeviceInfo turing;
  turing.available = true;
  turing.cc_major = 7;
  turing.cc_minor = 5;
  const auto why = tc::unavailable_reason(tc::info(tc::Rung::MmaBf16Pipe), turing);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("needs compute capability 8.0"), std::string::npos) << *why;
  EXPECT_NE(why->find("7.5"), std::string::npos) << *why;
  EXPECT_FALSE(tc::unavailable_reason(tc::info(tc::Rung::CublasFp16), turing).has_value());
  bs::DeviceInfo hopper = turing;
  hopper.cc_major = 9;
  hopper.cc_minor = 0;
  // A made-up 9.0 device passes every compute-capability check; the Hopper rungs also ask the real device
  // (tc_hopper.h), which a made-up DeviceInfo is not.
  for (const auto& r : tc::rungs()) {
    if (!r.unavailable) {
      EXPECT_FALSE(tc::unavailable_reason(r, hopper).has_value()) << r.name;
    }
  }
  bs::DeviceInfo ampere = turing;
  ampere.cc_major = 8;
  ampere.cc_minor = 6;
  const auto no_wgmma = tc::unavailable_reason(tc::info(tc::Rung::WsTmaStore), ampere);
  ASSERT_TRUE(no_wgmma.has_value());
  EXPECT_NE(no_wgmma->find("needs compute capability 9.0 (Hopper"), std::string::npos) << *no_wgmma;
  EXPECT_FALSE(tc::unavailable_reason(tc::info(tc::Rung::MmaBf16Pipe), ampere).has_value());
  bs::DeviceInfo none;
  none.reason = "no driver";
  EXPECT_EQ(tc::unavailable_reason(tc::info(tc::Rung::WmmaFp16), none).value_or(""), "no CUDA device: no driver");
}

namespace {

bool available(tc::Rung r) {
  return !tc::unavailable_reason(tc::info(r), bs::test::device()).has_value();
}

}  // namespace

TEST(TcGpu, ConversionsMatchTheCpuRoundingBitForBit) {
  BS_REQUIRE_GPU();
  if (!available(tc::Rung::WmmaBf16)) GTEST_SKIP() << *tc::unavailable_reason(tc::info(tc::Rung::WmmaBf16), bs::test::device());
  const mm::Problem p{67, 45, 301};
  // Wide inputs: FP16 overflows to infinity and underflows to subnormals and zero.
  const mm::InputRange in{1.0, true};
  const auto a = mm::make_input(p.m, p.k, 1, in), b = mm::make_input(p.k, p.n, 2, in);
  tc::TcRunner run(p);
  run.set_inputs(a, b);
  for (const mm::Precision q : {mm::Precision::Bf16, mm::Precision::Fp16, mm::Precision::Tf32, mm::Precision::Tf32x3}) {
    EXPECT_GE(run.convert(q), 0.0);
    const auto ga = run.converted_a(q), gb = run.converted_b(q);
    ASSERT_EQ(ga.size(), a.size());
    ASSERT_EQ(gb.size(), b.size());
    size_t bad = 0;
    for (size_t i = 0; i < a.size(); ++i)
      bad += std::bit_cast<uint32_t>(ga[i]) != std::bit_cast<uint32_t>(mm::round_to(q, a[i]));
    for (size_t i = 0; i < b.size(); ++i)
      bad += std::bit_cast<uint32_t>(gb[i]) != std::bit_cast<uint32_t>(mm::round_to(q, b[i]));
    EXPECT_EQ(bad, 0u) << mm::info(q).name;
  }
}

TEST(TcGpu, EveryRungMatchesFloat64OnOddSizes) {
  BS_REQUIRE_GPU();
  // Partial tiles everywhere: 1x1x1, K not a multiple of 32, M and N one past a tile, a skinny N.
  for (const mm::Problem p : {mm::Problem{1, 1, 1}, mm::Problem{67, 45, 301}, mm::Problem{129, 257, 33},
                              mm::Problem{300, 7, 1000}}) {
    const mm::InputRange in{3.0, false};
    const auto a = mm::make_input(p.m, p.k, 11, in), b = mm::make_input(p.k, p.n, 12, in);
    const auto ref = mm::reference_cpu(a, b, p);
    tc::TcRunner run(p);
    run.set_inputs(a, b);
    for (const auto& r : tc::rungs()) {
      if (!available(r.id)) continue;
      run.run_once(r.id);
      const mm::ErrorStats e = mm::measure_error(run.download_c(), ref, p.n, mm::error_bound(r.precision, p.k));
      EXPECT_TRUE(e.within_bound) << r.name << " at " << mm::to_string(p) << ": " << e.summary();
      // Tighter than the bound: within a few times the CPU model of the same precision (a wrong fragment layout
      // or a lost k-tile is far off; summation order and TF32 splitting differ a little).
      const auto model = mm::measure_error(mm::gemm_precision_cpu(r.precision, a, b, p), ref, p.n, 1.0);
      EXPECT_LE(e.rel_frobenius, 3.0 * model.rel_frobenius + 2e-7) << r.name << " at " << mm::to_string(p);
    }
  }
}

TEST(TcGpu, ThreeTf32ReachesFp32AccuracyWhereTf32DoesNot) {
  BS_REQUIRE_GPU();
  if (!available(tc::Rung::Tf32x3)) GTEST_SKIP() << *tc::unavailable_reason(tc::info(tc::Rung::Tf32x3), bs::test::device());
  const mm::Problem p{333, 257, 2049};
  const auto a = mm::make_input(p.m, p.k, 5, {1.0, false}), b = mm::make_input(p.k, p.n, 6, {1.0, false});
  const auto ref = mm::reference_cpu(a, b, p);
  tc::TcRunner run(p);
  run.set_inputs(a, b);
  auto err = [&](tc::Rung r) {
    run.run_once(r);
    return mm::measure_error(run.download_c(), ref, p.n, 1.0).rel_frobenius;
  };
  const double x3 = err(tc::Rung::Tf32x3), sgemm = err(tc::Rung::CublasFp32), tf32 = err(tc::Rung::WmmaTf32Pipe);
  EXPECT_LE(x3, 2.0 * sgemm) << "3xTF32 " << x3 << ", cuBLAS SGEMM " << sgemm;
  EXPECT_LT(50.0 * x3, tf32) << "3xTF32 " << x3 << ", TF32 " << tf32;
  // The same for the wgmma rungs on a Hopper GPU (the per-k-tile partial sums keep the truncating accumulation
  // from adding up along K).
  if (available(tc::Rung::WgmmaTf32x3)) {
    const double wx3 = err(tc::Rung::WgmmaTf32x3), wtf32 = err(tc::Rung::WgmmaTf32);
    std::printf("wgmma_tf32x3 %.3g, wgmma_tf32 %.3g, cuBLAS SGEMM %.3g\n", wx3, wtf32, sgemm);
    EXPECT_LE(wx3, 2.0 * sgemm) << "wgmma 3xTF32 " << wx3 << ", cuBLAS SGEMM " << sgemm;
    EXPECT_LT(50.0 * wx3, wtf32) << "wgmma 3xTF32 " << wx3 << ", wgmma TF32 " << wtf32;
  }
}

TEST(TcGpu, BenchReportsEveryRungAgainstItsOwnCublas) {
  BS_REQUIRE_GPU();
  const mm::Problem p{200, 136, 72};
  const auto a = mm::make_input(p.m, p.k, 1, {1.0, false}), b = mm::make_input(p.k, p.n, 2, {1.0, false});
  mm::Reference ref;
  const tc::Rung want[] = {tc::Rung::MmaBf16Pipe};
  const tc::TcBenchResult res = tc::bench_tc(p, a, b, ref, want, 3, 0.05);
  ASSERT_EQ(res.rows.size(), 2u);  // the rung and cuBLAS BF16
  EXPECT_EQ(res.rows[0].rung->id, tc::Rung::CublasBf16);
  for (const auto& r : res.rows) {
    if (!r.skipped.empty()) continue;
    EXPECT_GT(r.tflops, 0.0);
    EXPECT_GT(r.pct_cublas, 0.0);
    EXPECT_GT(r.convert_ms, 0.0);
    EXPECT_TRUE(r.error.within_bound) << r.error.summary();
  }
}

TEST(TcGpu, Float32InputRungsConvertNothingWhereRowsAreWhole) {
  BS_REQUIRE_GPU();
  if (!available(tc::Rung::WgmmaTf32)) GTEST_SKIP() << *tc::unavailable_reason(tc::info(tc::Rung::WgmmaTf32), bs::test::device());
  // K and N multiples of 4: the user's buffers themselves (16-byte rows); otherwise the padded float32 copy, timed.
  for (const mm::Problem p : {mm::Problem{200, 136, 72}, mm::Problem{67, 45, 301}}) {
    const bool whole = p.k % 4 == 0 && p.n % 4 == 0;
    const auto a = mm::make_input(p.m, p.k, 21, {2.0, false}), b = mm::make_input(p.k, p.n, 22, {2.0, false});
    const auto ref = mm::reference_cpu(a, b, p);
    tc::TcRunner run(p);
    run.set_inputs(a, b);
    for (const auto r : {tc::Rung::WgmmaTf32, tc::Rung::WgmmaTf32x3}) {
      const double ms = run.convert_for(r);
      if (whole)
        EXPECT_EQ(ms, 0.0) << tc::info(r).name << " at " << mm::to_string(p);
      else
        EXPECT_GT(ms, 0.0) << tc::info(r).name << " at " << mm::to_string(p);
      run.run_once(r);
      const auto e = mm::measure_error(run.download_c(), ref, p.n, mm::error_bound(tc::info(r).precision, p.k));
      EXPECT_TRUE(e.within_bound) << tc::info(r).name << " at " << mm::to_string(p) << ": " << e.summary();
    }
    EXPECT_GT(run.convert_for(tc::Rung::WmmaTf32), 0.0) << "the portable TF32 rungs read rounded copies";
    EXPECT_EQ(run.convert_for(tc::Rung::CublasTf32), 0.0);
  }
}

TEST(TcGpu, RunnerRejectsBadInputs) {
  BS_REQUIRE_GPU();
  EXPECT_THROW(tc::TcRunner(mm::Problem{0, 4, 4}), bs::InvalidRequest);
  tc::TcRunner run(mm::Problem{4, 4, 4});
  EXPECT_THROW(run.set_inputs(std::vector<float>(15, 1.0f), std::vector<float>(16, 1.0f)), bs::InvalidRequest);
}

TEST(TcLayout, SwizzleRemovesTheLdmatrixBankConflicts) {
  for (int chunk = 0; chunk < 4; ++chunk)
    for (int r0 = 0; r0 < 128; r0 += 8) {
      EXPECT_EQ(tc::ldmatrix_phase_ways(false, false, r0, chunk), 4);  // 64-byte rows: rows 0, 2, 4, 6 collide
      EXPECT_EQ(tc::ldmatrix_phase_ways(false, true, r0, chunk), 1);
    }
  for (int chunk = 0; chunk < 16; ++chunk)
    for (int r0 = 0; r0 < 32; r0 += 8) {
      EXPECT_EQ(tc::ldmatrix_phase_ways(true, false, r0, chunk), 8);  // 256-byte rows: all 8 on the same banks
      EXPECT_EQ(tc::ldmatrix_phase_ways(true, true, r0, chunk), 1);
    }
  // The swizzle is a permutation of each row's chunks (nothing overwritten, nothing lost).
  for (int r = 0; r < 32; ++r) {
    std::set<int> seen;
    for (int c = 0; c < 16; ++c)
      seen.insert(tc::smem_chunk_b(r, c));
    EXPECT_EQ(seen.size(), 16u);
    EXPECT_EQ(*seen.begin(), r * 16);
  }
}

TEST(TcLayout, EveryLaneHoldsItsShareOfEachFragment) {
  // m16n8k16: A 16x16 = 8 values per lane (4 registers of 2), B 16x8 = 4 (2 of 2), C 16x8 = 4 floats.
  struct Case {
    tc::Operand op;
    int rows, cols, per_lane;
  };
  for (const Case c : {Case{tc::Operand::A, 16, 16, 8}, Case{tc::Operand::B, 16, 8, 4}, Case{tc::Operand::C, 16, 8, 4}}) {
    std::set<std::tuple<int, int, int>> slots;
    int per_lane[32] = {};
    for (int r = 0; r < c.rows; ++r)
      for (int col = 0; col < c.cols; ++col) {
        const tc::FragSlot s = tc::fragment_slot(c.op, r, col);
        ASSERT_GE(s.lane, 0);
        ASSERT_LT(s.lane, 32);
        EXPECT_TRUE(slots.insert({s.lane, s.reg, s.half}).second) << r << "," << col;  // no slot twice
        ++per_lane[s.lane];
      }
    for (int n : per_lane)
      EXPECT_EQ(n, c.per_lane);
  }
  // The PTX ISA's examples: A(0,0) and A(0,1) in lane 0's a0; A(9,10) in lane 4*1+1 = 5, a3; C(8,7) in lane 3, c3.
  EXPECT_EQ(tc::fragment_slot(tc::Operand::A, 0, 1).half, 1);
  const tc::FragSlot a = tc::fragment_slot(tc::Operand::A, 9, 10);
  EXPECT_EQ(a.lane, 5);
  EXPECT_EQ(a.reg, 3);
  const tc::FragSlot c = tc::fragment_slot(tc::Operand::C, 8, 7);
  EXPECT_EQ(c.lane, 3);
  EXPECT_EQ(c.reg, 3);
  const tc::FragSlot b = tc::fragment_slot(tc::Operand::B, 11, 6);  // k 11, n 6: lane 4*6 + 1, b1, second half
  EXPECT_EQ(b.lane, 25);
  EXPECT_EQ(b.reg, 1);
  EXPECT_EQ(b.half, 1);
}

namespace {

// Adds up the zero-filled elements box by box (the picture's way) to check the closed form.
int64_t zeros_box_by_box(const tc::BoxGrid& g) {
  int64_t z = 0;
  for (int64_t i = 0; i < g.down; ++i)
    for (int64_t j = 0; j < g.across; ++j)
      z += tc::box_zero_filled(g, i, j);
  return z;
}

}  // namespace

TEST(TcGeometry, TmaBoxesCoverOddShapesWithZeroFilledEdges) {
  // A 200 x 67: 2 x 2 boxes of 128 x 64; 4 * 8192 - 200 * 67 elements come from TMA's zero fill.
  const tc::BoxGrid a = tc::tma_boxes_a(200, 67);
  EXPECT_EQ(a.count(), 4);
  EXPECT_EQ(tc::box_zero_filled(a, 0, 0), 0);
  EXPECT_EQ(tc::box_zero_filled(a, 0, 1), 128 * 61);  // k 64..127 of which only 64..66 exist
  EXPECT_EQ(tc::box_zero_filled(a, 1, 1), 128 * 64 - 72 * 3);
  EXPECT_EQ(tc::zero_filled(a), 4 * 8192 - 200 * 67);
  EXPECT_EQ(zeros_box_by_box(a), tc::zero_filled(a));
  // B 67 x 155, BN 128: 2 k-rows of boxes, 2 tiles x 2 boxes across.
  const tc::BoxGrid b = tc::tma_boxes_b(67, 155, 128);
  EXPECT_EQ(b.down, 2);
  EXPECT_EQ(b.across, 4);
  EXPECT_EQ(zeros_box_by_box(b), 8 * 4096 - 67 * 155);
  // BN 256: the one tile across loads 4 boxes; the last (columns 192..255) lies wholly past n = 155.
  const tc::BoxGrid w = tc::tma_boxes_b(67, 155, 256);
  EXPECT_EQ(w.across, 4);
  EXPECT_EQ(tc::box_zero_filled(w, 0, 3), 4096);
  EXPECT_EQ(zeros_box_by_box(w), tc::zero_filled(w));
  // Multiples of the box: nothing zero-filled.
  EXPECT_EQ(tc::zero_filled(tc::tma_boxes_a(256, 128)), 0);
  EXPECT_EQ(tc::zero_filled(tc::tma_boxes_b(128, 512, 256)), 0);
  // Instructions: 2 x 2 tiles of 128 x 128, 2 k-tiles, 1 A box + 2 B boxes each.
  EXPECT_EQ(tc::tma_loads(200, 155, 67, 128), 2 * 2 * 2 * 3);
  EXPECT_EQ(tc::tma_loads(4096, 4096, 4096, 256), 32LL * 16 * 64 * 5);
  // Bad sizes: nothing, not a crash.
  EXPECT_EQ(tc::tma_boxes_a(0, 5).count(), 0);
  EXPECT_EQ(tc::tma_boxes_b(5, 5, 100).count(), 0);
  EXPECT_EQ(tc::tma_loads(-1, 5, 5, 128), 0);
}

TEST(TcGeometry, TmaSwizzleIsABijectionPerEightRowGroup) {
  for (int r0 = 0; r0 < 128; r0 += 8) {
    std::set<int> rows_per_chunk[8];
    for (int r = r0; r < r0 + 8; ++r) {
      std::set<int> row;
      for (int c = 0; c < 8; ++c) {
        const int p = tc::tma_swizzle_chunk(r, c);
        ASSERT_GE(p, 0);
        ASSERT_LT(p, 8);
        row.insert(p);
        rows_per_chunk[c].insert(p);
      }
      EXPECT_EQ(row.size(), 8u) << "row " << r;  // a permutation of the row's chunks
    }
    for (const auto& s : rows_per_chunk)
      EXPECT_EQ(s.size(), 8u);  // one logical chunk of 8 rows: 8 different bank groups
  }
  EXPECT_EQ(tc::tma_swizzle_chunk(0, 5), 5);
  EXPECT_EQ(tc::tma_swizzle_chunk(11, 1), 2);  // 1 ^ 3
}

TEST(TcGeometry, PipelineHidesLoadsWithTwoStagesOrMoreWhenComputeIsSlower) {
  for (int stages = 2; stages <= 6; ++stages)
    for (double load : {0.25, 0.5, 0.9, 1.0}) {
      const auto s = tc::pipeline_schedule(stages, 23, load, 1.0);
      ASSERT_EQ(s.size(), 23u);
      EXPECT_DOUBLE_EQ(s[0].wait, load);  // the prologue: the first tile's load
      for (size_t t = 1; t < s.size(); ++t)
        EXPECT_NEAR(s[t].wait, 0.0, 1e-12) << stages << " stages, load " << load << ", tile " << t;
      EXPECT_EQ(tc::summarize(s).bubbles, 0);
      EXPECT_NEAR(tc::summarize(s).total, load + 23.0, 1e-9);
    }
}

TEST(TcGeometry, PipelineWithOneStageWaitsEveryTile) {
  const auto s = tc::pipeline_schedule(1, 9, 0.5, 1.0);
  for (size_t t = 0; t < s.size(); ++t) EXPECT_DOUBLE_EQ(s[t].wait, 0.5) << t;
  const tc::PipeSummary r = tc::summarize(s);
  EXPECT_EQ(r.bubbles, 8);
  EXPECT_DOUBLE_EQ(r.total, 9 * 1.5);
  EXPECT_NEAR(r.busy_fraction, 1.0 / 1.5, 1e-12);
}

TEST(TcGeometry, PipelineRespectsBothBarriersAndShowsLoadBoundBubbles) {
  // Loads twice as long as the math: no ring hides that; after the ring fills, the consumer waits load - compute.
  const auto s = tc::pipeline_schedule(4, 16, 2.0, 1.0);
  for (size_t t = 0; t < s.size(); ++t) {
    EXPECT_EQ(s[t].stage, static_cast<int>(t % 4));
    EXPECT_GE(s[t].compute_start, s[t].load_end);  // full barrier
    if (t >= 4) {
      EXPECT_GE(s[t].load_start, s[t - 4].compute_end);  // empty barrier: never overwrite a live stage
    }
    if (t >= 1) {
      EXPECT_NEAR(s[t].wait, 1.0, 1e-12);
    }
  }
  EXPECT_EQ(tc::summarize(s).bubbles, 15);
  // Fast loads, 2 stages: the producer runs ahead until the ring is full, then each load waits for the consumer to
  // release the stage (tile t's load starts when tile t - 2's multiply ends), and the consumer never waits.
  const auto fast = tc::pipeline_schedule(2, 12, 0.25, 1.0);
  EXPECT_DOUBLE_EQ(fast[1].load_start, 0.25);
  for (size_t t = 2; t < fast.size(); ++t) {
    EXPECT_DOUBLE_EQ(fast[t].load_start, fast[t - 2].compute_end) << t;
  }
  EXPECT_EQ(tc::summarize(fast).bubbles, 0);
  EXPECT_TRUE(tc::pipeline_schedule(0, 4, 1, 1).empty());
  EXPECT_TRUE(tc::pipeline_schedule(2, 4, 0, 1).empty());
  EXPECT_TRUE(tc::pipeline_schedule(2, 0, 1, 1).empty());
}
