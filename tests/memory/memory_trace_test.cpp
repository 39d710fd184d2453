// memory_trace_test.cpp: the warp access model against hand-computed cases: sectors and lines of global
// loads (stride 1, 2, 32 floats, float4, misaligned), banks of shared accesses (a row and a column of a 32x32
// float tile, padded or not, stride 2 words, broadcast), and inactive lanes past the end of the data.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>

#include "ui/memory/memory_trace.h"

namespace bs::memory {

namespace {

// A warp instruction whose lane i touches byte address addr(i) (inactive when addr returns a negative value).
MemoryOp warp_op(Space space, int bytes, const std::function<int64_t(int)>& addr) {
  MemoryOp op;
  op.space = space;
  op.bytes = bytes;
  for (int i = 0; i < k_warp_size; ++i) {
    const int64_t a = addr(i);
    op.lanes[static_cast<size_t>(i)].active = a >= 0;
    op.lanes[static_cast<size_t>(i)].address = a >= 0 ? static_cast<uint64_t>(a) : 0;
  }
  return op;
}

}  // namespace

TEST(MemoryTraceGlobal, Stride1FloatsIsFourSectorsOneLine) {
  const GlobalCount c = count_global(warp_op(Space::Global, 4, [](int i) { return 4 * i; }));
  EXPECT_EQ(c.active_lanes, 32);
  EXPECT_EQ(c.sectors.size(), 4u);
  EXPECT_EQ(c.lines.size(), 1u);
  EXPECT_DOUBLE_EQ(c.efficiency(), 1.0);
  // Lanes 0..7 share the first sector, 24..31 the last.
  EXPECT_EQ(c.lane_sector[0], 0);
  EXPECT_EQ(c.lane_sector[7], 0);
  EXPECT_EQ(c.lane_sector[8], 1);
  EXPECT_EQ(c.lane_sector[31], 3);
  EXPECT_EQ(c.lane_line[31], 0);
}

TEST(MemoryTraceGlobal, Stride32FloatsIsOneSectorAndLinePerLane) {
  const GlobalCount c = count_global(warp_op(Space::Global, 4, [](int i) { return 4 * 32 * i; }));
  EXPECT_EQ(c.sectors.size(), 32u);
  EXPECT_EQ(c.lines.size(), 32u);
  EXPECT_EQ(c.bytes_used, 128);
  EXPECT_EQ(c.bytes_moved, 32 * 32);
  EXPECT_DOUBLE_EQ(c.efficiency(), 0.125);  // 4 useful bytes in every 32-byte sector
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(c.lane_sector[static_cast<size_t>(i)], i);
}

TEST(MemoryTraceGlobal, Stride2FloatsIsEightSectorsTwoLines) {
  const GlobalCount c = count_global(warp_op(Space::Global, 4, [](int i) { return 8 * i; }));
  EXPECT_EQ(c.sectors.size(), 8u);
  EXPECT_EQ(c.lines.size(), 2u);
  EXPECT_DOUBLE_EQ(c.efficiency(), 0.5);
}

TEST(MemoryTraceGlobal, Float4LoadsAreSixteenSectorsFourLines) {
  // 32 lanes x 16 bytes = 512 contiguous bytes.
  const GlobalCount c = count_global(warp_op(Space::Global, 16, [](int i) { return 16 * i; }));
  EXPECT_EQ(c.sectors.size(), 16u);
  EXPECT_EQ(c.lines.size(), 4u);
  EXPECT_DOUBLE_EQ(c.efficiency(), 1.0);
}

TEST(MemoryTraceGlobal, MisalignedWarpTouchesOneMoreSectorAndLine) {
  // 32 floats starting 4 bytes into a line: 128 bytes spread over 5 sectors and 2 lines.
  const GlobalCount c = count_global(warp_op(Space::Global, 4, [](int i) { return 4 + 4 * i; }));
  EXPECT_EQ(c.sectors.size(), 5u);
  EXPECT_EQ(c.lines.size(), 2u);
}

TEST(MemoryTraceGlobal, LanesPastTheEndAreInactive) {
  // n = 20 floats: lanes 20..31 have nothing to load.
  const GlobalCount c = count_global(warp_op(Space::Global, 4, [](int i) { return i < 20 ? 4 * i : -1; }));
  EXPECT_EQ(c.active_lanes, 20);
  EXPECT_EQ(c.sectors.size(), 3u);  // bytes 0..79
  EXPECT_EQ(c.lane_sector[19], 2);
  EXPECT_EQ(c.lane_sector[20], -1);
  EXPECT_EQ(c.lane_line[31], -1);
  const OpSummary s = summarize(warp_op(Space::Global, 4, [](int) { return -1; }));
  EXPECT_EQ(s.active_lanes, 0);
  EXPECT_EQ(s.sectors, 0);
}

TEST(MemoryTraceShared, RowOfTileIsConflictFree) {
  // tile[ty][lane] of float tile[32][32]: 32 consecutive words, one per bank.
  const SharedCount c = count_shared(warp_op(Space::Shared, 4, [](int i) { return 4 * (5 * 32 + i); }));
  EXPECT_EQ(c.conflict_degree, 1);
  EXPECT_EQ(c.wavefronts, 1);
  EXPECT_EQ(c.extra_wavefronts, 0);
  EXPECT_FALSE(c.broadcast);
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(c.lane_bank[static_cast<size_t>(i)], i);
}

TEST(MemoryTraceShared, ColumnOfTileIs32WayConflict) {
  // tile[lane][3] of float tile[32][32]: every lane in bank 3, 32 different words.
  const SharedCount c = count_shared(warp_op(Space::Shared, 4, [](int i) { return 4 * (i * 32 + 3); }));
  EXPECT_EQ(c.conflict_degree, 32);
  EXPECT_EQ(c.wavefronts, 32);
  EXPECT_EQ(c.extra_wavefronts, 31);
  EXPECT_EQ(c.words_in_bank[3], 32);
  EXPECT_EQ(c.words_in_bank[4], 0);
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(c.lane_bank[static_cast<size_t>(i)], 3);
  EXPECT_NE(summarize(warp_op(Space::Shared, 4, [](int i) { return 4 * (i * 32 + 3); })).text.find("32-way"),
            std::string::npos);
}

TEST(MemoryTraceShared, PaddedColumnIsConflictFree) {
  // tile[lane][3] of float tile[32][33]: word lane*33+3 is in bank (lane+3) % 32.
  const SharedCount c = count_shared(warp_op(Space::Shared, 4, [](int i) { return 4 * (i * 33 + 3); }));
  EXPECT_EQ(c.conflict_degree, 1);
  EXPECT_EQ(c.wavefronts, 1);
  EXPECT_EQ(c.lane_bank[0], 3);
  EXPECT_EQ(c.lane_bank[29], 0);
}

TEST(MemoryTraceShared, StrideOfWordsGivesItsConflictDegree) {
  // Stride 2 words: lanes i and i+16 share bank 2i % 32 with different words: 2-way.
  EXPECT_EQ(count_shared(warp_op(Space::Shared, 4, [](int i) { return 4 * 2 * i; })).conflict_degree, 2);
  // Stride s: gcd(s, 32)-way.
  EXPECT_EQ(count_shared(warp_op(Space::Shared, 4, [](int i) { return 4 * 4 * i; })).conflict_degree, 4);
  EXPECT_EQ(count_shared(warp_op(Space::Shared, 4, [](int i) { return 4 * 8 * i; })).conflict_degree, 8);
  EXPECT_EQ(count_shared(warp_op(Space::Shared, 4, [](int i) { return 4 * 3 * i; })).conflict_degree, 1);
  EXPECT_EQ(count_shared(warp_op(Space::Shared, 4, [](int i) { return 4 * 6 * i; })).conflict_degree, 2);
}

TEST(MemoryTraceShared, BroadcastIsNotAConflict) {
  // Every lane reads word 7: one word, one pass.
  const SharedCount all = count_shared(warp_op(Space::Shared, 4, [](int) { return 28; }));
  EXPECT_EQ(all.conflict_degree, 1);
  EXPECT_EQ(all.wavefronts, 1);
  EXPECT_TRUE(all.broadcast);
  // Pairs of lanes read the same word (i/2): still one word per bank.
  const SharedCount pairs = count_shared(warp_op(Space::Shared, 4, [](int i) { return 4 * (i / 2); }));
  EXPECT_EQ(pairs.conflict_degree, 1);
  EXPECT_TRUE(pairs.broadcast);
  // Two words of the same bank (0 and 32), each read by half the warp: 2-way, not 32-way.
  const SharedCount two = count_shared(warp_op(Space::Shared, 4, [](int i) { return i < 16 ? 0 : 128; }));
  EXPECT_EQ(two.conflict_degree, 2);
}

TEST(MemoryTraceShared, WideAccessesAreServedInPhases) {
  // float2 per lane, consecutive: each half-warp asks for 32 words in 32 banks: 2 phases, no conflict.
  const SharedCount f2 = count_shared(warp_op(Space::Shared, 8, [](int i) { return 8 * i; }));
  EXPECT_EQ(f2.conflict_degree, 1);
  EXPECT_EQ(f2.wavefronts, 2);
  EXPECT_EQ(f2.extra_wavefronts, 0);
  // float4 per lane, consecutive: 4 quarter-warp phases, no conflict.
  const SharedCount f4 = count_shared(warp_op(Space::Shared, 16, [](int i) { return 16 * i; }));
  EXPECT_EQ(f4.conflict_degree, 1);
  EXPECT_EQ(f4.wavefronts, 4);
  // float2 with a stride of 32 words: every lane of a half-warp hits banks 0 and 1 with different words.
  const SharedCount bad = count_shared(warp_op(Space::Shared, 8, [](int i) { return 128 * i; }));
  EXPECT_EQ(bad.conflict_degree, 16);
  EXPECT_EQ(bad.wavefronts, 32);
}

TEST(MemoryTraceShared, InactiveLanesDoNotConflict) {
  // A column of an unpadded tile with only 3 rows left: a 3-way conflict, lanes 3.. marked inactive.
  const SharedCount c =
      count_shared(warp_op(Space::Shared, 4, [](int i) { return i < 3 ? 4 * (i * 32) : -1; }));
  EXPECT_EQ(c.active_lanes, 3);
  EXPECT_EQ(c.conflict_degree, 3);
  EXPECT_EQ(c.lane_bank[3], -1);
}

}  // namespace bs::memory
