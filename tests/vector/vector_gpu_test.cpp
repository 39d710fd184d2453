// vector_gpu_test.cpp: every vector kernel (op x indexing x load width) against the CPU, stream-chunked runs
// against the single-stream run (bitwise), the runner's refusals, timings and the sweep. Skips without a CUDA
// device. Tolerances: add must match the CPU exactly (one correctly rounded operation on both sides); the
// formula within relative 1e-6 (k_formula_rel_tol: nvcc contracts two multiply-adds into FMAs, the CPU build
// does not).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "core/error.h"
#include "gpu/vector/vector.h"
#include "test_util.h"

namespace bs::vector {
namespace {

const int64_t k_sizes[] = {1, 255, 256, 257, 1000003};

struct Inputs {
  std::vector<float> a, b;
  explicit Inputs(int64_t n) : a(static_cast<size_t>(n)), b(static_cast<size_t>(n)) {
    fill_inputs(a.data(), b.data(), n);
  }
};

std::string describe(const Params& p) {
  return std::string(to_string(p.op)) + ", " + to_string(p.width) + ", " + to_string(p.indexing) + ", n " +
         std::to_string(p.n) + ", block " + std::to_string(p.block) + ", waves " + std::to_string(p.waves) +
         ", " + (p.pinned ? "pinned" : "pageable") + ", " + std::to_string(p.streams) + " streams, " +
         std::to_string(p.chunk_count()) + " chunks";
}

TEST(VectorGpu, EveryKernelMatchesTheCpu) {
  BS_REQUIRE_GPU();
  GpuRunner runner;
  for (int64_t n : k_sizes) {
    const Inputs in(n);
    for (Op op : {Op::Add, Op::Formula})
      for (auto ix : {Indexing::OnePerElement, Indexing::GridStride})
        for (auto w : {LoadWidth::Float, LoadWidth::Float4}) {
          Params p;
          p.n = n;
          p.op = op;
          p.indexing = ix;
          p.width = w;
          p.pinned = (n % 2) == 1;  // both host memory kinds get exercised
          SCOPED_TRACE(describe(p));
          const std::vector<float> c = runner.compute(p, in.a, in.b);
          const Check chk = check_result(op, in.a.data(), in.b.data(), c.data(), n);
          EXPECT_TRUE(chk.passed) << chk.text;
        }
  }
}

// Small grids and blocks so that the grid-stride loops make many passes (float4 included), and odd block
// sizes.
TEST(VectorGpu, GridStrideManyPassesAndOddBlocks) {
  BS_REQUIRE_GPU();
  GpuRunner runner;
  const int64_t n = (int64_t{8} << 20) + 3;
  const Inputs in(n);
  for (Op op : {Op::Add, Op::Formula})
    for (auto w : {LoadWidth::Float, LoadWidth::Float4})
      for (int block : {32, 96, 1024}) {
        Params p;
        p.n = n;
        p.op = op;
        p.indexing = Indexing::GridStride;
        p.width = w;
        p.block = block;
        p.waves = 1;
        p.pinned = true;
        SCOPED_TRACE(describe(p));
        const LaunchShape s = runner.shape(p);
        EXPECT_GT(s.passes, 1) << "grid " << s.grid << " x block " << s.block << " should not cover "
                               << s.items;
        const std::vector<float> c = runner.compute(p, in.a, in.b);
        const Check chk = check_result(op, in.a.data(), in.b.data(), c.data(), n);
        EXPECT_TRUE(chk.passed) << chk.text;
      }
}

TEST(VectorGpu, StreamChunkedEqualsSingleStreamBitwise) {
  BS_REQUIRE_GPU();
  GpuRunner runner;
  for (int64_t n : {int64_t{257}, int64_t{1000003}, (int64_t{4} << 20) + 1})
    for (Op op : {Op::Add, Op::Formula})
      for (auto [ix, w] : {std::pair{Indexing::GridStride, LoadWidth::Float4},
                           std::pair{Indexing::OnePerElement, LoadWidth::Float}}) {
        const Inputs in(n);
        Params p;
        p.n = n;
        p.op = op;
        p.indexing = ix;
        p.width = w;
        p.pinned = true;
        const std::vector<float> single = runner.compute(p, in.a, in.b);
        for (auto [streams, chunks] : {std::pair{2, 0}, std::pair{3, 0}, std::pair{8, 0}, std::pair{16, 0},
                                       std::pair{4, 37}, std::pair{1, 5}}) {
          for (bool pinned : {true, false}) {
            Params q = p;
            q.streams = streams;
            q.chunks = chunks;
            q.pinned = pinned;
            SCOPED_TRACE(describe(q));
            const std::vector<float> c = runner.compute(q, in.a, in.b);
            ASSERT_EQ(c.size(), single.size());
            EXPECT_EQ(std::memcmp(c.data(), single.data(), c.size() * sizeof(float)), 0);
          }
        }
      }
}

TEST(VectorGpu, RefusesBadParameters) {
  BS_REQUIRE_GPU();
  GpuRunner runner;
  const Inputs in(16);
  for (int64_t n : {int64_t{0}, int64_t{-3}, k_max_n + 1}) {
    Params p;
    p.n = n;
    try {
      runner.run(p, 1);
      ADD_FAILURE() << "n = " << n << " was accepted";
    } catch (const InvalidRequest& e) {
      EXPECT_NE(std::string(e.what()).find("n = "), std::string::npos) << e.what();
    }
  }
  for (int s : {0, 17}) {
    Params p;
    p.n = 16;
    p.streams = s;
    EXPECT_THROW(runner.compute(p, in.a, in.b), InvalidRequest) << "streams " << s;
    EXPECT_THROW(runner.run(p, 1), InvalidRequest) << "streams " << s;
  }
  Params p;
  p.n = 17;
  EXPECT_THROW(runner.compute(p, in.a, in.b), InvalidRequest) << "a and b hold 16, not 17";
}

TEST(VectorGpu, RunTimesPhasesAndTimeline) {
  BS_REQUIRE_GPU();
  GpuRunner runner;
  Params p;
  p.n = (int64_t{16} << 20) + 3;
  p.op = Op::Formula;
  p.indexing = Indexing::GridStride;
  p.width = LoadWidth::Float4;
  p.pinned = true;
  p.streams = 4;
  p.chunks = 8;
  const RunResult r = runner.run(p, 3);
  EXPECT_TRUE(r.row.check_passed) << r.row.check;
  EXPECT_EQ(r.chunks_used, 8);
  ASSERT_EQ(r.timeline.ops.size(), 24u);
  for (const auto& op : r.timeline.ops) {
    EXPECT_GE(op.start_ms, 0);
    EXPECT_GE(op.end_ms, op.start_ms);
    EXPECT_EQ(op.stream, op.chunk % 4);
  }
  // Within a chunk: H2D, then kernel, then D2H on its stream; each engine takes the chunks in order.
  for (size_t k = 0; k < 8; ++k) {
    const auto& h = r.timeline.ops[3 * k];
    const auto& kk = r.timeline.ops[3 * k + 1];
    const auto& d = r.timeline.ops[3 * k + 2];
    EXPECT_EQ(h.kind, OpKind::H2D);
    EXPECT_EQ(kk.kind, OpKind::Kernel);
    EXPECT_EQ(d.kind, OpKind::D2H);
    const double eps = 1e-3;  // event timestamps: about half a microsecond of resolution
    EXPECT_LE(h.end_ms, kk.start_ms + eps);
    EXPECT_LE(kk.end_ms, d.start_ms + eps);
    if (k > 0) {
      EXPECT_LE(r.timeline.ops[3 * k - 3].end_ms, h.start_ms + eps) << "H2D of chunk " << k;
      EXPECT_LE(r.timeline.ops[3 * k - 2].end_ms, kk.start_ms + eps) << "kernel of chunk " << k;
      EXPECT_LE(r.timeline.ops[3 * k - 1].end_ms, d.start_ms + eps) << "D2H of chunk " << k;
    }
  }
  EXPECT_GT(r.kernel_ms.median, 0);
  EXPECT_GT(r.h2d_ms.median, 0);
  EXPECT_GT(r.d2h_ms.median, 0);
  EXPECT_LE(r.timeline.total_ms, r.timeline.serial_sum_ms + 1e-3);
  EXPECT_GE(r.timeline.kernel_hidden_fraction, 0);
  EXPECT_LE(r.timeline.kernel_hidden_fraction, 1);
  std::printf(
      "[ info ] 16M formula, 4 streams x 8 chunks, pinned: total %.3f ms, serial sum %.3f ms, kernel hidden "
      "%.1f%%\n",
      r.timeline.total_ms, r.timeline.serial_sum_ms, 100 * r.timeline.kernel_hidden_fraction);
}

TEST(VectorGpu, YardsticksArePositive) {
  BS_REQUIRE_GPU();
  GpuRunner runner;
  const CopyKernel ck = runner.copy_kernel(int64_t{16} << 20, 3);
  EXPECT_GT(ck.gbs, 0);
  const CopyRates cr = runner.copy_rates(int64_t{16} << 20, 3);
  EXPECT_GT(cr.pinned_h2d_gbs, 0);
  EXPECT_GT(cr.pageable_h2d_gbs, 0);
  EXPECT_GT(cr.pinned_d2h_gbs, 0);
  EXPECT_GT(cr.pageable_d2h_gbs, 0);
  const LaunchOverhead lo = runner.launch_overhead(21);
  EXPECT_GT(lo.event_us, 0);
  EXPECT_GT(lo.back_to_back_us, 0);
  EXPECT_GT(lo.round_trip_us, 0);
  std::printf(
      "[ info ] copy kernel %.1f GB/s; H2D pinned %.1f / pageable %.1f GB/s; empty launch %.2f us (events), "
      "%.2f us round trip; link: %s\n",
      ck.gbs, cr.pinned_h2d_gbs, cr.pageable_h2d_gbs, lo.event_us, lo.round_trip_us,
      runner.link().text().c_str());
}

TEST(VectorGpu, SmallSweepRunsAndCancels) {
  BS_REQUIRE_GPU();
  SweepOptions o;
  o.min_n = 1024;
  o.max_n = 64 * 1024;
  o.budget_ms_per_point = 5;
  const SweepResult r = run_sweep(o);
  ASSERT_TRUE(r.gpu_ran) << r.gpu_skipped_reason;
  ASSERT_EQ(r.points.size(), 7u);
  for (const auto& p : r.points) {
    EXPECT_GT(p.gpu_kernel_ms, 0);
    EXPECT_GT(p.gpu_total_ms, p.gpu_kernel_ms);
    EXPECT_GT(p.cpu1_ms, 0);
    EXPECT_GT(p.cpu_all_ms, 0);
  }
  JobControl ctl;
  ctl.cancel();
  EXPECT_THROW(run_sweep(o, &ctl), JobCancelled);
}

}  // namespace
}  // namespace bs::vector
