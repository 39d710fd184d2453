// multigpu_cpu_test.cpp: the multi-GPU layer's logic without a GPU: slab sizes (uneven), halos and the rows
// each step computes, checked against a CPU simulation of the whole scheme (slabs stepping on their own local
// copies with halo exchanges) that must equal the one-field CPU step bitwise; scaling math, the halo model,
// --gpus parsing, the launcher environment, the NCCL id text, the Monte Carlo chunk split.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "core/error.h"
#include "gpu/heat/heat.h"
#include "gpu/multigpu/decomposition.h"
#include "gpu/multigpu/multi_mc.h"
#include "gpu/multigpu/nccl_loader.h"
#include "gpu/multigpu/scaling.h"

namespace bs::multigpu {

TEST(Decomposition, UnevenSlabsCoverEveryRowOnce) {
  for (int64_t ny : {1, 7, 100, 257, 1001})
    for (int k = 1; k <= 5; ++k) {
      if (validate_decomposition(ny, k, 1)) continue;
      const auto s = decompose(ny, k, 1);
      ASSERT_EQ(s.size(), static_cast<size_t>(k));
      int64_t row = 0, lo = ny, hi = 0;
      for (const auto& slab : s) {
        EXPECT_EQ(slab.row0, row);
        row += slab.rows;
        lo = std::min(lo, slab.rows);
        hi = std::max(hi, slab.rows);
      }
      EXPECT_EQ(row, ny);
      EXPECT_LE(hi - lo, 1) << "sizes differ by at most one";
      EXPECT_EQ(s.front().halo_top, 0);
      EXPECT_EQ(s.back().halo_bottom, 0);
    }
}

TEST(Decomposition, RejectsSlabsThinnerThanTheHalo) {
  EXPECT_FALSE(validate_decomposition(10, 3, 3));
  ASSERT_TRUE(validate_decomposition(10, 3, 4));
  EXPECT_NE(validate_decomposition(10, 3, 4)->find("halo"), std::string::npos);
  EXPECT_TRUE(validate_decomposition(2, 3, 1));
  EXPECT_TRUE(validate_decomposition(10, 0, 1));
  EXPECT_TRUE(validate_decomposition(10, 2, 0));
  EXPECT_THROW((void)decompose(2, 3, 1), InvalidRequest);
  EXPECT_FALSE(validate_decomposition(5, 1, 64)) << "one slab has no halo: any width";
}

TEST(Decomposition, HaloMessagesPairNeighbours) {
  const auto s = decompose(100, 3, 2);  // rows 34, 33, 33
  const auto m = halo_messages(s);
  ASSERT_EQ(m.size(), 4u);
  // Slab 1's top halo: rows 32, 33 of slab 0; slab 0's bottom halo: rows 34, 35 of slab 1.
  bool found_top = false, found_bottom = false;
  for (const auto& x : m) {
    if (x.from == 0 && x.to == 1) found_top = x.row == 32 && x.rows == 2;
    if (x.from == 1 && x.to == 0) found_bottom = x.row == 34 && x.rows == 2;
  }
  EXPECT_TRUE(found_top);
  EXPECT_TRUE(found_bottom);
  EXPECT_EQ(exchange_bytes(s, 10), 4 * 2 * 10 * 4);
}

TEST(Decomposition, StepRowsShrinkByOneEachStep) {
  const auto s = decompose(100, 3, 3);
  const Slab& mid = s[1];  // rows 34..67
  EXPECT_EQ(step_rows(mid, 3, 0), (RowRange{mid.row0 - 2, mid.row1() + 2}));
  EXPECT_EQ(step_rows(mid, 3, 1), (RowRange{mid.row0 - 1, mid.row1() + 1}));
  EXPECT_EQ(step_rows(mid, 3, 2), (RowRange{mid.row0, mid.row1()}));
  EXPECT_EQ(step_rows(s[0], 3, 0), (RowRange{0, s[0].row1() + 2})) << "no rows above the field";
  const StepSplit sp = split_first_step(mid, 3);
  EXPECT_EQ(sp.top, (RowRange{mid.row0 - 2, mid.row0 + 1}));
  EXPECT_EQ(sp.interior, (RowRange{mid.row0 + 1, mid.row1() - 1}));
  EXPECT_EQ(sp.bottom, (RowRange{mid.row1() - 1, mid.row1() + 2}));
  const StepSplit first = split_first_step(s[0], 1);
  EXPECT_TRUE(first.top.empty()) << "the top slab's first row reads the boundary, not a halo";
}

// The whole scheme on the CPU: every slab steps its own local copy (owned rows + halos) with heat::step_cpu's
// update restricted to step_rows, halos exchanged every `halo` steps; the gathered field must equal the
// one-field run bit for bit.
namespace {
std::vector<float> run_slabs_cpu(const heat::Params& p, const std::vector<float>& init, int k, int halo, int steps) {
  const auto slabs = decompose(p.ny, k, halo);
  const size_t nx = static_cast<size_t>(p.nx);
  // Each slab keeps a full-size field (simple indexing) but only its local rows are ever written or read.
  std::vector<std::vector<float>> cur(slabs.size(), init), nxt(slabs.size(), init);
  for (int done = 0; done < steps; done += halo) {
    for (const auto& m : halo_messages(slabs))
      std::memcpy(cur[m.to].data() + m.row * nx, cur[m.from].data() + m.row * nx, m.rows * nx * sizeof(float));
    // Poison rows outside each slab's local range: a scheme that read them would differ.
    for (const auto& s : slabs)
      for (int64_t y = 0; y < p.ny; ++y)
        if (y < s.local_range().begin || y >= s.local_range().end)
          std::fill_n(cur[s.index].data() + y * nx, nx, 1e30f);
    const int n = std::min(halo, steps - done);
    for (int j = 0; j < n; ++j) {
      for (const auto& s : slabs) {
        std::vector<float> full(cur[s.index]);
        heat::step_cpu(full.data(), nxt[s.index].data(), p, heat::CpuMode::OneThread);
        const RowRange r = step_rows(s, halo, j);
        for (int64_t y = r.begin; y < r.end; ++y)
          std::memcpy(cur[s.index].data() + y * nx, nxt[s.index].data() + y * nx, nx * sizeof(float));
      }
    }
  }
  std::vector<float> out(init.size());
  for (const auto& s : slabs)
    std::memcpy(out.data() + s.row0 * nx, cur[s.index].data() + s.row0 * nx, s.rows * nx * sizeof(float));
  return out;
}
}  // namespace

TEST(Decomposition, CpuSimulationOfTheSchemeEqualsOneField) {
  for (auto boundary : {heat::Boundary::Fixed, heat::Boundary::Insulated}) {
    heat::Params p;
    p.nx = 37;
    p.ny = 29;
    p.dt = 0.23f;
    p.boundary = boundary;
    p.boundary_temp = 0.4f;
    const auto init = heat::make_initial(p, heat::InitialPattern::Noise, 7);
    std::vector<float> ref = init;
    heat::run_cpu(ref, p, 13, heat::CpuMode::OneThread);
    for (int k : {1, 2, 3, 5})
      for (int halo : {1, 2, 4}) {
        const auto got = run_slabs_cpu(p, init, k, halo, 13);
        EXPECT_EQ(0, std::memcmp(got.data(), ref.data(), ref.size() * sizeof(float)))
            << "k " << k << " halo " << halo << " boundary " << static_cast<int>(boundary);
      }
  }
}

TEST(Scaling, StrongAndWeak) {
  const auto s = strong_scaling({{1, 10.0}, {2, 5.5}, {4, 3.0}});
  ASSERT_EQ(s.size(), 3u);
  EXPECT_DOUBLE_EQ(s[0].efficiency, 1.0);
  EXPECT_DOUBLE_EQ(s[1].speedup, 10.0 / 5.5);
  EXPECT_DOUBLE_EQ(s[1].ideal_ms, 5.0);
  EXPECT_DOUBLE_EQ(s[2].efficiency, 10.0 / 3.0 / 4.0);
  const auto w = weak_scaling({{1, 10.0}, {2, 10.5}});
  EXPECT_DOUBLE_EQ(w[1].efficiency, 10.0 / 10.5);
  EXPECT_DOUBLE_EQ(w[1].speedup, 2 * 10.0 / 10.5);
  EXPECT_DOUBLE_EQ(w[1].ideal_ms, 10.0);
  EXPECT_TRUE(strong_scaling({}).empty());
  // A base above one GPU: t1 is estimated as perfect scaling of the base.
  const auto b = strong_scaling({{2, 5.0}, {4, 2.5}});
  EXPECT_DOUBLE_EQ(b[1].efficiency, 1.0);
}

TEST(Scaling, HaloModel) {
  HaloModelInput in{16384, 16384, 1, 1, 4.0, 300, 20};
  auto one = predict_heat(in);
  EXPECT_DOUBLE_EQ(one.step_ms, 4.0);
  EXPECT_EQ(one.exchange_ms, 0);
  in.gpus = 2;
  auto two = predict_heat(in);
  EXPECT_EQ(two.halo_bytes_per_step, 16384 * 4);
  EXPECT_NEAR(two.exchange_ms, 0.020 + 65536 / 300e9 * 1e3, 1e-12);  // the latency and link given here
  // Half the step, but not of its fixed part; the exchange hides under the interior; the edge launches and
  // the round's own cost show.
  const double f = k_model_step_us * 1e-3;
  const double half = (4.0 - f) / 2 + f;
  EXPECT_NEAR(two.compute_ms, half, 1e-12);
  EXPECT_NEAR(two.step_ms, half + (k_model_edge_us + k_model_round_us) * 1e-3, 1e-9);
  in.overlap = false;
  EXPECT_NEAR(predict_heat(in).step_ms, half + two.exchange_ms + k_model_round_us * 1e-3, 1e-9)
      << "without overlap the whole exchange shows";
  in.overlap = true;
  in.halo = 4;  // a quarter of the rounds, 3 extra rows per step
  EXPECT_NEAR(predict_heat(in).step_ms,
              (4.0 - f) * (8192 + 3) / 16384 + f + (k_model_edge_us + k_model_round_us) * 1e-3 / 4, 1e-9);
  in.halo = 1;
  in.one_gpu_ms_per_step = 0.01;  // a tiny field: latency shows
  EXPECT_GT(predict_heat(in).comm_share, 0.5);
}

TEST(Scaling, StepEstimateFromDramBandwidth) {
  // One H100 (3352 GB/s by its clocks) measured 0.779 ms per step at 16384^2 (docs/PERFORMANCE.md).
  EXPECT_NEAR(estimate_heat_step_ms(16384, 16384, 3352), 0.779, 0.02);
  EXPECT_EQ(estimate_heat_step_ms(100, 100, 0), 0);
}

// The plan the model picks: checked against a brute-force search of its own predictions, and on the cases
// that decide the targets.
TEST(HeatPlanChoice, SmallestHaloWithinOnePercentOfTheBest) {
  for (int64_t n : {int64_t{257}, int64_t{1024}, int64_t{4096}, int64_t{16384}, int64_t{32768}})
    for (int k = 1; k <= 8; ++k) {
      HaloModelInput in;
      in.nx = in.ny = n;
      in.gpus = k;
      in.one_gpu_ms_per_step = estimate_heat_step_ms(n, n, 3352);
      const HeatPlan plan = choose_heat_plan(in);
      EXPECT_FALSE(validate_decomposition(n, k, plan.halo)) << n << " on " << k << ": halo " << plan.halo;
      if (k == 1) {
        EXPECT_EQ(plan.halo, 1);
        continue;
      }
      double best = 1e300;
      for (int h = 1; h <= k_plan_max_halo && n / k >= h; h *= 2)
        for (bool o : {true, false}) {
          in.halo = h;
          in.overlap = o;
          best = std::min(best, predict_heat(in).step_ms);
        }
      EXPECT_LE(plan.predicted.step_ms, best * 1.01) << n << " on " << k;
      for (int h = 1; h < plan.halo; h *= 2)
        for (bool o : {true, false}) {
          in.halo = h;
          in.overlap = o;
          EXPECT_GT(predict_heat(in).step_ms, best * 1.01) << "a smaller halo " << h << " would do: " << n << " on " << k;
        }
      in.halo = plan.halo;
      in.overlap = plan.overlap;
      EXPECT_DOUBLE_EQ(predict_heat(in).step_ms, plan.predicted.step_ms);
    }
}

TEST(HeatPlanChoice, DecidesByFieldSizeAndGpuCount) {
  HaloModelInput in;
  in.nx = in.ny = 16384;
  in.gpus = 4;
  in.one_gpu_ms_per_step = 0.65;  // the H200's measured step
  const HeatPlan big = choose_heat_plan(in);
  EXPECT_GT(big.halo, 1) << "the round's fixed costs are spread over several steps";
  EXPECT_TRUE(big.overlap) << "the exchange hides under a 4096-row interior";
  EXPECT_LT(big.predicted.step_ms, big.halo1_step_ms);
  EXPECT_GE(0.65 / 4 / big.predicted.step_ms, 0.94) << "the model's efficiency at 4 GPUs";
  // A field whose interior is shorter than the exchange: the overlap only adds the edge launches.
  in.nx = in.ny = 512;
  in.one_gpu_ms_per_step = estimate_heat_step_ms(512, 512, 3352);
  const HeatPlan small = choose_heat_plan(in);
  EXPECT_FALSE(small.overlap);
  EXPECT_EQ(small.halo, k_plan_max_halo);
  // Thin slabs cap the halo: 40 rows on 8 GPUs own 5 rows each.
  in.ny = 40;
  in.gpus = 8;
  EXPECT_EQ(choose_heat_plan(in).halo, 4);
  in.gpus = 1;
  EXPECT_EQ(choose_heat_plan(in).halo, 1);
  const std::string text = describe_plan(big, 4);
  EXPECT_NE(text.find(std::to_string(big.halo) + " steps per exchange, overlapped"), std::string::npos) << text;
  EXPECT_NE(text.find("at 1 step per exchange"), std::string::npos) << text;
  EXPECT_NE(describe_plan(choose_heat_plan(in), 1).find("one GPU"), std::string::npos);
}

TEST(GpuList, Parses) {
  EXPECT_EQ(*parse_gpu_list("1,2"), (std::vector<int>{1, 2}));
  EXPECT_EQ(*parse_gpu_list("1-4"), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(*parse_gpu_list("4,1-2"), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(*parse_gpu_list("8"), (std::vector<int>{8}));
  std::string err;
  for (const char* bad : {"", "0", "a", "1,,2", "2-1", "1,1", "-1", "1-", "1.5", "5000"}) {
    EXPECT_FALSE(parse_gpu_list(bad, &err)) << bad;
    EXPECT_NE(err.find("--gpus"), std::string::npos) << bad;
  }
}

TEST(RankEnv, FromLaunchers) {
  EXPECT_FALSE(rank_from_env({}));
  auto o = rank_from_env({{"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "8"},
                          {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}});
  ASSERT_TRUE(o);
  EXPECT_EQ(o->rank, 3);
  EXPECT_EQ(o->nranks, 8);
  EXPECT_EQ(o->local_rank, 1);
  auto s = rank_from_env({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->source, "Slurm (srun)");
  EXPECT_FALSE(rank_from_env({{"BS_RANK", "2"}, {"BS_NRANKS", "2"}})) << "rank beyond the count";
}

TEST(NcclId, HexRoundTrip) {
  unsigned char a[128], b[128];
  for (int i = 0; i < 128; ++i)
    a[i] = static_cast<unsigned char>(i * 37 + 11);
  const std::string h = to_hex(a, sizeof a);
  EXPECT_EQ(h.size(), 256u);
  ASSERT_TRUE(from_hex(h + "\n", b, sizeof b));
  EXPECT_EQ(0, std::memcmp(a, b, sizeof a));
  EXPECT_FALSE(from_hex(h.substr(2), b, sizeof b));
  EXPECT_FALSE(from_hex(std::string(256, 'g'), b, sizeof b));
}

TEST(NcclLoader, SaysWhyWhenMissingAndNeverCrashes) {
  // Here (no GPU machine) NCCL may or may not be installed; either way the answer is consistent.
  if (auto why = nccl_unavailable()) {
    EXPECT_FALSE(why->empty());
    EXPECT_EQ(nccl_version(), "");
  } else {
    EXPECT_NE(nccl_version(), "");
  }
}

TEST(McChunks, RanksShareChunksContiguously) {
  for (int chunks : {1, 7, 24, 120})
    for (int ranks = 1; ranks <= std::min(chunks, 8); ++ranks) {
      int next = 0;
      for (int r = 0; r < ranks; ++r) {
        const ChunkSpan c = chunks_of_rank(chunks, ranks, r);
        EXPECT_EQ(c.first, next);
        EXPECT_GE(c.end - c.first, chunks / ranks);
        EXPECT_LE(c.end - c.first, chunks / ranks + 1);
        next = c.end;
      }
      EXPECT_EQ(next, chunks);
    }
  EXPECT_THROW((void)chunks_of_rank(10, 2, 2), InvalidRequest);
}

// The default chunk count fills every GPU count from 1 to 8: the busiest rank prices at most 5% more than an
// even share (24 chunks gave 7 GPUs 4 chunks against 3.4: 86%).
TEST(McChunks, TheDefaultFillsOneToEightGpus) {
  for (int k = 1; k <= 8; ++k) {
    int most = 0;
    for (int r = 0; r < k; ++r) {
      const ChunkSpan c = chunks_of_rank(k_mc_chunks, k, r);
      most = std::max(most, c.end - c.first);
    }
    EXPECT_GE(static_cast<double>(k_mc_chunks) / (k * most), 0.95) << k << " GPUs";
  }
}

TEST(McChunks, CombineAddsInChunkOrderWhateverTheRankSplit) {
  // Values whose sum depends on the order: combining per-rank tables (zeros elsewhere) then chunks in order
  // gives the same bits for every split.
  std::vector<double> table;
  for (int c = 0; c < 12; ++c)
    table.insert(table.end(), {100.0 + c, 1e16 / (c + 1) + 0.1 * c, 3.3 * c});
  const montecarlo::Moments ref = combine_chunks(table);
  for (int ranks = 1; ranks <= 8; ++ranks) {
    std::vector<double> sum(table.size(), 0.0);
    for (int r = 0; r < ranks; ++r) {
      const ChunkSpan span = chunks_of_rank(12, ranks, r);
      std::vector<double> mine(table.size(), 0.0);
      for (int c = span.first; c < span.end; ++c)
        for (int i = 0; i < 3; ++i)
          mine[3 * c + i] = table[3 * c + i];
      for (size_t i = 0; i < sum.size(); ++i)
        sum[i] += mine[i];
    }
    const montecarlo::Moments m = combine_chunks(sum);
    EXPECT_EQ(m.n, ref.n);
    EXPECT_EQ(m.sum, ref.sum);
    EXPECT_EQ(m.sum_sq, ref.sum_sq);
  }
}

}  // namespace bs::multigpu
