// sim_exec_test.cpp: real kernels (the templates, warp shuffles and votes, divergent loops, shared tiles,
// atomics) compiled with NVRTC and run in the simulator on sizes that are not multiples of the block, compared
// with CPU references (bitwise where the operations are exact).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "gpu/kernel/contracts.h"
#include "sim_kernels.h"
#include "sim_util.h"

namespace bs::sim::test {
namespace {

std::string template_text(const char* id) { return std::string(kernel::template_source(*kernel::find_template(id))); }

// The vector template (its formula) on n elements in blocks of `block`, against the CPU in double.
LaunchResult run_vector_formula(bool fast_math, int64_t n, uint32_t block) {
  const Module m = module_of(template_text("vector"), fast_math);
  std::vector<float> a(static_cast<size_t>(n)), b(static_cast<size_t>(n)), c(static_cast<size_t>(n), -1.0f);
  for (int64_t i = 0; i < n; ++i) {
    a[static_cast<size_t>(i)] = 0.5f + 0.001f * static_cast<float>(i);
    b[static_cast<size_t>(i)] = 1.5f - 0.002f * static_cast<float>(i);
  }
  LaunchConfig cfg;
  cfg.grid = dim(static_cast<uint32_t>((n + block - 1) / block));
  cfg.block = dim(block);
  cfg.buffers = {buffer("a", a), buffer("b", b), buffer("c", c, true)};
  cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::pointer(2), Arg::value<int64_t>(n)};
  LaunchResult r = launch(m, "vector_op", cfg);
  EXPECT_TRUE(r.ok) << r.failure.message;
  EXPECT_TRUE(r.diagnostics.empty()) << all_diagnostics(r);
  for (size_t k = 0; k < c.size(); ++k) {
    const double ref = (a[k] * 10.0 + 2.0) * ((b[k] + 2.0) * 10.0 - 5.0) * 5.0;
    EXPECT_NEAR(c[k], ref, 1e-5 * std::abs(ref)) << k;
  }
  return r;
}

TEST(SimTemplates, VectorFormulaMatchesTheCpuOnAnOddSize) {
  REQUIRE_NVRTC();
  const LaunchResult r = run_vector_formula(false, 1000, 256);
  EXPECT_EQ(r.threads.size(), 1024u);
  EXPECT_GT(r.thread_instructions, 0u);
}

}  // namespace
}  // namespace bs::sim::test

