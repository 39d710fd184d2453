// sim_gpu_test.cpp (GPU; skips without a device): the same NVRTC-compiled kernel run on the GPU and in the
// simulator on copies of the same inputs gives bit-identical buffers (the templates, the memory lab's kernels,
// warp shuffles and votes, divergent loops, shared memory, atomics with exact results, rounding modes, calls,
// local arrays, doubles);
// the approximate instructions (-use_fast_math, __expf, __sinf, ...) agree within twice the bounds the
// simulator states (ApproxBounds, sim.h).
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>

#include "gpu/kernel/contracts.h"
#include "gpu/kernel/kernel_runner.h"
#include "builtin_kernels.h"
#include "gpu/counters/counters.h"
#include "sim_kernels.h"
#include "sim_util.h"
#include "test_util.h"

namespace bs::sim::test {
namespace {

struct Both {
  std::vector<std::vector<uint8_t>> gpu, sim;
  Module module;  // what the simulator ran (result's per-instruction counts index it)
  LaunchResult result;
};

// Runs kernel `name` of `src` for `cfg` (its buffers hold the inputs) on the GPU and in the simulator, each on a
// copy of the buffers.
// `around`, when given, is handed the GPU launch to run (the counters test collects CUPTI's counters around it).
Both run_both(const std::string& src, const std::string& name, const LaunchConfig& cfg, bool fast_math = false,
              const std::function<void(const std::function<void()>&)>& around = {}) {
  Both out;
  kernel::CompileRequest req;
  req.source = src;
  req.options.fast_math = fast_math;
  const DeviceInfo& dev = bs::test::device();
  req.arch = dev.cc_major * 10 + dev.cc_minor;
  kernel::CompileResult cr = kernel::compile_kernel(req);
  EXPECT_TRUE(cr.ok()) << cr.message << cr.log;
  if (!cr.ok()) return out;
  cr.lowered_name = name;  // extern "C": the PTX name is the source name
  cr.kernel_name = name;
  // the simulator
  out.module = parse_ptx(cr.ptx);
  const Module& m = out.module;
  LaunchConfig sc = cfg;
  for (size_t i = 0; i < cfg.buffers.size(); ++i) {
    const auto* p = static_cast<const uint8_t*>(cfg.buffers[i].data);
    out.sim.emplace_back(p, p + cfg.buffers[i].bytes);
    out.gpu.emplace_back(p, p + cfg.buffers[i].bytes);
    sc.buffers[i].data = out.sim.back().data();
  }
  out.result = launch(m, name, sc);
  EXPECT_TRUE(out.result.ok) << out.result.failure.message;
  // the GPU
  const kernel::LoadedKernel k(cr);
  std::vector<void*> dev_ptrs(cfg.buffers.size(), nullptr);
  for (size_t i = 0; i < cfg.buffers.size(); ++i) {
    EXPECT_EQ(cudaMalloc(&dev_ptrs[i], std::max<size_t>(1, cfg.buffers[i].bytes)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(dev_ptrs[i], out.gpu[i].data(), cfg.buffers[i].bytes, cudaMemcpyHostToDevice), cudaSuccess);
  }
  std::vector<std::vector<uint8_t>> scalars;
  std::vector<void*> args;
  scalars.reserve(cfg.args.size());
  for (const Arg& a : cfg.args) {
    if (a.buffer >= 0) {
      scalars.emplace_back(sizeof(void*));
      std::memcpy(scalars.back().data(), &dev_ptrs[static_cast<size_t>(a.buffer)], sizeof(void*));
    } else {
      scalars.push_back(a.bytes);
    }
    args.push_back(scalars.back().data());
  }
  const std::function<void()> gpu_launch = [&] {
    k.launch(Dim2{cfg.grid.x, cfg.grid.y}, Dim2{cfg.block.x, cfg.block.y}, args.data(), nullptr,
             cfg.dynamic_shared_bytes);
  };
  if (around)
    around(gpu_launch);
  else
    gpu_launch();
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (size_t i = 0; i < cfg.buffers.size(); ++i) {
    EXPECT_EQ(cudaMemcpy(out.gpu[i].data(), dev_ptrs[i], cfg.buffers[i].bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    cudaFree(dev_ptrs[i]);
  }
  return out;
}

void expect_identical(const Both& b, const LaunchConfig& cfg) {
  ASSERT_EQ(b.gpu.size(), b.sim.size());
  for (size_t i = 0; i < b.gpu.size(); ++i) {
    if (b.gpu[i] == b.sim[i]) continue;
    const uint32_t eb = cfg.buffers[i].elem_bytes;
    for (size_t k = 0; k + eb <= b.gpu[i].size(); k += eb)
      if (std::memcmp(&b.gpu[i][k], &b.sim[i][k], eb) != 0) {
        uint64_t g = 0, s = 0;
        std::memcpy(&g, &b.gpu[i][k], std::min<size_t>(eb, 8));
        std::memcpy(&s, &b.sim[i][k], std::min<size_t>(eb, 8));
        ADD_FAILURE() << "buffer '" << cfg.buffers[i].name << "' element " << k / eb << ": GPU 0x" << std::hex << g
                      << ", simulator 0x" << s;
        return;
      }
  }
}

std::string tmpl(const char* id) { return std::string(kernel::template_source(*kernel::find_template(id))); }

std::vector<float> noise(size_t n, float scale, float offset) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::sin(0.7f * static_cast<float>(i) + 0.3f) * scale + offset;
  return v;
}

TEST(SimVsGpu, TemplatesAreBitIdentical) {
  BS_REQUIRE_GPU();
  REQUIRE_NVRTC();
  for (bool fast : {false, true}) {
    SCOPED_TRACE(fast ? "-use_fast_math" : "default options");
    {  // vector
      const int64_t n = 100003;
      std::vector<float> a = noise(static_cast<size_t>(n), 3.0f, 1.0f), b = noise(static_cast<size_t>(n), 2.0f, -0.5f),
                         c(static_cast<size_t>(n), NAN);
      LaunchConfig cfg;
      cfg.grid = dim(static_cast<uint32_t>((n + 255) / 256));
      cfg.block = dim(256);
      cfg.buffers = {buffer("a", a), buffer("b", b), buffer("c", c, true)};
      cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::pointer(2), Arg::value<long long>(n)};
      expect_identical(run_both(tmpl("vector"), "vector_op", cfg, fast), cfg);
    }
    for (const char* id : {"heat", "heat-tutorial"}) {
      SCOPED_TRACE(id);
      const int nx = 301, ny = 203;
      std::vector<float> in = noise(static_cast<size_t>(nx) * ny, 40.0f, 20.0f), out(in.size(), NAN);
      LaunchConfig cfg;
      cfg.block = dim(32, 8);
      cfg.grid = dim((nx + 31) / 32, (ny + 7) / 8);
      cfg.buffers = {buffer("in", in), buffer("out", out, true)};
      cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::value(nx), Arg::value(ny), Arg::value(0.2f),
                  Arg::value(1.5f), Arg::value(1)};
      expect_identical(run_both(tmpl(id), "heat_step", cfg, fast), cfg);
    }
    for (const char* id : {"matmul", "matmul-tiled"}) {
      SCOPED_TRACE(id);
      const int M = 77, N = 65, K = 93;
      std::vector<float> A = noise(static_cast<size_t>(M) * K, 1.0f, 0.1f), B = noise(static_cast<size_t>(K) * N, 1.0f, -0.2f),
                         C(static_cast<size_t>(M) * N, NAN);
      LaunchConfig cfg;
      cfg.block = dim(16, 16);
      cfg.grid = dim((N + 15) / 16, (M + 15) / 16);
      cfg.buffers = {buffer("A", A), buffer("B", B), buffer("C", C, true)};
      cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::pointer(2), Arg::value(M), Arg::value(N), Arg::value(K)};
      expect_identical(run_both(tmpl(id), "matmul", cfg, fast), cfg);
    }
  }
}


TEST(SimVsGpu, WarpSharedAndAtomicKernelsAreBitIdentical) {
  BS_REQUIRE_GPU();
  REQUIRE_NVRTC();
  const int n = 1000;
  {
    std::vector<int> in = ints(n), out(1, 0), ballots(3 * 32, -7);
    LaunchConfig cfg;
    cfg.grid = dim(8);
    cfg.block = dim(128);
    cfg.buffers = {buffer("in", in), buffer("out", out), buffer("ballots", ballots)};
    cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::pointer(2), Arg::value(n)};
    expect_identical(run_both(k_warp_kernels, "warp_sum", cfg), cfg);
  }
  for (const char* name : {"xor_bcast", "divergent", "block_sum"}) {
    SCOPED_TRACE(name);
    std::vector<int> in = ints(n), out(2 * static_cast<size_t>(n), -1);
    LaunchConfig cfg;
    cfg.grid = dim(8);
    cfg.block = dim(128);
    cfg.buffers = {buffer("in", in), buffer("out", out)};
    cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::value(n)};
    expect_identical(run_both(k_warp_kernels, name, cfg), cfg);
  }
  {
    std::vector<int> in = ints(100003);
    std::vector<unsigned> bins(16, 0);
    LaunchConfig cfg;
    cfg.grid = dim(13);
    cfg.block = dim(96);
    cfg.buffers = {buffer("in", in), buffer("bins", bins)};
    cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::value(100003)};
    expect_identical(run_both(k_warp_kernels, "histogram", cfg), cfg);
  }
}

