// sim_ptx_test.cpp: hand-written PTX for edge semantics (NaN and signed zeros in min/max, saturating cvt,
// shifts past the width, bit-field ops, division by zero), the parser's errors, and hostile input: unsupported
// instructions, endless loops, huge shared memory, huge launches, recursion, printf; each a clear message, never a
// crash.
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <random>

#include "sim/trace.h"
#include "gpu/kernel/contracts.h"
#include "sim_util.h"

namespace bs::sim::test {
namespace {

// A one-thread kernel `k(u64 out)` whose body stores 32-bit results at out[0..].
std::string one_thread(const std::string& body, int regs = 16) {
  return ".version 8.0\n.target sm_90\n.address_size 64\n"
         ".visible .entry k(.param .u64 out)\n{\n"
         "  .reg .pred %p<8>;\n  .reg .b32 %r<" + std::to_string(regs) + ">;\n  .reg .f32 %f<16>;\n"
         "  .reg .b64 %rd<8>;\n  .reg .f64 %fd<4>;\n"
         "  ld.param.u64 %rd1, [out];\n  cvta.to.global.u64 %rd1, %rd1;\n" + body + "  ret;\n}\n";
}

std::vector<uint32_t> run_one(const std::string& ptx, size_t words = 16) {
  const Module m = parse_ptx(ptx);
  std::vector<uint32_t> out(words, 0xdeadbeefu);
  LaunchConfig cfg;
  cfg.buffers = {buffer("out", out)};
  cfg.args = {Arg::pointer(0)};
  const LaunchResult r = launch(m, "k", cfg);
  EXPECT_TRUE(r.ok) << r.failure.message;
  return out;
}

uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }

TEST(SimPtx, MinMaxNanAndSignedZeros) {
  const auto o = run_one(one_thread(R"(
  mov.f32 %f1, 0f7FC00000;    // NaN
  mov.f32 %f2, 0f40000000;    // 2
  min.f32 %f3, %f1, %f2;
  st.global.f32 [%rd1], %f3;
  max.f32 %f3, %f2, %f1;
  st.global.f32 [%rd1+4], %f3;
  mov.f32 %f4, 0f80000000;    // -0
  mov.f32 %f5, 0f00000000;    // +0
  min.f32 %f3, %f5, %f4;
  st.global.f32 [%rd1+8], %f3;
  max.f32 %f3, %f4, %f5;
  st.global.f32 [%rd1+12], %f3;
  add.f32 %f3, %f1, %f2;      // NaN in: the GPU's canonical NaN out
  st.global.f32 [%rd1+16], %f3;
  min.f32 %f3, %f1, %f1;
  st.global.f32 [%rd1+20], %f3;
)"));
  EXPECT_EQ(o[0], bits(2.0f));
  EXPECT_EQ(o[1], bits(2.0f));
  EXPECT_EQ(o[2], 0x80000000u);
  EXPECT_EQ(o[3], 0x00000000u);
  EXPECT_EQ(o[4], 0x7fffffffu);
  EXPECT_EQ(o[5], 0x7fffffffu);
}

TEST(SimPtx, SaturatingConversionsAndRoundingToIntegers) {
  const auto o = run_one(one_thread(R"(
  mov.f32 %f1, 0f7FC00000;      // NaN -> 0
  cvt.rzi.s32.f32 %r1, %f1;
  st.global.u32 [%rd1], %r1;
  mov.f32 %f1, 0f5F000000;      // 2^63 -> INT_MAX
  cvt.rzi.s32.f32 %r1, %f1;
  st.global.u32 [%rd1+4], %r1;
  mov.f32 %f1, 0fC2F60000;      // -123 -> u32: 0
  cvt.rni.u32.f32 %r1, %f1;
  st.global.u32 [%rd1+8], %r1;
  mov.f32 %f1, 0f40200000;      // 2.5 -> rni: 2 (ties to even), rpi: 3, rmi: 2
  cvt.rni.s32.f32 %r1, %f1;
  st.global.u32 [%rd1+12], %r1;
  cvt.rpi.s32.f32 %r1, %f1;
  st.global.u32 [%rd1+16], %r1;
  cvt.rmi.f32.f32 %f2, %f1;
  st.global.f32 [%rd1+20], %f2;
  mov.u32 %r2, 300;
  cvt.sat.u8.u32 %r3, %r2;      // 255... written as u8 into a 32-bit register
  st.global.u32 [%rd1+24], %r3;
  mov.u32 %r2, -5;
  cvt.s64.s32 %rd2, %r2;        // sign extension
  st.global.u32 [%rd1+28], %rd2;
  shr.u64 %rd3, %rd2, 32;
  st.global.u32 [%rd1+32], %rd3;
  mov.f32 %f1, 0f3F800001;      // 1 + 2^-23: to f16 rounds to 1
  cvt.rn.f16.f32 %r4, %f1;
  st.global.u32 [%rd1+36], %r4;
)"));
  EXPECT_EQ(o[0], 0u);
  EXPECT_EQ(o[1], 0x7fffffffu);
  EXPECT_EQ(o[2], 0u);
  EXPECT_EQ(o[3], 2u);
  EXPECT_EQ(o[4], 3u);
  EXPECT_EQ(o[5], bits(2.0f));
  EXPECT_EQ(o[6], 255u);
  EXPECT_EQ(o[7], 0xfffffffbu);
  EXPECT_EQ(o[8], 0xffffffffu);
  EXPECT_EQ(o[9], 0x3c00u);
}

// A signed load into a wider register is sign-extended to the register's width (PTX ISA, ld: "the value is
// sign-extended to the destination register width"), an unsigned one zero-extended. NVRTC loads an int into a
// long long this way (ld.global.s32 %rd), as in 20_scan's reference: the simulator kept 32 bits, so the sum of
// a positive and a negative int came out 2^32 too large (out[1]: 4294967434 where the H100 wrote 138).
TEST(SimPtx, SignedLoadsIntoWiderRegistersAreSignExtended) {
  const auto o = run_one(one_thread(R"(
  mov.u32 %r1, -138;
  st.global.u32 [%rd1], %r1;
  mov.u32 %r1, -7;
  st.global.u32 [%rd1+4], %r1;
  ld.global.s32 %rd2, [%rd1];       // -138 into 64 bits
  st.global.u64 [%rd1+8], %rd2;
  ld.global.u32 %rd3, [%rd1];       // unsigned: zero-extended
  st.global.u64 [%rd1+16], %rd3;
  ld.global.s8 %rd4, [%rd1+1];      // 0xFF: -1 into 64 bits
  st.global.u64 [%rd1+24], %rd4;
  ld.global.s16 %r2, [%rd1+2];      // 0xFFFF: -1 into a 32-bit register keeps 32 bits
  st.global.u32 [%rd1+32], %r2;
  ld.global.v2.s32 {%rd5, %rd6}, [%rd1];  // a vector load widens each element
  st.global.u64 [%rd1+40], %rd5;
  st.global.u64 [%rd1+48], %rd6;
  ld.global.s32 %r3, [%rd1];        // the same width: unchanged
  st.global.u32 [%rd1+56], %r3;
)"));
  const auto u64 = [&](size_t k) { return uint64_t{o[k]} | uint64_t{o[k + 1]} << 32; };
  EXPECT_EQ(u64(2), static_cast<uint64_t>(int64_t{-138}));
  EXPECT_EQ(u64(4), 0x00000000ffffff76ull);
  EXPECT_EQ(u64(6), ~0ull);
  EXPECT_EQ(o[8], 0xffffffffu);
  EXPECT_EQ(u64(10), static_cast<uint64_t>(int64_t{-138}));
  EXPECT_EQ(u64(12), static_cast<uint64_t>(int64_t{-7}));
  EXPECT_EQ(o[14], 0xffffff76u);
}

TEST(SimPtx, ShiftsBitFieldsPermutesAndDivisionByZeroDoNotCrash) {
  const auto o = run_one(one_thread(R"(
  mov.u32 %r1, -16;
  shr.s32 %r2, %r1, 40;         // past the width: sign fill
  st.global.u32 [%rd1], %r2;
  shl.b32 %r2, %r1, 33;         // past the width: 0
  st.global.u32 [%rd1+4], %r2;
  mov.u32 %r3, 0xF0F0;
  bfe.u32 %r4, %r3, 4, 8;       // 0x0F
  st.global.u32 [%rd1+8], %r4;
  bfe.s32 %r4, %r3, 4, 4;       // 0xF sign-extended: -1
  st.global.u32 [%rd1+12], %r4;
  bfi.b32 %r4, 5, %r3, 8, 4;    // insert 0101 at bit 8
  st.global.u32 [%rd1+16], %r4;
  mov.u32 %r5, 0x33221100;
  mov.u32 %r6, 0x77665544;
  prmt.b32 %r7, %r5, %r6, 0x7351;
  st.global.u32 [%rd1+20], %r7;
  mov.u32 %r8, 0;
  div.u32 %r9, %r3, %r8;        // no SIGFPE on the host
  st.global.u32 [%rd1+24], %r9;
  mov.u32 %r10, -2147483648;
  mov.u32 %r11, -1;
  div.s32 %r12, %r10, %r11;     // INT_MIN / -1: no SIGFPE either
  st.global.u32 [%rd1+28], %r12;
  rem.s32 %r12, %r10, %r11;
  st.global.u32 [%rd1+32], %r12;
  mul.hi.s32 %r13, %r10, %r10;  // 2^62 >> 32
  st.global.u32 [%rd1+36], %r13;
  clz.b32 %r14, %r8;
  st.global.u32 [%rd1+40], %r14;
  brev.b32 %r14, 1;
  st.global.u32 [%rd1+44], %r14;
)"));
  EXPECT_EQ(o[0], 0xffffffffu);
  EXPECT_EQ(o[1], 0u);
  EXPECT_EQ(o[2], 0x0fu);
  EXPECT_EQ(o[3], 0xffffffffu);
  EXPECT_EQ(o[4], 0xF5F0u);
  EXPECT_EQ(o[5], 0x77335511u);  // bytes 1, 5, 3, 7 of {b, a}
  EXPECT_EQ(o[6], 0xffffffffu);
  EXPECT_EQ(o[7], 0x80000000u);
  EXPECT_EQ(o[8], 0u);
  EXPECT_EQ(o[9], 0x40000000u);
  EXPECT_EQ(o[10], 32u);
  EXPECT_EQ(o[11], 0x80000000u);
}

// The approximate instructions against the exact function, within the bounds sim.h states (ApproxBounds).
TEST(SimPtx, ApproximateInstructionsStayWithinTheirStatedBounds) {
  std::string body;
  const float xs[] = {-3.1f, -1.0f, -0.2f, 0.3f, 0.7f, 1.0f, 1.9f, 3.0f};
  for (int i = 0; i < 8; ++i) {
    char line[1024];
    std::snprintf(line, sizeof line,
                  "  mov.f32 %%f1, 0f%08X;\n  abs.f32 %%f2, %%f1;\n"
                  "  ex2.approx.f32 %%f3, %%f1;\n  st.global.f32 [%%rd1+%d], %%f3;\n"
                  "  lg2.approx.f32 %%f3, %%f2;\n  st.global.f32 [%%rd1+%d], %%f3;\n"
                  "  sin.approx.f32 %%f3, %%f1;\n  st.global.f32 [%%rd1+%d], %%f3;\n"
                  "  cos.approx.f32 %%f3, %%f1;\n  st.global.f32 [%%rd1+%d], %%f3;\n"
                  "  rsqrt.approx.f32 %%f3, %%f2;\n  st.global.f32 [%%rd1+%d], %%f3;\n"
                  "  rcp.approx.f32 %%f3, %%f1;\n  st.global.f32 [%%rd1+%d], %%f3;\n"
                  "  tanh.approx.f32 %%f3, %%f1;\n  st.global.f32 [%%rd1+%d], %%f3;\n",
                  bits(xs[i]), 28 * i, 28 * i + 4, 28 * i + 8, 28 * i + 12, 28 * i + 16, 28 * i + 20, 28 * i + 24);
    body += line;
  }
  const auto o = run_one(one_thread(body), 7 * 8);
  auto f = [&](size_t k) { return std::bit_cast<float>(o[k]); };
  for (int i = 0; i < 8; ++i) {
    const double x = xs[i], ax = std::abs(x);
    const size_t k = 7 * static_cast<size_t>(i);
    const double e2 = std::exp2(x);
    EXPECT_LE(std::abs(f(k) - e2), ApproxBounds::ex2_ulp * std::ldexp(1.0, std::ilogb(e2) - 23)) << x;
    EXPECT_LE(std::abs(f(k + 1) - std::log2(ax)), ApproxBounds::lg2_abs) << x;
    EXPECT_LE(std::abs(f(k + 2) - std::sin(x)), ApproxBounds::sin_cos_abs) << x;
    EXPECT_LE(std::abs(f(k + 3) - std::cos(x)), ApproxBounds::sin_cos_abs) << x;
    EXPECT_LE(std::abs(f(k + 4) * std::sqrt(ax) - 1.0), ApproxBounds::rsqrt_rel) << x;
    EXPECT_LE(std::abs(f(k + 5) * x - 1.0), ApproxBounds::rcp_rel) << x;
    EXPECT_LE(std::abs(f(k + 6) - std::tanh(x)), ApproxBounds::tanh_rel * std::abs(std::tanh(x))) << x;
  }
}

// --- the parser -----------------------------------------------------------------------------------------
TEST(SimParse, ReadsTheTemplatesLinesAndSymbols) {
  REQUIRE_NVRTC();
  const Module m = module_of(std::string(kernel::template_source(*kernel::find_template("matmul-tiled"))));
  const Function* f = m.find("matmul");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(f->entry);
  EXPECT_EQ(f->params.size(), 6u);
  EXPECT_EQ(f->max_threads, 256u);
  EXPECT_EQ(f->shared_bytes, 2048u);
  bool has_bar = false;
  for (uint32_t pc = f->first; pc < f->end; ++pc) {
    EXPECT_NE(m.code[pc].op, Op::Unsupported) << m.text[pc];
    if (m.code[pc].op == Op::Bar) {
      has_bar = true;
      EXPECT_TRUE(m.code[pc].line == 21 || m.code[pc].line == 24) << m.where(pc);  // the __syncthreads() lines
      // NVRTC names the source with the working directory in front: ".../kernel.cu"
      EXPECT_NE(m.where(pc).find("kernel.cu:" + std::to_string(m.code[pc].line)), std::string::npos) << m.where(pc);
    }
  }
  EXPECT_TRUE(has_bar);
}

TEST(SimParse, MalformedPtxIsAnErrorNamingTheLine) {
  try {
    parse_ptx(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n  add.s32 %r1, %r2, 1;\n}\n");
    FAIL() << "no error";
  } catch (const PtxError& e) {
    EXPECT_NE(std::string(e.what()).find("PTX line 6"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("%r1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_ptx(".version 8.0\n.visible .entry k(\n"), PtxError);
  EXPECT_THROW(parse_ptx("garbage"), PtxError);
  const Module empty = parse_ptx("");
  LaunchConfig cfg;
  const LaunchResult r = launch(empty, "k", cfg);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.failure.message, "no kernel named 'k' in the PTX (kernels: none)");
}

// --- hostile input ----------------------------------------------------------------------------------------
TEST(SimHostile, UnsupportedInstructionIsOneMessageWithItsLine) {
  const std::string ptx = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
                          "  .reg .b64 %rd<4>;\n  .reg .b32 %r<4>;\n  .shared .align 16 .b8 s[64];\n"
                          "  .loc 1 7 3\n  ld.param.u64 %rd1, [p];\n  mov.u32 %r1, s;\n"
                          "  cp.async.ca.shared.global [%r1], [%rd1], 16;\n  ret;\n}\n.file 1 \"kernel.cu\"\n";
  const Module m = parse_ptx(ptx);
  std::vector<float> buf(4);
  LaunchConfig cfg;
  cfg.buffers = {buffer("p", buf)};
  cfg.args = {Arg::pointer(0)};
  const LaunchResult r = launch(m, "k", cfg);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.failure.message.find("kernel.cu:7: 'cp.async.ca.shared.global [%r1], [%rd1], 16;' is not supported"),
            std::string::npos)
      << r.failure.message;
}

TEST(SimHostile, EndlessLoopStopsWithTheThreadBlockAndLine) {
  REQUIRE_NVRTC();
  const Module m = module_of(R"(extern "C" __global__ void spin(int* flag) {
  while (flag[0] == 0) { }  // nobody ever sets it
})");
  std::vector<int> flag(1, 0);
  LaunchConfig cfg;
  cfg.grid = dim(3);
  cfg.block = dim(64);
  cfg.budget = 100000;
  cfg.buffers = {buffer("flag", flag)};
  cfg.args = {Arg::pointer(0)};
  const LaunchResult r = launch(m, "spin", cfg);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.failure.message.find("kernel.cu:2: ran 100000 instructions without finishing: an endless loop?"),
            std::string::npos)
      << r.failure.message;
  EXPECT_NE(r.failure.message.find("(thread (0, 0, 0), block ("), std::string::npos) << r.failure.message;
  EXPECT_TRUE(r.failure.has_thread);
  EXPECT_EQ(r.failure.line, 2);
}

// A spin on a flag in global memory that no block sets (a volatile load, as a hand-written look-back polls):
// while every running block waits, the wait counts against the budget and ends with its own message, on one
// host thread and on four, and never hangs.
TEST(SimHostile, ASpinOnAFlagNoBlockSetsStopsWithItsOwnMessage) {
  REQUIRE_NVRTC();
  const Module m = module_of(R"(extern "C" __global__ void wait_for(volatile int* flag, int* out) {
  while (flag[blockIdx.x + 1] == 0) { }  // block b waits for block b + 1, which waits too
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
})");
  for (int workers : {1, 4}) {
    SCOPED_TRACE(std::to_string(workers) + " host threads");
    std::vector<int> flag(8, 0), out(4 * 64, 0);
    LaunchConfig cfg;
    cfg.grid = dim(4);
    cfg.block = dim(64);
    cfg.budget = 100000;
    cfg.workers = workers;
    cfg.buffers = {buffer("flag", flag), buffer("out", out, true)};
    cfg.args = {Arg::pointer(0), Arg::pointer(1)};
    const LaunchResult r = launch(m, "wait_for", cfg);
    ASSERT_FALSE(r.ok);
    EXPECT_NE(r.failure.message.find("kernel.cu:2: waited 100000 instructions for a value in global memory that no "
                                     "running block changes"),
              std::string::npos)
        << r.failure.message;
  }
}

TEST(SimHostile, HugeSharedMemoryIsRefusedBeforeRunning) {
  REQUIRE_NVRTC();
  const Module m = module_of(R"(extern "C" __global__ void big(float* out) {
  extern __shared__ float s[];
  s[threadIdx.x] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
})");
  std::vector<float> out(32);
  LaunchConfig cfg;
  cfg.block = dim(32);
  cfg.dynamic_shared_bytes = 1u << 30;
  cfg.buffers = {buffer("out", out)};
  cfg.args = {Arg::pointer(0)};
  const LaunchResult r = launch(m, "big", cfg);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.failure.message.find("bytes of shared memory per block"), std::string::npos) << r.failure.message;
  cfg.dynamic_shared_bytes = 128;
  const LaunchResult ok = launch(m, "big", cfg);
  EXPECT_TRUE(ok.ok) << ok.failure.message;
  EXPECT_EQ(out[5], 1.0f);
}

// A launch's thread count is grid x block, up to 2^73 (x < 2^32, y and z < 2^16, 1024 per block): in 64 bits
// (1<<30, 32768, 32768) x 1024 wraps to 0 threads, which once sized the per-thread table to nothing while the
// blocks still ran. Huge launches are refused before anything is allocated or run, with the count.
TEST(SimHostile, HugeLaunchesAreRefusedBeforeAnythingRuns) {
  const Module m = parse_ptx(one_thread("  mov.u32 %r1, 7;\n  st.global.u32 [%rd1], %r1;\n"));
  std::vector<uint32_t> out(4, 0);
  LaunchConfig cfg;
  cfg.block = dim(1024);
  cfg.buffers = {buffer("out", out)};
  cfg.args = {Arg::pointer(0)};
  cfg.diagnostics = false;
  for (const Dim3 g : {dim(1u << 30, 32768, 32768), dim(0xFFFFFFFFu, 65535, 65535), dim(1u << 22, 1, 1)}) {
    cfg.grid = g;
    const auto t0 = std::chrono::steady_clock::now();
    const LaunchResult r = launch(m, "k", cfg);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0) << dim_text(g);
    ASSERT_FALSE(r.ok) << dim_text(g);
    EXPECT_NE(r.failure.message.find("threads: more than the simulator runs in one launch"), std::string::npos)
        << r.failure.message;
    EXPECT_EQ(out[0], 0u) << "nothing ran";
  }
  // Per-thread counts (a table of every thread) have their own, lower bound; without them the launch may be
  // larger. Both are only checked here, not run: 2^26 threads take minutes in the simulator.
  cfg.grid = dim((1u << 16) + 1);
  LaunchResult r = launch(m, "k", cfg);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.failure.message.find("per-thread counts"), std::string::npos) << r.failure.message;
  cfg.grid = dim(3);
  cfg.block = dim(32);
  r = launch(m, "k", cfg);
  EXPECT_TRUE(r.ok) << r.failure.message;
  EXPECT_EQ(out[0], 7u);
  EXPECT_EQ(r.threads.size(), 96u);
}

TEST(SimHostile, HugeVariablesAndRegisterFilesAreParseErrors) {
  try {
    parse_ptx(".version 8.0\n.target sm_90\n.address_size 64\n.global .align 4 .b8 big[4000000000];\n");
    FAIL() << "no error";
  } catch (const PtxError& e) {
    EXPECT_NE(std::string(e.what()).find("PTX line 4: variable 'big' has more than 1 GiB"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_ptx(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n"
                         "  .reg .b32 %r<99999999>;\n  ret;\n}\n"),
               PtxError);
}

// Hostile PTX: thousands of random mutations (characters, whole lines, numbers swapped for huge or odd ones) of
// a kernel with a loop, a branch, shared memory, a barrier and an atomic. The parser either reads each one or
// throws PtxError; what it reads runs (a small launch, a small budget) to the end or to a message, never a
// crash, a hang or another exception. Deterministic (fixed seed); under the sanitizers every access is checked.
const char* k_fuzz_ptx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 in, .param .u64 out, .param .u32 n)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<12>;
  .shared .align 4 .b8 sh[1024];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [n];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.s32 %r5, %r3, %r4, %r2;
  shl.b32 %r6, %r2, 2;
  mov.u32 %r7, sh;
  add.s32 %r8, %r7, %r6;
  setp.ge.s32 %p1, %r5, %r1;
  mov.f32 %f1, 0f00000000;
  mul.wide.s32 %rd3, %r5, 4;
  @%p1 bra SKIP;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f32 %f1, [%rd4];
SKIP:
  st.shared.f32 [%r8], %f1;
  bar.sync 0;
  ld.shared.f32 %f2, [%r8];
  mov.u32 %r9, 0;
LOOP:
  add.f32 %f2, %f2, 0f3F800000;
  add.s32 %r9, %r9, 1;
  setp.lt.u32 %p2, %r9, 4;
  @%p2 bra LOOP;
  @%p1 bra DONE;
  add.s64 %rd5, %rd2, %rd3;
  st.global.f32 [%rd5], %f2;
  atom.global.add.u32 %r10, [%rd2+400], 1;
DONE:
  ret;
}
)";