namespace bs::sim::test {
namespace {

// The heat step on the CPU, as the template computes it (fma where NVRTC contracts).
std::vector<float> heat_cpu(const std::vector<float>& in, int nx, int ny, float r) {
  std::vector<float> out(in.size());
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) {
      const size_t i = static_cast<size_t>(y) * nx + x;
      const float c = in[i];
      const float w = x > 0 ? in[i - 1] : c, e = x + 1 < nx ? in[i + 1] : c;
      const float n = y > 0 ? in[i - nx] : c, s = y + 1 < ny ? in[i + nx] : c;
      out[i] = c + r * ((w + e) + (n + s) - 4.0f * c);
    }
  return out;
}

std::vector<float> field(int nx, int ny) {
  std::vector<float> f(static_cast<size_t>(nx) * ny);
  for (size_t i = 0; i < f.size(); ++i) f[i] = std::sin(0.37f * static_cast<float>(i)) * 50.0f + 20.0f;
  return f;
}

void run_heat(const char* id, int nx, int ny, Dim3 block, Dim3 grid) {
  const Module m = module_of(template_text(id));
  std::vector<float> in = field(nx, ny), out(in.size(), NAN);
  LaunchConfig cfg;
  cfg.grid = grid;
  cfg.block = block;
  cfg.buffers = {buffer("in", in), buffer("out", out, true)};
  cfg.buffers[1].cols = static_cast<uint32_t>(nx);
  cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::value(nx), Arg::value(ny), Arg::value(0.2f),
              Arg::value(0.0f), Arg::value(0)};
  const LaunchResult r = launch(m, "heat_step", cfg);
  ASSERT_TRUE(r.ok) << r.failure.message;
  EXPECT_TRUE(r.diagnostics.empty()) << all_diagnostics(r);
  const std::vector<float> ref = heat_cpu(in, nx, ny, 0.2f);
  for (size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(out[i], ref[i], 1e-4f * (1 + std::abs(ref[i]))) << i;
}

TEST(SimTemplates, HeatStencilOnAFieldThatIsNotAMultipleOfTheBlock) {
  REQUIRE_NVRTC();
  run_heat("heat", 37, 29, dim(16, 8), dim(3, 4));
}

TEST(SimTemplates, HeatTutorialWithItsGridStrideLoopsOnANonSquareField) {
  REQUIRE_NVRTC();
  run_heat("heat-tutorial", 37, 29, dim(16, 8), dim(3, 4));
}

void run_matmul(const char* id, int M, int N, int K) {
  const Module m = module_of(template_text(id));
  std::vector<float> A(static_cast<size_t>(M) * K), B(static_cast<size_t>(K) * N), C(static_cast<size_t>(M) * N, NAN);
  for (size_t i = 0; i < A.size(); ++i) A[i] = static_cast<float>((i * 7) % 13) * 0.25f - 1.0f;
  for (size_t i = 0; i < B.size(); ++i) B[i] = static_cast<float>((i * 5) % 11) * 0.5f - 2.0f;
  LaunchConfig cfg;
  cfg.block = dim(16, 16);
  cfg.grid = dim((N + 15) / 16, (M + 15) / 16);
  cfg.buffers = {buffer("A", A), buffer("B", B), buffer("C", C, true)};
  cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::pointer(2), Arg::value(M), Arg::value(N), Arg::value(K)};
  const LaunchResult r = launch(m, "matmul", cfg);
  ASSERT_TRUE(r.ok) << r.failure.message;
  EXPECT_TRUE(r.diagnostics.empty()) << all_diagnostics(r);
  // quarter and half steps: every product and partial sum is exact in float, so the result is exact
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = 0;
      for (int k = 0; k < K; ++k) ref += static_cast<double>(A[static_cast<size_t>(i) * K + k]) * B[static_cast<size_t>(k) * N + j];
      ASSERT_EQ(C[static_cast<size_t>(i) * N + j], static_cast<float>(ref)) << i << "," << j;
    }
}

TEST(SimTemplates, MatmulNaiveIsExactOnOddSizes) {
  REQUIRE_NVRTC();
  run_matmul("matmul", 37, 29, 19);
}

TEST(SimTemplates, MatmulTiledWithSharedTilesAndBarriersIsExactOnOddSizes) {
  REQUIRE_NVRTC();
  run_matmul("matmul-tiled", 37, 29, 19);
}




TEST(SimWarp, ShuffleReductionBallotAllAnyOnAPartialLastWarp) {
  REQUIRE_NVRTC();
  const Module m = module_of(k_warp_kernels);
  const int n = 1000;  // the last block: 1000 - 896 = 104 threads, the last warp 8 lanes in range
  std::vector<int> in = ints(n), out(1, 0), ballots(3 * 32, -7);
  LaunchConfig cfg;
  cfg.grid = dim(8);
  cfg.block = dim(128);
  cfg.buffers = {buffer("in", in), buffer("out", out), buffer("ballots", ballots)};
  cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::pointer(2), Arg::value(n)};
  const LaunchResult r = launch(m, "warp_sum", cfg);
  ASSERT_TRUE(r.ok) << r.failure.message;
  long long sum = 0;
  for (int v : in) sum += v;
  EXPECT_EQ(out[0], sum);
  for (int w = 0; w < 32; ++w) {
    unsigned b = 0;
    bool all = true, any = false;
    for (int l = 0; l < 32; ++l) {
      const int i = w * 32 + l;
      if (i < n && (in[static_cast<size_t>(i)] & 1)) b |= 1u << l;
      all = all && i < n;
      any = any || (i < n && in[static_cast<size_t>(i)] > 90);
    }
    EXPECT_EQ(static_cast<unsigned>(ballots[static_cast<size_t>(3 * w)]), b) << w;
    EXPECT_EQ(ballots[static_cast<size_t>(3 * w + 1)], all ? 1 : 0) << w;
    EXPECT_EQ(ballots[static_cast<size_t>(3 * w + 2)], any ? 1 : 0) << w;
  }
}

