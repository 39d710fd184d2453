// reduce_model_test.cpp: the reduction tree and scan step models (ui/reduce/reduce_model.h) against cases
// worked out by hand: which warps work and diverge at each step, the bank conflicts of the interleaved
// kernels, the number of __syncthreads(), the textbook Blelloch values, and the modelled steps run on data
// giving the right sums and scans.
#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include "gpu/reduce/reduce.h"
#include "ui/reduce/reduce_lab_panel.h"
#include "ui/reduce/reduce_model.h"

namespace bs {

using namespace reduce_model;

TEST(ReduceModel, InterleavedDivergentSpreadsWorkOverEveryWarp) {
  const ReduceTree t = build_tree(Tree::InterleavedDivergent, 256);
  ASSERT_EQ(t.steps.size(), 8u);  // s = 1, 2, ..., 128
  const ReduceStep& s1 = t.steps[0];
  EXPECT_EQ(s1.stride, 1);
  EXPECT_EQ(s1.active_threads, 128);
  EXPECT_EQ(s1.divergent_warps, 8);  // 16 of 32 lanes in every warp
  EXPECT_EQ(s1.full_warps, 0);
  EXPECT_EQ(s1.idle_warps, 0);
  for (const WarpStep& w : s1.warps) {
    EXPECT_EQ(w.active, 0x55555555u);  // even lanes
    EXPECT_EQ(w.state, WarpState::Divergent);
  }
  // s = 16: tid % 32 == 0, one lane per warp, still all 8 warps issue the step.
  EXPECT_EQ(t.steps[4].active_threads, 8);
  EXPECT_EQ(t.steps[4].divergent_warps, 8);
  // s = 32: tid % 64 == 0: warps 0, 2, 4, 6 run one lane each, the odd warps idle.
  EXPECT_EQ(t.steps[5].divergent_warps, 4);
  EXPECT_EQ(t.steps[5].idle_warps, 4);
  // s = 128: thread 0 alone.
  EXPECT_EQ(t.steps[7].active_threads, 1);
  EXPECT_EQ(t.steps[7].idle_warps, 7);
  // Each warp's lanes touch words inside their own 32-word stretch: no bank conflicts.
  for (const ReduceStep& s : t.steps)
    EXPECT_EQ(s.conflict_ways, 1) << s.label;
  EXPECT_EQ(t.syncthreads, 1 + 8);
}

TEST(ReduceModel, InterleavedStridedHasNoEarlyDivergenceButBankConflicts) {
  const ReduceTree t = build_tree(Tree::InterleavedStrided, 256);
  ASSERT_EQ(t.steps.size(), 8u);
  // s = 1: index = 2*tid < 256: threads 0..127, warps 0-3 full, 4-7 idle.
  EXPECT_EQ(t.steps[0].active_threads, 128);
  EXPECT_EQ(t.steps[0].full_warps, 4);
  EXPECT_EQ(t.steps[0].idle_warps, 4);
  EXPECT_EQ(t.steps[0].divergent_warps, 0);
  // Index stride 2: lanes 0 and 16 both hit bank 0 (words 0 and 32): 2-way; stride 4: 4-way; stride 8:
  // 8-way. s = 8: index = 16*tid < 256 leaves 16 lanes on banks 0 and 16 only: 8-way.
  EXPECT_EQ(t.steps[0].conflict_ways, 2);
  EXPECT_EQ(t.steps[1].conflict_ways, 4);
  EXPECT_EQ(t.steps[2].conflict_ways, 8);
  EXPECT_EQ(t.steps[3].conflict_ways, 8);
  // A 1024-thread block keeps whole warps busy longer: s = 8 (index = 16*tid) is 16-way, s = 16 (index =
  // 32*tid) puts all 32 lanes of warp 0 on bank 0: 32-way.
  const ReduceTree big = build_tree(Tree::InterleavedStrided, 1024);
  EXPECT_EQ(big.steps[3].conflict_ways, 16);
  EXPECT_EQ(big.steps[4].conflict_ways, 32);
  // s = 16: index = 32*tid < 256: 8 lanes, all in bank 0: 8-way, and warp 0 is divergent now.
  EXPECT_EQ(t.steps[4].active_threads, 8);
  EXPECT_EQ(t.steps[4].conflict_ways, 8);
  EXPECT_EQ(t.steps[4].divergent_warps, 1);
  // The conflicts cost extra shared-memory passes: at s = 1 each of the 4 warps needs 2 passes for each of
  // its 3 accesses instead of 1.
  EXPECT_EQ(t.steps[0].smem_ideal, 12);
  EXPECT_EQ(t.steps[0].smem_wavefronts, 24);
}

TEST(ReduceModel, SequentialAddressingKeepsWholeWarpsBusyOrIdle) {
  const ReduceTree t = build_tree(Tree::Sequential, 256);
  ASSERT_EQ(t.steps.size(), 8u);  // s = 128, 64, ..., 1
  const ReduceStep& s1 = t.steps[0];
  EXPECT_EQ(s1.stride, 128);
  EXPECT_EQ(s1.active_threads, 128);
  for (int w = 0; w < 8; ++w)
    EXPECT_EQ(s1.warps[static_cast<size_t>(w)].state, w < 4 ? WarpState::Full : WarpState::Idle) << w;
  // No divergence while 32 or more threads work (s >= 32), then warp 0 alone diverges.
  for (const ReduceStep& s : t.steps) {
    EXPECT_EQ(s.divergent_warps, s.stride >= 32 ? 0 : 1) << s.label;
    EXPECT_EQ(s.conflict_ways, 1) << s.label;
  }
  EXPECT_EQ(t.steps[2].full_warps, 1);  // s = 32
  EXPECT_EQ(t.steps[2].idle_warps, 7);
}

TEST(ReduceModel, UnrolledLastWarpDropsTheBarriers) {
  const ReduceTree seq = build_tree(Tree::Sequential, 256);
  const ReduceTree t = build_tree(Tree::SequentialLastWarp, 256);
  ASSERT_EQ(t.steps.size(), 8u);  // s = 128, 64 with barriers, then 32 .. 1 in warp 0
  EXPECT_EQ(t.steps[1].kind, StepKind::SharedTree);
  EXPECT_EQ(t.steps[2].kind, StepKind::WarpSynchronous);
  EXPECT_EQ(t.syncthreads, 1 + 2);
  EXPECT_EQ(seq.syncthreads, 1 + 8);
  // The last warp: every lane executes (no divergence), only lanes < s compute what counts.
  for (size_t i = 2; i < t.steps.size(); ++i) {
    EXPECT_EQ(t.steps[i].active_threads, 32);
    EXPECT_EQ(t.steps[i].full_warps, 1);
    EXPECT_EQ(t.steps[i].divergent_warps, 0);
    EXPECT_EQ(t.steps[i].useful_threads, t.steps[i].stride);
  }
  // A 32-thread block has only the warp part, and starts at s = 16 (sdata has 32 entries).
  const ReduceTree small = build_tree(Tree::SequentialLastWarp, 32);
  ASSERT_EQ(small.steps.size(), 5u);
  EXPECT_EQ(small.steps[0].stride, 16);
}

TEST(ReduceModel, ShuffleKeepsEveryLaneAndUsesSharedMemoryOncePerWarp) {
  const ReduceTree t = build_tree(Tree::Shuffle, 256);
  ASSERT_EQ(t.steps.size(), 11u);  // 5 shuffles, the warp sums, 5 shuffles in warp 0
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(t.steps[static_cast<size_t>(i)].kind, StepKind::Shuffle);
    EXPECT_EQ(t.steps[static_cast<size_t>(i)].full_warps, 8);
    EXPECT_EQ(t.steps[static_cast<size_t>(i)].conflict_ways, 0);  // registers, not shared memory
  }
  const ReduceStep& sums = t.steps[5];
  EXPECT_EQ(sums.kind, StepKind::WarpSumsToShared);
  EXPECT_EQ(sums.active_threads, 8);
  EXPECT_EQ(sums.divergent_warps, 8);
  EXPECT_EQ(sums.conflict_ways, 1);
  EXPECT_EQ(t.steps[6].full_warps, 1);
  EXPECT_EQ(t.steps[6].idle_warps, 7);
  EXPECT_EQ(t.syncthreads, 1);
}

