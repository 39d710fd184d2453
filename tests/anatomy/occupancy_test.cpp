// occupancy_test.cpp: the occupancy model against values derived by hand from the occupancy calculator's
// rules (CPU only). Each case spells out the four limits; ties go to threads/warps, registers, shared memory,
// blocks.
#include <gtest/gtest.h>

#include "gpu/anatomy/occupancy.h"
#include "core/error.h"

namespace bs::anatomy {
namespace {

ArchSpec arch(const char* name) {
  auto a = find_arch(name);
  EXPECT_TRUE(a.has_value()) << name;
  return a.value_or(ArchSpec{});
}

Occupancy occ(const char* a, int threads, int regs, int64_t dyn = 0, int64_t stat = 0, int carveout = -1) {
  KernelUsage u;
  u.threads_per_block = threads;
  u.regs_per_thread = regs;
  u.dynamic_smem = dyn;
  u.static_smem = stat;
  u.carveout_percent = carveout;
  return compute_occupancy(arch(a), u);
}

TEST(ArchTable, HoldsTheFiveArchitecturesWithTheirLimits) {
  EXPECT_EQ(arch_names(), "sm_75, sm_80, sm_86, sm_89, sm_90");
  // {max threads, max warps, max blocks, shared memory per SM in KiB} from the programming guide's table.
  struct Row {
    const char* name;
    int threads, warps, blocks;
    int64_t smem_kib;
  };
  for (const Row& r :
       {Row{"sm_75", 1024, 32, 16, 64}, Row{"sm_80", 2048, 64, 32, 164}, Row{"sm_86", 1536, 48, 16, 100},
        Row{"sm_89", 1536, 48, 24, 100}, Row{"sm_90", 2048, 64, 32, 228}}) {
    const ArchSpec a = arch(r.name);
    EXPECT_EQ(a.max_threads_per_sm, r.threads) << r.name;
    EXPECT_EQ(a.max_warps_per_sm, r.warps) << r.name;
    EXPECT_EQ(a.max_blocks_per_sm, r.blocks) << r.name;
    EXPECT_EQ(a.smem_per_sm, r.smem_kib * 1024) << r.name;
    EXPECT_EQ(a.regs_per_sm, 65536) << r.name;
    EXPECT_EQ(a.reg_alloc_unit, 256) << r.name;
    EXPECT_EQ(a.max_regs_per_thread, 255) << r.name;
    EXPECT_EQ(a.smem_carveouts.back(), a.smem_per_sm) << r.name;
    // 1 KiB reserved per block from sm_80 on; Turing reserves nothing and allocates in 256-byte units.
    EXPECT_EQ(a.smem_reserved_per_block, a.cc_major >= 8 ? 1024 : 0) << r.name;
    EXPECT_EQ(a.smem_alloc_granularity, a.cc_major >= 8 ? 128 : 256) << r.name;
  }
}

TEST(ArchTable, AcceptsSeveralSpellings) {
  EXPECT_EQ(find_arch("sm_90")->name, "sm_90");
  EXPECT_EQ(find_arch("90")->name, "sm_90");
  EXPECT_EQ(find_arch("8.6")->name, "sm_86");
  EXPECT_EQ(find_arch("SM_75")->name, "sm_75");
  EXPECT_EQ(find_arch("compute_89")->name, "sm_89");
  EXPECT_FALSE(find_arch("sm_70").has_value());
  EXPECT_FALSE(find_arch("device").has_value());
}

TEST(Occupancy, Sm90_256Threads_64Regs_IsFourBlocksHalfOccupancyRegisterLimited) {
  // 8 warps/block. Warps: 64/8 = 8. Registers: 64*32 = 2048/warp; 16384 per sub-partition / 2048 = 8 warps x
  // 4 = 32 warps / 8 = 4. Shared: 0 + 1 KiB reserved = 1024 B; 228 KiB / 1 KiB = 228. Blocks: 32. -> 4,
  // 32/64.
  const Occupancy o = occ("sm_90", 256, 64);
  EXPECT_EQ(o.warps_per_block, 8);
  EXPECT_EQ(o.limit_warps, 8);
  EXPECT_EQ(o.limit_regs, 4);
  EXPECT_EQ(o.limit_smem, 228);
  EXPECT_EQ(o.limit_blocks, 32);
  EXPECT_EQ(o.blocks_per_sm, 4);
  EXPECT_EQ(o.warps_per_sm, 32);
  EXPECT_DOUBLE_EQ(o.occupancy, 0.5);
  EXPECT_EQ(o.limiter, Limiter::Registers);
  EXPECT_EQ(o.regs_per_warp, 2048);
  EXPECT_EQ(o.smem_per_block, 1024);
}

TEST(Occupancy, Sm80_128Threads_32Regs_IsFullWithWarpsAndRegistersTied) {
  // 4 warps. Warps: 64/4 = 16. Registers: 1024/warp; 16384/1024 = 16 x 4 = 64 warps / 4 = 16. Shared: 164 KiB
  // / 1 KiB = 164. Blocks: 32. Min 16 (warps and registers tie: warps reported first). 64/64 warps = 100%.
  const Occupancy o = occ("sm_80", 128, 32);
  EXPECT_EQ(o.limit_warps, 16);
  EXPECT_EQ(o.limit_regs, 16);
  EXPECT_EQ(o.limit_smem, 164);
  EXPECT_EQ(o.blocks_per_sm, 16);
  EXPECT_DOUBLE_EQ(o.occupancy, 1.0);
  EXPECT_EQ(o.limiter, Limiter::Warps);
}

TEST(Occupancy, Sm75_128Threads_32Regs_IsWarpLimited) {
  // 4 warps. Warps: 32/4 = 8. Registers: 64 warps / 4 = 16. Shared: none used, nothing reserved -> no limit.
  // Blocks: 16. -> 8 blocks, 32/32 warps.
  const Occupancy o = occ("sm_75", 128, 32);
  EXPECT_EQ(o.limit_warps, 8);
  EXPECT_EQ(o.limit_regs, 16);
  EXPECT_EQ(o.limit_smem, k_no_limit);
  EXPECT_EQ(o.blocks_per_sm, 8);
  EXPECT_DOUBLE_EQ(o.occupancy, 1.0);
  EXPECT_EQ(o.limiter, Limiter::Warps);
}

TEST(Occupancy, Sm86_64Threads_IsLimitedByTheBlockCount) {
  // 2 warps. Warps: 48/2 = 24. Registers: 16*32 = 512/warp; 16384/512 = 32 x 4 = 128 warps / 2 = 64. Shared:
  // 100 KiB / 1 KiB = 100. Blocks: 16. -> 16 blocks = 32 of 48 warps = 66.7%.
  const Occupancy o = occ("sm_86", 64, 16);
  EXPECT_EQ(o.limit_warps, 24);
  EXPECT_EQ(o.limit_regs, 64);
  EXPECT_EQ(o.limit_smem, 100);
  EXPECT_EQ(o.limit_blocks, 16);
  EXPECT_EQ(o.blocks_per_sm, 16);
  EXPECT_NEAR(o.occupancy, 32.0 / 48.0, 1e-12);
  EXPECT_EQ(o.limiter, Limiter::Blocks);
}

TEST(Occupancy, Sm89_64Threads_WarpsAndBlocksTie) {
  // As sm_86 but 24 blocks per SM: warps 24, blocks 24 -> tie, warps reported. 48/48 warps.
  const Occupancy o = occ("sm_89", 64, 16);
  EXPECT_EQ(o.blocks_per_sm, 24);
  EXPECT_DOUBLE_EQ(o.occupancy, 1.0);
  EXPECT_EQ(o.limiter, Limiter::Warps);
}

TEST(Occupancy, RegistersRoundUpTo256PerWarp) {
  // sm_90, 96 threads = 3 warps, 37 registers: 37*32 = 1184 -> 1280 per warp. 16384/1280 = 12 warps per
  // sub-partition x 4 = 48 warps / 3 = 16 blocks. Warps: 64/3 = 21. Shared 228. Blocks 32. -> 16, 48/64 =
  // 75%.
  const Occupancy o = occ("sm_90", 96, 37);
  EXPECT_EQ(o.regs_per_warp, 1280);
  EXPECT_EQ(o.regs_per_block, 3840);
  EXPECT_EQ(o.limit_warps, 21);
  EXPECT_EQ(o.limit_regs, 16);
  EXPECT_EQ(o.blocks_per_sm, 16);
  EXPECT_DOUBLE_EQ(o.occupancy, 0.75);
  EXPECT_EQ(o.limiter, Limiter::Registers);
}

TEST(Occupancy, Sm86_512Threads_48Regs_IsRegisterLimited) {
  // 16 warps. Warps: 48/16 = 3. Registers: 1536/warp; 16384/1536 = 10 (not 10.67: whole warps per
  // sub-partition) x 4 = 40 warps / 16 = 2. -> 2 blocks = 32/48 warps.
  const Occupancy o = occ("sm_86", 512, 48);
  EXPECT_EQ(o.limit_warps, 3);
  EXPECT_EQ(o.limit_regs, 2);
  EXPECT_EQ(o.blocks_per_sm, 2);
  EXPECT_NEAR(o.occupancy, 32.0 / 48.0, 1e-12);
  EXPECT_EQ(o.limiter, Limiter::Registers);
}

TEST(Occupancy, PartialWarpsCostWholeWarps) {
  // sm_90, 48 threads = 2 warps (one half empty). Warps: 64/2 = 32; blocks: 32; registers 16: 512/warp ->
  // 128/2 = 64. -> 32 blocks, 64 warps: 100% theoretical occupancy though a quarter of the lanes idle.
  const Occupancy o = occ("sm_90", 48, 16);
  EXPECT_EQ(o.warps_per_block, 2);
  EXPECT_EQ(o.blocks_per_sm, 32);
  EXPECT_EQ(o.threads_per_sm, 32 * 48);
  EXPECT_DOUBLE_EQ(o.occupancy, 1.0);
  EXPECT_EQ(o.limiter, Limiter::Warps);
  ASSERT_FALSE(o.notes.empty());
  EXPECT_NE(o.notes[0].find("not a multiple of 32"), std::string::npos);
}

TEST(Occupancy, SharedMemoryIncludesTheReservedKibibyte) {
  // sm_80, 256 threads, 32 regs, 48 KiB static: 49152 + 1024 = 50176 (already a multiple of 128).
  // Shared: 167936 / 50176 = 3. Warps: 8. Registers: 1024/warp -> 64 warps / 8 = 8. -> 3 blocks, 24/64
  // = 37.5%.
  const Occupancy o = occ("sm_80", 256, 32, 0, 48 * 1024);
  EXPECT_EQ(o.smem_per_block, 50176);
  EXPECT_EQ(o.limit_smem, 3);
  EXPECT_EQ(o.blocks_per_sm, 3);
  EXPECT_DOUBLE_EQ(o.occupancy, 0.375);
  EXPECT_EQ(o.limiter, Limiter::SharedMemory);
}

TEST(Occupancy, SharedMemoryRoundsUpToTheGranularity) {
  // sm_75 (256-byte units, nothing reserved), 128 threads, 32 regs, 5000 B dynamic -> 5120 B. 64 KiB / 5120
  // = 12. Warps: 32/4 = 8 -> warp limited at 8.
  const Occupancy o = occ("sm_75", 128, 32, 5000);
  EXPECT_EQ(o.smem_per_block, 5120);
  EXPECT_EQ(o.limit_smem, 12);
  EXPECT_EQ(o.blocks_per_sm, 8);
  // sm_80 (128-byte units, 1 KiB reserved): 20000 + 1024 = 21024 -> 21120.
  EXPECT_EQ(occ("sm_80", 128, 32, 20000).smem_per_block, 21120);
}

TEST(Occupancy, CarveoutPreferenceSelectsTheNextConfiguration) {
  // sm_80, 128 threads, 32 regs, 20000 B dynamic -> 21120 B per block.
  // Default carve-out (164 KiB = 167936): 167936 / 21120 = 7 blocks = 28/64 warps = 43.75%, shared limited.
  const Occupancy def = occ("sm_80", 128, 32, 20000);
  EXPECT_EQ(def.smem_config, 167936);
  EXPECT_EQ(def.blocks_per_sm, 7);
  EXPECT_DOUBLE_EQ(def.occupancy, 0.4375);
  EXPECT_EQ(def.limiter, Limiter::SharedMemory);
  // 25%: 0.25 * 167936 = 41984 -> next carve-out 64 KiB = 65536; 65536 / 21120 = 3 blocks = 12/64 = 18.75%.
  const Occupancy quarter = occ("sm_80", 128, 32, 20000, 0, 25);
  EXPECT_EQ(quarter.smem_config, 65536);
  EXPECT_EQ(quarter.blocks_per_sm, 3);
  EXPECT_DOUBLE_EQ(quarter.occupancy, 0.1875);
}

TEST(Occupancy, ACarveoutTooSmallForOneBlockGrowsToTheSmallestThatFits) {
  // sm_90, carve-out 0%: the preference is 0 B, which holds no block (1 KiB reserved), so the SM runs with
  // the smallest carve-out that does: 8 KiB -> 8 blocks. 128 threads, 16 regs: warps 16, registers 32,
  // blocks 32.
  // -> 8 blocks, shared memory limited, 32/64 warps.
  const Occupancy o = occ("sm_90", 128, 16, 0, 0, 0);
  EXPECT_EQ(o.smem_config, 8192);
  EXPECT_EQ(o.limit_smem, 8);
  EXPECT_EQ(o.blocks_per_sm, 8);
  EXPECT_EQ(o.limiter, Limiter::SharedMemory);
  EXPECT_DOUBLE_EQ(o.occupancy, 0.5);
}

TEST(Occupancy, OneFullBlockOnTuring) {
  // sm_75, 1024 threads, 64 regs: 32 warps -> warp limit 1; registers 2048/warp x 32 = 65536 = the block
  // limit, 32 warps fit -> 1. Tie, warps reported; 32/32 = 100%.
  const Occupancy o = occ("sm_75", 1024, 64);
  EXPECT_EQ(o.limit_regs, 1);
  EXPECT_EQ(o.blocks_per_sm, 1);
  EXPECT_EQ(o.limiter, Limiter::Warps);
  EXPECT_DOUBLE_EQ(o.occupancy, 1.0);
}

TEST(Occupancy, TooManyRegistersForOneBlockGivesZeroWithAReason) {
  // sm_90, 1024 threads, 65 regs: 2080 -> 2304 per warp x 32 = 73728 > 65536 per block.
  const Occupancy o = occ("sm_90", 1024, 65);
  EXPECT_EQ(o.limit_regs, 0);
  EXPECT_EQ(o.blocks_per_sm, 0);
  EXPECT_EQ(o.occupancy, 0.0);
  EXPECT_EQ(o.limiter, Limiter::Registers);
  EXPECT_NE(o.reason.find("73728"), std::string::npos) << o.reason;
  // The per-block check rounds warps up to a multiple of 4: 992 threads = 31 warps is checked as 32 warps.
  // 64 regs: 32 x 2048 = 65536 fits -> 1 block; 65 regs: 32 x 2304 = 73728 does not -> 0.
  EXPECT_EQ(occ("sm_90", 992, 64).blocks_per_sm, 1);
  EXPECT_EQ(occ("sm_90", 992, 65).blocks_per_sm, 0);
}

TEST(Occupancy, TooMuchSharedMemoryGivesZeroWithAReason) {
  // sm_86 allows 99 KiB per block with opt-in; 120 KiB cannot launch.
  const Occupancy o = occ("sm_86", 256, 32, 120 * 1024);
  EXPECT_EQ(o.blocks_per_sm, 0);
  EXPECT_EQ(o.limiter, Limiter::SharedMemory);
  EXPECT_FALSE(o.reason.empty());
  // 99 KiB fits exactly: 101376 + 1024 = 102400 = the whole SM -> 1 block, and the opt-in is noted.
  const Occupancy fit = occ("sm_86", 256, 32, 99 * 1024);
  EXPECT_EQ(fit.blocks_per_sm, 1);
  EXPECT_EQ(fit.limiter, Limiter::SharedMemory);
  ASSERT_FALSE(fit.notes.empty());
  EXPECT_NE(fit.notes.back().find("opt in"), std::string::npos);
}

TEST(Occupancy, RejectsRequestsNoKernelCanMake) {
  EXPECT_THROW(occ("sm_90", 0, 32), InvalidRequest);
  EXPECT_THROW(occ("sm_90", 1025, 32), InvalidRequest);
  EXPECT_THROW(occ("sm_90", 256, 256), InvalidRequest);
  EXPECT_THROW(occ("sm_90", 256, -1), InvalidRequest);
  EXPECT_THROW(occ("sm_90", 256, 32, -1), InvalidRequest);
  EXPECT_THROW(occ("sm_90", 256, 32, 0, 64 * 1024), InvalidRequest);  // static shared memory > 48 KiB
  EXPECT_THROW(occ("sm_90", 256, 32, 0, 0, 101), InvalidRequest);
}

TEST(Occupancy, ZeroRegistersLimitNothing) {
  const Occupancy o = occ("sm_90", 256, 0);
  EXPECT_EQ(o.limit_regs, k_no_limit);
  EXPECT_EQ(o.blocks_per_sm, 8);
}

TEST(OccupancyCurve, CoversBlockSizes32To1024AndMatchesSinglePoints) {
  const ArchSpec a = arch("sm_90");
  KernelUsage u;
  u.regs_per_thread = 64;
  const auto curve = occupancy_curve(a, u);
  ASSERT_EQ(curve.size(), 32u);
  EXPECT_EQ(curve.front().threads, 32);
  EXPECT_EQ(curve.back().threads, 1024);
  for (const auto& p : curve) {
    u.threads_per_block = p.threads;
    EXPECT_EQ(p.occ.blocks_per_sm, compute_occupancy(a, u).blocks_per_sm) << p.threads;
    EXPECT_LE(p.occ.occupancy, 1.0);
  }
  // 64 registers cap an SM at 32 warps whatever the block size, until blocks no longer divide 32 warps
  // evenly: 256 threads -> 4 blocks (50%); 384 threads = 12 warps -> 2 blocks = 24 warps (37.5%).
  EXPECT_DOUBLE_EQ(curve[7].occ.occupancy, 0.5);
  EXPECT_DOUBLE_EQ(curve[11].occ.occupancy, 0.375);
  EXPECT_THROW(occupancy_curve(a, u, 0), InvalidRequest);
}

TEST(OccupancyReport, NamesBlocksOccupancyAndLimiterAndSaysItIsAModel) {
  const ArchSpec a = arch("sm_90");
  KernelUsage u;
  u.threads_per_block = 256;
  u.regs_per_thread = 64;
  const std::string text = format_occupancy(a, u, compute_occupancy(a, u));
  EXPECT_NE(text.find("resident per SM: 4 blocks"), std::string::npos) << text;
  EXPECT_NE(text.find("theoretical occupancy: 50.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("limited by: registers"), std::string::npos) << text;
  EXPECT_NE(text.find("not a measurement"), std::string::npos) << text;
  const std::string curve = format_curve(a, u, occupancy_curve(a, u));
  EXPECT_NE(curve.find("1024"), std::string::npos);
}

TEST(ParseBytes, AcceptsPlainNumbersAndKibibytes) {
  EXPECT_EQ(parse_bytes("0"), 0);
  EXPECT_EQ(parse_bytes("4096"), 4096);
  EXPECT_EQ(parse_bytes("48K"), 49152);
  EXPECT_EQ(parse_bytes("48KiB"), 49152);
  EXPECT_FALSE(parse_bytes("-1").has_value());
  EXPECT_FALSE(parse_bytes("12MB").has_value());
  EXPECT_FALSE(parse_bytes("").has_value());
}

}  // namespace
}  // namespace bs::anatomy
