// matmul_emu_test.cpp: the real kernel source (gpu/matmul/matmul_kernels.cuh) run on the CPU through a tiny
// CUDA stand-in (cuda_emu/cuda_runtime.h): every hand-written variant against the float64 reference at
// awkward sizes, on a NaN-filled C, on machines without a GPU. Catches wrong indices, missing edge guards and
// a thread that skips a __syncthreads (the barrier would hang: the test has a watchdog), and, for the
// cp.async kernels, a wrong commit/wait count (the stand-in lands each copy only when a wait allows it, so a
// buffer read too early holds stale data). Not a substitute for the GPU tests.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <string>
#include <limits>
#include <thread>
#include <vector>

#include "gpu/matmul/matmul.h"
#include "gpu/matmul/matmul_kernels.cuh"

namespace bs::matmul {
namespace {

// Runs `fn` over the grid with one std::thread per CUDA thread of a block; the same threads then step through
// the blocks one after another, a barrier between blocks (no thread leaves a block early in these kernels
// before its last __syncthreads, so every thread passes the same barriers).
void emulate(kernels::KernelFn fn, const LaunchShape& s, const float* a, const float* b, float* c,
             const Problem& p) {
  blockDim = {static_cast<unsigned>(s.block.x), static_cast<unsigned>(s.block.y), 1};
  gridDim = {static_cast<unsigned>(s.grid.x), static_cast<unsigned>(s.grid.y), 1};
  const int threads = static_cast<int>(s.block.count());
  std::barrier<> bar(threads);
  bs_emu_barrier = &bar;
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      threadIdx = {static_cast<unsigned>(t % s.block.x), static_cast<unsigned>(t / s.block.x), 1};
      for (unsigned by = 0; by < gridDim.y; ++by)
        for (unsigned bx = 0; bx < gridDim.x; ++bx) {
          blockIdx = {bx, by, 1};
          fn(a, b, c, static_cast<int>(p.m), static_cast<int>(p.n), static_cast<int>(p.k));
          bar.arrive_and_wait();  // the block is done before anyone starts the next (shared memory is reused)
        }
    });
  for (auto& th : pool)
    th.join();
}

class MatmulEmu : public ::testing::TestWithParam<Problem> {};

TEST_P(MatmulEmu, HandWrittenKernelsMatchReference) {
  const Problem p = GetParam();
  const auto a = make_matrix(p.m, p.k, 31), b = make_matrix(p.k, p.n, 32);
  const auto ref = reference_cpu(a, b, p);
  const bool vec = p.k % 4 == 0 && p.n % 4 == 0;  // as GpuRunner picks the float4 flavour
  for (const auto& vi : gpu_variants()) {
    // auto's kernels take dynamic shared memory, which the stand-in lacks; they share async_tile's body
    // (tested here through async_pipe) and are checked per config and split on the GPU.
    if (vi.id == Variant::Cublas || vi.id == Variant::Auto) continue;
    const kernels::KernelFn fn = kernels::kernel_for(vi.id, vec);
    ASSERT_NE(fn, nullptr) << vi.name << " has no kernel in kernels::kernel_for";
    std::vector<float> c(p.c_count(), std::numeric_limits<float>::quiet_NaN());
    // A thread that skips a barrier would hang the block: run under a watchdog.
    auto done = std::async(std::launch::async,
                           [&] { emulate(fn, launch_shape(vi.id, p), a.data(), b.data(), c.data(), p); });
    ASSERT_EQ(done.wait_for(std::chrono::seconds(120)), std::future_status::ready)
        << vi.name << " hung (a thread skipped __syncthreads?)";
    // Tolerance: see matmul::tolerance (8 * 2^-24 * sqrt(K)).
    const CheckResult r = check_result(c, ref, p.k, "float64 CPU");
    EXPECT_TRUE(r.pass) << vi.name << " at " << to_string(p) << (vec ? " (float4 path)" : " (scalar path)")
                        << ": " << r.summary();
  }
}

