// memory_cpu_test.cpp: the memory lab without a GPU: the index expressions (every element read once, the
// random gather a permutation), the access model against hand-computed cases (stride 1 = 4 sectors per warp
// request of floats, stride 32 = 32 sectors; a 32-way conflict for a column of a 32 x 32 tile, none when
// padded), predict() against the sum over warp_accesses, the CPU versions against plain loops, validation
// and the memory checks. CPU results are compared exactly (they move floats or add them in one fixed order);
// the particle step within k_aos_rel_tol of a double-precision step.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <vector>

#include "core/error.h"
#include "gpu/memory/memory.h"
#include "gpu/memory/memory_model.h"

namespace bs::memory {
namespace {

Params transpose_params(int64_t rows, int64_t cols, Dim2 block = {32, 8}) {
  Params p;
  p.kernel = Kernel::Transpose;
  p.rows = rows;
  p.cols = cols;
  p.block = block;
  return p;
}

Params n_params(Kernel k, int64_t n, int threads = 256) {
  Params p;
  p.kernel = k;
  p.n = n;
  p.threads = threads;
  return p;
}

// The first instruction of warp w that matches (space, store, buffer).
WarpAccess first_access(const Params& p, Variant v, WarpId w, Space space, bool store) {
  for (const WarpAccess& a : warp_accesses(p, v, w))
    if (a.space == space && a.store == store) return a;
  ADD_FAILURE() << "no such access";
  return {};
}

// --- Index expressions -----------------------------------------------------------------------------------

TEST(MemoryIndex, RandomIndexIsAPermutation) {
  for (int64_t n : {1, 2, 3, 31, 1000, 4096, 4097}) {
    std::vector<int> seen(static_cast<size_t>(n), 0);
    for (int64_t t = 0; t < n; ++t) {
      const int64_t i = random_index(t, n, 7);
      ASSERT_GE(i, 0);
      ASSERT_LT(i, n);
      ++seen[static_cast<size_t>(i)];
    }
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; })) << "n = " << n;
  }
  // random_thread inverts it (the warp picked by a click on the array).
  for (int64_t n : {1, 3, 1000, 4097, 1 << 20})
    for (uint32_t seed : {1u, 7u})
      for (int64_t t : {int64_t{0}, n / 2, n - 1})
        EXPECT_EQ(random_thread(random_index(t, n, seed), n, seed), t) << n;
  // Not the identity nor a constant stride: neighbouring threads land far apart.
  int64_t far = 0;
  for (int64_t t = 0; t + 1 < 4096; ++t)
    far += std::abs(random_index(t + 1, 4096, 1) - random_index(t, 4096, 1)) > 64;
  EXPECT_GT(far, 3500);
}

TEST(MemoryIndex, StridedReadTouchesEveryElementOnce) {
  for (int64_t n : {1, 7, 64, 1000, 1003})
    for (int64_t s : {1, 2, 3, 8, 33, 64}) {
      const int64_t rows = stride_rows(n, s);
      std::vector<int> seen(static_cast<size_t>(n), 0);
      std::set<int64_t> outs;
      for (int64_t col = 0; col < s; ++col)
        for (int64_t row = 0; row < rows; ++row) {
          const int64_t i = strided_element(row, col, s);
          if (i < n) ++seen[static_cast<size_t>(i)];
          outs.insert(strided_out(row, col, rows));
        }
      EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; })) << n << " " << s;
      EXPECT_EQ(static_cast<int64_t>(outs.size()), stride_outputs(n, s));
      EXPECT_EQ(*outs.rbegin(), stride_outputs(n, s) - 1);
    }
}