TEST(SimHostile, MutatedPtxParsesOrIsRefusedAndRunsOrStops) {
  const auto run = [](const Module& m, std::vector<float>& in, std::vector<float>& out) {
    LaunchConfig cfg;
    cfg.grid = dim(2);
    cfg.block = dim(64);
    cfg.budget = 20000;
    cfg.workers = 1;
    cfg.buffers = {buffer("in", in), buffer("out", out, true)};
    cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::value<uint32_t>(100)};
    return launch(m, "k", cfg);
  };
  {  // the unmutated kernel works: out[i] = in[i] + 4 below n, and the atomic counted the 100 threads
    std::vector<float> in(101), out(101, 0.0f);
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i) * 0.5f;
    const LaunchResult r = run(parse_ptx(k_fuzz_ptx), in, out);
    ASSERT_TRUE(r.ok) << r.failure.message;
    EXPECT_EQ(out[99], 99 * 0.5f + 4.0f);
    EXPECT_EQ(std::bit_cast<uint32_t>(out[100]), 100u);
  }
  const std::string alphabet = "%rfdp0123456789.,;:[]{}<>+-_ \n\tabcdegilmnostuvxy@!";
  const std::vector<std::string> numbers = {"0", "-1", "4294967295", "4294967296", "2147483648", "-2147483649",
                                            "99999999999999999999999", "0f7FC00000", "0d7FF0000000000000", "1e999",
                                            "0x", "0xFFFFFFFFFFFFFFFFFF", "1024", "65536"};
  std::mt19937 rng(32);
  int parsed = 0, refused = 0, ran = 0, stopped = 0;
  for (int i = 0; i < 4000; ++i) {
    std::string s = k_fuzz_ptx;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < edits; ++k) {
      const size_t at = rng() % s.size();
      switch (rng() % 5) {
        case 0: s[at] = alphabet[rng() % alphabet.size()]; break;
        case 1: s.erase(at, 1 + rng() % 12); break;
        case 2: s.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
        case 3: {  // a whole line repeated or dropped
          const size_t b = s.rfind('\n', at) == std::string::npos ? 0 : s.rfind('\n', at) + 1;
          const size_t e = s.find('\n', at) == std::string::npos ? s.size() : s.find('\n', at) + 1;
          const std::string line = s.substr(b, e - b);
          if (rng() % 2) s.insert(b, line);
          else s.erase(b, e - b);
          break;
        }
        default: {  // a number replaced by a hostile one
          const size_t d = s.find_first_of("0123456789", at);
          if (d == std::string::npos) break;
          const size_t e = s.find_first_not_of("0123456789abcdefABCDEFxX", d);
          s.replace(d, (e == std::string::npos ? s.size() : e) - d, numbers[rng() % numbers.size()]);
          break;
        }
      }
    }
    std::optional<Module> m;
    try {
      m.emplace(parse_ptx(s));
      ++parsed;
    } catch (const PtxError& e) {
      ++refused;
      EXPECT_NE(std::string(e.what()), "") << s;
      continue;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not a PtxError: " << e.what() << "\n" << s;
      continue;
    }
    std::vector<float> in(101, 1.0f), out(101, 0.0f);
    try {
      const LaunchResult r = run(*m, in, out);
      if (r.ok) {
        ++ran;
      } else {
        ++stopped;
        EXPECT_FALSE(r.failure.message.empty()) << s;
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << "launch threw: " << e.what() << "\n" << s;
    }
  }
  EXPECT_GT(refused, 1000);  // most mutations break the text
  EXPECT_GT(ran, 100);       // many land in numbers and registers and still run
  EXPECT_GT(stopped, 10);
  std::printf("mutated PTX: %d parsed (%d ran, %d stopped with a message), %d refused\n", parsed, ran, stopped,
              refused);
}