TEST(ReduceModel, EveryTreeSumsTheBlock) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> d(-1000, 1000);
  for (Tree tree : {Tree::InterleavedDivergent, Tree::InterleavedStrided, Tree::Sequential,
                    Tree::SequentialLastWarp, Tree::Shuffle}) {
    for (int block : {32, 64, 128, 256, 512, 1024}) {
      std::vector<double> v(static_cast<size_t>(block));
      for (double& x : v)
        x = d(rng);  // integers: the sum is exact in double, whatever the order
      const double want = std::accumulate(v.begin(), v.end(), 0.0);
      const ReduceTree t = build_tree(tree, block);
      EXPECT_EQ(run_tree(t, v), want) << static_cast<int>(tree) << " block " << block;
    }
  }
}

TEST(ReduceModel, BlocksMustBePowersOfTwoFrom32) {
  EXPECT_TRUE(check_block(Tree::Sequential, 256) == std::nullopt);
  EXPECT_TRUE(check_block(Tree::Sequential, 96));
  EXPECT_TRUE(check_block(Tree::Sequential, 16));
  EXPECT_TRUE(check_block(Tree::Sequential, 2048));
  // The shuffle tree needs whole warps only.
  EXPECT_TRUE(check_block(Tree::Shuffle, 96) == std::nullopt);
  EXPECT_TRUE(check_block(Tree::Shuffle, 100));
  const ReduceTree t96 = build_tree(Tree::Shuffle, 96);
  EXPECT_EQ(t96.warps, 3);
  EXPECT_EQ(t96.steps[5].active_threads, 3);
  EXPECT_THROW(build_tree(Tree::Sequential, 100), std::invalid_argument);
}