TEST(MemoryIndex, TileLoadAndStoreAreTransposes) {
  // Load step j of thread (tx, ty) writes tile word (ty + j*dy, tx); store step j of thread (tx', ty') reads
  // tile word (tx', ty' + j*dy). The cell stored must be the one loaded into that word.
  for (int dy : {1, 8, 32})
    for (bool padded : {false, true}) {
      const int pitch = tile_pitch(padded);
      std::vector<Cell> word_cell(static_cast<size_t>(k_tile * pitch), Cell{-1, -1});
      for (int ty = 0; ty < dy; ++ty)
        for (int tx = 0; tx < k_tile; ++tx)
          for (int j = 0; j < tile_steps(dy); ++j)
            word_cell[static_cast<size_t>(tile_load_word(tx, ty, j, dy, pitch))] =
                tile_load_cell(3, 5, tx, ty, j, dy);
      for (int ty = 0; ty < dy; ++ty)
        for (int tx = 0; tx < k_tile; ++tx)
          for (int j = 0; j < tile_steps(dy); ++j) {
            const Cell want = tile_store_cell(3, 5, tx, ty, j, dy);
            const Cell got = word_cell[static_cast<size_t>(tile_store_word(tx, ty, j, dy, pitch))];
            ASSERT_EQ(got.r, want.r);
            ASSERT_EQ(got.c, want.c);
          }
    }
}

// --- The access model: hand-computed cases ---------------------------------------------------------------

TEST(MemoryModel, StridedReadSectorsPerRequest) {
  // A warp of float loads, lanes s floats apart: 32 lanes x 4 bytes x s spread over 4*s sectors up to 32.
  const std::pair<int, int> cases[] = {{1, 4}, {2, 8}, {4, 16}, {8, 32}, {32, 32}, {64, 32}};
  for (auto [s, sectors] : cases) {
    Params p = n_params(Kernel::Stride, 1 << 16);
    p.stride = s;
    const WarpAccess ld = first_access(p, Variant::Strided, {0, 0, 0}, Space::Global, false);
    const GlobalCost c = global_cost(ld);
    EXPECT_EQ(c.active_lanes, 32);
    EXPECT_EQ(c.sectors, sectors) << "stride " << s;
    EXPECT_EQ(c.lines, std::min(32, s)) << "stride " << s;  // 128 * s bytes
    // The write is always coalesced: 4 sectors, one line.
    const GlobalCost w = global_cost(first_access(p, Variant::Strided, {0, 0, 0}, Space::Global, true));
    EXPECT_EQ(w.sectors, 4);
    EXPECT_EQ(w.lines, 1);
  }
}

TEST(MemoryModel, TransposeSectorsPerRequest) {
  const Params p = transpose_params(256, 256);
  // Naive: the read is coalesced (4 sectors), the write strides by 256 floats (32 sectors).
  EXPECT_EQ(global_cost(first_access(p, Variant::Naive, {1, 2, 3}, Space::Global, false)).sectors, 4);
  EXPECT_EQ(global_cost(first_access(p, Variant::Naive, {1, 2, 3}, Space::Global, true)).sectors, 32);
  for (Variant v : {Variant::Copy, Variant::Tiled, Variant::TiledPadded, Variant::TiledPaddedMulti}) {
    EXPECT_EQ(global_cost(first_access(p, v, {1, 2, 0}, Space::Global, false)).sectors, 4) << to_string(v);
    EXPECT_EQ(global_cost(first_access(p, v, {1, 2, 0}, Space::Global, true)).sectors, 4) << to_string(v);
  }
}

TEST(MemoryModel, TileColumnIs32WayConflictUnlessPadded) {
  const Params p = transpose_params(64, 64);
  // The store phase reads a column of the tile: 32 lanes, 32 different words in one bank.
  const SharedCost plain = shared_cost(first_access(p, Variant::Tiled, {0, 0, 0}, Space::Shared, false));
  EXPECT_EQ(plain.wavefronts, 32);
  EXPECT_EQ(plain.conflicts(), 31);
  EXPECT_EQ(plain.words_per_bank[0], 32);
  const SharedCost padded =
      shared_cost(first_access(p, Variant::TiledPadded, {0, 0, 0}, Space::Shared, false));
  EXPECT_EQ(padded.wavefronts, 1);
  EXPECT_EQ(padded.conflicts(), 0);
  // The load phase writes a row of the tile: conflict-free either way.
  EXPECT_EQ(shared_cost(first_access(p, Variant::Tiled, {0, 0, 0}, Space::Shared, true)).wavefronts, 1);
}