// An auto kernel over grid (x, y, slices) with `threads` std::threads per block, as emulate() above. Split
// runs that fold (auto_folds) sum their slices in the kernel, as on the GPU: the stand-in runs the slices of
// a tile in z order, so the last block is always slice `slices - 1` (one of the GPU's arrival orders); the
// others' partial products (out + z * slice) are summed on the host in slice order, as splitk_reduce does.
// `b` holds B with row stride `ldb` (the tile kernels' padded copy where N is not a multiple of 4).
std::vector<float> emulate_auto(kernels::AutoKernelFn fn, const AutoChoice& ch, const Problem& p,
                                const std::vector<float>& a, const std::vector<float>& b, int ldb) {
  const AutoConfigInfo& ci = auto_configs()[static_cast<size_t>(ch.config)];
  const LaunchShape s = launch_shape(ch, p);
  const int slices = auto_slices(ch, p);
  const bool fold = slices > 1 && auto_folds(ch, p);
  const size_t mn = p.c_count(), slice = kernels::auto_slice_floats(p);  // as the runner lays out the workspace
  std::vector<float> out(slice * static_cast<size_t>(slices), std::numeric_limits<float>::quiet_NaN());
  std::vector<float> c(mn, std::numeric_limits<float>::quiet_NaN());
  std::vector<unsigned> counters(static_cast<size_t>(s.grid.x * s.grid.y), 0u);
  const kernels::AutoArgs args =
      kernels::auto_args(ch, p, a.data(), b.data(), ldb, out.data(), c.data(), fold ? counters.data() : nullptr);
  blockDim = {static_cast<unsigned>(ci.threads), 1, 1};
  gridDim = {static_cast<unsigned>(s.grid.x), static_cast<unsigned>(s.grid.y), static_cast<unsigned>(slices)};
  std::barrier<> bar(ci.threads);
  bs_emu_barrier = &bar;
  std::vector<std::thread> pool;
  for (int t = 0; t < ci.threads; ++t)
    pool.emplace_back([&, t] {
      threadIdx = {static_cast<unsigned>(t), 0, 0};
      for (unsigned bz = 0; bz < gridDim.z; ++bz)
        for (unsigned by = 0; by < gridDim.y; ++by)
          for (unsigned bx = 0; bx < gridDim.x; ++bx) {
            blockIdx = {bx, by, bz};
            fn(args);
            bar.arrive_and_wait();
          }
    });
  for (auto& th : pool)
    th.join();
  // Every last block set its counter back to 0 for the next launch.
  for (const unsigned n : counters)
    EXPECT_EQ(n, 0u) << to_string(ch) << " at " << to_string(p) << ": a tile counter was left set";
  if (fold || slices == 1)
    return slices == 1 ? std::vector<float>(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(mn)) : c;
  c.assign(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(mn));
  for (int z = 1; z < slices; ++z)
    for (size_t i = 0; i < mn; ++i)
      c[i] += out[static_cast<size_t>(z) * slice + i];
  return c;
}

// auto's matrix-vector kernels (skinny_m, skinny_n: warp shuffles, shared-memory partials, clamped rows and
// columns), both flavours, unsplit and in 3 slices (summed in the kernel: the fold; skinny_n's slices are
// also capped at its shared-memory stage), at sizes with partial blocks and, for the 4-byte flavour, odd K
// and N.
TEST(MatmulEmuAuto, SkinnyKernelsMatchReference) {
  const Problem shapes[] = {{1, 37, 300},  {3, 68, 261},  {8, 33, 1030}, {5, 200, 132},
                            {70, 1, 300},  {45, 3, 261},  {33, 8, 2052}, {300, 6, 133}};
  int runs = 0;
  for (const Problem& p : shapes) {
    const auto a = make_matrix(p.m, p.k, 41), b = make_matrix(p.k, p.n, 42);
    const auto ref = reference_cpu(a, b, p);
    for (size_t ci = 0; ci < auto_configs().size(); ++ci) {
      const AutoConfigInfo& info = auto_configs()[ci];
      if (info.kind == AutoKind::Tile || !auto_fits(info, p)) continue;
      for (const int split : {1, 3}) {
        const AutoChoice ch{static_cast<int>(ci), split, 1, 0};
        const bool f4 = auto_float4(info, p);
        const kernels::AutoKernelFn fn = kernels::auto_kernel_for(ch.config, f4);
        ASSERT_NE(fn, nullptr) << info.name;
        std::vector<float> c;
        auto done =
            std::async(std::launch::async, [&] { c = emulate_auto(fn, ch, p, a, b, static_cast<int>(p.n)); });
        ASSERT_EQ(done.wait_for(std::chrono::seconds(120)), std::future_status::ready) << info.name << " hung";
        const CheckResult r = check_result(c, ref, p.k, "float64 CPU");
        EXPECT_TRUE(r.pass) << to_string(ch) << " at " << to_string(p) << (f4 ? " (float4)" : " (4-byte loads)")
                            << ": " << r.summary();
        ++runs;
      }
    }
  }
  EXPECT_GE(runs, 8 * 2 * 2) << "every shape ran its fitting skinny configs";
}

