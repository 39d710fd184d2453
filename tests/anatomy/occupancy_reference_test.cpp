// occupancy_reference_test.cpp: the model against NVIDIA's own calculator, cuda_occupancy.h (header-only,
// ships with the toolkit, runs on the host without a GPU), over every table architecture and a wide sweep of
// block sizes, register counts, shared-memory sizes and carve-out preferences. Exact agreement is required:
// both are integer arithmetic on the same rules, so any difference is a bug in the model (or a rule the
// header changed).
#include <gtest/gtest.h>

#include <cuda_occupancy.h>

#include <sstream>

#include "gpu/anatomy/occupancy.h"

namespace bs::anatomy {
namespace {

cudaOccDeviceProp reference_props(const ArchSpec& a) {
  cudaOccDeviceProp p;
  p.computeMajor = a.cc_major;
  p.computeMinor = a.cc_minor;
  p.maxThreadsPerBlock = a.max_threads_per_block;
  p.maxThreadsPerMultiprocessor = a.max_threads_per_sm;
  p.regsPerBlock = a.regs_per_block;
  p.regsPerMultiprocessor = a.regs_per_sm;
  p.warpSize = a.warp_size;
  p.sharedMemPerBlock = static_cast<size_t>(a.smem_per_block_default);
  p.sharedMemPerMultiprocessor = static_cast<size_t>(a.smem_per_sm);
  p.numSms = 100;  // irrelevant to blocks per SM
  p.sharedMemPerBlockOptin = static_cast<size_t>(a.smem_per_block_optin);
  p.reservedSharedMemPerBlock = static_cast<size_t>(a.smem_reserved_per_block);
  return p;
}

// The first limiting factor in the model's tie order (threads/warps, registers, shared memory, blocks).
Limiter first_factor(unsigned bits) {
  if (bits & OCC_LIMIT_WARPS) return Limiter::Warps;
  if (bits & OCC_LIMIT_REGISTERS) return Limiter::Registers;
  if (bits & OCC_LIMIT_SHARED_MEMORY) return Limiter::SharedMemory;
  return Limiter::Blocks;
}

TEST(OccupancyReference, AgreesWithCudaOccupancyHeaderEverywhere) {
  std::vector<int> threads;
  for (int t = 1; t <= 96; ++t)
    threads.push_back(t);
  for (int t = 112; t <= 1024; t += 16)
    threads.push_back(t);
  const int regs[] = {0, 8, 16, 21, 24, 32, 37, 40, 48, 56, 64, 65, 72, 80, 96, 128, 168, 200, 255};
  // (static, dynamic) shared memory per block in bytes: none, small, unaligned, around 48 KiB (opt-in), the
  // largest opt-ins of each architecture, and beyond.
  const std::pair<int64_t, int64_t> smem[] = {
      {0, 0},         {0, 1},          {0, 1000},       {4096, 0},       {0, 5000},       {0, 20000},
      {40960, 0},     {40960, 10000},  {0, 48 * 1024},  {0, 49153},      {0, 63 * 1024},  {0, 64 * 1024},
      {0, 99 * 1024}, {0, 100 * 1024}, {0, 163 * 1024}, {0, 200 * 1024}, {0, 227 * 1024}, {0, 228 * 1024}};
  const int carveouts[] = {-1, 0, 10, 25, 50, 75, 100};
  int64_t compared = 0, differ = 0;
  for (const ArchSpec& a : arch_table()) {
    const cudaOccDeviceProp props = reference_props(a);
    for (int t : threads)
      for (int r : regs)
        for (const auto& [stat, dyn] : smem)
          for (int c : carveouts) {
            KernelUsage u;
            u.threads_per_block = t;
            u.regs_per_thread = r;
            u.static_smem = stat;
            u.dynamic_smem = dyn;
            u.carveout_percent = c;
            const Occupancy mine = compute_occupancy(a, u);

            cudaOccFuncAttributes attr;
            attr.maxThreadsPerBlock = a.max_threads_per_block;
            attr.numRegs = r;
            attr.sharedSizeBytes = static_cast<size_t>(stat);
            // The model assumes a kernel asking for more than 48 KiB has opted in for what it asks.
            if (stat + dyn > a.smem_per_block_default) {
              attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
              attr.maxDynamicSharedSizeBytes = static_cast<size_t>(dyn);
            }
            cudaOccDeviceState state;
            state.carveoutConfig = c;
            cudaOccResult ref{};
            const cudaOccError err = cudaOccMaxActiveBlocksPerMultiprocessor(&ref, &props, &attr, &state, t,
                                                                             static_cast<size_t>(dyn));
            ASSERT_EQ(err, CUDA_OCC_SUCCESS) << a.name << " " << t << " threads";
            ++compared;
            const bool same = mine.blocks_per_sm == ref.activeBlocksPerMultiprocessor &&
                              mine.limiter == first_factor(ref.limitingFactors);
            if (!same && ++differ <= 20) {
              std::ostringstream s;
              s << a.name << ", " << t << " threads, " << r << " regs, " << stat << "+" << dyn
                << " B smem, carve-out " << c << ": model " << mine.blocks_per_sm << " ("
                << limiter_label(mine.limiter) << "; warps " << mine.limit_warps << " regs "
                << mine.limit_regs << " smem " << mine.limit_smem << ") vs "
                << "cuda_occupancy.h " << ref.activeBlocksPerMultiprocessor << " (factors 0x" << std::hex
                << ref.limitingFactors << std::dec << "; warps " << ref.blockLimitWarps << " regs "
                << ref.blockLimitRegs << " smem " << ref.blockLimitSharedMem << ")";
              ADD_FAILURE() << s.str();
            }
            const bool same_alloc =
                mine.regs_per_block == ref.allocatedRegistersPerBlock &&
                mine.smem_per_block == static_cast<int64_t>(ref.allocatedSharedMemPerBlock);
            if (!same_alloc && ++differ <= 20)
              ADD_FAILURE() << a.name << ", " << t << " threads, " << r << " regs, " << stat << "+" << dyn
                            << " B smem: allocated " << mine.regs_per_block << " regs / "
                            << mine.smem_per_block << " B per block vs cuda_occupancy.h "
                            << ref.allocatedRegistersPerBlock << " / " << ref.allocatedSharedMemPerBlock;
          }
  }
  EXPECT_EQ(differ, 0) << "of " << compared << " configurations";
}

}  // namespace
}  // namespace bs::anatomy