TEST(MemoryModel, BankStrideConflicts) {
  // Lanes s words apart: 32 / (32 / gcd(s, 32))... i.e. gcd(s, 32) lanes share a bank: a gcd-way conflict.
  for (int s = 1; s <= 32; ++s) {
    Params p = n_params(Kernel::Banks, 1024);
    p.bank_stride = s;
    const std::vector<WarpAccess> acc = warp_accesses(p, Variant::BanksPlain, {0, 0, 0}, 3);
    int loads = 0;
    for (const WarpAccess& a : acc)
      if (a.space == Space::Shared && !a.store) {
        EXPECT_EQ(shared_cost(a).wavefronts, std::gcd(s, 32)) << "stride " << s << " step " << a.step;
        ++loads;
      }
    EXPECT_EQ(loads, 3);
    // One spare word per 32 spreads a power-of-two stride over all banks.
    if ((s & (s - 1)) != 0) continue;
    for (const WarpAccess& a : warp_accesses(p, Variant::BanksPadded, {0, 0, 0}, 3))
      if (a.space == Space::Shared && !a.store) {
        EXPECT_EQ(shared_cost(a).wavefronts, 1) << "padded, stride " << s;
      }
  }
  // The padding is no universal fix: an odd stride is conflict-free without it, and with it stride 31 puts
  // lanes 1..31 at physical words 32 * lane - 1, all in bank 31.
  Params p = n_params(Kernel::Banks, 1024);
  p.bank_stride = 31;
  const WarpAccess a = first_access(p, Variant::BanksPadded, {0, 0, 0}, Space::Shared, false);
  EXPECT_EQ(shared_cost(a).wavefronts, 31);
  EXPECT_EQ(shared_cost(first_access(p, Variant::BanksPlain, {0, 0, 0}, Space::Shared, false)).wavefronts, 1);
}

TEST(MemoryModel, SameWordIsABroadcast) {
  WarpAccess a;
  a.space = Space::Shared;
  for (int l = 0; l < k_warp; ++l)
    a.lanes[static_cast<size_t>(l)] = {true, l % 2 == 0 ? 0 : 64};  // two words, both in bank 0
  EXPECT_EQ(shared_cost(a).wavefronts, 2);
  for (auto& l : a.lanes)
    l.element = 5;
  EXPECT_EQ(shared_cost(a).wavefronts, 1);
  a.lanes[3].active = false;
  EXPECT_EQ(shared_cost(a).active_lanes, 31);
}

TEST(MemoryModel, AosVersusSoaSectors) {
  const Params p = n_params(Kernel::Aos, 1000);
  int ld = 0;
  for (const WarpAccess& a : warp_accesses(p, Variant::Aos, {0, 0, 0})) {
    EXPECT_EQ(global_cost(a).sectors, 32);  // lanes 32 bytes apart: one sector each
    ld += !a.store;
  }
  EXPECT_EQ(ld, k_fields_read);
  for (const WarpAccess& a : warp_accesses(p, Variant::Soa, {0, 0, 0}))
    EXPECT_EQ(global_cost(a).sectors, 4);
}

TEST(MemoryModel, RaggedEdgesHaveInactiveLanes) {
  // 33 x 35: the block at tile (1, 1) holds one row (32) and three columns (32..34).
  const Params p = transpose_params(33, 35);
  const WarpAccess ld = first_access(p, Variant::Copy, {1, 1, 0}, Space::Global, false);
  EXPECT_EQ(global_cost(ld).active_lanes, 3);
  // Random gather, n = 40: the second warp has 8 threads.
  const WarpAccess r =
      first_access(n_params(Kernel::Stride, 40), Variant::Random, {0, 0, 1}, Space::Global, false);
  EXPECT_EQ(global_cost(r).active_lanes, 8);
}