TEST(SimVsGpu, RoundingModesCallsLocalArraysAndDoublesAreBitIdentical) {
  BS_REQUIRE_GPU();
  REQUIRE_NVRTC();
  const int n = 333;
  {
    std::vector<float> a(n), b(n), out(12 * static_cast<size_t>(n));
    std::vector<int> iout(2 * static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      a[static_cast<size_t>(i)] = std::ldexp(1.0f + 0.0137f * i, (i % 9) - 4) * (i % 3 ? 1.0f : -1.0f);
      b[static_cast<size_t>(i)] = std::ldexp(1.3f + 0.0071f * i, (i % 7) - 3);
      iout[2 * static_cast<size_t>(i)] = i * 991;
    }
    LaunchConfig cfg;
    cfg.grid = dim(3);
    cfg.block = dim(128);
    cfg.buffers = {buffer("a", a), buffer("b", b), buffer("out", out), buffer("iout", iout)};
    cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::pointer(2), Arg::pointer(3), Arg::value(n)};
    expect_identical(run_both(k_exact_float, "exact", cfg), cfg);
  }
  {
    std::vector<float> in = noise(101, 3.0f, 0.0f), out(101);
    std::vector<double> dout(101);
    std::vector<long long> lout(101);
    LaunchConfig cfg;
    cfg.grid = dim(2);
    cfg.block = dim(64);
    cfg.buffers = {buffer("in", in), buffer("out", out), buffer("dout", dout), buffer("lout", lout)};
    cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::pointer(2), Arg::pointer(3), Arg::value(101)};
    expect_identical(run_both(k_misc, "misc", cfg), cfg);
  }
}

