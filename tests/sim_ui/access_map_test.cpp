// access_map_test.cpp: the pictures of a simulated launch from known kernels (compiled with NVRTC, run in the
// simulator, recorded): which cells a thread, a warp, a block and the launch read and wrote, the reverse
// look-up, the scores, divergence, the memory lab's warp picture input, and the files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "gpu/kernel/contracts.h"
#include "sim/sim_util.h"
#include "ui/kernel/access_map.h"
#include "ui/kernel/access_map_export.h"
#include "ui/memory/memory_trace.h"

namespace bs::ui {
namespace {

using sim::test::dim;

// out[i] = in[i] + in[i + 1] for i < n: in holds n + 1 floats.
constexpr const char* k_pairs = R"(
extern "C" __global__ void pairs(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = in[i] + in[i + 1];
  }
}
)";

struct SimRun {
  std::vector<float> in, out;
  SimTrace trace;
};

// `src`'s kernel `name` over buffers in (n_in floats) and out (n_out floats, an output), args (in, out, n).
SimRun run_1d(const char* src, const char* name, int n, int n_in, int n_out, sim::Dim3 grid, sim::Dim3 block) {
  SimRun r;
  r.in.resize(static_cast<size_t>(n_in));
  for (int i = 0; i < n_in; ++i) r.in[static_cast<size_t>(i)] = 1.0f + 0.25f * static_cast<float>(i);
  r.out.assign(static_cast<size_t>(n_out), -7.0f);
  auto m = std::make_shared<sim::Module>(sim::test::module_of(src));
  sim::LaunchConfig cfg;
  cfg.grid = grid;
  cfg.block = block;
  cfg.buffers = {sim::test::buffer("in", r.in), sim::test::buffer("out", r.out, true)};
  cfg.args = {sim::Arg::pointer(0), sim::Arg::pointer(1), sim::Arg::value<int>(n)};
  sim::Recorder rec(grid.count());
  cfg.observer = &rec;
  sim::LaunchResult res = sim::launch(*m, name, cfg);
  EXPECT_TRUE(res.ok) << res.failure.message;
  r.trace = make_trace(m, name, cfg, std::move(res), rec);
  return r;
}

std::vector<uint64_t> cells_with(const BufferMap& m, uint8_t bit) {
  std::vector<uint64_t> out;
  for (uint64_t e = 0; e < m.elements; ++e)
    if (m.cells[e] & bit) out.push_back(e);
  return out;
}

std::vector<uint64_t> range(uint64_t a, uint64_t b) {  // [a, b)
  std::vector<uint64_t> v;
  for (uint64_t i = a; i < b; ++i) v.push_back(i);
  return v;
}

TEST(AccessMap, OneThreadReadsItsPairAndWritesItsCell) {
  REQUIRE_NVRTC();
  const SimRun r = run_1d(k_pairs, "pairs", 40, 41, 40, dim(2), dim(32));
  const AccessMaps maps = access_maps(r.trace, {Scope::Thread, 0, 5});
  EXPECT_EQ(maps.title, "thread (5, 0, 0) of block (0, 0, 0)");
  ASSERT_EQ(maps.maps.size(), 2u);
  EXPECT_EQ(cells_with(maps.maps[0], k_cell_read), (std::vector<uint64_t>{5, 6}));
  EXPECT_TRUE(cells_with(maps.maps[0], k_cell_write).empty());
  EXPECT_EQ(cells_with(maps.maps[1], k_cell_write), (std::vector<uint64_t>{5}));
  EXPECT_TRUE(cells_with(maps.maps[1], k_cell_read).empty());
  // A clean launch: no problem cells anywhere.
  EXPECT_EQ(maps.maps[1].unwritten + maps.maps[1].multi + maps.maps[1].flagged, 0u);
  EXPECT_EQ(maps.outside, 0u);
  // 1-D buffers are drawn 32 elements to a row.
  EXPECT_EQ(maps.maps[0].cols, 32u);
  EXPECT_EQ(maps.maps[0].rows, 2u);
  EXPECT_FALSE(maps.maps[0].two_d);
}

TEST(AccessMap, WarpBlockAndLaunchCoverTheirThreads) {
  REQUIRE_NVRTC();
  const SimRun r = run_1d(k_pairs, "pairs", 40, 41, 40, dim(2), dim(32));
  const AccessMaps warp = access_maps(r.trace, {Scope::Warp, 0, 17});
  EXPECT_EQ(cells_with(warp.maps[0], k_cell_read), range(0, 33));
  EXPECT_EQ(cells_with(warp.maps[1], k_cell_write), range(0, 32));
  // The last block: only threads 0..7 are inside n = 40.
  const AccessMaps last = access_maps(r.trace, {Scope::Block, 1, 0});
  EXPECT_EQ(cells_with(last.maps[0], k_cell_read), range(32, 41));
  EXPECT_EQ(cells_with(last.maps[1], k_cell_write), range(32, 40));
  const AccessMaps all = access_maps(r.trace, {Scope::Launch, 0, 0});
  EXPECT_EQ(all.maps[0].read_elements, 41u);
  EXPECT_EQ(all.maps[1].write_elements, 40u);
  EXPECT_EQ(all.title, "the whole launch");
  // A thread past n touches nothing.
  const AccessMaps idle = access_maps(r.trace, {Scope::Thread, 1, 20});
  EXPECT_EQ(idle.maps[0].read_elements + idle.maps[1].write_elements, 0u);
}