TEST(MemoryModel, PredictTotalsForATileCopy) {
  // 64 x 64, block 32 x 8: 4 blocks x 8 warps x 4 steps = 128 loads and 128 stores of 4 sectors.
  const Prediction c = predict(transpose_params(64, 64), Variant::Copy);
  EXPECT_EQ(c.ld_requests, 128);
  EXPECT_EQ(c.ld_sectors, 512);
  EXPECT_EQ(c.st_requests, 128);
  EXPECT_EQ(c.st_sectors, 512);
  EXPECT_DOUBLE_EQ(c.ld_sectors_per_request(), 4.0);
  EXPECT_EQ(c.min_dram_read_bytes, 64 * 64 * 4);
  // The unpadded tiled transpose: every store-phase shared load is a 32-way conflict (31 extra wavefronts).
  const Prediction t = predict(transpose_params(64, 64), Variant::Tiled);
  EXPECT_EQ(t.shared_ld_requests, 4 * 32);
  EXPECT_EQ(t.shared_ld_conflicts, 4 * 32 * 31);
  EXPECT_EQ(t.shared_st_conflicts, 0);
  EXPECT_EQ(predict(transpose_params(64, 64), Variant::TiledPadded).shared_ld_conflicts, 0);
  // The naive transpose: 32 sectors per store.
  EXPECT_DOUBLE_EQ(predict(transpose_params(64, 64), Variant::Naive).st_sectors_per_request(), 32.0);
}

TEST(MemoryModel, PredictEqualsTheSumOverWarps) {
  // predict() takes shortcuts (the banks loop once per warp shape, OpenMP); the plain sum must agree.
  std::vector<std::pair<Params, Variant>> cases;
  cases.push_back({transpose_params(37, 45, {32, 4}), Variant::TiledPaddedMulti});
  cases.push_back({transpose_params(37, 45, {16, 6}), Variant::Naive});
  {
    Params p = n_params(Kernel::Stride, 1003, 96);
    p.stride = 7;
    cases.push_back({p, Variant::Strided});
    cases.push_back({p, Variant::Random});
  }
  {
    Params p = n_params(Kernel::Banks, 1003, 100);
    p.bank_stride = 6;
    cases.push_back({p, Variant::BanksPlain});
    cases.push_back({p, Variant::BanksPadded});
  }
  cases.push_back({n_params(Kernel::Aos, 1003, 96), Variant::Aos});
  cases.push_back({n_params(Kernel::Aos, 1003, 96), Variant::Soa});
  for (const auto& [p, v] : cases) {
    SCOPED_TRACE(to_string(v));
    Prediction sum;
    const Dim2 g = grid_of(p, v);
    for (int64_t by = 0; by < g.y; ++by)
      for (int64_t bx = 0; bx < g.x; ++bx)
        for (int w = 0; w < warps_per_block(p, v); ++w)
          for (const WarpAccess& a : warp_accesses(p, v, {bx, by, w})) {
            if (a.space == Space::Global) {
              const GlobalCost c = global_cost(a);
              if (!c.active_lanes) continue;
              (a.store ? sum.st_requests : sum.ld_requests) += 1;
              (a.store ? sum.st_sectors : sum.ld_sectors) += c.sectors;
            } else {
              const SharedCost c = shared_cost(a);
              if (!c.active_lanes) continue;
              (a.store ? sum.shared_st_requests : sum.shared_ld_requests) += 1;
              (a.store ? sum.shared_st_conflicts : sum.shared_ld_conflicts) += c.conflicts();
            }
          }
    const Prediction p2 = predict(p, v);
    EXPECT_EQ(p2.ld_requests, sum.ld_requests);
    EXPECT_EQ(p2.ld_sectors, sum.ld_sectors);
    EXPECT_EQ(p2.st_requests, sum.st_requests);
    EXPECT_EQ(p2.st_sectors, sum.st_sectors);
    EXPECT_EQ(p2.shared_ld_requests, sum.shared_ld_requests);
    EXPECT_EQ(p2.shared_ld_conflicts, sum.shared_ld_conflicts);
    EXPECT_EQ(p2.shared_st_requests, sum.shared_st_requests);
    EXPECT_GT(p2.ld_requests, 0);
  }
}

