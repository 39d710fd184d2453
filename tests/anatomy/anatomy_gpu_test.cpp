// anatomy_gpu_test.cpp: the occupancy model against cudaOccupancyMaxActiveBlocksPerMultiprocessor on the real
// device, and the instrumented stencil's block record (every block once, SM ids in range, start <= end, no SM
// holding more blocks at once than occupancy allows). GPU tests skip with the reason where no device exists;
// the tests that need no device check the error paths.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gpu/anatomy/anatomy.h"
#include "gpu/heat/heat_anatomy.h"
#include "gpu/matmul/matmul_anatomy.h"
#include "core/error.h"
#include "gpu/matmul/matmul.h"
#include "test_util.h"

namespace bs::anatomy {
namespace {

TEST(AnatomyNoGpu, RecordingWithoutADeviceSaysWhy) {
  if (test::device().available) GTEST_SKIP() << "a CUDA device is present; this test covers its absence";
  try {
    (void)record_heat_blocks({});
    FAIL() << "expected bs::GpuError";
  } catch (const GpuError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("no CUDA device: ", 0), 0u) << e.what();
  }
  EXPECT_THROW((void)device_arch(), GpuError);
  EXPECT_THROW((void)kernel_attributes("heat"), GpuError);
}

TEST(AnatomyNoGpu, BadRequestsAreRejectedBeforeTheDeviceIsNeeded) {
  HeatRecordRequest too_many;
  too_many.nx = too_many.ny = 8192;
  too_many.block = {1, 1};  // 67M blocks: more than the record holds
  EXPECT_THROW((void)record_heat_blocks(too_many), InvalidRequest);
  HeatRecordRequest bad_block;
  bad_block.block = {64, 32};  // 2048 threads
  EXPECT_THROW((void)record_heat_blocks(bad_block), InvalidRequest);
  HeatRecordRequest empty;
  empty.nx = 0;
  EXPECT_THROW((void)record_heat_blocks(empty), InvalidRequest);
}

TEST(AnatomyGpu, TableEntryMatchesTheDevice) {
  BS_REQUIRE_GPU();
  const ArchSpec a = device_arch();
  std::cout << "[ info ] " << describe_arch(a) << "\n";
  if (!find_arch(a.name)) GTEST_SKIP() << a.name << " is not in the table (" << arch_names() << ")";
  // device_arch() notes every field where the device disagrees with the table.
  EXPECT_EQ(a.note.find("differs"), std::string::npos) << a.note;
}

// No device needed: the labs' anatomy kernels are queryable by name because each lab registers its own
// (gpu/heat/heat_anatomy.cu, gpu/matmul/matmul_anatomy.cu) next to the test kernels of gpu/anatomy.
TEST(AnatomyKernels, TheLabsRegisterTheirKernelsByName) {
  const std::vector<std::string> names = kernel_names();
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "heat");  // the labs' kernels in name order first: `occupancy --kernel`'s default
  for (const char* k : {"heat", "heat_c8", "heat_instrumented", "heat_instrumented_c4",
                        "matmul_naive_uncoalesced_instrumented", "matmul_smem_tile32_instrumented", "demo_regs",
                        "demo_smem_static", "demo_smem_dynamic"})
    EXPECT_NE(std::find(names.begin(), names.end(), k), names.end()) << k;
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());  // each name once
  EXPECT_EQ(names.back(), "demo_smem_dynamic");  // the test kernels last
}

TEST(AnatomyGpu, DemoKernelsUseDifferentResources) {
  BS_REQUIRE_GPU();
  for (const auto& name : kernel_names()) {
    const KernelAttributes k = kernel_attributes(name);
    std::cout << "[ info ] kernel " << name << ": " << k.regs_per_thread << " regs/thread, " << k.static_smem
              << " B static smem, " << k.local_bytes << " B local, max " << k.max_threads_per_block
              << " threads/block, binary sm_" << k.binary_version << "\n";
  }
  const KernelAttributes heat = kernel_attributes("heat");
  EXPECT_GT(kernel_attributes("demo_regs").regs_per_thread, heat.regs_per_thread + 16);
  EXPECT_EQ(kernel_attributes("demo_smem_static").static_smem, 40 * 1024);
  EXPECT_EQ(kernel_attributes("demo_smem_dynamic").static_smem, 0);
  EXPECT_THROW((void)kernel_attributes("no_such_kernel"), InvalidRequest);
}

