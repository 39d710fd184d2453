// multigpu_gpu_test.cpp: on one GPU, what one GPU can show of the k-GPU code. The virtual transport runs k
// slabs on GPU 0 through the same decomposition, kernels and exchange ordering as NCCL (only the copies
// differ): after 1000 steps at an awkward size, both boundary kinds, with and without overlap and wider
// halos, the field equals gpu/heat's GpuSolver bit for bit. Monte Carlo over k = 1..3 virtual ranks gives the
// identical price. NCCL with one rank (one process driving it, and the per-rank mode with the id file) gives
// the same results. Skips without a GPU; NCCL tests skip without NCCL.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.h"
#include "gpu/heat/heat.h"
#include "gpu/multigpu/comm.h"
#include "gpu/multigpu/multi_heat.h"
#include "gpu/multigpu/multi_mc.h"
#include "gpu/multigpu/nccl_loader.h"
#include "test_util.h"

namespace bs::multigpu {

namespace {
heat::Params awkward(heat::Boundary b) {
  heat::Params p;
  p.nx = 333;  // not a multiple of any block
  p.ny = 257;
  p.dt = 0.24f;
  p.boundary = b;
  p.boundary_temp = 0.3f;
  return p;
}

std::vector<float> one_gpu(const heat::Params& p, const std::vector<float>& init, int steps) {
  heat::GpuSolver s(p);
  s.upload(init);
  s.step(steps);
  return s.download();
}

std::vector<float> slabs(Communicator& comm, const heat::Params& p, const std::vector<float>& init, int steps,
                         int halo, bool overlap, int cells_per_thread = heat::k_default_cells_per_thread) {
  HeatConfig c;
  c.params = p;
  c.halo = halo;
  c.overlap = overlap;
  c.cells_per_thread = cells_per_thread;
  MultiHeat h(comm, c);
  h.upload(init);
  // In several calls, as the app and the bench issue them (rounds cut at call boundaries).
  h.step(steps / 3);
  h.step(steps - steps / 3);
  return h.download();
}

bool bitwise(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

size_t first_difference(const std::vector<float>& a, const std::vector<float>& b) {
  for (size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0) return i;
  return a.size();
}
}  // namespace

TEST(MultiHeatGpu, VirtualSlabsEqualOneGpuBitwiseAfter1000Steps) {
  BS_REQUIRE_GPU();
  for (auto b : {heat::Boundary::Fixed, heat::Boundary::Insulated}) {
    const heat::Params p = awkward(b);
    const auto init = heat::make_initial(p, heat::InitialPattern::Noise, 3);
    const auto ref = one_gpu(p, init, 1000);
    // Up to 8 slabs (the 8-GPU decomposition, on one GPU) and the halos the model picks (up to 16).
    for (int k : {1, 2, 3, 4, 8})
      for (int halo : {1, 3, 8, 16})
        for (bool overlap : {true, false}) {
          if (validate_decomposition(p.ny, k, halo)) continue;
          auto comm = Communicator::make_virtual(std::vector<int>(static_cast<size_t>(k), 0));
          const auto got = slabs(comm, p, init, 1000, halo, overlap);
          EXPECT_TRUE(bitwise(got, ref))
              << "k " << k << " halo " << halo << " overlap " << overlap << " boundary "
              << (b == heat::Boundary::Fixed ? "fixed" : "insulated") << ": first difference at cell "
              << first_difference(got, ref);
        }
  }
}

TEST(MultiHeatGpu, EveryCoarseningAndThinSlabs) {
  BS_REQUIRE_GPU();
  heat::Params p = awkward(heat::Boundary::Insulated);
  p.ny = 23;  // 7 slabs of 3 or 4 rows, halo 3
  const auto init = heat::make_initial(p, heat::InitialPattern::Noise, 5);
  const auto ref = one_gpu(p, init, 101);
  for (int cpt : {1, 2, 4, 8}) {
    auto comm = Communicator::make_virtual(std::vector<int>(7, 0));
    EXPECT_TRUE(bitwise(slabs(comm, p, init, 101, 3, true, cpt), ref)) << "cells per thread " << cpt;
  }
}

TEST(MultiHeatGpu, TotalHeatAndTimings) {
  BS_REQUIRE_GPU();
  const heat::Params p = awkward(heat::Boundary::Insulated);
  auto comm = Communicator::make_virtual({0, 0});
  HeatConfig c;
  c.params = p;
  MultiHeat h(comm, c);
  const auto init = heat::make_initial(p, heat::InitialPattern::HotSpots);
  h.upload(init);
  h.step(50);
  const auto t = h.timings();
  ASSERT_EQ(t.size(), 2u);
  EXPECT_GT(t[0].step_ms, 0);
  EXPECT_GT(t[0].exchange_ms, 0);
  // Insulated: heat is conserved (float rounding over 85k cells).
  EXPECT_NEAR(h.total_heat(), heat::total_heat(init), 1e-3 * heat::total_heat(init));
}

TEST(MultiHeatGpu, RefusesWhatCannotRun) {
  BS_REQUIRE_GPU();
  auto comm = Communicator::make_virtual({0, 0, 0});
  HeatConfig c;
  c.params = awkward(heat::Boundary::Fixed);
  c.params.ny = 5;  // 3 slabs of 1-2 rows cannot feed a halo of 2
  c.halo = 2;
  EXPECT_THROW(MultiHeat(comm, c), InvalidRequest);
  EXPECT_THROW((void)Communicator::make_virtual({0, 99}), InvalidRequest);
  EXPECT_THROW((void)Communicator::make_virtual({}), InvalidRequest);
}

TEST(MultiMcGpu, VirtualRanksGiveTheIdenticalPrice) {
  BS_REQUIRE_GPU();
  for (auto option : {montecarlo::OptionType::Call, montecarlo::OptionType::AsianCall}) {
    montecarlo::Params p;
    p.paths = 200'003;  // not a multiple of anything
    p.steps = 64;
    p.option = option;
    p.seed = 1234;
    auto one = Communicator::make_virtual({0});
    const McRunResult ref = price_multi(one, p);
    // The chunked price is the one-batch pricer's to rounding (only the order of the additions differs).
    const auto plain = montecarlo::run_gpu(p);
    EXPECT_NEAR(ref.estimate.price, plain.estimate.price, 1e-12 * std::abs(plain.estimate.price) + 1e-12);
    EXPECT_EQ(ref.moments.n, plain.estimate.samples);
    EXPECT_THROW(MultiPricer(one, {}, 0), InvalidRequest);
    for (int k = 2; k <= 8; ++k) {
      auto comm = Communicator::make_virtual(std::vector<int>(static_cast<size_t>(k), 0));
      const McRunResult r = price_multi(comm, p);
      EXPECT_EQ(r.estimate.price, ref.estimate.price) << "k " << k;
      EXPECT_EQ(r.moments.sum_sq, ref.moments.sum_sq) << "k " << k;
      EXPECT_EQ(r.moments.n, ref.moments.n);
      EXPECT_EQ(r.rank_ms.size(), static_cast<size_t>(k));
      // Pricers kept across runs (the bench's repetitions, the app's live runs) price the same, every time.
      // Any number of pricers (streams) per GPU and either launch mode, too.
      for (McLaunch mode : {McLaunch::PerGpu, McLaunch::PerChunk}) {
        MultiPricer kept(comm, {}, k % 3 + 1, mode);
        for (int rep = 0; rep < 2; ++rep) {
          const McRunResult again = kept.price(p);
          EXPECT_EQ(again.estimate.price, ref.estimate.price)
              << "k " << k << ", run " << rep << ", " << mc_launch_label(mode);
          EXPECT_EQ(again.moments.sum_sq, ref.moments.sum_sq) << "k " << k << ", " << mc_launch_label(mode);
          ASSERT_EQ(again.rank_ms.size(), static_cast<size_t>(k));
          EXPECT_GT(again.rank_ms.back(), 0.0);
        }
      }
    }
  }
}

TEST(NcclGpu, OneRankInOneProcessEqualsOneGpu) {
  BS_REQUIRE_GPU();
  if (auto why = nccl_unavailable()) GTEST_SKIP() << *why;
  std::printf("NCCL %s\n", nccl_version().c_str());
  auto comm = Communicator::make_nccl({0});
  EXPECT_NE(comm.describe().find("NCCL"), std::string::npos);
  const heat::Params p = awkward(heat::Boundary::Fixed);
  const auto init = heat::make_initial(p, heat::InitialPattern::Noise, 3);
  EXPECT_TRUE(bitwise(slabs(comm, p, init, 1000, 1, true), one_gpu(p, init, 1000)));
  montecarlo::Params mp;
  mp.paths = 100'001;
  mp.steps = 32;
  auto v = Communicator::make_virtual({0});
  EXPECT_EQ(price_multi(comm, mp).estimate.price, price_multi(v, mp).estimate.price);
  std::vector<std::vector<double>> x{{1.5, -2.0, 3.25}};
  comm.allreduce_sum(x);
  EXPECT_EQ(x[0], (std::vector<double>{1.5, -2.0, 3.25}));
  EXPECT_THROW((void)Communicator::make_nccl({0, 0}), InvalidRequest) << "one GPU cannot be two NCCL ranks";
}

TEST(NcclGpu, PerRankModeWithOneRankThroughTheIdFile) {
  BS_REQUIRE_GPU();
  if (auto why = nccl_unavailable()) GTEST_SKIP() << *why;
  const std::string file = (std::filesystem::temp_directory_path() / "bs_nccl_id_test").string();
  std::filesystem::remove(file);
  RankSpec spec;
  spec.rank = 0;
  spec.nranks = 1;
  spec.device = 0;
  spec.id_file = file;
  auto comm = Communicator::make_nccl_rank(spec);
  EXPECT_TRUE(comm.per_rank());
  EXPECT_TRUE(std::filesystem::exists(file)) << "rank 0 writes the id for the others";
  const heat::Params p = awkward(heat::Boundary::Insulated);
  const auto init = heat::make_initial(p, heat::InitialPattern::Noise, 9);
  EXPECT_TRUE(bitwise(slabs(comm, p, init, 1000, 2, true), one_gpu(p, init, 1000)));
  // A rank > 0 with no id file waits, then says so.
  RankSpec late = spec;
  late.rank = 1;
  late.nranks = 2;
  late.id_file = file + ".absent";
  late.wait_s = 0.2;
  EXPECT_THROW((void)Communicator::make_nccl_rank(late), InvalidRequest);
}

}  // namespace bs::multigpu

namespace bs::multigpu {

// On two or more GPUs: NCCL between real GPUs (and peer copies, the fallback without NCCL) give the one-GPU
// field bit for bit after 1000 steps at an awkward size, for both boundaries, halos 1 and 3, with and without
// overlap; Monte Carlo prices identically on 1 and k GPUs.
TEST(MultiGpuReal, KGpusEqualOneGpuBitwise) {
  BS_REQUIRE_GPU();
  const int n = cuda_device_count();
  if (n < 2) GTEST_SKIP() << "needs 2 GPUs; this machine has " << n;
  std::vector<int> devices;
  for (int d = 0; d < n; ++d)
    devices.push_back(d);
  for (const bool use_nccl : {true, false}) {
    if (use_nccl && nccl_unavailable()) continue;
    auto comm = use_nccl ? Communicator::make_nccl(devices) : Communicator::make_virtual(devices);
    std::printf("%s\n", comm.describe().c_str());
    for (auto b : {heat::Boundary::Fixed, heat::Boundary::Insulated}) {
      const heat::Params p = awkward(b);
      const auto init = heat::make_initial(p, heat::InitialPattern::Noise, 5);
      const auto ref = one_gpu(p, init, 1000);
      for (int halo : {1, 3, 16})
        for (bool overlap : {true, false}) {
          const auto got = slabs(comm, p, init, 1000, halo, overlap);
          EXPECT_TRUE(bitwise(got, ref)) << comm.describe() << ", halo " << halo << ", overlap " << overlap
                                         << ": first difference at " << first_difference(got, ref);
        }
    }
    montecarlo::Params mp;
    mp.paths = 300'007;
    mp.steps = 64;
    auto one = Communicator::make_virtual({0});
    EXPECT_EQ(price_multi(comm, mp).estimate.price, price_multi(one, mp).estimate.price) << comm.describe();
  }
  // The 8-slab decomposition spread over the GPUs there are (slab i on GPU i mod n), by peer copies.
  std::vector<int> eight;
  for (int i = 0; i < 8; ++i)
    eight.push_back(i % n);
  auto comm = Communicator::make_virtual(eight);
  const heat::Params p = awkward(heat::Boundary::Insulated);
  const auto init = heat::make_initial(p, heat::InitialPattern::Noise, 8);
  const auto ref = one_gpu(p, init, 1000);
  for (int halo : {1, 8}) {
    const auto got = slabs(comm, p, init, 1000, halo, true);
    EXPECT_TRUE(bitwise(got, ref)) << "8 slabs on " << n << " GPUs, halo " << halo << ": first difference at "
                                   << first_difference(got, ref);
  }
}

// Every GPU count from 2 to the machine's (k = 2, 3, 4 on a 4-GPU machine; up to 8 where there are 8), NCCL:
// the field the model's plan computes equals one GPU's bitwise, and so does the price.
TEST(MultiGpuReal, EveryGpuCountWithTheModelsPlan) {
  BS_REQUIRE_GPU();
  const int n = cuda_device_count();
  if (n < 3) GTEST_SKIP() << "needs 3 GPUs or more; this machine has " << n;
  if (auto why = nccl_unavailable()) GTEST_SKIP() << *why;
  const heat::Params p = awkward(heat::Boundary::Fixed);
  const auto init = heat::make_initial(p, heat::InitialPattern::Noise, 11);
  const auto ref = one_gpu(p, init, 500);
  montecarlo::Params mp;
  mp.paths = 300'007;
  mp.steps = 64;
  auto one = Communicator::make_virtual({0});
  const double price = price_multi(one, mp).estimate.price;
  for (int k = 2; k <= std::min(n, 8); ++k) {
    std::vector<int> devices;
    for (int d = 0; d < k; ++d)
      devices.push_back(d);
    auto comm = Communicator::make_nccl(devices);
    const HeatPlan plan = plan_heat(p, k, 0);
    std::printf("%d GPUs: %s\n", k, describe_plan(plan, k).c_str());
    const auto got = slabs(comm, p, init, 500, plan.halo, plan.overlap);
    EXPECT_TRUE(bitwise(got, ref)) << k << " GPUs: first difference at " << first_difference(got, ref);
    EXPECT_EQ(price_multi(comm, mp).estimate.price, price) << k << " GPUs";
  }
}

}  // namespace bs::multigpu