TEST(SimVsGpu, VectorLoadsBytesCasLoopsAtomicMaxSyncwarpActivemaskAreBitIdentical) {
  BS_REQUIRE_GPU();
  REQUIRE_NVRTC();
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
  cfg.buffers = {buffer("in4", in), buffer("bytes", bytes), buffer("out", out), buffer("fmax", fmax_out),
                 buffer("imax", imax), buffer("masks", masks)};
  cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::pointer(2), Arg::pointer(3), Arg::pointer(4), Arg::pointer(5),
              Arg::value(n)};
  expect_identical(run_both(k_coverage, "coverage", cfg), cfg);
}

const char* k_approx = R"(
extern "C" __global__ void approx(const float* x, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = x[i];
  out[6 * i] = __expf(v);            // ex2.approx
  out[6 * i + 1] = __log2f(fabsf(v) + 0.5f);
  out[6 * i + 2] = __sinf(v);
  out[6 * i + 3] = __cosf(v);
  out[6 * i + 4] = rsqrtf(fabsf(v) + 0.5f);
  out[6 * i + 5] = __fdividef(v, 1.5f + fabsf(v));
}
)";

TEST(SimVsGpu, ApproximateInstructionsAgreeWithinTwiceTheStatedBounds) {
  BS_REQUIRE_GPU();
  REQUIRE_NVRTC();
  const int n = 1000;
  std::vector<float> x(n), out(6 * static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) x[static_cast<size_t>(i)] = -3.1f + 6.2f * static_cast<float>(i) / n;
  LaunchConfig cfg;
  cfg.grid = dim(4);
  cfg.block = dim(256);
  cfg.buffers = {buffer("x", x), buffer("out", out)};
  cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::value(n)};
  const Both b = run_both(k_approx, "approx", cfg);
  ASSERT_EQ(b.gpu.size(), 2u);
  const float* g = reinterpret_cast<const float*>(b.gpu[1].data());
  const float* s = reinterpret_cast<const float*>(b.sim[1].data());
  for (size_t k = 0; k < out.size(); ++k) {
    const double tol = 2 * std::max(ApproxBounds::sin_cos_abs, 8 * ApproxBounds::rsqrt_rel * std::abs(double(s[k])));
    ASSERT_NEAR(g[k], s[k], tol) << "element " << k << " (function " << k % 6 << ")";
  }
}