TEST(MemoryModel, WarpReadingHoldsTheElement) {
  // Clicking element e selects a warp one of whose loads reads in[e].
  std::vector<std::pair<Params, Variant>> cases;
  for (Variant v : {Variant::Naive, Variant::Copy, Variant::Tiled, Variant::TiledPaddedMulti})
    cases.push_back({transpose_params(45, 37, v == Variant::Naive ? Dim2{16, 4} : Dim2{32, 8}), v});
  {
    Params p = n_params(Kernel::Stride, 1000, 64);
    p.stride = 5;
    cases.push_back({p, Variant::Strided});
    cases.push_back({p, Variant::Random});
  }
  cases.push_back({n_params(Kernel::Aos, 1000, 64), Variant::Aos});
  for (const auto& [p, v] : cases) {
    const int64_t n = kernel_of(v) == Kernel::Transpose ? p.rows * p.cols : p.n;
    for (int64_t e : {int64_t{0}, int64_t{1}, n / 3, n - 1}) {
      const WarpId w = warp_reading(p, v, e);
      const int64_t want = v == Variant::Aos ? aos_index(e, 0) : e;
      bool found = false;
      for (const WarpAccess& a : warp_accesses(p, v, w))
        if (a.space == Space::Global && !a.store)
          for (const LaneAccess& l : a.lanes)
            found = found || (l.active && l.element == want);
      EXPECT_TRUE(found) << to_string(v) << " e = " << e;
    }
  }
}

// --- CPU versions ----------------------------------------------------------------------------------------

TEST(MemoryCpu, TransposeVariantsMatchThePlainLoop) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{1, 1}, {33, 35}, {100, 7}, {64, 64}, {1, 70}}) {
    const Params p = transpose_params(rows, cols);
    const std::vector<float> in = make_input(p, Variant::Naive);
    std::vector<float> want(in.size());
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        want[static_cast<size_t>(c * rows + r)] = in[static_cast<size_t>(r * cols + c)];
    for (CpuMode m : {CpuMode::OneThread, CpuMode::AllThreads})
      for (Variant v : {Variant::Naive, Variant::Tiled}) {
        std::vector<float> out(in.size(), -1.0f);
        transpose_cpu(v, in.data(), out.data(), rows, cols, m);
        EXPECT_EQ(out, want) << to_string(v) << " " << rows << "x" << cols;
      }
    std::vector<float> out(in.size(), -1.0f);
    transpose_cpu(Variant::Copy, in.data(), out.data(), rows, cols, CpuMode::AllThreads);
    EXPECT_EQ(out, in);
    EXPECT_EQ(reference_output(p, Variant::TiledPadded), want);
  }
}

TEST(MemoryCpu, GatherMatchesThePlainLoop) {
  Params p = n_params(Kernel::Stride, 1003);
  p.stride = 7;
  const std::vector<float> in = make_input(p, Variant::Strided);
  const int64_t rows = stride_rows(p.n, p.stride);
  std::vector<float> want(static_cast<size_t>(stride_outputs(p.n, p.stride)), 0.0f);
  for (int64_t col = 0; col < p.stride; ++col)
    for (int64_t row = 0; row < rows; ++row) {
      const int64_t i = row * p.stride + col;
      want[static_cast<size_t>(col * rows + row)] = i < p.n ? in[static_cast<size_t>(i)] : 0.0f;
    }
  for (CpuMode m : {CpuMode::OneThread, CpuMode::AllThreads}) {
    std::vector<float> out(want.size(), -1.0f);
    gather_cpu(Variant::Strided, in.data(), out.data(), p.n, p.stride, p.seed, m);
    EXPECT_EQ(out, want);
    std::vector<float> r(static_cast<size_t>(p.n), -1.0f);
    gather_cpu(Variant::Random, in.data(), r.data(), p.n, p.stride, p.seed, m);
    std::vector<float> a = r, b = in;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    EXPECT_EQ(a, b);  // a permutation of the input
    EXPECT_NE(r, in);
  }
}

