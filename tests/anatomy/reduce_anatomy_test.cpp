// reduce_anatomy_test.cpp: the reduction lab's kernel anatomy. CPU: which block takes which element for every
// variant (against a brute-force walk of the kernels' index arithmetic, at sizes that are not multiples of
// the block), the launch shapes' shared memory, the occupancy they give (the tile scans included), and the
// array map's layout and colours. GPU (skips without a device): the instrumented record of every variant
// (every block once, SM ids in range, the look-back's tiles), the occupancy model against
// cudaOccupancyMaxActiveBlocksPerMultiprocessor for the lab's own kernels, and the block-size sweep.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <set>

#include "app/reduce/reduce_anatomy.h"
#include "core/cpu_job.h"
#include "core/error.h"
#include "gpu/reduce/reduce_anatomy.h"
#include "gpu/reduce/reduce.h"
#include "test_util.h"

namespace bs::anatomy {
namespace {

namespace red = reduce;

std::array<uint32_t, 256> grey_ramp() {
  std::array<uint32_t, 256> r{};
  for (uint32_t i = 0; i < 256; ++i)
    r[i] = 0xff000000u | (i << 16) | (i << 8) | i;
  return r;
}

std::vector<red::Params> every_variant(int64_t n, int block) {
  std::vector<red::Params> out;
  for (const red::ReduceVariant v : red::k_reduce_variant_names.values()) {
    red::Params p;
    p.op = red::Op::Reduce;
    p.n = n;
    p.block = block;
    p.reduce_variant = v;
    out.push_back(p);
  }
  for (const red::ScanVariant v : red::k_scan_variant_names.values()) {
    red::Params p;
    p.op = red::Op::Scan;
    p.n = n;
    p.block = block;
    p.scan_variant = v;
    out.push_back(p);
  }
  return out;
}

// Brute force: the block that reads each element, walking every thread of the first launch exactly as the
// kernels in gpu/reduce/reduce_kernels.cuh index (an element read twice fails).
std::vector<int64_t> owners_brute(const red::Params& p, int64_t grid) {
  const int64_t n = p.n, B = p.block;
  std::vector<int64_t> o(static_cast<size_t>(n), -1);
  auto take = [&](int64_t i, int64_t b) {
    if (i >= n) return;
    ASSERT_EQ(o[static_cast<size_t>(i)], -1) << "element " << i << " read twice";
    o[static_cast<size_t>(i)] = b;
  };
  using V = red::ReduceVariant;
  for (int64_t b = 0; b < grid; ++b)
    for (int64_t t = 0; t < B; ++t) {
      if (p.op == red::Op::Scan) {
        if (p.scan_variant == red::ScanVariant::HillisSteeleBlock) {
          take(t, b);
        } else if (p.scan_variant == red::ScanVariant::BlellochBlock) {
          take(t, b);
          take(t + B, b);
        } else {
          for (int k = 0; k < 32; ++k)  // tile b, thread t: 32 consecutive elements
            take(b * B * 32 + t * 32 + k, b);
        }
        continue;
      }
      switch (p.reduce_variant) {
        case V::InterleavedDivergent:
        case V::InterleavedBankConflicts:
        case V::Sequential:
          take(b * B + t, b);
          break;
        case V::FirstAddDuringLoad:
        case V::UnrollLastWarp:
        case V::CompleteUnroll:
          take(b * 2 * B + t, b);
          take(b * 2 * B + t + B, b);
          break;
        case V::GridStride:
          for (int64_t i = b * 2 * B + t; i < n; i += 2 * B * grid) {
            take(i, b);
            take(i + B, b);
          }
          break;
        case V::WarpShuffle:
        case V::AtomicPerBlock: {
          const int64_t stride = grid * B, n4 = n / 4;
          for (int64_t v = b * B + t; v < n4; v += stride)
            for (int k = 0; k < 4; ++k)
              take(4 * v + k, b);
          take(n4 * 4 + b * B + t, b);  // the scalar tail (i < n checked by take)
          break;
        }
        case V::Cub:
          break;
      }
    }
  return o;
}

TEST(ReduceAnatomy, EveryElementBelongsToTheBlockTheKernelsGiveIt) {
  for (const int64_t n : {int64_t{1}, int64_t{1000}, int64_t{100003}}) {
    for (const int block : {64, 256}) {
      for (const red::Params& p : every_variant(n, block)) {
        if (red::validate(p)) continue;  // single-block scans beyond one block
        const red::KernelShape s = reduce_launch_shape_model(p);
        const std::string what = red::describe(p);
        if (!is_instrumented_reduce(p)) {
          EXPECT_FALSE(s.known) << what;
          EXPECT_EQ(red::block_of_element(s, 0), -1) << what;
          continue;
        }
        ASSERT_TRUE(s.known) << what;
        EXPECT_EQ(s.threads, block) << what;
        const std::vector<int64_t> brute = owners_brute(p, s.grid);
        for (int64_t i = 0; i < n; ++i) {
          ASSERT_GE(brute[static_cast<size_t>(i)], 0) << what << ": element " << i << " read by no block";
          ASSERT_EQ(red::block_of_element(s, i), brute[static_cast<size_t>(i)]) << what << ": element " << i;
        }
      }
    }
  }
}

TEST(ReduceAnatomy, LaunchShapesMatchThePlanAndTheKernelsSharedMemory) {
  red::Params p;
  p.n = 1000003;
  p.block = 256;
  p.reduce_variant = red::ReduceVariant::Sequential;
  const int64_t optin = 227 * 1024;
  red::KernelShape s = red::first_kernel_shape(p, red::make_plan(p, 132, 8), optin);
  EXPECT_EQ(s.grid, (p.n + 255) / 256);
  EXPECT_EQ(s.dynamic_smem, 256 * 4);  // sdata: one value per thread
  EXPECT_EQ(s.static_smem, 0);
  p.reduce_variant = red::ReduceVariant::CompleteUnroll;
  s = red::first_kernel_shape(p, red::make_plan(p, 132, 8), optin);
  EXPECT_EQ(s.grid, (p.n + 511) / 512);  // two elements per thread
  EXPECT_EQ(s.static_smem, 256 * 4);
  EXPECT_EQ(s.dynamic_smem, 0);
  EXPECT_EQ(s.kernel, "k_complete_unroll<256>");
  p.reduce_variant = red::ReduceVariant::WarpShuffle;
  const red::LaunchPlan plan = red::make_plan(p, 132, 8);
  s = red::first_kernel_shape(p, plan, optin);
  EXPECT_EQ(s.grid, plan.grid);
  EXPECT_TRUE(s.grid_stride);
  EXPECT_EQ(s.static_smem, 32 * 4);  // one sum per warp
  p.op = red::Op::Scan;
  p.n = 1000;
  p.scan_variant = red::ScanVariant::BlellochBlock;
  p.block = 512;
  s = red::first_kernel_shape(p, red::make_plan(p, 132, 4), optin);
  EXPECT_EQ(s.grid, 1);
  EXPECT_EQ(s.dynamic_smem, (1024 + 32 + 1) * 4);  // m = 1024 values, one padding word per 32
  p.scan_variant = red::ScanVariant::HillisSteeleBlock;
  p.block = 1024;
  s = red::first_kernel_shape(p, red::make_plan(p, 132, 2), optin);
  EXPECT_EQ(s.dynamic_smem, 2 * 1024 * 4);  // double buffer
  // The tile scans: 256 x 32 elements as 16-byte words, one spare after every 8, fit the default 48 KiB;
  // 1024 threads need the opt-in, and without it they load directly (no buffer).
  p.n = int64_t{1} << 24;
  p.block = 256;
  p.scan_variant = red::ScanVariant::DecoupledLookback;
  s = red::first_kernel_shape(p, red::make_plan(p, 132, 8), optin);
  EXPECT_EQ(s.dynamic_smem, (2048 + 256 + 1) * 16);
  EXPECT_TRUE(s.transposed);
  EXPECT_EQ(s.static_smem, 32 * 4 + 8);
  EXPECT_EQ(s.grid, (p.n + 8191) / 8192);
  p.block = 1024;
  s = red::first_kernel_shape(p, red::make_plan(p, 132, 2), optin);
  EXPECT_EQ(s.dynamic_smem, red::tile_scan_smem_bytes(1024));
  EXPECT_EQ(red::tile_scan_smem_bytes(1024), (8192 + 1024 + 1) * 16);
  s = red::first_kernel_shape(p, red::make_plan(p, 132, 2), 48 * 1024);
  EXPECT_FALSE(s.transposed);
  EXPECT_EQ(s.dynamic_smem, 0);
}

// The occupancy read-out's model for every variant (sm_90, 32 registers): what limits it. The tile scans at
// 1024 threads hold 145 KiB of shared memory: one block per SM, limited by shared memory.
TEST(ReduceAnatomy, OccupancyOfEveryVariantAndWhatLimitsIt) {
  const ArchSpec arch = *find_arch("sm_90");
  for (const int block : {64, 128, 256, 512, 1024})
    for (const red::Params& p : every_variant(int64_t{1} << 20, block)) {
      if (red::validate(p) || !is_instrumented_reduce(p)) continue;
      const red::KernelShape s = reduce_launch_shape_model(p);
      KernelUsage u;
      u.threads_per_block = block;
      u.regs_per_thread = 32;
      u.static_smem = s.static_smem;
      u.dynamic_smem = s.dynamic_smem;
      const Occupancy o = compute_occupancy(arch, u);
      EXPECT_GE(o.blocks_per_sm, 1) << red::describe(p);
      EXPECT_LE(o.occupancy, 1.0) << red::describe(p);
      const bool tile = p.op == red::Op::Scan && (p.scan_variant == red::ScanVariant::DecoupledLookback ||
                                                  p.scan_variant == red::ScanVariant::ScanThenPropagate);
      if (tile && block == 1024) {
        EXPECT_EQ(o.blocks_per_sm, 1) << red::describe(p);
        EXPECT_EQ(o.limiter, Limiter::SharedMemory) << red::describe(p);
      }
      if (tile && block == 256) {
        // 36.9 KiB + 1 KiB reserved per block: 6 blocks in 228 KiB, 48 of 64 warps.
        EXPECT_EQ(o.blocks_per_sm, 6) << red::describe(p);
        EXPECT_EQ(o.limiter, Limiter::SharedMemory) << red::describe(p);
      }
      if (!tile && block == 256 && p.op == red::Op::Reduce) {
        EXPECT_EQ(o.blocks_per_sm, 8) << red::describe(p);  // 2048 threads / 256
        EXPECT_EQ(o.limiter, Limiter::Warps) << red::describe(p);
      }
    }
}

// The Anatomy window's occupancy panel counts the launch's dynamic shared memory (the tile scans' buffer).
TEST(ReduceAnatomy, OccupancyPanelModelCountsDynamicSharedMemory) {
  ui::OccupancyPanelModel o;
  o.threads = 1024;
  o.regs_per_thread = 32;
  o.static_smem = 136;
  o.dynamic_smem = red::tile_scan_smem_bytes(1024);  // 144 KiB
  ui::compute_occupancy_model(o, *find_arch("sm_90"));
  EXPECT_EQ(o.model.blocks_per_sm, 1);
  EXPECT_EQ(o.model.limiter, Limiter::SharedMemory);
  o.dynamic_smem = 0;
  ui::compute_occupancy_model(o, *find_arch("sm_90"));
  EXPECT_EQ(o.model.blocks_per_sm, 2);  // 2048 threads / 1024
}

TEST(ReduceAnatomy, ArrayLayoutWrapsTheStripAndMapsTexelsBackToChunks) {
  red::Params p;
  p.n = 100003;
  p.block = 256;
  p.reduce_variant = red::ReduceVariant::Sequential;
  red::KernelShape s = reduce_launch_shape_model(p);
  ArrayLayout l = array_layout(s, p.n);
  EXPECT_EQ(l.chunks, (p.n + 255) / 256);  // 391
  EXPECT_EQ(l.chunks_per_texel, 1);
  EXPECT_GE(l.cols * l.rows, l.chunks);
  EXPECT_LT((l.rows - 1) * l.cols, l.chunks);  // no empty last row
  EXPECT_GT(l.cols, l.rows);                   // a strip: wider than high
  EXPECT_EQ(chunk_at(l, 0, 0), 0);
  EXPECT_EQ(chunk_at(l, 1, 1), l.cols + 1);
  EXPECT_EQ(chunk_at(l, l.cols, 0), -1);
  const ElementRange last = chunk_elements(s, l, l.chunks - 1);
  EXPECT_EQ(last.first, (l.chunks - 1) * 256);
  EXPECT_EQ(last.last, p.n);
  // A small texel budget: several chunks per texel, the layout still covers the array.
  l = array_layout(s, p.n, 100);
  EXPECT_EQ(l.chunks_per_texel, 4);
  EXPECT_LE(l.cols * l.rows, 100 + l.cols);
  EXPECT_EQ(chunk_elements(s, l, 4).last - chunk_elements(s, l, 4).first, 4 * 256);
  // Grid-stride with a small grid: one column per block, one row per trip of the loop.
  p.reduce_variant = red::ReduceVariant::GridStride;
  s = red::first_kernel_shape(p, red::make_plan(p, 4, 2), 227 * 1024);  // 4 SMs x 2: 8 blocks
  ASSERT_EQ(s.grid, 8);
  l = array_layout(s, p.n);
  EXPECT_EQ(l.cols, 8);
  EXPECT_EQ(l.rows, (p.n + 511) / 512 / 8 + 1);
  for (int64_t row = 0; row < l.rows; ++row)
    for (int64_t col = 0; col < l.cols; ++col)
      if (const int64_t c = chunk_at(l, col, row); c >= 0) {
        EXPECT_EQ(red::block_of_element(s, c * s.chunk), col);
      }
  // A large grid (132 SMs x 8 = 1056 blocks): its largest divisor up to 512 columns, so that every column
  // holds the same blocks (c, c + 352, c + 704) row after row.
  p.n = int64_t{1} << 24;
  s = red::first_kernel_shape(p, red::make_plan(p, 132, 8), 227 * 1024);
  ASSERT_EQ(s.grid, 1056);
  l = array_layout(s, p.n);
  EXPECT_EQ(l.cols, 352);
  for (int64_t row = 0; row < 6; ++row)
    EXPECT_EQ(red::block_of_element(s, chunk_at(l, 5, row) * s.chunk), 5 + 352 * (row % 3));
  // CUB: nothing to lay out.
  p.reduce_variant = red::ReduceVariant::Cub;
  EXPECT_THROW((void)array_layout(reduce_launch_shape_model(p), p.n), InvalidRequest);
}

TEST(ReduceAnatomy, ArrayMapColoursBlocksAndNeedsARecordForSmAndTimes) {
  red::Params p;
  p.n = 1000;
  p.block = 64;
  p.reduce_variant = red::ReduceVariant::FirstAddDuringLoad;  // 128 elements per block: 8 blocks
  const red::KernelShape s = reduce_launch_shape_model(p);
  ASSERT_EQ(s.grid, 8);
  const auto ramp = grey_ramp();
  OverlayImage img = make_array_map(ArrayMapMode::Block, s, p.n, {}, ramp);
  ASSERT_TRUE(img.error.empty()) << img.error;
  ASSERT_EQ(img.w * img.h, static_cast<int>(img.rgba.size()));
  const ArrayLayout l = array_layout(s, p.n);
  for (int64_t row = 0; row < l.rows; ++row)
    for (int64_t col = 0; col < l.cols; ++col) {
      const uint32_t c = img.rgba[static_cast<size_t>(row * l.cols + col)];
      const int64_t chunk = chunk_at(l, col, row);
      if (chunk < 0)
        EXPECT_EQ(c, 0u) << "past the end: transparent";
      else
        EXPECT_EQ(c, categorical_palette()[static_cast<size_t>(chunk % img.period)]);
    }
  for (const ArrayMapMode m : {ArrayMapMode::Sm, ArrayMapMode::StartTime, ArrayMapMode::BlockTime}) {
    const OverlayImage e = make_array_map(m, s, p.n, {}, ramp);
    EXPECT_TRUE(e.rgba.empty());
    EXPECT_NE(e.error.find("needs a GPU"), std::string::npos) << e.error;
  }
  // A record: block b on SM 10 + b, starting at 1000 + 100 b ns, running 50 (b + 1) ns; block 5 missing.
  std::vector<BlockRecord> rec;
  for (uint32_t b = 0; b < 8; ++b)
    if (b != 5)
      rec.push_back({b, 0, 10 + b, 0, 1000 + 100 * uint64_t{b}, 1000 + 100 * uint64_t{b} + 50 * (b + 1)});
  img = make_array_map(ArrayMapMode::Sm, s, p.n, rec, ramp);
  ASSERT_TRUE(img.error.empty()) << img.error;
  auto texel_of_block = [&](const OverlayImage& im, int64_t b) {
    return im.rgba[static_cast<size_t>(b)];  // one chunk per block here, chunk index = texel index
  };
  EXPECT_EQ(texel_of_block(img, 0), categorical_palette()[10 % 12]);
  EXPECT_EQ(texel_of_block(img, 3), categorical_palette()[13 % 12]);
  EXPECT_EQ(texel_of_block(img, 5), 0xff000000u) << "a block missing from the record shows black";
  img = make_array_map(ArrayMapMode::StartTime, s, p.n, rec, ramp);
  EXPECT_DOUBLE_EQ(img.hi_us, 0.7);  // the last start, 700 ns after the first
  EXPECT_EQ(texel_of_block(img, 0), ramp[0]);
  EXPECT_EQ(texel_of_block(img, 7), ramp[255]);
  img = make_array_map(ArrayMapMode::BlockTime, s, p.n, rec, ramp);
  EXPECT_DOUBLE_EQ(img.lo_us, 0.05);
  EXPECT_DOUBLE_EQ(img.hi_us, 0.4);
  EXPECT_EQ(texel_of_block(img, 0), ramp[0]);
  EXPECT_EQ(texel_of_block(img, 7), ramp[255]);
}

TEST(ReduceAnatomy, WindowTargetsHaveAShapeExceptCub) {
  ReduceAnatomyTarget t;
  t.params.n = 1000;
  t.params.op = red::Op::Scan;
  t.params.scan_variant = red::ScanVariant::HillisSteeleBlock;
  t.params.block = 1024;
  auto s = t.array_launch(DeviceInfo{});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->grid, 1);
  EXPECT_FALSE(t.mapping());  // no 2-D field
  t.params.scan_variant = red::ScanVariant::Cub;
  EXPECT_FALSE(t.array_launch(DeviceInfo{}));
  t.params.scan_variant = red::ScanVariant::BlellochBlock;
  t.params.n = 5000;  // more than one block: not runnable, no shape
  EXPECT_FALSE(t.array_launch(DeviceInfo{}));
}

TEST(ReduceAnatomyNoGpu, RecordingWithoutADeviceSaysWhy) {
  if (test::device().available) GTEST_SKIP() << "a CUDA device is present; this test covers its absence";
  red::Params p;
  p.n = 1000;
  EXPECT_THROW((void)record_reduce_blocks(p), GpuError);
  EXPECT_THROW((void)reduce_device_occupancy(p), GpuError);
  p.reduce_variant = red::ReduceVariant::Cub;
  EXPECT_THROW((void)record_reduce_blocks(p), InvalidRequest);  // refused before looking for a device
}

// --- GPU --------------------------------------------------------------------------------------------------

void check_reduce_record(const red::Params& p) {
  const std::string what = red::describe(p);
  const ReduceRecord r = record_reduce_blocks(p);
  EXPECT_EQ(static_cast<int64_t>(r.appended), r.grid.count()) << what;
  ASSERT_EQ(static_cast<int64_t>(r.blocks.size()), r.grid.count()) << what;
  std::set<uint32_t> seen;
  for (const BlockRecord& b : r.blocks) {
    EXPECT_LT(b.block_x, static_cast<uint32_t>(r.grid.x)) << what;
    EXPECT_EQ(b.block_y, 0u) << what;
    EXPECT_LT(b.sm, static_cast<uint32_t>(r.sm_count)) << what;
    EXPECT_LE(b.start_ns, b.end_ns) << what;
    EXPECT_TRUE(seen.insert(b.block_x).second) << what << ": block (or tile) " << b.block_x << " twice";
  }
  EXPECT_EQ(r.model.blocks_per_sm, r.runtime_blocks_per_sm) << what << ": model vs CUDA API";
  // The map draws from this record without a missing block.
  const OverlayImage img = make_array_map(ArrayMapMode::Sm, r.shape, p.n, r.blocks, grey_ramp());
  ASSERT_TRUE(img.error.empty()) << what << ": " << img.error;
  for (const uint32_t c : img.rgba)
    EXPECT_NE(c, 0xff000000u) << what << ": a block missing from the map";
  const Timeline t = build_timeline(r.blocks, r.sm_count, std::max(r.runtime_blocks_per_sm, 1));
  std::cout << "[ info ] " << what << ": " << r.shape.kernel << ", " << r.grid.count() << " blocks, "
            << r.regs_per_thread << " regs (instrumented), " << r.runtime_blocks_per_sm
            << " resident/SM; waves predicted " << t.predicted_waves << ", observed " << t.observed_waves
            << ", idle SMs " << t.idle_sms << ", span " << t.span_ns << " ns\n";
}

TEST(ReduceAnatomyGpu, EveryInstrumentedVariantRecordsEveryBlockOnce) {
  BS_REQUIRE_GPU();
  // Under compute-sanitizer (BS_REDUCE_SMALL set, as for reduce_tests) a smaller array: racecheck runs
  // kernels many times slower, and its hazards show at any size spanning several blocks.
  const bool small = std::getenv("BS_REDUCE_SMALL") != nullptr;
  for (const red::ElemType type : {red::ElemType::F32, red::ElemType::I32})
    for (const int block : small ? std::vector<int>{256} : std::vector<int>{64, 256, 1024})
      for (red::Params p :
           every_variant(small ? 70001 : 1000003, block)) {  // not a multiple of any block/tile
        p.type = type;
        if (p.op == red::Op::Scan && red::single_block_max_n(p.scan_variant, block) > 0)
          p.n = red::single_block_max_n(p.scan_variant, block) - 3;  // one block, partly filled
        if (red::validate(p) || !is_instrumented_reduce(p)) continue;
        check_reduce_record(p);
      }
}

TEST(ReduceAnatomyGpu, OccupancyModelMatchesTheCudaApiForTheLabsKernels) {
  BS_REQUIRE_GPU();
  for (const int block : {32, 64, 128, 256, 512, 1024})
    for (red::Params p : every_variant(int64_t{1} << 20, block)) {
      if (p.op == red::Op::Scan && red::single_block_max_n(p.scan_variant, block) > 0)
        p.n = red::single_block_max_n(p.scan_variant, block);  // the single-block scans: one block's worth
      if (red::validate(p) || !is_instrumented_reduce(p)) continue;
      const DeviceOccupancy d = reduce_device_occupancy(p);
      EXPECT_TRUE(d.agrees()) << red::describe(p) << ": model " << d.model.blocks_per_sm << ", CUDA API "
                              << d.runtime_blocks_per_sm << " (" << d.attrs.regs_per_thread << " regs, "
                              << d.usage.static_smem << " + " << d.usage.dynamic_smem << " B smem)";
      if (block == 256)
        std::cout << "[ info ] " << red::describe(p) << ": " << d.attrs.regs_per_thread << " regs, "
                  << d.usage.static_smem << " + " << d.usage.dynamic_smem << " B smem, "
                  << d.runtime_blocks_per_sm << " blocks/SM (" << limiter_label(d.model.limiter) << ")\n";
    }
}

TEST(ReduceAnatomyGpu, BlockSizeTimesForTheLabsVariant) {
  BS_REQUIRE_GPU();
  ReduceAnatomyTarget t;
  t.params.n = 1000003;
  t.params.reduce_variant = red::ReduceVariant::CompleteUnroll;  // 64 .. 1024 threads
  JobControl ctl;
  const BlockSizeTimes r = t.measure_block_sizes(ctl);
  ASSERT_EQ(r.threads, (std::vector<double>{64, 128, 256, 512, 1024}));
  ASSERT_EQ(r.ms.size(), r.threads.size());
  for (const double ms : r.ms) {
    EXPECT_GT(ms, 0.0);
    EXPECT_LT(ms, 100.0);
  }
}

}  // namespace
}  // namespace bs::anatomy