TEST(AnatomyGpu, ModelAgreesWithCudaOccupancyAtEveryBlockSize) {
  BS_REQUIRE_GPU();
  const ArchSpec arch = device_arch();
  if (!find_arch(arch.name))
    std::cout << "[ info ] " << arch.name << " is not in the table; comparing with assumed granularities\n";
  // Kernel, dynamic shared memory: the stencils, many registers, 40 KiB static shared memory, and dynamic
  // shared memory below and above the default 48 KiB (the latter opts in, as the model assumes).
  const std::pair<const char*, int64_t> cases[] = {
      {"heat", 0},
      {"heat_instrumented", 0},
      {"heat", 20000},
      {"demo_regs", 0},
      {"demo_smem_static", 0},
      {"demo_smem_static", 6000},
      {"demo_smem_dynamic", 0},
      {"demo_smem_dynamic", 10 * 1024},
      {"demo_smem_dynamic", 70 * 1024},
  };
  // Every multiple of 32 up to the kernel's limit, plus sizes with a partial last warp.
  std::vector<int> sizes;
  for (int t = 32; t <= 1024; t += 32)
    sizes.push_back(t);
  for (int t : {1, 48, 100, 200, 333, 999})
    sizes.push_back(t);
  int compared = 0, differ = 0;
  for (const auto& [kernel, dyn] : cases) {
    const KernelAttributes k = kernel_attributes(kernel);
    for (int t : sizes) {
      if (t > k.max_threads_per_block)
        continue;  // the kernel cannot launch that many; the model is not asked
      const DeviceOccupancy d = device_occupancy(kernel, t, dyn);
      ++compared;
      if (!d.agrees()) {
        ++differ;
        ADD_FAILURE() << kernel << " (" << k.regs_per_thread << " regs, " << k.static_smem << " B static, "
                      << dyn << " B dynamic) at " << t << " threads: model " << d.model.blocks_per_sm
                      << " blocks/SM ("
                      << "warps " << d.model.limit_warps << ", regs " << d.model.limit_regs << ", smem "
                      << d.model.limit_smem << " with " << d.model.smem_per_block << " B/block in a "
                      << d.model.smem_config << " B carve-out, blocks " << d.model.limit_blocks
                      << "), cudaOccupancyMaxActiveBlocksPerMultiprocessor " << d.runtime_blocks_per_sm;
      }
    }
  }
  std::cout << "[ info ] model vs cudaOccupancyMaxActiveBlocksPerMultiprocessor on " << arch.name << ": "
            << compared << " configurations compared, " << differ << " differ\n";
  EXPECT_GT(compared, 200);
}

// Peak number of blocks resident at once on one SM, from half-open [start, end) intervals. Timer quantisation
// floors both ends, so it can hide overlap but never invent it: the peak is a lower bound of the truth.
int peak_concurrency(const SmLane& lane) {
  std::vector<std::pair<int64_t, int>> events;
  for (const auto& b : lane.blocks) {
    events.push_back({b.start_ns, +1});
    events.push_back({b.end_ns, -1});
  }
  std::sort(events.begin(), events.end());  // at equal times, ends (-1) before starts (+1)
  int cur = 0, peak = 0;
  for (const auto& e : events)
    peak = std::max(peak, cur += e.second);
  return peak;
}