// The memory lab's own kernels (memory_kernels.cuh through NVRTC, builtin_kernels.h): the GPU's output equals
// the simulator's bit for bit, and both the lab's CPU reference.
TEST(SimVsGpu, TheMemoryLabsKernelsAreBitIdentical) {
  BS_REQUIRE_GPU();
  REQUIRE_NVRTC();
  const std::string src = memory_source();
  const Module m = module_of(src);
  for (BuiltinCase& c : memory_cases()) {
    SCOPED_TRACE(c.label);
    const std::string entry = entry_named(m, {c.entry_parts[0]});
    ASSERT_FALSE(entry.empty()) << "no .entry named like " << c.entry_parts[0];
    const Both b = run_both(src, entry, c.cfg);
    expect_identical(b, c.cfg);
    ASSERT_EQ(b.gpu.size(), 2u);
    std::vector<float> gpu_out(b.gpu[1].size() / sizeof(float));
    std::memcpy(gpu_out.data(), b.gpu[1].data(), b.gpu[1].size());
    const memory::Check k = memory::compare(gpu_out, c.want, c.rel_tol);
    EXPECT_TRUE(k.passed) << k.text;
  }
}

// The reduction lab's kernels (reduce_bodies.cuh through NVRTC, builtin_kernels.h), int32 and float: every
// launch's buffers on the GPU equal the simulator's bit for bit (float sums in the GPU's own order).
template <class T>
void expect_reduce_identical(const std::string& src, const Module& m) {
  std::vector<BuiltinCase> cases;
  for (const LadderKernel& k : k_ladder) cases.push_back(ladder_case<T>(k, 10007));
  for (bool blelloch : {false, true})
    for (bool exclusive : {false, true}) cases.push_back(block_scan_case<T>(blelloch, blelloch ? 300 : 200, exclusive));
  for (bool transpose : {false, true}) cases.push_back(tile_scan_case<T>(20011, 128, true, transpose));
  cases.push_back(add_offsets_case<T>(reduce_input<T>(20011), 128, reduce_input<T>(5)));
  for (BuiltinCase& c : cases) {
    SCOPED_TRACE(c.label);
    const std::string entry = entry_named(m, {c.entry_parts[0]});
    ASSERT_FALSE(entry.empty()) << "no .entry named like " << c.entry_parts[0];
    expect_identical(run_both(src, entry, c.cfg), c.cfg);
  }
}

TEST(SimVsGpu, TheReduceLabsKernelsAreBitIdentical) {
  BS_REQUIRE_GPU();
  REQUIRE_NVRTC();
  const std::string src = reduce_source();
  const Module m = module_of(src);
  expect_reduce_identical<int32_t>(src, m);
  expect_reduce_identical<float>(src, m);
}

