// sim_diag_test.cpp: every diagnostic with a kernel that has exactly that bug (named by thread, block and
// line), the same kernels fixed with no false alarm, odd sizes where only the last block misbehaves; the
// memory counts (sectors per request, bank conflicts) and the bounded recorder.
#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "gpu/kernel/contracts.h"
#include "sim/trace.h"
#include "sim_util.h"

namespace bs::sim::test {
namespace {

const char* k_kernels = R"(
extern "C" __global__ void no_guard(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = 2.0f * in[i];
}
extern "C" __global__ void guarded(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
extern "C" __global__ void racy_reverse(const float* in, float* out, int n) {
  __shared__ float s[128];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? in[i] : 0.0f;
  // missing __syncthreads(): thread t reads what thread 127 - t (another warp) may not have written yet
  const float v = s[blockDim.x - 1 - t];
  if (i < n) out[i] = v;
}
extern "C" __global__ void synced_reverse(const float* in, float* out, int n) {
  __shared__ float s[128];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  const float v = s[blockDim.x - 1 - t];
  if (i < n) out[i] = v;
}
extern "C" __global__ void early_return(const float* in, float* out, int n) {
  __shared__ float s[128];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  if (i >= n) return;  // the last block's extra threads leave before the barrier
  s[t] = in[i];
  __syncthreads();
  out[i] = s[t] + s[t ^ 1];
}
extern "C" __global__ void shared_overflow(const float* in, float* out, int n) {
  __shared__ float s[64];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? in[i] : 0.0f;  // 128 threads, 64 slots
  __syncthreads();
  if (i < n) out[i] = s[t % 64];
}
extern "C" __global__ void uninit(const float* in, float* out, int n) {
  __shared__ float s[128];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  if (t < 64) s[t] = i < n ? in[i] : 0.0f;  // only half of the tile is filled
  __syncthreads();
  if (i < n) out[i] = s[t];
}
extern "C" __global__ void half_grid(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 2) out[i] = in[i];  // a too strict guard: the second half stays unwritten
}
extern "C" __global__ void collide(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i / 2] = in[i];  // two threads per element
}
)";

struct Outcome {
  std::vector<float> in, out;
  LaunchResult r;
};

Outcome run(const char* kernel, int n, int block = 128, int pad = 0) {
  static const Module m = module_of(k_kernels);
  Outcome x;
  x.in.resize(static_cast<size_t>(n) + static_cast<size_t>(pad));
  for (size_t i = 0; i < x.in.size(); ++i) x.in[i] = 1.0f + static_cast<float>(i);
  x.in.resize(static_cast<size_t>(n));
  x.out.assign(static_cast<size_t>(n), -1.0f);
  LaunchConfig cfg;
  cfg.grid = dim(static_cast<uint32_t>((n + block - 1) / block));
  cfg.block = dim(static_cast<uint32_t>(block));
  cfg.buffers = {buffer("in", x.in), buffer("out", x.out, true)};
  cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::value(n)};
  x.r = launch(m, kernel, cfg);
  EXPECT_TRUE(x.r.ok) << x.r.failure.message;
  return x;
}

Dim3 idx(uint32_t x, uint32_t y = 0, uint32_t z = 0) { return Dim3{x, y, z}; }

const Diagnostic* find(const LaunchResult& r, DiagKind k) {
  for (const Diagnostic& d : r.diagnostics)
    if (d.kind == k) return &d;
  return nullptr;
}

TEST(SimDiag, MissingGuardReportsOutOfBoundsOnlyInTheLastBlock) {
  REQUIRE_NVRTC();
  const Outcome x = run("no_guard", 1000);  // 8 blocks of 128: the last has 24 threads past the end
  const Diagnostic* rd = nullptr;
  const Diagnostic* wr = nullptr;
  for (const Diagnostic& d : x.r.diagnostics) {
    ASSERT_EQ(d.kind, DiagKind::GlobalOutOfBounds) << format_diagnostic(d);
    EXPECT_EQ(d.block, idx(7)) << format_diagnostic(d);
    EXPECT_EQ(d.line, 4);
    (d.message.find(" read ") != std::string::npos ? rd : wr) = &d;
  }
  ASSERT_NE(rd, nullptr) << all_diagnostics(x.r);
  ASSERT_NE(wr, nullptr) << all_diagnostics(x.r);
  EXPECT_EQ(rd->count, 24u);
  EXPECT_EQ(rd->thread, idx(104));
  EXPECT_EQ(rd->element, 1000u);
  EXPECT_NE(rd->message.find("thread (104, 0, 0) of block (7, 0, 0) read 4 bytes at element 1000 of 'in' "
                             "(1000 elements): past its end"),
            std::string::npos)
      << rd->message;
  EXPECT_NE(wr->message.find("wrote 4 bytes at element 1000 of 'out'"), std::string::npos) << wr->message;
  EXPECT_NE(format_diagnostic(*rd).find("kernel.cu:4: out-of-bounds: thread (104"), std::string::npos)
      << format_diagnostic(*rd);
  // nothing outside the buffer was touched, everything inside is right
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(x.out[static_cast<size_t>(i)], 2.0f * (1 + i));
  // the fixed kernel: no diagnostic, on this odd size and on an exact multiple
  EXPECT_TRUE(run("guarded", 1000).r.diagnostics.empty()) << all_diagnostics(run("guarded", 1000).r);
  EXPECT_TRUE(run("no_guard", 1024).r.diagnostics.empty());
}