void check_record(int64_t nx, int64_t ny, Dim2 block) {
  SCOPED_TRACE(std::to_string(nx) + "x" + std::to_string(ny) + " block " + to_string(block));
  HeatRecordRequest req;
  req.nx = nx;
  req.ny = ny;
  req.block = block;
  const HeatRecord r = record_heat_blocks(req);
  const Dim2 grid = covering_grid(block, {nx, ny});
  ASSERT_EQ(r.grid, grid);
  // Every block appears exactly once.
  EXPECT_EQ(static_cast<int64_t>(r.appended), grid.count());
  ASSERT_EQ(static_cast<int64_t>(r.blocks.size()), grid.count());
  std::set<std::pair<uint32_t, uint32_t>> seen;
  for (const auto& b : r.blocks) {
    EXPECT_LT(b.block_x, grid.x);
    EXPECT_LT(b.block_y, grid.y);
    EXPECT_TRUE(seen.insert({b.block_x, b.block_y}).second)
        << "block (" << b.block_x << ", " << b.block_y << ") recorded twice";
    EXPECT_LT(b.sm, static_cast<uint32_t>(r.sm_count)) << "SM id out of range; %nsmid = " << r.nsmid;
    EXPECT_LE(b.start_ns, b.end_ns);
    EXPECT_GT(b.start_ns, 0u);
  }
  EXPECT_EQ(static_cast<int64_t>(seen.size()), grid.count());
  // The runtime's resident-block count is what the timeline uses; the model must agree with it.
  EXPECT_EQ(r.model.blocks_per_sm, r.runtime_blocks_per_sm);
  ASSERT_GT(r.runtime_blocks_per_sm, 0);
  const Timeline t = build_timeline(r.blocks, r.sm_count, r.runtime_blocks_per_sm);
  // The busiest SM ran at least the average, so observed waves can never be fewer than predicted.
  EXPECT_GE(t.observed_waves, t.predicted_waves);
  int peak = 0;
  for (const auto& lane : t.lanes)
    peak = std::max(peak, peak_concurrency(lane));
  EXPECT_LE(peak, r.runtime_blocks_per_sm) << "more blocks at once on one SM than occupancy allows";
  // The per-cell SM and run-time maps accept the record.
  EXPECT_NO_THROW((void)cell_values(CellMode::SmId, nx, ny, block, grid, r.blocks));
  std::cout << "[ info ] " << nx << "x" << ny << " block " << to_string(block) << ": " << grid.count()
            << " blocks on " << r.sm_count << " SMs (%nsmid " << r.nsmid << "), " << r.runtime_blocks_per_sm
            << " resident/SM (" << r.regs_per_thread << " regs); waves predicted " << t.predicted_waves
            << ", observed " << t.observed_waves << "; blocks/SM " << t.min_blocks_on_sm << ".."
            << t.max_blocks_on_sm << ", idle SMs " << t.idle_sms << "; span " << t.span_ns
            << " ns, median block " << t.median_block_ns << " ns, timer step " << t.timer_tick_ns
            << " ns, peak blocks at once on one SM " << peak << "\n";
}

TEST(AnatomyGpu, RecordHoldsEveryBlockOnceWithValidSmsAndTimes) {
  BS_REQUIRE_GPU();
  check_record(1000, 777, {32, 8});  // neither dimension a multiple of the block
  check_record(333, 200, {24, 5});   // 120 threads: a partial last warp
  check_record(2048, 2048, {16, 16});
  check_record(37, 21, {16, 8});  // fewer blocks than SMs: most SMs idle
}

// Every block of an instrumented matmul launch exactly once, SM ids in range, start <= end; for every
// instrumented variant, on a size that is not a multiple of any tile.
TEST(AnatomyGpu, MatmulRecordHasEveryBlockOnce) {
  BS_REQUIRE_GPU();
  for (const auto& v : instrumented_matmul_variants()) {
    MatmulRecordRequest req;
    req.m = 1000;
    req.n = 777;
    req.k = 129;
    req.variant = v;
    const MatmulRecord r = record_matmul_blocks(req);
    const matmul::LaunchShape s = matmul::launch_shape(*matmul::parse_variant(v), {req.m, req.n, req.k});
    EXPECT_EQ(r.grid, s.grid) << v;
    EXPECT_EQ(static_cast<int64_t>(r.appended), r.grid.count()) << v;
    ASSERT_EQ(static_cast<int64_t>(r.blocks.size()), r.grid.count()) << v;
    std::set<std::pair<uint32_t, uint32_t>> seen;
    for (const auto& b : r.blocks) {
      EXPECT_LT(b.block_x, static_cast<uint32_t>(r.grid.x)) << v;
      EXPECT_LT(b.block_y, static_cast<uint32_t>(r.grid.y)) << v;
      EXPECT_LT(b.sm, static_cast<uint32_t>(r.sm_count)) << v;
      EXPECT_LE(b.start_ns, b.end_ns) << v;
      EXPECT_TRUE(seen.insert({b.block_x, b.block_y}).second) << v << ": block recorded twice";
    }
    EXPECT_EQ(r.model.blocks_per_sm, r.runtime_blocks_per_sm) << v << ": model vs CUDA API";
    const Timeline t = build_timeline(r.blocks, r.sm_count, std::max(r.runtime_blocks_per_sm, 1));
    std::cout << "[ info ] " << v << ": " << r.grid.count() << " blocks, " << r.regs_per_thread << " regs, "
              << r.static_smem << " B smem, " << r.runtime_blocks_per_sm << " resident/SM; waves predicted "
              << t.predicted_waves << ", observed " << t.observed_waves << ", idle SMs " << t.idle_sms
              << "\n";
  }
}