TEST(SimWarp, XorIdxAndUpShuffles) {
  REQUIRE_NVRTC();
  const Module m = module_of(k_warp_kernels);
  const int n = 77;
  std::vector<int> in = ints(n), out(2 * static_cast<size_t>(n), 0);
  LaunchConfig cfg;
  cfg.grid = dim(2);
  cfg.block = dim(64);
  cfg.buffers = {buffer("in", in), buffer("out", out, true)};
  cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::value(n)};
  const LaunchResult r = launch(m, "xor_bcast", cfg);
  ASSERT_TRUE(r.ok) << r.failure.message;
  EXPECT_TRUE(r.diagnostics.empty()) << all_diagnostics(r);
  for (int i = 0; i < n; ++i) {
    const int w0 = i / 32 * 32;
    int mx = 0;
    for (int j = w0; j < w0 + 32; ++j) mx = std::max(mx, j < n ? in[static_cast<size_t>(j)] : 0);
    EXPECT_EQ(out[2 * static_cast<size_t>(i)], mx + w0) << i;
    EXPECT_EQ(out[2 * static_cast<size_t>(i) + 1], i % 32 >= 3 ? i - 3 : i) << i;  // up: lanes < 3 keep theirs
  }
}

TEST(SimWarp, DivergentLoopsReconvergeBeforeTheShuffle) {
  REQUIRE_NVRTC();
  const Module m = module_of(k_warp_kernels);
  const int n = 100;
  std::vector<int> in = ints(n), out(static_cast<size_t>(n), 0);
  LaunchConfig cfg;
  cfg.grid = dim(2);
  cfg.block = dim(64);
  cfg.buffers = {buffer("in", in), buffer("out", out, true)};
  cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::value(n)};
  const LaunchResult r = launch(m, "divergent", cfg);
  ASSERT_TRUE(r.ok) << r.failure.message;
  auto acc_of = [&](int i) {
    if (i >= n) return 0;
    int acc = 0;
    for (int k = 0; k < in[static_cast<size_t>(i)] % 7; ++k) acc += (k & 1) ? k * in[static_cast<size_t>(i)] : -k;
    return acc;
  };
  for (int i = 0; i < n; ++i) {
    const int next = (i % 32) < 31 ? acc_of(i + 1) : 0;  // down by 1: lane 31 adds its own
    EXPECT_EQ(out[static_cast<size_t>(i)], acc_of(i) + ((i % 32) < 31 ? next : acc_of(i))) << i;
  }
  // divergence is visible: some loop instruction ran with fewer than 32 lanes
  bool partial = false;
  for (const InstrStats& s : r.instr)
    if (s.warp_execs && s.thread_execs < 32 * s.warp_execs) partial = true;
  EXPECT_TRUE(partial);
}

TEST(SimShared, TreeReductionWithBarriersOnAnOddSize) {
  REQUIRE_NVRTC();
  const Module m = module_of(k_warp_kernels);
  const int n = 1000;
  std::vector<int> in = ints(n), out(8, -1);
  LaunchConfig cfg;
  cfg.grid = dim(8);
  cfg.block = dim(128);
  cfg.buffers = {buffer("in", in), buffer("out", out, true)};
  cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::value(n)};
  const LaunchResult r = launch(m, "block_sum", cfg);
  ASSERT_TRUE(r.ok) << r.failure.message;
  EXPECT_TRUE(r.diagnostics.empty()) << all_diagnostics(r);
  for (int b = 0; b < 8; ++b) {
    int s = 0;
    for (int i = b * 128; i < std::min(n, b * 128 + 128); ++i) s += in[static_cast<size_t>(i)];
    EXPECT_EQ(out[static_cast<size_t>(b)], s) << b;
  }
}

TEST(SimShared, HistogramWithSharedAndGlobalAtomicsAcrossParallelBlocks) {
  REQUIRE_NVRTC();
  const Module m = module_of(k_warp_kernels);
  const int n = 100003;
  std::vector<int> in = ints(n);
  std::vector<unsigned> bins(16, 0);
  LaunchConfig cfg;
  cfg.grid = dim(13);
  cfg.block = dim(96);
  cfg.workers = 4;  // blocks on several host threads hit the same global counters
  cfg.buffers = {buffer("in", in), buffer("bins", bins)};
  cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::value(n)};
  const LaunchResult r = launch(m, "histogram", cfg);
  ASSERT_TRUE(r.ok) << r.failure.message;
  EXPECT_TRUE(r.diagnostics.empty()) << all_diagnostics(r);
  std::vector<unsigned> ref(16, 0);
  for (int v : in) ++ref[static_cast<size_t>(v & 15)];
  EXPECT_EQ(bins, ref);
}