TEST(AccessMap, ProblemCellsAreMarked) {
  REQUIRE_NVRTC();
  // `i <= n`: thread n writes out[n] (past the end) and reads in[n + 1]; the last 3 outputs are skipped.
  constexpr const char* src = R"(
extern "C" __global__ void buggy(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n && (i < n - 3 || i == n)) out[i] = in[i];
  if (i == 1) out[0] = 2.0f;
}
)";
  const SimRun r = run_1d(src, "buggy", 40, 40, 40, dim(2), dim(32));
  const AccessMaps all = access_maps(r.trace, {Scope::Launch, 0, 0});
  // out[37..39] never written; out[0] written by threads 0 and 1.
  EXPECT_EQ(cells_with(all.maps[1], k_cell_unwritten), (std::vector<uint64_t>{37, 38, 39}));
  EXPECT_EQ(cells_with(all.maps[1], k_cell_multi), (std::vector<uint64_t>{0}));
  EXPECT_GE(all.outside, 1u);  // out[40] (and in[40]) fell outside every buffer
  EXPECT_NE(all.note.find("outside every buffer"), std::string::npos);
  // The reverse: who wrote out[0].
  const ElementTouches w = who_touched(r.trace, 1, 0);
  EXPECT_EQ(w.writes, 2u);
  const std::vector<std::string> lines = w.lines(r.trace);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("of block (0, 0, 0) wrote (line "), std::string::npos) << lines[0];
  EXPECT_EQ(w.element_text, "out[0]");
}

TEST(AccessMap, WhoReadAnElement) {
  REQUIRE_NVRTC();
  const SimRun r = run_1d(k_pairs, "pairs", 40, 41, 40, dim(2), dim(32));
  const ElementTouches t = who_touched(r.trace, 0, 32);  // in[32]: thread 31 of block 0, thread 0 of block 1
  EXPECT_EQ(t.reads, 2u);
  EXPECT_EQ(t.writes, 0u);
  ASSERT_EQ(t.list.size(), 2u);
  EXPECT_EQ(t.list[0].block, 0u);
  EXPECT_EQ(t.list[0].thread, 31u);
  EXPECT_EQ(t.list[1].block, 1u);
  EXPECT_EQ(t.list[1].thread, 0u);
  EXPECT_EQ(who_touched(r.trace, 0, 32, 1).list.size(), 1u);
  EXPECT_TRUE(who_touched(r.trace, 0, 32, 1).truncated);
}

TEST(AccessMap, TwoDimensionalHeatStencilReadsFiveNeighbours) {
  REQUIRE_NVRTC();
  const std::string src(kernel::template_source(*kernel::find_template("heat")));
  auto m = std::make_shared<sim::Module>(sim::test::module_of(src));
  const int nx = 37, ny = 29;
  std::vector<float> in(static_cast<size_t>(nx * ny)), out(in.size(), 0.0f);
  for (size_t i = 0; i < in.size(); ++i) in[i] = 0.5f + 0.01f * static_cast<float>(i % 97);
  sim::LaunchConfig cfg;
  cfg.grid = dim(3, 4);
  cfg.block = dim(16, 8);
  cfg.buffers = {sim::test::buffer("in", in), sim::test::buffer("out", out, true)};
  cfg.buffers[0].cols = cfg.buffers[1].cols = nx;
  cfg.args = {sim::Arg::pointer(0), sim::Arg::pointer(1), sim::Arg::value<int>(nx), sim::Arg::value<int>(ny),
              sim::Arg::value<float>(0.2f), sim::Arg::value<float>(0.0f), sim::Arg::value<int>(1)};
  sim::Recorder rec(cfg.grid.count());
  cfg.observer = &rec;
  sim::LaunchResult res = sim::launch(*m, "heat_step", cfg);
  ASSERT_TRUE(res.ok) << res.failure.message;
  const SimTrace t = make_trace(m, "heat_step", cfg, std::move(res), rec);
  // Thread (3, 2) of block (1, 1): cell x = 19, y = 10.
  const Selection s{Scope::Thread, t.block_index({1, 1, 0}), t.thread_index({3, 2, 0})};
  const AccessMaps maps = access_maps(t, s);
  ASSERT_TRUE(maps.maps[0].two_d);
  EXPECT_EQ(maps.maps[0].cols, 37u);
  EXPECT_EQ(maps.maps[0].rows, 29u);
  const uint64_t c = 10 * nx + 19;
  EXPECT_EQ(cells_with(maps.maps[0], k_cell_read), (std::vector<uint64_t>{c - nx, c - 1, c, c + 1, c + nx}));
  EXPECT_EQ(cells_with(maps.maps[1], k_cell_write), (std::vector<uint64_t>{c}));
  EXPECT_EQ(element_at(maps.maps[0], 10, 19), c);
  EXPECT_FALSE(element_at(maps.maps[0], 29, 0));
  EXPECT_FALSE(element_at(maps.maps[0], 0, 37));
  EXPECT_EQ(selection_text(t, s), "thread (3, 2, 0) of block (1, 1, 0)");
  EXPECT_EQ(selection_slug(t, s), "thread_3_2_0-block_1_1_0");
  // The whole launch wrote every cell once: nothing unwritten.
  const AccessMaps all = access_maps(t, {Scope::Launch, 0, 0});
  EXPECT_EQ(all.maps[1].write_elements, uint64_t(nx * ny));
  EXPECT_EQ(all.maps[1].unwritten, 0u);
}