TEST(MemoryCpu, ParticleStepAosAndSoaAgree) {
  const Params p = n_params(Kernel::Aos, 1001);
  const std::vector<float> aos_in = make_input(p, Variant::Aos), soa_in = make_input(p, Variant::Soa);
  const std::vector<float> aos = reference_output(p, Variant::Aos), soa = reference_output(p, Variant::Soa);
  for (int64_t i = 0; i < p.n; ++i) {
    for (int f = 0; f < k_particle_fields; ++f)
      ASSERT_EQ(aos_in[static_cast<size_t>(aos_index(i, f))],
                soa_in[static_cast<size_t>(soa_index(i, f, p.n))]);
    for (int f = 0; f < k_fields_written; ++f)
      ASSERT_EQ(aos[static_cast<size_t>(aos_index(i, f))], soa[static_cast<size_t>(soa_index(i, f, p.n))]);
    // Against a double-precision step.
    const double m = aos_in[static_cast<size_t>(aos_index(i, FMASS))];
    for (int d = 0; d < 3; ++d) {
      const double x = aos_in[static_cast<size_t>(aos_index(i, d))];
      const double v = aos_in[static_cast<size_t>(aos_index(i, 3 + d))] - x / m * k_particle_dt;
      EXPECT_NEAR(aos[static_cast<size_t>(aos_index(i, 3 + d))], v, k_aos_rel_tol * std::abs(v));
      EXPECT_NEAR(aos[static_cast<size_t>(aos_index(i, d))], x + v * k_particle_dt,
                  k_aos_rel_tol * std::abs(x + v * k_particle_dt));
    }
    EXPECT_EQ(aos[static_cast<size_t>(aos_index(i, FMASS))], 0.0f);  // not written by the step
  }
}

TEST(MemoryCpu, BanksSumIsTheLanesWord) {
  Params p = n_params(Kernel::Banks, 100, 48);
  p.bank_stride = 3;
  const std::vector<float> init = make_input(p, Variant::BanksPadded);
  const std::vector<float> out = reference_output(p, Variant::BanksPadded);
  for (int64_t t : {0, 5, 47, 48, 99}) {
    const int lane = static_cast<int>((t % 48) % 32);
    const int w = lane * 3;  // the logical word, by its definition
    float acc = 0;
    for (int it = 0; it < k_bank_iterations; ++it)
      acc += init[static_cast<size_t>(w + w / 32)];
    EXPECT_EQ(out[static_cast<size_t>(t)], acc) << t;
  }
}

TEST(MemoryCpu, CancelAndTiming) {
  const Params p = transpose_params(512, 512);
  const std::vector<float> in = make_input(p, Variant::Naive);
  std::vector<float> out(in.size());
  JobControl ctl;
  ctl.cancel();
  EXPECT_THROW(transpose_cpu(Variant::Naive, in.data(), out.data(), 512, 512, CpuMode::AllThreads, &ctl),
               JobCancelled);
  JobControl ok;
  const Summary s = time_cpu(p, Variant::Tiled, CpuMode::OneThread, 3, &ok);
  EXPECT_EQ(s.count, 3u);
  EXPECT_GT(s.median, 0);
  EXPECT_DOUBLE_EQ(ok.progress(), 1.0);
  EXPECT_THROW(time_cpu(n_params(Kernel::Banks, 100), Variant::BanksPlain, CpuMode::OneThread, 1),
               InvalidRequest);
  EXPECT_THROW(transpose_cpu(Variant::TiledPadded, in.data(), out.data(), 512, 512, CpuMode::OneThread),
               InvalidRequest);
}

// --- Validation ------------------------------------------------------------------------------------------