// Round a double that holds an exact float product to float in the given direction (independent of the
// simulator's host rounding modes).
float directed(double exact, int dir) {  // dir: 0 toward zero, -1 down, +1 up
  float f = static_cast<float>(exact);
  if (static_cast<double>(f) == exact) return f;
  if (dir == 0 && std::abs(static_cast<double>(f)) > std::abs(exact)) f = std::nextafter(f, 0.0f);
  if (dir < 0 && static_cast<double>(f) > exact) f = std::nextafter(f, -INFINITY);
  if (dir > 0 && static_cast<double>(f) < exact) f = std::nextafter(f, INFINITY);
  return f;
}

TEST(SimFloat, RoundingModesAndExactOperationsAreBitExact) {
  REQUIRE_NVRTC();
  const Module m = module_of(k_exact_float);
  const int n = 333;
  std::vector<float> a(n), b(n), out(12 * static_cast<size_t>(n));
  std::vector<int> iout(2 * static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    a[static_cast<size_t>(i)] = std::ldexp(1.0f + 0.0137f * i, (i % 9) - 4) * (i % 3 ? 1.0f : -1.0f);
    b[static_cast<size_t>(i)] = std::ldexp(1.3f + 0.0071f * i, (i % 7) - 3);
    iout[2 * static_cast<size_t>(i)] = i * 991;
  }
  const std::vector<int> iin = iout;
  LaunchConfig cfg;
  cfg.grid = dim(3);
  cfg.block = dim(128);
  cfg.buffers = {buffer("a", a), buffer("b", b), buffer("out", out), buffer("iout", iout)};
  cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::pointer(2), Arg::pointer(3), Arg::value(n)};
  const LaunchResult r = launch(m, "exact", cfg);
  ASSERT_TRUE(r.ok) << r.failure.message;
  for (int i = 0; i < n; ++i) {
    const size_t k = static_cast<size_t>(i);
    const float x = a[k], y = b[k];
    const float* o = &out[12 * k];
    const double p = static_cast<double>(x) * y;  // exact
    EXPECT_EQ(o[0], x + y) << i;
    EXPECT_EQ(o[1], directed(p, 0)) << i;
    EXPECT_EQ(o[2], directed(p, -1)) << i;
    EXPECT_EQ(o[3], directed(p, 1)) << i;
    EXPECT_EQ(o[4], x / y) << i;
    EXPECT_EQ(o[5], std::sqrt(std::abs(x))) << i;
    EXPECT_EQ(o[6], 1.0f / y) << i;
    EXPECT_EQ(o[7], std::fma(x, y, -x)) << i;
    EXPECT_EQ(o[8], std::min(x, y)) << i;
    EXPECT_EQ(o[9], std::max(x, -y)) << i;
    EXPECT_EQ(o[10], static_cast<float>(static_cast<double>(x) / y)) << i;
    const long long big = static_cast<long long>(iin[2 * k]) * 12345 + 7;
    EXPECT_EQ(o[11], directed(static_cast<double>(static_cast<int>(big)), 0)) << i;
    EXPECT_EQ(iout[2 * k], static_cast<int>(std::floor(static_cast<double>(x * 1000.0f)))) << i;
    EXPECT_EQ(iout[2 * k + 1], static_cast<int>(std::nearbyint(static_cast<double>(y * 1000.0f)))) << i;
  }
}



