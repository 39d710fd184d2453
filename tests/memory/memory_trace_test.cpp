// memory_trace_test.cpp: the warp access model against hand-computed cases: sectors and lines of global
// loads (stride 1, 2 and 32 floats, misaligned, lanes past the end), banks of shared accesses (a row and a
// column of a 32x32 float tile, padded or not, stride 2 words, broadcast); then the traces of real kernels
// (memory_model.h's warp_accesses, the kernels' index expressions) stepped as the picture steps them, and the
// click -> warp mapping of the views.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>

#include "ui/memory/memory_trace.h"

namespace bs::memory {

namespace {

// A warp instruction whose lane i touches float element elem(i) (inactive when elem returns a negative
// value).
WarpAccess warp_op(Space space, const std::function<int64_t(int)>& elem) {
  WarpAccess op;
  op.space = space;
  op.buffer = space == Space::Global ? Buffer::In : Buffer::Tile;
  for (int i = 0; i < k_warp; ++i) {
    const int64_t e = elem(i);
    op.lanes[static_cast<size_t>(i)].active = e >= 0;
    op.lanes[static_cast<size_t>(i)].element = e >= 0 ? e : 0;
  }
  return op;
}

}  // namespace

TEST(MemoryTraceGlobal, Stride1FloatsIsFourSectorsOneLine) {
  const WarpAccess a = warp_op(Space::Global, [](int i) { return i; });
  const GlobalDetail c = global_detail(a);
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
  // The picture's details agree with the model's own count (the bench's predicted column).
  EXPECT_EQ(global_cost(a).sectors, 4);
  EXPECT_EQ(global_cost(a).lines, 1);
  EXPECT_EQ(summarize(a).text, "4 sectors in 1 line: 100% of the moved bytes used");
}

TEST(MemoryTraceGlobal, Stride32FloatsIsOneSectorAndLinePerLane) {
  const WarpAccess a = warp_op(Space::Global, [](int i) { return 32 * i; });
  const GlobalDetail c = global_detail(a);
  EXPECT_EQ(c.sectors.size(), 32u);
  EXPECT_EQ(c.lines.size(), 32u);
  EXPECT_EQ(c.bytes_used, 128);
  EXPECT_EQ(c.bytes_moved, 32 * 32);
  EXPECT_DOUBLE_EQ(c.efficiency(), 0.125);  // 4 useful bytes in every 32-byte sector
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(c.lane_sector[static_cast<size_t>(i)], i);
  EXPECT_EQ(global_cost(a).sectors, 32);
}

TEST(MemoryTraceGlobal, Stride2FloatsIsEightSectorsTwoLines) {
  const GlobalDetail c = global_detail(warp_op(Space::Global, [](int i) { return 2 * i; }));
  EXPECT_EQ(c.sectors.size(), 8u);
  EXPECT_EQ(c.lines.size(), 2u);
  EXPECT_DOUBLE_EQ(c.efficiency(), 0.5);
}

TEST(MemoryTraceGlobal, MisalignedWarpTouchesOneMoreSectorAndLine) {
  // 32 floats starting one float into a line: 128 bytes spread over 5 sectors and 2 lines.
  const GlobalDetail c = global_detail(warp_op(Space::Global, [](int i) { return 1 + i; }));
  EXPECT_EQ(c.sectors.size(), 5u);
  EXPECT_EQ(c.lines.size(), 2u);
}

TEST(MemoryTraceGlobal, LanesPastTheEndAreInactive) {
  // n = 20 floats: lanes 20..31 have nothing to load.
  const WarpAccess a = warp_op(Space::Global, [](int i) { return i < 20 ? i : -1; });
  const GlobalDetail c = global_detail(a);
  EXPECT_EQ(c.active_lanes, 20);
  EXPECT_EQ(c.sectors.size(), 3u);  // bytes 0..79
  EXPECT_EQ(c.lane_sector[19], 2);
  EXPECT_EQ(c.lane_sector[20], -1);
  EXPECT_EQ(c.lane_line[31], -1);
  EXPECT_NE(summarize(a).text.find("12 lanes inactive"), std::string::npos) << summarize(a).text;
  const OpSummary none = summarize(warp_op(Space::Global, [](int) { return -1; }));
  EXPECT_EQ(none.active_lanes, 0);
  EXPECT_EQ(none.sectors, 0);
}

TEST(MemoryTraceShared, RowOfTileIsConflictFree) {
  // tile[5][lane] of float tile[32][32]: 32 consecutive words, one per bank.
  const SharedDetail c = shared_detail(warp_op(Space::Shared, [](int i) { return 5 * 32 + i; }));
  EXPECT_EQ(c.conflict_degree, 1);
  EXPECT_EQ(c.wavefronts, 1);
  EXPECT_FALSE(c.broadcast);
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(c.lane_bank[static_cast<size_t>(i)], i);
}

TEST(MemoryTraceShared, ColumnOfTileIs32WayConflict) {
  // tile[lane][3] of float tile[32][32]: every lane in bank 3, 32 different words.
  const WarpAccess a = warp_op(Space::Shared, [](int i) { return i * 32 + 3; });
  const SharedDetail c = shared_detail(a);
  EXPECT_EQ(c.conflict_degree, 32);
  EXPECT_EQ(c.wavefronts, 32);
  EXPECT_EQ(c.words_in_bank[3], 32);
  EXPECT_EQ(c.words_in_bank[4], 0);
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(c.lane_bank[static_cast<size_t>(i)], 3);
  EXPECT_EQ(shared_cost(a).wavefronts, 32);
  EXPECT_EQ(shared_cost(a).conflicts(), 31);
  EXPECT_NE(summarize(a).text.find("32-way"), std::string::npos);
}

TEST(MemoryTraceShared, PaddedColumnIsConflictFree) {
  // tile[lane][3] of float tile[32][33]: word lane*33+3 is in bank (lane+3) % 32.
  const WarpAccess a = warp_op(Space::Shared, [](int i) { return i * 33 + 3; });
  const SharedDetail c = shared_detail(a);
  EXPECT_EQ(c.conflict_degree, 1);
  EXPECT_EQ(c.lane_bank[0], 3);
  EXPECT_EQ(c.lane_bank[29], 0);
  EXPECT_EQ(shared_cost(a).wavefronts, 1);
}

TEST(MemoryTraceShared, StrideOfWordsGivesItsConflictDegree) {
  // Stride 2 words: lanes i and i+16 share bank 2i % 32 with different words: 2-way.
  EXPECT_EQ(shared_detail(warp_op(Space::Shared, [](int i) { return 2 * i; })).conflict_degree, 2);
  // Stride s: gcd(s, 32)-way.
  EXPECT_EQ(shared_detail(warp_op(Space::Shared, [](int i) { return 4 * i; })).conflict_degree, 4);
  EXPECT_EQ(shared_detail(warp_op(Space::Shared, [](int i) { return 8 * i; })).conflict_degree, 8);
  EXPECT_EQ(shared_detail(warp_op(Space::Shared, [](int i) { return 3 * i; })).conflict_degree, 1);
  EXPECT_EQ(shared_detail(warp_op(Space::Shared, [](int i) { return 6 * i; })).conflict_degree, 2);
}

TEST(MemoryTraceShared, BroadcastIsNotAConflict) {
  // Every lane reads word 7: one word, one pass.
  const SharedDetail all = shared_detail(warp_op(Space::Shared, [](int) { return 7; }));
  EXPECT_EQ(all.conflict_degree, 1);
  EXPECT_TRUE(all.broadcast);
  // Pairs of lanes read the same word (i/2): still one word per bank.
  const SharedDetail pairs = shared_detail(warp_op(Space::Shared, [](int i) { return i / 2; }));
  EXPECT_EQ(pairs.conflict_degree, 1);
  EXPECT_TRUE(pairs.broadcast);
  // Two words of the same bank (0 and 32), each read by half the warp: 2-way, not 32-way.
  const SharedDetail two = shared_detail(warp_op(Space::Shared, [](int i) { return i < 16 ? 0 : 32; }));
  EXPECT_EQ(two.conflict_degree, 2);
}

TEST(MemoryTraceShared, InactiveLanesDoNotConflict) {
  // A column of an unpadded tile with only 3 rows left: a 3-way conflict, lanes 3.. inactive.
  const SharedDetail c = shared_detail(warp_op(Space::Shared, [](int i) { return i < 3 ? i * 32 : -1; }));
  EXPECT_EQ(c.active_lanes, 3);
  EXPECT_EQ(c.conflict_degree, 3);
  EXPECT_EQ(c.lane_bank[3], -1);
}

// --- Traces of the real kernels ----------------------------------------------------------------------------

namespace {

Params transpose_params(Variant v, int64_t rows, int64_t cols) {
  Params p;
  p.kernel = Kernel::Transpose;
  p.transpose = v;
  p.rows = rows;
  p.cols = cols;
  p.block = Dim2{32, 8};
  return p;
}

}  // namespace

TEST(MemoryTraceKernels, TiledTransposeStepsLoadStoreLoadStore) {
  const Params p = transpose_params(Variant::Tiled, 100, 70);
  const WarpTrace t = trace_warp(p, Variant::Tiled, WarpId{1, 0, 0});
  ASSERT_EQ(t.ops.size(), 4u);
  EXPECT_EQ(t.ops[0].space, Space::Global);
  EXPECT_FALSE(t.ops[0].store);
  EXPECT_EQ(t.ops[1].space, Space::Shared);
  EXPECT_TRUE(t.ops[1].store);
  EXPECT_EQ(t.ops[2].space, Space::Shared);
  EXPECT_FALSE(t.ops[2].store);
  EXPECT_EQ(t.ops[3].space, Space::Global);
  EXPECT_TRUE(t.ops[3].store);
  // Row 0 of the tile at columns 32..63: coalesced, 4 sectors; the store into the tile is a row: no
  // conflict; the read back is a column of the 32 x 32 tile: 32-way; the write to out is coalesced.
  EXPECT_EQ(summarize(t.ops[0]).sectors, 4);
  EXPECT_EQ(summarize(t.ops[1]).conflict_degree, 1);
  EXPECT_EQ(summarize(t.ops[2]).conflict_degree, 32);
  EXPECT_EQ(summarize(t.ops[3]).sectors, 4);
  EXPECT_NE(t.warp_text.find("block (1, 0), warp 0"), std::string::npos) << t.warp_text;
}

TEST(MemoryTraceKernels, PaddedTileRemovesTheConflict) {
  const Params p = transpose_params(Variant::TiledPadded, 100, 70);
  const WarpTrace t = trace_warp(p, Variant::TiledPadded, WarpId{0, 0, 3});
  ASSERT_EQ(t.ops.size(), 4u);
  EXPECT_EQ(summarize(t.ops[2]).conflict_degree, 1);
}

TEST(MemoryTraceKernels, NaiveTransposeWritesOneSectorPerLane) {
  const Params p = transpose_params(Variant::Naive, 256, 256);
  const WarpTrace t = trace_warp(p, Variant::Naive, WarpId{0, 0, 0});
  ASSERT_EQ(t.ops.size(), 2u);
  EXPECT_EQ(summarize(t.ops[0]).sectors, 4);   // read in[r][c..c+31]: coalesced
  EXPECT_EQ(summarize(t.ops[1]).sectors, 32);  // write out[c..c+31][r]: 256 floats apart
  EXPECT_EQ(summarize(t.ops[1]).lines, 32);
}

TEST(MemoryTraceKernels, EdgeTileOfAnAwkwardSizeHasInactiveLanes) {
  // 100 x 70: the last tile column starts at 64, so only 6 lanes of a row are inside the matrix.
  const Params p = transpose_params(Variant::TiledPadded, 100, 70);
  const WarpTrace t = trace_warp(p, Variant::TiledPadded, WarpId{2, 0, 0});
  EXPECT_EQ(summarize(t.ops[0]).active_lanes, 6);
}

TEST(MemoryTraceKernels, StridedReadSectorsFollowTheStride) {
  Params p;
  p.kernel = Kernel::Stride;
  p.stride_pattern = Variant::Strided;
  p.n = 1 << 16;
  for (const auto& [stride, sectors] : {std::pair{1, 4}, {2, 8}, {4, 16}, {8, 32}, {32, 32}, {64, 32}}) {
    p.stride = stride;
    const WarpTrace t = trace_warp(p, Variant::Strided, WarpId{0, 0, 0});
    ASSERT_FALSE(t.ops.empty());
    const WarpAccess& load = t.ops.front();
    EXPECT_EQ(load.space, Space::Global);
    EXPECT_EQ(summarize(load).sectors, sectors) << "stride " << stride;
  }
}

TEST(MemoryTraceKernels, BanksStrideGivesItsConflictAndPaddingFixesIt) {
  Params p;
  p.kernel = Kernel::Banks;
  p.n = 1000;
  for (int s : {1, 2, 4, 8, 16, 32}) {
    p.bank_stride = s;
    p.banks = Variant::BanksPlain;
    const WarpTrace plain = trace_warp(p, Variant::BanksPlain, WarpId{0, 0, 0});
    EXPECT_TRUE(plain.cut_short);
    int worst = 0;
    for (const WarpAccess& a : plain.ops)
      if (a.space == Space::Shared && !a.store) worst = std::max(worst, summarize(a).conflict_degree);
    EXPECT_EQ(worst, s) << "stride " << s;
    p.banks = Variant::BanksPadded;
    const WarpTrace padded = trace_warp(p, Variant::BanksPadded, WarpId{0, 0, 0});
    int worst_padded = 0;
    for (const WarpAccess& a : padded.ops)
      if (a.space == Space::Shared && !a.store)
        worst_padded = std::max(worst_padded, summarize(a).conflict_degree);
    EXPECT_EQ(worst_padded, 1) << "stride " << s;
  }
}

TEST(MemoryTraceKernels, ClickPicksTheWarpThatTouchesTheElement) {
  const Params p = transpose_params(Variant::TiledPadded, 100, 70);
  // in[40][35]: tile (1, 1); with block 32 x 32 the warp of row 40 - 32 = 8.
  const auto w = warp_at(p, Variant::TiledPadded, Buffer::In, 40 * 70 + 35);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->bx, 1);
  EXPECT_EQ(w->by, 1);
  const WarpTrace t = trace_warp(p, Variant::TiledPadded, *w);
  bool found = false;
  for (const LaneAccess& l : t.ops[0].lanes)
    found = found || (l.active && l.element == 40 * 70 + 35);
  EXPECT_TRUE(found) << t.warp_text;
  // out is 70 x 100: out[35][40] is in[40][35]: the same warp.
  const auto o = warp_at(p, Variant::TiledPadded, Buffer::Out, 35 * 100 + 40);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->bx, w->bx);
  EXPECT_EQ(o->by, w->by);
  EXPECT_EQ(o->warp, w->warp);
  // Outside the buffer, or the shared tile: no warp.
  EXPECT_FALSE(warp_at(p, Variant::TiledPadded, Buffer::In, 100 * 70));
  EXPECT_FALSE(warp_at(p, Variant::TiledPadded, Buffer::Tile, 3));
}