TEST(AccessMap, ScoresAndDivergence) {
  REQUIRE_NVRTC();
  const SimRun r = run_1d(k_pairs, "pairs", 40, 41, 40, dim(2), dim(32));
  const std::vector<ThreadScore> s0 = thread_scores(r.trace, 0);
  ASSERT_EQ(s0.size(), 32u);
  EXPECT_EQ(s0[5].global_reads, 2u);
  EXPECT_EQ(s0[5].global_writes, 1u);
  const std::vector<ThreadScore> s1 = thread_scores(r.trace, 1);
  EXPECT_EQ(s1[7].global_writes, 1u);
  EXPECT_EQ(s1[8].global_writes, 0u);  // i = 40: outside n
  EXPECT_EQ(s1[8].global_reads, 0u);
  EXPECT_LT(s1[8].instructions, s1[7].instructions);
  // The store ran once per warp with 32 then 8 lanes: 20 active lanes on average.
  bool found = false;
  for (const InstrRow& row : instruction_rows(r.trace)) {
    if (row.text.rfind("st.global", 0) != 0) continue;
    found = true;
    EXPECT_EQ(row.warp_execs, 2u);
    EXPECT_EQ(row.thread_execs, 40u);
    EXPECT_DOUBLE_EQ(row.active_lanes, 20.0);
    EXPECT_EQ(row.requests, 2u);
    EXPECT_EQ(row.sectors, 4u + 1u);  // 32 floats: 4 sectors; 8 floats: 1 sector
    EXPECT_GT(row.line, 0);
  }
  EXPECT_TRUE(found);
  const std::vector<double> act = line_activity(r.trace);
  ASSERT_FALSE(act.empty());
  double lowest = 2;
  for (double a : act)
    if (a >= 0) lowest = std::min(lowest, a);
  EXPECT_NEAR(lowest, 40.0 / 64.0, 1e-12);  // the guarded line: 40 of 64 lanes
}

TEST(AccessMap, WarpMemoryViewFeedsTheMemoryLabPicture) {
  REQUIRE_NVRTC();
  const SimRun r = run_1d(k_pairs, "pairs", 40, 41, 40, dim(2), dim(32));
  const std::vector<MemoryInstr> ins = memory_instructions(r.trace);
  ASSERT_EQ(ins.size(), 3u);  // two loads, one store
  int loads = 0;
  std::vector<int> sectors;
  for (const MemoryInstr& mi : ins) {
    EXPECT_EQ(mi.space, sim::Space::Global);
    EXPECT_NE(mi.label.find("line "), std::string::npos);
    if (mi.store) continue;
    ++loads;
    int execs = 0;
    const auto v = warp_memory_view(r.trace, mi.pc, 0, 0, 0, &execs);
    ASSERT_TRUE(v);
    EXPECT_EQ(execs, 1);
    EXPECT_EQ(v->buffer, "in");
    const memory::GlobalDetail d = memory::global_detail(v->access);
    EXPECT_EQ(d.active_lanes, 32);
    sectors.push_back(static_cast<int>(d.sectors.size()));
    // The simulator's own count for the instruction agrees (block 0's request plus block 1's).
    EXPECT_EQ(r.trace.result.instr[mi.pc].requests, 2u);
  }
  EXPECT_EQ(loads, 2);
  std::sort(sectors.begin(), sectors.end());
  EXPECT_EQ(sectors, (std::vector<int>{4, 5}));  // in[i]: 4 sectors; in[i + 1]: 5
  EXPECT_FALSE(warp_memory_view(r.trace, ins[0].pc, 0, 0, 1));  // it ran once
  EXPECT_FALSE(warp_memory_view(r.trace, ins[0].pc, 0, 3, 0));  // no such warp
}