TEST(SimCalls, DeviceFunctionLocalArrayDoubleAnd64BitIntegers) {
  REQUIRE_NVRTC();
  const Module m = module_of(k_misc);
  // the kernel really calls a .func and keeps its array in local memory
  EXPECT_TRUE(std::any_of(m.code.begin(), m.code.end(), [](const Instr& in) { return in.op == Op::Call; }));
  EXPECT_GE(m.local_bytes, 32u);
  const int n = 101;
  std::vector<float> in(n), out(n);
  std::vector<double> dout(n);
  std::vector<long long> lout(n);
  for (int i = 0; i < n; ++i) in[static_cast<size_t>(i)] = 0.25f * static_cast<float>(i) - 3.0f;
  LaunchConfig cfg;
  cfg.grid = dim(2);
  cfg.block = dim(64);
  cfg.buffers = {buffer("in", in), buffer("out", out, true), buffer("dout", dout, true), buffer("lout", lout, true)};
  cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::pointer(2), Arg::pointer(3), Arg::value(n)};
  const LaunchResult r = launch(m, "misc", cfg);
  ASSERT_TRUE(r.ok) << r.failure.message;
  EXPECT_TRUE(r.diagnostics.empty()) << all_diagnostics(r);
  for (int i = 0; i < n; ++i) {
    const size_t k = static_cast<size_t>(i);
    EXPECT_EQ(out[k], std::fma(in[static_cast<size_t>((i + i % 8) % n)], static_cast<float>(i % 5), 0.5f)) << i;
    EXPECT_EQ(dout[k], std::fma(static_cast<double>(in[k]), 1.0000001, static_cast<double>(i) / 3.0)) << i;
    unsigned rev = 0;
    for (int b = 0; b < 32; ++b) rev |= ((static_cast<unsigned>(i) >> b) & 1u) << (31 - b);
    const long long ref = (static_cast<long long>(i) << 35) / 7 + std::popcount(static_cast<unsigned>(i)) +
                          std::countl_zero(static_cast<unsigned>(i + 1)) + (rev >> 20) +
                          100 * (i == 0 ? 0 : std::countr_zero(static_cast<unsigned>(i * 12)) + 1);  // __ffs
    EXPECT_EQ(lout[k], ref) << i;
  }
}

}  // namespace
}  // namespace bs::sim::test

namespace bs::sim::test {
namespace {



TEST(SimCoverage, VectorLoadsBytesSaturateCasLoopsFencesSyncwarpActivemask) {
  REQUIRE_NVRTC();
  const Module m = module_of(k_coverage);
  const int n = 200;
  std::vector<float> in(4 * static_cast<size_t>(n)), out(2 * static_cast<size_t>(n)), fmax_out(1, -1e30f);
  std::vector<unsigned char> bytes(static_cast<size_t>(n));
  std::vector<int> imax(1, -1000);
  std::vector<unsigned> masks(8, 7);
  for (size_t i = 0; i < in.size(); ++i) in[i] = std::sin(0.1f * static_cast<float>(i)) * 10.0f;
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 7);
  LaunchConfig cfg;
  cfg.grid = dim(4);
  cfg.block = dim(64);
  cfg.workers = 3;
  cfg.buffers = {buffer("in4", in), buffer("bytes", bytes), buffer("out", out), buffer("fmax", fmax_out),
                 buffer("imax", imax), buffer("masks", masks)};
  cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::pointer(2), Arg::pointer(3), Arg::pointer(4), Arg::pointer(5),
              Arg::value(n)};
  const LaunchResult r = launch(m, "coverage", cfg);
  ASSERT_TRUE(r.ok) << r.failure.message;
  float best = -1e30f;
  for (int i = 0; i < n; ++i) {
    const size_t k = static_cast<size_t>(i);
    const float s = in[4 * k] + in[4 * k + 1] + in[4 * k + 2] + in[4 * k + 3] + static_cast<float>(bytes[k]);
    ASSERT_EQ(out[2 * k], s) << i;
    ASSERT_EQ(out[2 * k + 1], std::clamp(s * 0.01f, 0.0f, 1.0f)) << i;
    best = std::max(best, s);
  }
  EXPECT_EQ(fmax_out[0], best);
  EXPECT_EQ(imax[0], static_cast<int>(best));
  for (int w = 0; w < 8; ++w) EXPECT_EQ(masks[static_cast<size_t>(w)], 0xffffffffu) << w;  // reconverged
}

TEST(SimCoverage, FastMathTemplatePassesItsCheck) {
  REQUIRE_NVRTC();
  run_vector_formula(true, 777, 128);
}

}  // namespace
}  // namespace bs::sim::test