TEST(SimDiag, SharedRaceWithoutABarrierAndNoneWithIt) {
  REQUIRE_NVRTC();
  const Outcome x = run("racy_reverse", 300);
  const Diagnostic* d = find(x.r, DiagKind::SharedRace);
  ASSERT_NE(d, nullptr) << all_diagnostics(x.r);
  EXPECT_EQ(d->line, 13);  // warp 3's write, after warp 0 read at line 15
  EXPECT_NE(d->message.find("read at "), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("kernel.cu:15 with no barrier in between"), std::string::npos) << d->message;
  const Outcome ok = run("synced_reverse", 300);
  EXPECT_TRUE(ok.r.diagnostics.empty()) << all_diagnostics(ok.r);
  for (int i = 0; i < 256; ++i)  // full blocks: reversed within the block
    ASSERT_EQ(ok.out[static_cast<size_t>(i)], ok.in[static_cast<size_t>(i / 128 * 128 + 127 - i % 128)]);
}

TEST(SimDiag, EarlyReturnBeforeABarrierInTheLastBlock) {
  REQUIRE_NVRTC();
  const Outcome x = run("early_return", 1000);
  const Diagnostic* d = find(x.r, DiagKind::BarrierDivergence);
  ASSERT_NE(d, nullptr) << all_diagnostics(x.r);
  EXPECT_EQ(d->block, idx(7));
  EXPECT_EQ(d->thread, idx(104));
  EXPECT_EQ(d->line, 31);
  EXPECT_NE(d->message.find("had exited, so it never reached this barrier"), std::string::npos) << d->message;
  EXPECT_EQ(count_kind(x.r, DiagKind::BarrierDivergence), 1);
  EXPECT_TRUE(run("early_return", 1024).r.diagnostics.empty());  // every block full: no thread leaves
}

TEST(SimDiag, SharedAccessPastTheDeclaredSize) {
  REQUIRE_NVRTC();
  const Outcome x = run("shared_overflow", 256);
  const Diagnostic* d = find(x.r, DiagKind::SharedOutOfBounds);
  ASSERT_NE(d, nullptr) << all_diagnostics(x.r);
  EXPECT_EQ(d->thread, idx(64));
  EXPECT_EQ(d->line, 37);
  EXPECT_EQ(d->count, 128u);  // 64 threads in each of 2 blocks
  EXPECT_NE(d->message.find("wrote 4 bytes at shared offset 256, outside the block's 256 bytes of static shared memory"), std::string::npos)
      << d->message;
}

TEST(SimDiag, ReadOfSharedMemoryNoThreadWrote) {
  REQUIRE_NVRTC();
  const Outcome x = run("uninit", 200);
  const Diagnostic* d = find(x.r, DiagKind::UninitSharedRead);
  ASSERT_NE(d, nullptr) << all_diagnostics(x.r);
  EXPECT_EQ(d->thread, idx(64));
  EXPECT_EQ(d->line, 46);
  EXPECT_EQ(count_kind(x.r, DiagKind::SharedRace), 0) << all_diagnostics(x.r);
}

TEST(SimDiag, OutputElementsNoThreadWrote) {
  REQUIRE_NVRTC();
  const Outcome x = run("half_grid", 301);
  const Diagnostic* d = find(x.r, DiagKind::UnwrittenOutput);
  ASSERT_NE(d, nullptr) << all_diagnostics(x.r);
  EXPECT_EQ(d->element, 150u);
  EXPECT_NE(d->message.find("151 of the 301 elements of 'out' were written by no thread; the first is element 150"),
            std::string::npos)
      << d->message;
}

TEST(SimDiag, OutputElementsWrittenByTwoThreads) {
  REQUIRE_NVRTC();
  const Outcome x = run("collide", 300);
  const Diagnostic* d = find(x.r, DiagKind::MultipleWriters);
  ASSERT_NE(d, nullptr) << all_diagnostics(x.r);
  EXPECT_EQ(d->line, 54);
  EXPECT_NE(d->message.find("also wrote"), std::string::npos) << d->message;
  EXPECT_EQ(d->count, 150u);  // every element in the first half
}

// --- memory counts: the memory lab's definitions --------------------------------------------------------------
const char* k_patterns = R"(
extern "C" __global__ void patterns(const float* in, float* out, int stride) {
  __shared__ float tile[32][33];
  __shared__ float flat[32 * 32];
  const int t = threadIdx.x;
  const float a = in[t];             // coalesced: 32 lanes x 4 B = 4 sectors
  const float b = in[t * stride];    // strided: one sector per lane
  flat[t * 32] = a;                  // a column of a 32-wide array: every lane in bank 0
  tile[t][0] = b;                    // padded to 33: 32 different banks
  __syncthreads();
  out[t] = flat[t * 32] + tile[t][0];
}
)";