TEST(ReduceModel, BankConflictWays) {
  const std::vector<int64_t> same_word(32, 5);
  EXPECT_EQ(bank_conflict_ways(same_word, 0xffffffffu), 1);  // a broadcast
  std::vector<int64_t> column(32);
  for (int l = 0; l < 32; ++l)
    column[static_cast<size_t>(l)] = 32 * l;
  EXPECT_EQ(bank_conflict_ways(column, 0xffffffffu), 32);
  EXPECT_EQ(bank_conflict_ways(column, 0x0000000fu), 4);
  EXPECT_EQ(bank_conflict_ways(column, 0), 0);
  // The bank picture's columns: stride-2 words of 32 lanes fill the even banks two deep.
  std::vector<int64_t> stride2(32);
  for (int l = 0; l < 32; ++l)
    stride2[static_cast<size_t>(l)] = 2 * l;
  const auto cols = bank_columns(stride2, 0xffffffffu);
  EXPECT_EQ(cols[0], (std::vector<int64_t>{0, 32}));
  EXPECT_TRUE(cols[1].empty());
  EXPECT_EQ(cols[30], (std::vector<int64_t>{30, 62}));
  // The tree keeps each lane's words: interleaved-bank-conflicts at s = 2, lane 3 adds s[12 + 2] into s[12].
  const ReduceTree t = build_tree(Tree::InterleavedStrided, 256);
  EXPECT_EQ(t.steps[1].warps[0].dst[3], 12);
  EXPECT_EQ(t.steps[1].warps[0].src[3], 14);
}