// auto's tile kernels (the cp.async pipeline over a k-slice, B read in 16-byte copies: from B where N is a
// multiple of 4, else from its copy with padded rows; C stored as float4s, resp. floats), unsplit and in 3
// slices (summed on the host as splitk_reduce does), at sizes with partial tiles on every edge.
TEST(MatmulEmuAuto, TileKernelsMatchReference) {
  const Problem shapes[] = {{70, 36, 300}, {67, 33, 261}};
  const char* names[] = {"64x64x16", "128x128x32s2", "128x64x8"};
  for (const Problem& p : shapes) {
    const auto a = make_matrix(p.m, p.k, 43), b = make_matrix(p.k, p.n, 44);
    const auto ref = reference_cpu(a, b, p);
    // B with rows padded to a multiple of 4 floats, zeros past N (the runner's pad_rows).
    const int ldb = static_cast<int>((p.n + 3) / 4 * 4);
    std::vector<float> bp(static_cast<size_t>(p.k) * static_cast<size_t>(ldb), 0.0f);
    for (int64_t r = 0; r < p.k; ++r)
      for (int64_t j = 0; j < p.n; ++j)
        bp[static_cast<size_t>(r * ldb + j)] = b[static_cast<size_t>(r * p.n + j)];
    for (const char* name : names) {
      int config = 0;
      while (std::string(auto_configs()[static_cast<size_t>(config)].name) != name)
        ++config;
      for (const int split : {1, 3}) {
        const AutoChoice ch{config, split, 1, 0};
        const int slices = auto_slices(ch, p);
        ASSERT_EQ(slices, split) << name << " at " << to_string(p);
        EXPECT_FALSE(auto_folds(ch, p)) << name << ": the tile configs add their slices in splitk_reduce";
        const kernels::AutoKernelFn fn = kernels::auto_kernel_for(config, p.n % 4 == 0);
        std::vector<float> c;
        auto done = std::async(std::launch::async, [&] { c = emulate_auto(fn, ch, p, a, bp, ldb); });
        ASSERT_EQ(done.wait_for(std::chrono::seconds(300)), std::future_status::ready) << name << " hung";
        const CheckResult r = check_result(c, ref, p.k, "float64 CPU");
        EXPECT_TRUE(r.pass) << to_string(ch) << " at " << to_string(p) << ": " << r.summary();
      }
    }
  }
}

std::string size_name(const ::testing::TestParamInfo<Problem>& info) {
  std::string s = "m";
  s += std::to_string(info.param.m);
  s += "_n";
  s += std::to_string(info.param.n);
  s += "_k";
  s += std::to_string(info.param.k);
  return s;
}

// Scalar path (odd K or N): 1x1x1, 33x65x17, 131x67x259. Float4 path with partial tiles on every edge and a
// partial last k-step: 196x132x68, 129x68x20, 130x8x12.
INSTANTIATE_TEST_SUITE_P(Sizes, MatmulEmu,
                         ::testing::Values(Problem{1, 1, 1}, Problem{33, 65, 17}, Problem{131, 67, 259},
                                           Problem{196, 132, 68}, Problem{129, 68, 20}, Problem{130, 8, 12}),
                         size_name);

}  // namespace
}  // namespace bs::matmul