// The decoupled look-back scan (libcu++'s cuda::atomic_ref through NVRTC; blocks spin on each other's flags):
// int32, inclusive and exclusive, with and without the transposed load, at a size that is not a multiple of
// the tile: the GPU's output equals the simulator's bit for bit and both the lab's reference (the states and the
// tile counter too: every tile's flag P, its inclusive prefix, all tiles handed out). Float sums depend on how
// far each tile looked back, a matter of timing on the GPU, so only int32 is compared bit for bit.
TEST(SimVsGpu, TheLookbackScanIsBitIdentical) {
  BS_REQUIRE_GPU();
  REQUIRE_NVRTC();
  const std::string src = lookback_source();
  const Module m = module_of(src);
  for (bool exclusive : {false, true})
    for (bool transpose : {false, true}) {
      BuiltinCase c = lookback_case<int32_t>(70001, 128, exclusive, transpose);
      SCOPED_TRACE(c.label);
      const std::string entry = entry_named(m, {c.entry_parts[0]});
      ASSERT_FALSE(entry.empty());
      const Both b = run_both(src, entry, c.cfg);
      expect_identical(b, c.cfg);
      ASSERT_EQ(b.gpu.size(), 4u);
      std::vector<int32_t> out(b.gpu[1].size() / 4);
      std::memcpy(out.data(), b.gpu[1].data(), b.gpu[1].size());
      const reduce::Check chk =
          reduce::check_scan(out, exclusive ? reduce::ScanKind::Exclusive : reduce::ScanKind::Inclusive);
      EXPECT_TRUE(chk.passed) << chk.text;
    }
}