TEST(ScanModel, BlellochOnEightElementsMatchesTheTextbook) {
  const ScanModel m = build_scan(ScanAlgo::Blelloch, 8);
  const std::vector<double> x = {3, 1, 7, 0, 4, 1, 6, 3};
  ASSERT_EQ(m.steps.size(), 3u + 1u + 3u);
  // Up-sweep (Blelloch 1990, GPU Gems 3 ch. 39): the partial sums build up towards the root.
  EXPECT_EQ(run_scan(m, x, 1), (std::vector<double>{3, 4, 7, 7, 4, 5, 6, 9}));
  EXPECT_EQ(run_scan(m, x, 2), (std::vector<double>{3, 4, 7, 11, 4, 5, 6, 14}));
  EXPECT_EQ(run_scan(m, x, 3), (std::vector<double>{3, 4, 7, 11, 4, 5, 6, 25}));
  EXPECT_EQ(run_scan(m, x, 4), (std::vector<double>{3, 4, 7, 11, 4, 5, 6, 0}));
  // Down-sweep.
  EXPECT_EQ(run_scan(m, x, 5), (std::vector<double>{3, 4, 7, 0, 4, 5, 6, 11}));
  EXPECT_EQ(run_scan(m, x, 6), (std::vector<double>{3, 0, 7, 4, 4, 11, 6, 16}));
  EXPECT_EQ(run_scan(m, x, 7), (std::vector<double>{0, 3, 4, 11, 11, 15, 16, 22}));
  EXPECT_EQ(m.steps[3].phase, ScanPhase::ClearRoot);
  EXPECT_EQ(m.adds, 7 + 7);  // 2(n-1): work-efficient
}

TEST(ScanModel, StepsGiveTheStandardScans) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> d(-50, 50);
  for (int n : {2, 4, 16, 64, 256, 1024}) {
    std::vector<double> x(static_cast<size_t>(n));
    for (double& v : x)
      v = d(rng);
    std::vector<double> ex(x.size()), in(x.size());
    std::exclusive_scan(x.begin(), x.end(), ex.begin(), 0.0);
    std::inclusive_scan(x.begin(), x.end(), in.begin());
    const ScanModel b = build_scan(ScanAlgo::Blelloch, n);
    EXPECT_EQ(run_scan(b, x, b.steps.size()), ex) << "Blelloch n " << n;
    const ScanModel h = build_scan(ScanAlgo::HillisSteele, n);
    EXPECT_TRUE(h.inclusive);
    EXPECT_EQ(run_scan(h, x, h.steps.size()), in) << "Hillis-Steele n " << n;
  }
}

TEST(ScanModel, WorkAndStepsOfTheTwoScans) {
  // Hillis-Steele: log2 n steps, n log2 n - (n - 1) adds; Blelloch: 2 log2 n steps (+ clear), 2(n - 1).
  const ScanModel h = build_scan(ScanAlgo::HillisSteele, 16);
  EXPECT_EQ(h.steps.size(), 4u);
  EXPECT_EQ(h.adds, 15 + 14 + 12 + 8);
  const ScanModel b = build_scan(ScanAlgo::Blelloch, 16);
  EXPECT_EQ(b.steps.size(), 9u);
  EXPECT_EQ(b.adds, 30);
  // Without padding the up-sweep's strided indices collide in the banks: stride 2 (ai = 4k+1, 64 words per
  // warp) is 2-way on 1024 elements, and grows with the stride; Hillis-Steele's neighbours never collide.
  const ScanModel big = build_scan(ScanAlgo::Blelloch, 1024);
  EXPECT_EQ(big.steps[0].conflict_ways, 2);
  EXPECT_EQ(big.steps[1].conflict_ways, 4);
  EXPECT_EQ(build_scan(ScanAlgo::HillisSteele, 1024).steps[3].conflict_ways, 1);
  // The padding (i stored at i + i / 32) spreads the stride-2 accesses: ai = 4k + 1 for k = 0..31 lands on
  // words 4k + 1 + (4k + 1) / 32, 32 distinct banks.
  EXPECT_LT(big.steps[1].conflict_ways_padded, big.steps[1].conflict_ways);
  EXPECT_THROW(build_scan(ScanAlgo::Blelloch, 12), std::invalid_argument);
  EXPECT_THROW(build_scan(ScanAlgo::Blelloch, 1), std::invalid_argument);
}

}  // namespace bs
