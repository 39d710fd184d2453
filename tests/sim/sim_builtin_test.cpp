// sim_builtin_test.cpp: the labs' own kernels (the memory lab's memory_kernels.cuh, the reduction lab's
// reduce_bodies.cuh), compiled through NVRTC,
// run in the simulator exactly as the lab launches them, at sizes that are not multiples of the block, and
// compared with the lab's CPU reference (exact where the lab's check is exact, the particle step within its
// stated tolerance); no diagnostic on any of them. No GPU needed.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <span>

#include "builtin_kernels.h"
#include "gpu/kernel/contracts.h"
#include "gpu/kernel/toolkit_headers.h"
#include "run_util.h"
#include "sim_util.h"

namespace bs::sim::test {
namespace {

TEST(SimBuiltin, TheMemoryLabsKernelsMatchTheCpuReference) {
  REQUIRE_NVRTC();
  const Module m = module_of(memory_source());
  for (BuiltinCase& c : memory_cases()) {
    SCOPED_TRACE(c.label);
    const std::string entry = entry_named(m, {c.entry_parts[0]});
    ASSERT_FALSE(entry.empty()) << "no .entry named like " << c.entry_parts[0];
    const LaunchResult r = launch(m, entry, c.cfg);
    ASSERT_TRUE(r.ok) << r.failure.message;
    EXPECT_TRUE(r.diagnostics.empty()) << all_diagnostics(r);
    const memory::Check k = memory::compare(c.as<float>(1), c.want, c.rel_tol);
    EXPECT_TRUE(k.passed) << k.text;
    EXPECT_GT(r.thread_instructions, 0u);
  }
}

// The particle step as the GPU computes it from the lab's PTX (memory_index.h particle_step through NVRTC):
// rcp.rn for 1 / mass; v = vx - (x * inv_m) * dt is mul, mul, sub in the PTX, which ptxas fuses into
// fma(-(x * inv_m), dt, vx) (contract_mul_add, ptx.h); x + v * dt is an fma in the PTX already.
void particle_step_as_on_the_gpu(const float* r, float* w) {
  volatile float inv_m = 1.0f / r[memory::FMASS];
  for (int d = 0; d < 3; ++d) {
    volatile float p = r[d] * inv_m;
    const float v = std::fma(-p, memory::k_particle_dt, r[3 + d]);
    w[3 + d] = v;
    w[d] = std::fma(v, memory::k_particle_dt, r[d]);
  }
}

// The memory lab's particle kernels (aos, soa) in the simulator equal, bit for bit, a host step rounded as the
// GPU rounds (one fma where ptxas contracts a mul and a sub), the lab's step rounded twice does not on these
// inputs (the 1-ulp difference the GPU showed before the simulator contracted), and no other memory kernel has
// a pair to contract.
TEST(SimBuiltin, TheParticleStepIsBitExactWithPtxassContraction) {
  REQUIRE_NVRTC();
  const Module m = module_of(memory_source());
  EXPECT_EQ(m.contracted, 6u) << "3 mul + sub pairs in each particle kernel, none in the others";
  for (const MemoryCase& mc : memory_case_params()) {
    if (mc.v != memory::Variant::Aos && mc.v != memory::Variant::Soa) continue;
    BuiltinCase c = memory_case(mc.v, mc.p);
    SCOPED_TRACE(c.label);
    const LaunchResult r = launch(m, entry_named(m, {c.entry_parts[0]}), c.cfg);
    ASSERT_TRUE(r.ok) << r.failure.message;
    const std::vector<float> in = c.as<float>(0), out = c.as<float>(1);
    const bool soa = mc.v == memory::Variant::Soa;
    const int64_t n = mc.p.n;
    int rounded_twice_differs = 0;
    for (int64_t i = 0; i < n; ++i) {
      float rv[memory::k_fields_read], want[memory::k_fields_written], twice[memory::k_fields_written];
      auto at = [&](int f) { return static_cast<size_t>(soa ? memory::soa_index(i, f, n) : memory::aos_index(i, f)); };
      for (int f = 0; f < memory::k_fields_read; ++f) rv[f] = in[at(f)];
      particle_step_as_on_the_gpu(rv, want);
      memory::particle_step(rv, twice);
      for (int f = 0; f < memory::k_fields_written; ++f) {
        ASSERT_EQ(std::bit_cast<uint32_t>(out[at(f)]), std::bit_cast<uint32_t>(want[f]))
            << "particle " << i << " field " << f << " (element " << at(f) << ")";
        rounded_twice_differs += std::bit_cast<uint32_t>(twice[f]) != std::bit_cast<uint32_t>(want[f]);
      }
    }
    EXPECT_GT(rounded_twice_differs, 0) << "the inputs do not tell one rounding from two";
  }
}

// The templates (heat, vector, matmul; default and -use_fast_math) and the reduce lab's kernels have no mul +
// add/sub pair in their PTX: NVVM fuses theirs itself (fma.rn), so the contraction changes nothing there.
TEST(SimBuiltin, TheTemplatesAndReduceKernelsHaveNoPairToContract) {
  REQUIRE_NVRTC();
  for (const kernel::KernelTemplate& t : kernel::kernel_templates())
    for (bool fast : {false, true})
      EXPECT_EQ(module_of(std::string(kernel::template_source(t)), fast).contracted, 0u)
          << t.id << (fast ? " -use_fast_math" : "");
  EXPECT_EQ(module_of(reduce_source()).contracted, 0u);
}

// ptxas's store fusion (fuse_adjacent_stores) finds exactly the tile scan's four scalar stores, in its float and
// int instantiations (on the H100 one STG.128 each), and nothing in the memory lab's kernels or the templates,
// whose store counts already equal CUPTI's.
TEST(SimBuiltin, OnlyTheTileScansAdjacentStoresAreFused) {
  REQUIRE_NVRTC();
  EXPECT_EQ(module_of(reduce_source()).fused_stores, 2u);
  EXPECT_EQ(module_of(memory_source()).fused_stores, 0u);
  for (const kernel::KernelTemplate& t : kernel::kernel_templates())
    EXPECT_EQ(module_of(std::string(kernel::template_source(t))).fused_stores, 0u) << t.id;
}

// The check can fail: a transpose whose output is read back untransposed does not match.
TEST(SimBuiltin, TheComparisonCatchesAWrongOutput) {
  REQUIRE_NVRTC();
  const Module m = module_of(memory_source());
  std::vector<BuiltinCase> cases = memory_cases();
  BuiltinCase& c = cases[1];  // naive
  ASSERT_EQ(c.label, "memory naive");
  const LaunchResult r = launch(m, entry_named(m, {c.entry_parts[0]}), c.cfg);
  ASSERT_TRUE(r.ok) << r.failure.message;
  EXPECT_FALSE(memory::compare(c.as<float>(0), c.want, 0).passed);
}

// The simulator's counts of the memory lab's launches equal the lab's access model (memory_model.h, which
// enumerates every warp's addresses) to the unit: global load and store requests and sectors, shared-memory
// bank conflicts. (On a GPU, sim_gpu_tests compares the same counts with CUPTI's counters.)
TEST(SimBuiltin, TheMemoryLabsCountsEqualItsAccessModel) {
  REQUIRE_NVRTC();
  const Module m = module_of(memory_source());
  for (const MemoryCase& mc : memory_case_params()) {
    BuiltinCase c = memory_case(mc.v, mc.p);
    SCOPED_TRACE(c.label);
    const LaunchResult r = launch(m, entry_named(m, {c.entry_parts[0]}), c.cfg);
    ASSERT_TRUE(r.ok) << r.failure.message;
    const MemoryCounts got = memory_counts(m, r);
    const memory::Prediction want = memory::predict(mc.p, mc.v);
    EXPECT_EQ(got.ld_requests, static_cast<uint64_t>(want.ld_requests));
    EXPECT_EQ(got.ld_sectors, static_cast<uint64_t>(want.ld_sectors));
    EXPECT_EQ(got.st_requests, static_cast<uint64_t>(want.st_requests));
    EXPECT_EQ(got.st_sectors, static_cast<uint64_t>(want.st_sectors));
    EXPECT_EQ(got.shared_ld_conflicts, static_cast<uint64_t>(want.shared_ld_conflicts));
    EXPECT_EQ(got.shared_st_conflicts, static_cast<uint64_t>(want.shared_st_conflicts));
    EXPECT_EQ(got.shared_ld_wavefronts, static_cast<uint64_t>(want.shared_ld_wavefronts));
    EXPECT_EQ(got.shared_st_wavefronts, static_cast<uint64_t>(want.shared_st_wavefronts));
    // conflicts = wavefronts - instructions, the definition CUPTI's counts are compared by (sim_gpu_tests)
    EXPECT_EQ(got.shared_ld_conflicts, got.shared_ld_wavefronts - got.shared_ld_requests);
  }
}

// Runs case c's kernel of m in the simulator: it runs to its end with no diagnostic.
void run_clean(const Module& m, BuiltinCase& c) {
  const std::string entry = entry_named(m, {c.entry_parts[0]});
  ASSERT_FALSE(entry.empty()) << "no .entry named like " << c.entry_parts[0];
  const LaunchResult r = launch(m, entry, c.cfg);
  ASSERT_TRUE(r.ok) << r.failure.message;
  EXPECT_TRUE(r.diagnostics.empty()) << all_diagnostics(r);
}

// The reduction lab's kernels (reduce_bodies.cuh through NVRTC) on 10007 ints (exact: any order of adding
// gives the reference): each ladder kernel's partial sums add up to the CPU reference sum; the block scans and
// the two-pass tile scan give the reference prefix sums. The float versions run clean (their bits are
// compared with the GPU's in sim_gpu_tests).
TEST(SimBuiltin, TheReduceLabsKernelsMatchTheCpuReference) {
  REQUIRE_NVRTC();
  const Module m = module_of(reduce_source());
  const int64_t n = 10007;
  for (const LadderKernel& k : k_ladder) {
    BuiltinCase c = ladder_case<int32_t>(k, n);
    SCOPED_TRACE(c.label);
    run_clean(m, c);
    int64_t sum = 0;
    for (int32_t v : c.as<int32_t>(1)) sum += v;
    const reduce::Check chk = reduce::check_sum(sum, n);
    EXPECT_TRUE(chk.passed) << chk.text;
    BuiltinCase f = ladder_case<float>(k, n);
    run_clean(m, f);
  }
  for (bool blelloch : {false, true})
    for (bool exclusive : {false, true}) {
      BuiltinCase c = block_scan_case<int32_t>(blelloch, blelloch ? 300 : 200, exclusive);
      SCOPED_TRACE(c.label);
      run_clean(m, c);
      const std::vector<int32_t> out = c.as<int32_t>(1);
      const reduce::Check chk =
          reduce::check_scan(out, exclusive ? reduce::ScanKind::Exclusive : reduce::ScanKind::Inclusive);
      EXPECT_TRUE(chk.passed) << chk.text;
    }
  for (bool transpose : {false, true}) {
    const int b = 128;
    BuiltinCase c = tile_scan_case<int32_t>(20011, b, false, transpose);
    SCOPED_TRACE(c.label);
    run_clean(m, c);
    const std::vector<int32_t> sums = c.as<int32_t>(2);
    std::vector<int32_t> offsets(sums.size(), 0);
    for (size_t t = 1; t < sums.size(); ++t) offsets[t] = offsets[t - 1] + sums[t - 1];
    BuiltinCase add = add_offsets_case<int32_t>(c.as<int32_t>(1), b, offsets);
    run_clean(m, add);
    const std::vector<int32_t> out = add.as<int32_t>(0);
    const reduce::Check chk = reduce::check_scan(out, reduce::ScanKind::Inclusive);
    EXPECT_TRUE(chk.passed) << chk.text;
    // The first pass alone is not the scan: the second pass is needed (the check can fail).
    EXPECT_FALSE(reduce::check_scan(c.as<int32_t>(1), reduce::ScanKind::Inclusive).passed);
  }
}

// The decoupled look-back scan (reduce_kernels.cuh's body, NVRTC with libcu++'s <cuda/atomic>): tiles come from
// an atomic counter and warp 0 of each block spins on its predecessors' flags (ld.relaxed.gpu), so blocks must
// run at the same time on host threads with real atomics between them. On 1 host thread (blocks in turn: a
// tile's predecessors are done), 2 and 4, inclusive and exclusive, with and without the transposed load, at a
// size that is not a multiple of the tile: the lab's reference scan, no diagnostic, every tile's flag P. The
// budget is a few times one thread's own work, so only the refund of the steps spent waiting (note_spin)
// keeps a long wait for another host thread from ending the launch.
TEST(SimBuiltin, TheLookbackScanMatchesTheCpuReference) {
  REQUIRE_NVRTC();
  if (kernel::toolkit_headers().dir.empty()) GTEST_SKIP() << "no CUDA toolkit headers here (libcu++: <cuda/atomic>)";
  const Module m = module_of(lookback_source());
  for (int workers : {1, 2, 4})
    for (bool exclusive : {false, true})
      for (bool transpose : {false, true}) {
        BuiltinCase c = lookback_case<int32_t>(70001, 128, exclusive, transpose);
        SCOPED_TRACE(c.label + ", " + std::to_string(workers) + " host threads");
        c.cfg.workers = workers;
        c.cfg.budget = 4000;
        run_clean(m, c);
        const reduce::Check chk =
            reduce::check_scan(c.as<int32_t>(1), exclusive ? reduce::ScanKind::Exclusive : reduce::ScanKind::Inclusive);
        EXPECT_TRUE(chk.passed) << chk.text;
        const std::vector<uint32_t> state = c.as<uint32_t>(2);
        for (size_t t = 0; t < state.size() / 2; ++t) EXPECT_EQ(state[2 * t + 1], 2u) << "tile " << t << "'s flag";
        EXPECT_EQ(c.as<uint32_t>(3)[0], state.size() / 2) << "tiles handed out";
      }
  BuiltinCase f = lookback_case<float>(70001, 128, false, true);
  run_clean(m, f);
}

// `bench memory --counts` prints the simulator's counts beside the model's (no GPU needed) and says which
// launches it does not simulate.
TEST(SimBuiltin, TheBenchPrintsTheSimulatorsCountsBesideTheModels) {
  REQUIRE_NVRTC();
  const std::string cache = "BLOCKSCOPE_CACHE_DIR=" + std::string(BS_TEST_OUT) + "/sim_builtin_cache";
  auto r = bs::test::run_blockscope("bench memory --kernel banks --n 300 --device cpu --counts", cache);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("simulated counts per launch"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("= model"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("DIFFERS"), std::string::npos) << r.output;
  r = bs::test::run_blockscope("bench memory --kernel banks --n 1M --device cpu --counts", cache);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("not simulated: 268435456 thread-iterations"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace bs::sim::test