TEST(AnatomyGpu, HeatRecordWithCoarseningCoversBlockXByBlockYTimesCells) {
  BS_REQUIRE_GPU();
  HeatRecordRequest req;
  req.nx = 1000;
  req.ny = 333;
  req.block = {64, 4};
  req.cells_per_thread = 4;  // a block covers 64 x 16 cells: grid 16 x 21
  const HeatRecord r = record_heat_blocks(req);
  EXPECT_EQ(r.grid, (Dim2{16, 21}));
  EXPECT_EQ(static_cast<int64_t>(r.blocks.size()), r.grid.count());
  EXPECT_EQ(r.model.blocks_per_sm, r.runtime_blocks_per_sm);
  for (const auto& b : r.blocks)
    EXPECT_LT(b.sm, static_cast<uint32_t>(r.sm_count));
}

// The occupancy model against cudaOccupancyMaxActiveBlocksPerMultiprocessor for every matmul kernel the lab
// launches (their registers and static shared memory from cudaFuncGetAttributes, no dynamic shared memory).
TEST(AnatomyGpu, OccupancyModelMatchesTheCudaApiForMatmulKernels) {
  BS_REQUIRE_GPU();
  const ArchSpec arch = device_arch();
  matmul::GpuRunner runner(matmul::Problem{256, 256, 256});
  for (const auto& vi : matmul::gpu_variants()) {
    const matmul::KernelAttributes a = runner.attributes(vi.id);
    if (!a.known) continue;  // cuBLAS
    KernelUsage u;
    u.threads_per_block = static_cast<int>(runner.launch(vi.id).block.count());
    u.regs_per_thread = a.regs_per_thread;
    u.static_smem = static_cast<int64_t>(a.static_smem_bytes);
    const Occupancy o = compute_occupancy(arch, u);
    std::cout << "[ info ] " << vi.name << ": " << u.threads_per_block << " threads, " << u.regs_per_thread
              << " regs, " << u.static_smem << " B smem -> model " << o.blocks_per_sm << ", CUDA API "
              << a.blocks_per_sm << " blocks/SM (" << limiter_label(o.limiter) << ")\n";
    EXPECT_EQ(o.blocks_per_sm, a.blocks_per_sm) << vi.name;
  }
  // And the instrumented copies, through this lab's own query.
  for (const auto& v : instrumented_matmul_variants()) {
    const std::string name = "matmul_" + v + "_instrumented";
    const int threads =
        static_cast<int>(matmul::launch_shape(*matmul::parse_variant(v), {256, 256, 256}).block.count());
    const DeviceOccupancy d = device_occupancy(name, threads);
    EXPECT_TRUE(d.agrees()) << name << ": model " << d.model.blocks_per_sm << ", API "
                            << d.runtime_blocks_per_sm;
  }
}

TEST(AnatomyNoGpu, MatmulRecordRejectsBadRequestsFirst) {
  MatmulRecordRequest req;
  req.variant = "warptile";
  EXPECT_THROW((void)record_matmul_blocks(req), InvalidRequest);
  req.variant = "smem_tile32";
  req.m = 0;
  EXPECT_THROW((void)record_matmul_blocks(req), InvalidRequest);
  req.m = 8192;
  req.n = 8192;
  req.variant = "smem_tile8";  // 1024 x 1024 blocks: more than the record holds
  EXPECT_THROW((void)record_matmul_blocks(req), InvalidRequest);
}

}  // namespace
}  // namespace bs::anatomy