// Model vs measured: the simulator's memory counts equal CUPTI's counters on the GPU to the unit, for the memory
// lab's launches (transposes, strides, particles, banks at strides 1, 2, 8, 31, 32 plain and padded) and the
// reduction lab's (int32; their shared loads and stores, 16-byte ones in the transposed tile scan):
// - global load / store requests and sectors (L1TEX), as they equal the lab's access model (sim_builtin_tests);
// - shared memory: executed warp instructions (smsp__sass_inst_executed_op_shared_ld|st: SASS's count leaves out
//   instructions whose every thread is predicated off, which smsp__inst_executed_op_shared_* counts), wavefronts
//   as the SM counts them per executed instruction (smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld|
//   st) and so bank conflicts = wavefronts - instructions, the simulator's definition.
// L1TEX's own conflict counter (l1tex__data_bank_conflicts_...) counts wavefronts beyond each access's ideal (a
// 16-byte access's 4 are not conflicts there) and on Hopper also collisions with global traffic in flight
// (docs/PERFORMANCE.md): for the memory lab's 4-byte accesses it is held to at least the simulator's and at most
// half a wavefront per shared request more (+64). Each launch's numbers are printed. Skips where CUPTI cannot
// profile (no permission, MIG, ...).
void expect_counts_match(const std::string& src, std::vector<BuiltinCase> cases, bool l1tex_bound,
                         bool* sm_wavefronts) {
  const Module m = module_of(src);
  for (BuiltinCase& c : cases) {
    SCOPED_TRACE(c.label);
    const std::string entry = entry_named(m, {c.entry_parts[0]});
    ASSERT_FALSE(entry.empty());
    counters::Result measured;
    const Both b = run_both(src, entry, c.cfg, false,
                            [&](const std::function<void()>& launch) { measured = counters::collect(launch); });
    if (measured.status == counters::Status::NotAllowed || measured.status == counters::Status::Unsupported)
      GTEST_SKIP() << "CUPTI cannot profile here: " << measured.message;
    ASSERT_TRUE(measured.ok()) << measured.message;
    const MemoryCounts sim = memory_counts(b.module, b.result);
    const counters::Values& v = measured.values;
    const auto num = [](const std::optional<double>& x) { return x ? static_cast<long long>(*x + 0.5) : -1LL; };
    std::printf("%-34s sim/gpu: global ld %llu/%lld st %llu/%lld sectors; shared ld instr %llu/%lld wavefronts "
                "%llu/%lld, st instr %llu/%lld wavefronts %llu/%lld, conflicts %llu/%lld (L1TEX counter %lld)\n",
                c.label.c_str(), static_cast<unsigned long long>(sim.ld_sectors), num(v.ld_sectors),
                static_cast<unsigned long long>(sim.st_sectors), num(v.st_sectors),
                static_cast<unsigned long long>(sim.shared_ld_requests), num(v.shared_ld_instructions),
                static_cast<unsigned long long>(sim.shared_ld_wavefronts), num(v.shared_ld_wavefronts_sm),
                static_cast<unsigned long long>(sim.shared_st_requests), num(v.shared_st_instructions),
                static_cast<unsigned long long>(sim.shared_st_wavefronts), num(v.shared_st_wavefronts_sm),
                static_cast<unsigned long long>(sim.shared_ld_conflicts + sim.shared_st_conflicts),
                num(v.shared_wavefront_conflicts()),
                num(v.shared_ld_conflicts) + num(v.shared_st_conflicts));
    const auto expect = [](const std::optional<double>& gpu, uint64_t simulated, const char* what) {
      if (!gpu) return;  // not offered by this GPU
      EXPECT_EQ(static_cast<uint64_t>(*gpu + 0.5), simulated) << what;
    };
    expect(v.ld_requests, sim.ld_requests, "global load requests");
    expect(v.ld_sectors, sim.ld_sectors, "global load sectors");
    expect(v.st_requests, sim.st_requests, "global store requests");
    expect(v.st_sectors, sim.st_sectors, "global store sectors");
    expect(v.shared_ld_instructions, sim.shared_ld_requests, "shared load instructions");
    expect(v.shared_st_instructions, sim.shared_st_requests, "shared store instructions");
    if (v.shared_ld_wavefronts_sm && v.shared_st_wavefronts_sm) {
      expect(v.shared_ld_wavefronts_sm, sim.shared_ld_wavefronts, "shared load wavefronts (SM)");
      expect(v.shared_st_wavefronts_sm, sim.shared_st_wavefronts, "shared store wavefronts (SM)");
      expect(v.shared_wavefront_conflicts(), sim.shared_ld_conflicts + sim.shared_st_conflicts,
             "bank conflicts = wavefronts - instructions");
    } else {
      *sm_wavefronts = false;
    }
    if (!l1tex_bound) continue;
    const auto at_least = [](const std::optional<double>& gpu, uint64_t simulated, uint64_t requests,
                             const char* what) {
      if (!gpu) return;
      const auto measured = static_cast<uint64_t>(*gpu + 0.5);
      EXPECT_GE(measured, simulated) << what;
      EXPECT_LE(measured, simulated + requests / 2 + 64) << what << ": simulated " << simulated;
    };
    at_least(v.shared_ld_conflicts, sim.shared_ld_conflicts, sim.shared_ld_requests, "L1TEX shared load conflicts");
    at_least(v.shared_st_conflicts, sim.shared_st_conflicts, sim.shared_st_requests, "L1TEX shared store conflicts");
    at_least(v.shared_ld_wavefronts, sim.shared_ld_wavefronts, sim.shared_ld_requests, "L1TEX shared load wavefronts");
    at_least(v.shared_st_wavefronts, sim.shared_st_wavefronts, sim.shared_st_requests,
             "L1TEX shared store wavefronts");
  }
}

TEST(SimVsGpu, TheMemoryLabsCountsMatchCuptisCounters) {
  BS_REQUIRE_GPU();
  REQUIRE_NVRTC();
  std::string why;
  if (!counters::cupti_available(&why)) GTEST_SKIP() << "no CUPTI: " << why;
  bool sm_wavefronts = true;
  expect_counts_match(memory_source(), memory_cases(), true, &sm_wavefronts);
  if (IsSkipped() || HasFatalFailure()) return;
  std::vector<BuiltinCase> reduce;
  for (const LadderKernel& k : k_ladder) reduce.push_back(ladder_case<int32_t>(k, 10007));
  for (bool blelloch : {false, true}) reduce.push_back(block_scan_case<int32_t>(blelloch, blelloch ? 300 : 200, false));
  for (bool transpose : {false, true}) reduce.push_back(tile_scan_case<int32_t>(20011, 128, true, transpose));
  expect_counts_match(reduce_source(), std::move(reduce), false, &sm_wavefronts);
  EXPECT_TRUE(sm_wavefronts)
      << "this GPU's CUPTI does not offer smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld|st: the "
         "shared wavefronts and bank conflicts could not be compared to the unit";
}

}  // namespace
}  // namespace bs::sim::test