TEST(AccessMap, SharedBankConflictsShowInThePicture) {
  REQUIRE_NVRTC();
  constexpr const char* src = R"(
extern "C" __global__ void banks(const float* in, float* out, int n) {
  __shared__ float s[32 * 32];
  int t = threadIdx.x;
  s[t * 32] = in[t];
  __syncthreads();
  out[t] = s[t * 32] + (float)n;
}
)";
  const SimRun r = run_1d(src, "banks", 32, 32, 32, dim(1), dim(32));
  int shared = 0;
  for (const MemoryInstr& mi : memory_instructions(r.trace)) {
    if (mi.space != sim::Space::Shared) continue;
    ++shared;
    const auto v = warp_memory_view(r.trace, mi.pc, 0, 0, 0);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->buffer, "shared");
    const memory::SharedDetail d = memory::shared_detail(v->access);
    EXPECT_EQ(d.conflict_degree, 32);
    EXPECT_EQ(r.trace.result.instr[mi.pc].conflicts, 31u);
  }
  EXPECT_EQ(shared, 2);  // the store and the load
}

TEST(AccessMapExport, PngAndSvgFiles) {
  REQUIRE_NVRTC();
  const SimRun r = run_1d(k_pairs, "pairs", 40, 41, 40, dim(2), dim(32));
  const std::string dir = (std::filesystem::temp_directory_path() / "bs_access_map_test").string();
  std::filesystem::remove_all(dir);
  std::vector<std::string> files;
  std::string err;
  ASSERT_TRUE(write_access_maps(dir, r.trace, {{Scope::Thread, 0, 5}}, &files, &err)) << err;
  ASSERT_EQ(files.size(), 3u);  // one SVG, one PNG per buffer
  EXPECT_TRUE(std::filesystem::exists(dir + "/access-thread_5_0_0-block_0_0_0.svg"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/access-thread_5_0_0-block_0_0_0-in.png"));
  std::ifstream svg(dir + "/access-thread_5_0_0-block_0_0_0.svg");
  const std::string text((std::istreambuf_iterator<char>(svg)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("What thread (5, 0, 0) of block (0, 0, 0) read and wrote"), std::string::npos);
  EXPECT_NE(text.find("out: 40 elements; read 0, wrote 1"), std::string::npos);
  // Default selections: the launch, the first thread, the last block.
  files.clear();
  ASSERT_TRUE(write_access_maps(dir, r.trace, {}, &files, &err)) << err;
  EXPECT_EQ(files.size(), 9u);
  // An unwritable folder is refused with its name.
  EXPECT_FALSE(write_access_maps("/proc/no/such/dir", r.trace, {}, nullptr, &err));
  EXPECT_NE(err.find("/proc/no/such/dir"), std::string::npos) << err;
  std::filesystem::remove_all(dir);
}

TEST(AccessMapExport, RasterColoursTheCells) {
  BufferMap m;
  m.name = "x";
  m.elements = 5;
  m.cols = 4;
  m.rows = 2;
  m.cells = {k_cell_read, k_cell_write, static_cast<uint8_t>(k_cell_read | k_cell_write), 0, k_cell_unwritten};
  int w = 0, h = 0;
  const std::vector<unsigned char> px = rasterize(m, 8, &w, &h);
  ASSERT_EQ(w, 32);
  ASSERT_EQ(h, 16);
  auto at = [&](int x, int y) {
    const unsigned char* p = &px[(static_cast<size_t>(y) * 32 + static_cast<size_t>(x)) * 4];
    return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | 0xffu;
  };
  EXPECT_EQ(at(3, 3), cell_fill(k_cell_read, true));
  EXPECT_EQ(at(11, 3), cell_fill(k_cell_write, true));
  EXPECT_EQ(at(19, 3), cell_fill(k_cell_read | k_cell_write, true));
  EXPECT_EQ(at(27, 3), cell_fill(0, true));
  EXPECT_EQ(at(3, 11), cell_fill(k_cell_unwritten, true));
  EXPECT_EQ(at(11, 11), 0xffffffffu);  // past the last element: paper
  EXPECT_NE(cell_fill(k_cell_read, true), cell_fill(k_cell_write, true));
  m.cells[3] = k_cell_flagged;
  const std::vector<unsigned char> px2 = rasterize(m, 8, &w, &h);
  const unsigned char* edge = &px2[(0 * 32 + 24) * 4];
  EXPECT_EQ(edge[0], 0xd0);  // the flagged cell's outline is red
}

}  // namespace
}  // namespace bs::ui