TEST(SimCounts, SectorsPerRequestAndBankConflictsPerInstruction) {
  REQUIRE_NVRTC();
  const Module m = module_of(k_patterns);
  std::vector<float> in(32 * 64, 1.0f), out(32);
  LaunchConfig cfg;
  cfg.block = dim(32);
  cfg.buffers = {buffer("in", in), buffer("out", out, true)};
  cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::value(64)};
  const LaunchResult r = launch(m, "patterns", cfg);
  ASSERT_TRUE(r.ok) << r.failure.message;
  std::map<int, std::vector<InstrStats>> by_line;
  for (size_t pc = 0; pc < m.code.size(); ++pc)
    if (r.instr[pc].requests) by_line[m.code[pc].line].push_back(r.instr[pc]);
  ASSERT_EQ(by_line[6].size(), 1u);
  EXPECT_EQ(by_line[6][0].sectors, 4u);
  EXPECT_EQ(by_line[6][0].lines, 1u);
  EXPECT_EQ(by_line[7][0].sectors, 32u);
  EXPECT_EQ(by_line[7][0].lines, 32u);
  EXPECT_EQ(by_line[8][0].wavefronts, 32u);
  EXPECT_EQ(by_line[8][0].conflicts, 31u);
  EXPECT_EQ(by_line[9][0].wavefronts, 1u);
  EXPECT_EQ(by_line[9][0].conflicts, 0u);
  // per thread: 2 global reads, 1 write
  for (const ThreadStats& t : r.threads) {
    EXPECT_EQ(t.global_reads, 2u);
    EXPECT_EQ(t.global_writes, 1u);
    EXPECT_GT(t.instructions, 10u);
  }
}

// --- the recorder -------------------------------------------------------------------------------------------
TEST(SimTrace, RecorderSamplesWholeBlocksIncludingTheLastAndWritesCsv) {
  REQUIRE_NVRTC();
  static const Module m = module_of(k_kernels);
  const int n = 1000;
  std::vector<float> in(n, 1.0f), out(n);
  LaunchConfig cfg;
  cfg.grid = dim(32);
  cfg.block = dim(32);
  cfg.buffers = {buffer("in", in), buffer("out", out, true)};
  cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::value(n)};
  Recorder::Options o;
  o.max_blocks = 4;
  Recorder rec(32, o);
  cfg.observer = &rec;
  const LaunchResult r = launch(m, "no_guard", cfg);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(rec.sampled(), "4 of 32 blocks (every 11th, and the last)");
  std::set<uint64_t> blocks;
  for (const RecordedAccess& a : rec.accesses()) blocks.insert(a.block);
  EXPECT_EQ(blocks, (std::set<uint64_t>{0, 11, 22, 31}));
  std::istringstream f(access_csv(rec, m, cfg, r));
  std::string header, line;
  std::getline(f, header);
  EXPECT_EQ(header.rfind("block_x,block_y,block_z,thread_x,thread_y,thread_z,warp,lane,space,access,buffer,element", 0),
            0u);
  int rows = 0, past_end = 0;
  while (std::getline(f, line)) {
    ++rows;
    if (line.find(",global,read,(none)") != std::string::npos) ++past_end;  // block 31 reads past `in`
  }
  EXPECT_EQ(rows, 4 * 32 * 2);
  EXPECT_EQ(past_end, 24);
}

}  // namespace
}  // namespace bs::sim::test

namespace bs::sim::test {
namespace {

// A measurement, not a check (timing on a shared machine): run with --gtest_also_run_disabled_tests.
// `blockscope bench sim` is the reported figure.
TEST(SimPerf, DISABLED_HeatStep1024Traced) {
  REQUIRE_NVRTC();
  const Module m = module_of(std::string(kernel::template_source(*kernel::find_template("heat"))));
  const int nx = 1024, ny = 1024;
  std::vector<float> in(static_cast<size_t>(nx) * ny, 1.0f), out(in.size());
  for (int traced = 0; traced < 2; ++traced) {
    LaunchConfig cfg;
    cfg.block = dim(32, 8);
    cfg.grid = dim(nx / 32, ny / 8);
    cfg.buffers = {buffer("in", in), buffer("out", out, true)};
    cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::value(nx), Arg::value(ny), Arg::value(0.2f),
                Arg::value(0.0f), Arg::value(1)};
    Recorder rec(cfg.grid.count(), Recorder::Options{1u << 20, uint64_t{1} << 30});
    if (traced) cfg.observer = &rec;
    cfg.diagnostics = traced;
    const LaunchResult r = launch(m, "heat_step", cfg);
    ASSERT_TRUE(r.ok);
    std::printf("%s: %llu thread-instructions in %.3f s = %.1f M/s on %d workers; %.3f CPU s = %.1f M/s per core\n",
                traced ? "traced" : "untraced", static_cast<unsigned long long>(r.thread_instructions), r.seconds,
                r.thread_instructions / r.seconds / 1e6, r.workers, r.cpu_seconds,
                r.thread_instructions / r.cpu_seconds / 1e6);
  }
}

}  // namespace
}  // namespace bs::sim::test