TEST(MemoryTraceKernels, WarpsOutsideTheLaunchAreClampedIn) {
  const Params p = transpose_params(Variant::Tiled, 100, 70);
  const WarpId w = clamp_warp(p, Variant::Tiled, WarpId{99, -4, 77});
  EXPECT_EQ(w.bx, 2);  // ceil(70 / 32) = 3 tiles across
  EXPECT_EQ(w.by, 0);
  EXPECT_EQ(w.warp, warps_per_block(p, Variant::Tiled) - 1);
}

TEST(MemoryTraceKernels, BufferViewsDrawLinesOrTheMatrix) {
  const Params p = transpose_params(Variant::Naive, 100, 70);
  EXPECT_EQ(buffer_view(p, Variant::Naive, Buffer::In).width, 70);
  EXPECT_EQ(buffer_view(p, Variant::Naive, Buffer::Out).width, 100);
  EXPECT_EQ(buffer_view(p, Variant::Naive, Buffer::In).length, 7000);
  EXPECT_EQ(buffer_view(p, Variant::TiledPadded, Buffer::Tile).length, 32 * 33);
  Params s;
  s.kernel = Kernel::Stride;
  s.n = 1000;
  EXPECT_EQ(buffer_view(s, Variant::Strided, Buffer::In).width, 32);  // one 128-byte line per row
}

}  // namespace bs::memory