TEST(SimHostile, RecursionAndPrintfAreNamed) {
  REQUIRE_NVRTC();
  const Module m = module_of(R"(
__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }  // not a loop in disguise
extern "C" __global__ void rec(int* out) { out[threadIdx.x] = fib(threadIdx.x); }
extern "C" __global__ void say(int* out) { printf("hi %d\n", out[0]); }
)");
  std::vector<int> out(32);
  LaunchConfig cfg;
  cfg.block = dim(32);
  cfg.buffers = {buffer("out", out)};
  cfg.args = {Arg::pointer(0)};
  const LaunchResult r = launch(m, "rec", cfg);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.failure.message.find("is called recursively"), std::string::npos) << r.failure.message;
  const LaunchResult p = launch(m, "say", cfg);
  ASSERT_FALSE(p.ok);
  EXPECT_NE(p.failure.message.find("vprintf' (printf)"), std::string::npos) << p.failure.message;
}

TEST(SimHostile, BadLaunchesAreMessages) {
  REQUIRE_NVRTC();
  const Module m = module_of(std::string(kernel::template_source(*kernel::find_template("vector"))));
  std::vector<float> a(10);
  LaunchConfig cfg;
  cfg.block = dim(2048);
  cfg.buffers = {buffer("a", a)};
  cfg.args = {Arg::pointer(0), Arg::pointer(0), Arg::pointer(0), Arg::value<int64_t>(10)};
  EXPECT_NE(launch(m, "vector_op", cfg).failure.message.find("a block has at most 1024"), std::string::npos);
  cfg.block = dim(32);
  cfg.args.pop_back();
  EXPECT_EQ(launch(m, "vector_op", cfg).failure.message, "kernel 'vector_op' takes 4 arguments, given 3");
  cfg.args.push_back(Arg::value<int32_t>(10));
  EXPECT_NE(launch(m, "vector_op", cfg).failure.message.find("argument 3 has 4 bytes, but parameter"),
            std::string::npos);
  cfg.args.back() = Arg::pointer(7);
  EXPECT_NE(launch(m, "vector_op", cfg).failure.message.find("buffer 7, which does not exist"), std::string::npos);
}

}  // namespace
}  // namespace bs::sim::test