TEST(MemoryValidate, RefusesWithMessages) {
  EXPECT_FALSE(validate(transpose_params(8192, 8192)));
  const auto msg = [](const Params& p, Variant v) { return validate(p, v).value_or(""); };
  EXPECT_NE(msg(transpose_params(0, 5), Variant::Naive).find("1..16384"), std::string::npos);
  EXPECT_NE(msg(transpose_params(5, 16385), Variant::Copy).find("cols and rows"), std::string::npos);
  EXPECT_NE(msg(transpose_params(64, 64, {16, 8}), Variant::TiledPaddedMulti).find("block.x = 32"),
            std::string::npos);
  EXPECT_NE(msg(transpose_params(64, 64, {32, 3}), Variant::Copy).find("dividing 32"), std::string::npos);
  EXPECT_FALSE(validate(transpose_params(64, 64, {16, 8}), Variant::Naive));
  EXPECT_FALSE(validate(transpose_params(64, 64, {16, 8}), Variant::Tiled));  // always 32 x 32
  EXPECT_NE(msg(transpose_params(64, 64, {64, 32}), Variant::Naive).find("1024"), std::string::npos);
  Params p = n_params(Kernel::Stride, 0);
  EXPECT_NE(msg(p, Variant::Strided).find("n = 0"), std::string::npos);
  p.n = 100;
  p.stride = 65;
  EXPECT_NE(msg(p, Variant::Strided).find("stride = 65"), std::string::npos);
  EXPECT_FALSE(validate(p, Variant::Random));  // the random gather has no stride
  p = n_params(Kernel::Banks, 100);
  p.bank_stride = 0;
  EXPECT_NE(msg(p, Variant::BanksPlain).find("bank stride = 0"), std::string::npos);
  p = n_params(Kernel::Aos, 100, 2000);
  EXPECT_NE(msg(p, Variant::Aos).find("threads = 2000"), std::string::npos);
  p = n_params(Kernel::Aos, k_max_n + 1);
  EXPECT_NE(msg(p, Variant::Soa).find("256M"), std::string::npos);
}

TEST(MemoryValidate, MemoryChecks) {
  const Params big = transpose_params(16384, 16384);
  EXPECT_EQ(device_bytes(big, Variant::Naive), int64_t{2} << 30);
  const auto err = check_device_memory(big, Variant::Naive, uint64_t{1} << 30);
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("2048 MiB of device memory"), std::string::npos) << *err;
  EXPECT_NE(err->find("1024 MiB are free"), std::string::npos) << *err;
  EXPECT_FALSE(check_device_memory(big, Variant::Naive, uint64_t{80} << 30));
  EXPECT_TRUE(check_host_memory(n_params(Kernel::Aos, k_max_n), Variant::Aos, uint64_t{1} << 30));
  EXPECT_EQ(counted_bytes(n_params(Kernel::Aos, 10), Variant::Aos), 10 * 4 * 13);
  EXPECT_EQ(counted_bytes(transpose_params(3, 5), Variant::Copy), 2 * 4 * 15);
}

TEST(MemoryNames, TablesAndLadders) {
  EXPECT_EQ(variants_of(Kernel::Transpose).size(), 5u);
  EXPECT_EQ(variants_of(Kernel::Transpose).front(), Variant::Copy);
  EXPECT_EQ(variants_of(Kernel::Stride).size(), 2u);
  for (Variant v : k_variant_names.values()) {
    EXPECT_EQ(k_variant_names.parse(to_string(v)), v);
    EXPECT_FALSE(describe(v, Params{}).empty());
  }
  Params p;
  p.kernel = Kernel::Banks;
  p.banks = Variant::BanksPadded;
  EXPECT_EQ(p.variant(), Variant::BanksPadded);
  EXPECT_EQ(p.block_of(Variant::Tiled), (Dim2{32, 32}));
  EXPECT_EQ(p.block_of(Variant::Aos), (Dim2{256, 1}));
  const Check c = compare(std::vector<float>{1, 2, 3}, std::vector<float>{1, 2, 4}, 0);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.first_bad, 2);
  EXPECT_NE(c.text.find("MISMATCH: 1 of 3 values, first at 2"), std::string::npos) << c.text;
  EXPECT_TRUE(compare(std::vector<float>{1.0f}, std::vector<float>{1.0000001f}, 1e-6).passed);
}

}  // namespace
}  // namespace bs::memory
