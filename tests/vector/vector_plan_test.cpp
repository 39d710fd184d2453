// vector_plan_test.cpp: the vector lab's pure arithmetic: validation, element counts, chunks, launch shapes,
// the element -> thread mapping, timeline overlap and crossover interpolation. No GPU needed.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <vector>
#include <tuple>

#include "gpu/vector/vector.h"

namespace bs::vector {
namespace {

Params with_n(int64_t n) {
  Params p;
  p.n = n;
  return p;
}

TEST(VectorValidate, AcceptsTheWholeRange) {
  EXPECT_FALSE(validate(with_n(1)));
  EXPECT_FALSE(validate(with_n(255)));
  EXPECT_FALSE(validate(with_n(k_max_n)));
  EXPECT_EQ(k_max_n, 536870912);
}

TEST(VectorValidate, RefusesBadSizesClearly) {
  for (int64_t n : {int64_t{0}, int64_t{-1}, int64_t{-1000}, k_max_n + 1, int64_t{1} << 40}) {
    const auto err = validate(with_n(n));
    ASSERT_TRUE(err) << "n = " << n;
    EXPECT_NE(err->find("n = " + std::to_string(n)), std::string::npos) << *err;
    EXPECT_NE(err->find("536870912"), std::string::npos)
        << "the message should give the legal range: " << *err;
  }
}

TEST(VectorValidate, RefusesBadStreamCounts) {
  for (int s : {0, -1, 17, 100}) {
    Params p;
    p.streams = s;
    const auto err = validate(p);
    ASSERT_TRUE(err) << "streams = " << s;
    EXPECT_NE(err->find("streams = " + std::to_string(s)), std::string::npos) << *err;
    EXPECT_NE(err->find("1 to 16"), std::string::npos) << *err;
  }
  for (int s : {1, 8, 16}) {
    Params p;
    p.streams = s;
    EXPECT_FALSE(validate(p)) << s;
  }
}

TEST(VectorValidate, RefusesBadChunksBlocksWaves) {
  Params p;
  p.chunks = 65;
  EXPECT_TRUE(validate(p));
  p.chunks = -1;
  EXPECT_TRUE(validate(p));
  p = Params{};
  p.block = 0;
  EXPECT_TRUE(validate(p));
  p.block = 2048;
  EXPECT_TRUE(validate(p));
  p = Params{};
  p.waves = 0;
  EXPECT_TRUE(validate(p));
}

TEST(VectorParseCount, SuffixesAndErrors) {
  EXPECT_EQ(parse_count("256M", "--n").value, int64_t{268435456});
  EXPECT_EQ(parse_count("1K", "--n").value, int64_t{1024});
  EXPECT_EQ(parse_count("1k", "--n").value, int64_t{1024});
  EXPECT_EQ(parse_count("2G", "--n").value, int64_t{2} << 30);
  EXPECT_EQ(parse_count("1000003", "--n").value, int64_t{1000003});
  // Negative numbers parse, so that validate can say what is wrong with them.
  EXPECT_EQ(parse_count("-5", "--n").value, int64_t{-5});
  EXPECT_TRUE(validate(with_n(*parse_count("-5", "--n").value)));
  // Absurdly large values saturate and are then refused by validate instead of wrapping around.
  const ParsedCount huge = parse_count("9000000000000G", "--n");
  ASSERT_TRUE(huge.value);
  EXPECT_TRUE(validate(with_n(*huge.value)));
  for (const char* bad : {"", "M", "abc", "12x", "1.5M", "0x10"}) {
    const ParsedCount r = parse_count(bad, "--n");
    EXPECT_FALSE(r.value) << bad;
    EXPECT_NE(r.error.find("--n"), std::string::npos) << r.error;
  }
}

TEST(VectorParseCount, FormatRoundTrips) {
  EXPECT_EQ(format_count(int64_t{64} << 20), "64M");
  EXPECT_EQ(format_count(1024), "1K");
  EXPECT_EQ(format_count(1000), "1000");
  EXPECT_EQ(format_count(int64_t{1} << 30), "1G");
}

TEST(VectorMemory, HostCheckSaysNeededAndAvailable) {
  const auto err =
      check_host_memory(int64_t{256} << 20, 3, uint64_t{1} << 30);  // 3 GiB needed, 1 GiB available
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("3072 MiB"), std::string::npos) << *err;
  EXPECT_NE(err->find("1024 MiB are available"), std::string::npos) << *err;
  EXPECT_FALSE(check_host_memory(1024, 3, uint64_t{1} << 30));
  EXPECT_FALSE(check_host_memory(int64_t{256} << 20, 3, 0)) << "unknown availability must not refuse";
  EXPECT_GT(available_host_bytes(), 0u);
}

TEST(VectorChunks, CoverEverythingOnceAligned) {
  for (int64_t n : {int64_t{1}, int64_t{3}, int64_t{255}, int64_t{256}, int64_t{257}, int64_t{1000003}}) {
    for (int k : {1, 2, 3, 7, 8, 16, 64}) {
      for (int s : {1, 4, 16}) {
        const auto chunks = make_chunks(n, k, s);
        ASSERT_FALSE(chunks.empty());
        EXPECT_LE(static_cast<int>(chunks.size()), k);
        int64_t next = 0;
        for (size_t c = 0; c < chunks.size(); ++c) {
          EXPECT_EQ(chunks[c].begin, next) << "n " << n << " k " << k;
          EXPECT_EQ(chunks[c].begin % 4, 0) << "float4 alignment";
          EXPECT_GT(chunks[c].count, 0);
          if (c + 1 < chunks.size()) {
            EXPECT_EQ(chunks[c].count % 4, 0);
            EXPECT_EQ(chunks[c].count, chunks[0].count);
          }
          EXPECT_EQ(chunks[c].stream, static_cast<int>(c) % s) << "round robin";
          next += chunks[c].count;
        }
        EXPECT_EQ(next, n);
      }
    }
  }
  EXPECT_TRUE(make_chunks(0, 4, 4).empty());
  EXPECT_EQ(make_chunks(1, 16, 16).size(), 1u);
  EXPECT_EQ(make_chunks(1 << 20, 8, 8).size(), 8u);
}

TEST(VectorShape, GridsAndPasses) {
  LaunchShape s = make_shape(1000003, Indexing::OnePerElement, LoadWidth::Float, 256, 0);
  EXPECT_EQ(s.grid, 3907);  // ceil(1000003 / 256)
  EXPECT_EQ(s.passes, 1);
  EXPECT_EQ(s.idle_threads(), 3907 * 256 - 1000003);
  s = make_shape(1000003, Indexing::OnePerElement, LoadWidth::Float4, 256, 0);
  EXPECT_EQ(s.items, 250001);
  EXPECT_EQ(s.grid, 977);
  s = make_shape(1000003, Indexing::GridStride, LoadWidth::Float, 256, 100);
  EXPECT_EQ(s.grid, 100);
  EXPECT_EQ(s.passes, 40);  // ceil(1000003 / 25600)
  s = make_shape(257, Indexing::GridStride, LoadWidth::Float, 256, 1000);
  EXPECT_EQ(s.grid, 2) << "a small array gets no more blocks than it has work for";
  s = make_shape(0, Indexing::GridStride, LoadWidth::Float, 256, 1000);
  EXPECT_EQ(s.grid, 0);
}

// Runs the kernels' loops on the host: every (pass, block, thread) the launch executes, every lane of its
// work item. Each element must be visited exactly once, and touched_by must name the visitor.
void expect_each_element_once(const LaunchShape& s) {
  std::vector<uint8_t> visits(static_cast<size_t>(s.n), 0);
  const int lanes = s.width == LoadWidth::Float4 ? 4 : 1;
  for (int64_t pass = 0; pass < s.passes; ++pass)
    for (int64_t block = 0; block < s.grid; ++block)
      for (int64_t thread = 0; thread < s.block; ++thread) {
        const int64_t v = pass * s.threads() + block * s.block + thread;  // the kernels' index arithmetic
        if (v >= s.items) continue;
        for (int lane = 0; lane < lanes; ++lane) {
          const int64_t i = v * lanes + lane;
          if (i >= s.n) break;  // the float4 tail: fewer than 4 elements
          ++visits[static_cast<size_t>(i)];
          const Touch t = touched_by(i, s);
          ASSERT_EQ(t.pass, pass) << "element " << i;
          ASSERT_EQ(t.block, block) << "element " << i;
          ASSERT_EQ(t.thread, thread) << "element " << i;
          ASSERT_EQ(t.lane, lane) << "element " << i;
          ASSERT_EQ(t.tail, lanes == 4 && v * 4 + 3 >= s.n) << "element " << i;
        }
      }
  for (int64_t i = 0; i < s.n; ++i)
    ASSERT_EQ(visits[static_cast<size_t>(i)], 1) << "element " << i;
  if (s.indexing == Indexing::OnePerElement) {
    EXPECT_EQ(s.passes, 1);
  }
}

TEST(VectorTouchedBy, EveryElementExactlyOncePerScheme) {
  for (int64_t n : {int64_t{1}, int64_t{255}, int64_t{256}, int64_t{257}, int64_t{1000003}})
    for (auto ix : {Indexing::OnePerElement, Indexing::GridStride})
      for (auto w : {LoadWidth::Float, LoadWidth::Float4})
        for (int64_t block : {64, 256}) {
          SCOPED_TRACE("n " + std::to_string(n) + " " + to_string(ix) + " " + to_string(w) + " block " +
                       std::to_string(block));
          expect_each_element_once(make_shape(n, ix, w, block, /*stride_grid=*/7));
        }
}

TEST(VectorTouchedBy, GridStrideExample) {
  // 10 elements, 1 block of 4 threads: thread 1 takes elements 1, 5, 9 in passes 0, 1, 2.
  const LaunchShape s = make_shape(10, Indexing::GridStride, LoadWidth::Float, 4, 1);
  EXPECT_EQ(s.passes, 3);
  for (int64_t i : {1, 5, 9}) {
    const Touch t = touched_by(i, s);
    EXPECT_EQ(t.thread, 1);
    EXPECT_EQ(t.pass, i / 4);
  }
  // float4, 10 elements: groups {0..3}, {4..7}, {8, 9} (the tail).
  const LaunchShape s4 = make_shape(10, Indexing::OnePerElement, LoadWidth::Float4, 256, 0);
  EXPECT_EQ(touched_by(9, s4).thread, 2);
  EXPECT_EQ(touched_by(9, s4).lane, 1);
  EXPECT_TRUE(touched_by(9, s4).tail);
  EXPECT_FALSE(touched_by(7, s4).tail);
}

TEST(VectorTouchedBy, ChunkedRunsMapToTheirChunk) {
  Params p;
  p.n = 1000003;
  p.streams = 3;
  p.chunks = 8;
  p.indexing = Indexing::GridStride;
  p.width = LoadWidth::Float4;
  const auto chunks = make_chunks(p.n, p.chunk_count(), p.streams);
  std::map<std::tuple<int, int64_t, int64_t, int64_t, int>, int64_t> seen;
  for (int64_t i = 0; i < p.n;
       i += 1 + (i % 13)) {  // a dense sample is enough here; the bijection test is full
    const Touch t = touched_by(i, p, 11);
    ASSERT_LT(t.chunk, static_cast<int>(chunks.size()));
    const Chunk& c = chunks[static_cast<size_t>(t.chunk)];
    ASSERT_GE(i, c.begin);
    ASSERT_LT(i, c.begin + c.count);
    EXPECT_EQ(t.stream, c.stream);
    const LaunchShape s = make_shape(c.count, p.indexing, p.width, p.block, 11);
    const int64_t v = t.pass * s.threads() + t.block * s.block + t.thread;
    ASSERT_EQ(c.begin + 4 * v + t.lane, i);
    ASSERT_TRUE(seen.emplace(std::make_tuple(t.chunk, t.block, t.thread, t.pass, t.lane), i).second);
  }
}

TEST(VectorTimeline, OverlapFigures) {
  // Two chunks on two streams. Stream 0: H2D [0,4], kernel [4,5], D2H [5,7]; stream 1: H2D [4,8], kernel
  // [8,9], D2H [9,11]. Kernel 0 runs while H2D 1 is in flight (hidden); kernel 1 runs while no copy is
  // (exposed).
  std::vector<TimelineOp> ops = {
      {OpKind::H2D, 0, 0, 0, 4, 8}, {OpKind::Kernel, 0, 0, 4, 5, 12}, {OpKind::D2H, 0, 0, 5, 7, 4},
      {OpKind::H2D, 1, 1, 4, 8, 8}, {OpKind::Kernel, 1, 1, 8, 9, 12}, {OpKind::D2H, 1, 1, 9, 11, 4},
  };
  const Timeline t = analyze_timeline(ops, 2, 2);
  EXPECT_DOUBLE_EQ(t.total_ms, 11);
  EXPECT_DOUBLE_EQ(t.serial_sum_ms, 14);
  EXPECT_DOUBLE_EQ(t.saved_ms(), 3);
  EXPECT_DOUBLE_EQ(t.h2d_sum_ms, 8);
  EXPECT_DOUBLE_EQ(t.kernel_sum_ms, 2);
  EXPECT_DOUBLE_EQ(t.d2h_sum_ms, 4);
  EXPECT_DOUBLE_EQ(t.kernel_busy_ms, 2);
  EXPECT_DOUBLE_EQ(t.kernel_hidden_ms, 1);
  EXPECT_DOUBLE_EQ(t.kernel_hidden_fraction, 0.5);
  EXPECT_EQ(t.ops.size(), 6u);
}

TEST(VectorTimeline, ConcurrentKernelsCountOnceAndPartialOverlap) {
  // Two kernels overlapping each other [1,3] and [2,4] (busy 3 ms), one copy [3.5, 10]: hidden 0.5 ms.
  std::vector<TimelineOp> ops = {
      {OpKind::Kernel, 0, 0, 1, 3, 0}, {OpKind::Kernel, 1, 1, 2, 4, 0}, {OpKind::D2H, 0, 0, 3.5, 10, 0}};
  const Timeline t = analyze_timeline(ops, 2, 2);
  EXPECT_DOUBLE_EQ(t.kernel_sum_ms, 4);
  EXPECT_DOUBLE_EQ(t.kernel_busy_ms, 3);
  EXPECT_DOUBLE_EQ(t.kernel_hidden_ms, 0.5);
  EXPECT_DOUBLE_EQ(t.total_ms, 9);
  // Serial, one stream: nothing hidden.
  const Timeline s = analyze_timeline(
      {{OpKind::H2D, 0, 0, 0, 2, 0}, {OpKind::Kernel, 0, 0, 2, 3, 0}, {OpKind::D2H, 0, 0, 3, 4, 0}}, 1, 1);
  EXPECT_DOUBLE_EQ(s.kernel_hidden_fraction, 0);
  EXPECT_DOUBLE_EQ(s.saved_ms(), 0);
}

TEST(VectorCrossover, InterpolatesOnLogScale) {
  const std::vector<int64_t> n = {1024, 2048, 4096, 8192};
  // gpu/cpu = 2 at 2K and 1/2 at 4K: log ratio crosses zero half way, at sqrt(2K * 4K) in log space.
  const Crossover c =
      find_crossover(n, std::vector<double>{10, 10, 10, 10}, std::vector<double>{1, 5, 20, 40});
  ASSERT_EQ(c.kind, Crossover::Kind::InRange);
  EXPECT_NEAR(c.n, std::sqrt(2048.0 * 4096.0), 1e-6);
  EXPECT_NE(c.text().find("2.8K"), std::string::npos) << c.text();
}

TEST(VectorCrossover, AlwaysNeverAndNoise) {
  const std::vector<int64_t> n = {1024, 2048, 4096, 8192};
  const Crossover always =
      find_crossover(n, std::vector<double>{1, 1, 1, 1}, std::vector<double>{2, 2, 2, 2});
  EXPECT_EQ(always.kind, Crossover::Kind::GpuAlwaysWins);
  EXPECT_DOUBLE_EQ(always.n, 1024);
  const Crossover never = find_crossover(n, std::vector<double>{3, 3, 3, 3}, std::vector<double>{2, 2, 2, 2});
  EXPECT_EQ(never.kind, Crossover::Kind::None);
  EXPECT_NE(never.text().find("none in range"), std::string::npos);
  // Wins at 2K by noise, loses at 4K, wins from 8K on: the crossover is between 4K and 8K.
  const Crossover noisy = find_crossover(n, std::vector<double>{3, 1, 3, 1}, std::vector<double>{2, 2, 2, 2});
  ASSERT_EQ(noisy.kind, Crossover::Kind::InRange);
  EXPECT_GT(noisy.n, 4096);
  EXPECT_LT(noisy.n, 8192);
  // Loses at the largest size after winning in between: none in range.
  EXPECT_EQ(find_crossover(n, std::vector<double>{3, 1, 1, 3}, std::vector<double>{2, 2, 2, 2}).kind,
            Crossover::Kind::None);
  // A tie counts as not winning; the interpolation then lands on the tied point.
  const Crossover tie = find_crossover(n, std::vector<double>{3, 2, 1, 1}, std::vector<double>{2, 2, 2, 2});
  ASSERT_EQ(tie.kind, Crossover::Kind::InRange);
  EXPECT_NEAR(tie.n, 2048, 1e-6);
  EXPECT_EQ(find_crossover({}, {}, {}).kind, Crossover::Kind::None);
}

TEST(VectorCrossover, FromSweepPoints) {
  SweepResult r;
  // GPU incl. copies: 20 us + 0.1 ns/element; CPU 1 thread 1 ns/element; CPU all threads 0.2 ns/element + 5
  // us.
  for (int64_t n : sweep_sizes(1024, int64_t{64} << 20)) {
    SweepPoint p;
    p.n = n;
    p.gpu_total_ms = 0.02 + 1e-7 * n;
    p.gpu_kernel_ms = 0.005 + 1e-9 * n;
    p.cpu1_ms = 1e-6 * n;
    p.cpu_all_ms = 0.005 + 2e-7 * n;
    r.points.push_back(p);
  }
  compute_crossovers(r);
  // Exact crossings: 0.02 + 1e-7 n = 1e-6 n -> n = 22222; 0.02 + 1e-7 n = 0.005 + 2e-7 n -> n = 150000.
  ASSERT_EQ(r.total_vs_cpu1.kind, Crossover::Kind::InRange);
  EXPECT_NEAR(r.total_vs_cpu1.n, 22222, 22222 * 0.15);  // log-linear interpolation of a non-power law
  ASSERT_EQ(r.total_vs_cpu_all.kind, Crossover::Kind::InRange);
  EXPECT_NEAR(r.total_vs_cpu_all.n, 150000, 150000 * 0.15);
  EXPECT_EQ(r.kernel_vs_cpu_all.kind, Crossover::Kind::GpuAlwaysWins) << "kernel alone is faster from 1K on";
}

TEST(VectorSweep, Sizes) {
  const auto s = sweep_sizes(1024, int64_t{64} << 20);
  EXPECT_EQ(s.size(), 17u);
  EXPECT_EQ(s.front(), 1024);
  EXPECT_EQ(s.back(), int64_t{64} << 20);
  EXPECT_EQ(sweep_sizes(1000, 3000), (std::vector<int64_t>{1000, 2000, 3000}));
  EXPECT_EQ(sweep_sizes(5, 5), (std::vector<int64_t>{5}));
  EXPECT_TRUE(sweep_sizes(10, 5).empty());
}

// The lab's first sweep takes in the N in its box: the default 16M, a small N, and 1M itself.
TEST(VectorSweep, TheQuickSweepCoversTheSizeInTheBox) {
  for (int64_t n : {int64_t{16} << 20, int64_t{1000}, int64_t{1} << 20, int64_t{3}, int64_t{256} << 20}) {
    const auto [lo, hi] = quick_sweep_range(n);
    const std::vector<int64_t> sizes = sweep_sizes(lo, hi);
    ASSERT_FALSE(sizes.empty()) << n;
    EXPECT_LE(sizes.front(), n) << n;
    EXPECT_GE(sizes.back(), n) << n;
    EXPECT_GE(sizes.back(), int64_t{1} << 20) << "still at least the quick 1M";
  }
  EXPECT_EQ(quick_sweep_range(int64_t{16} << 20), (std::pair<int64_t, int64_t>{1024, int64_t{16} << 20}));
}

TEST(VectorLink, NominalRatesAreLabelledAssumed) {
  EXPECT_EQ(nominal_link(9, 0, false, false).name, "PCIe 5.0 x16");
  EXPECT_DOUBLE_EQ(nominal_link(9, 0, false, false).gbs, 63.0);
  EXPECT_DOUBLE_EQ(nominal_link(8, 0, false, false).gbs, 31.5);
  EXPECT_NE(nominal_link(9, 0, true, false).name.find("integrated"), std::string::npos);
  EXPECT_NE(nominal_link(9, 0, false, true).name.find("NVLink-C2C"), std::string::npos);
  EXPECT_NE(nominal_link(9, 0, false, false).text().find("assumed"), std::string::npos);
}

}  // namespace
}  // namespace bs::vector
