// counters_test.cpp: hardware counters. Everywhere: the curated values derived from raw ones, the message of
// every "not allowed" path, CUPTI missing, and collect() without a GPU. On a GPU: a real collection of the
// float4 vector add, whose DRAM traffic and coalescing are known exactly.
#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "core/error.h"
#include "gpu/common/device_info.h"
#include "gpu/counters/counters.h"
#include "gpu/vector/vector.h"

namespace bs::counters {
namespace {

// Under compute-sanitizer or Nsight, CUPTI belongs to that tool
// (CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED): the message says so, and the GPU tests skip.
bool under_another_profiler(const Result& r) {
  return r.status == Status::Failed && r.message.find("another profiler") != std::string::npos;
}

// Bank conflicts as wavefronts - instructions (the simulator's definition): from the SM's per-instruction
// wavefront count where the chip offers it, else from L1TEX's; unknown when a count is missing.
TEST(CountersDerive, BankConflictsAreWavefrontsMinusInstructions) {
  Raw k = {{"smsp__sass_inst_executed_op_shared_ld.sum", 100},
           {"smsp__sass_inst_executed_op_shared_st.sum", 50},
           {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 3300},
           {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", 60}};
  EXPECT_DOUBLE_EQ(*derive({k}).shared_wavefront_conflicts(), 3300 + 60 - 150);
  k.push_back({"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 3200});
  k.push_back({"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum", 50});
  const Values v = derive({k, k});  // two kernels: summed
  EXPECT_DOUBLE_EQ(*v.shared_wavefront_conflicts(), 2 * (3200 + 50 - 150));
  k.erase(k.begin());  // no load instruction count
  EXPECT_FALSE(derive({k}).shared_wavefront_conflicts().has_value());
}

TEST(CountersDerive, SumsCountsAndRatiosOfOneKernel) {
  const Raw k = {{"dram__bytes_read.sum", 800},
                 {"dram__bytes_write.sum", 400},
                 {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 1600},
                 {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 100},
                 {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 400},
                 {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", 100},
                 {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 7},
                 {"sm__warps_active.avg.pct_of_peak_sustained_active", 50},
                 {"sm__cycles_active.sum", 10},
                 {"smsp__thread_inst_executed.sum", 24 * 100},
                 {"smsp__inst_executed.sum", 100},
                 {"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", 9},
                 {"smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio", 1},
                 {"smsp__average_warps_issue_stalled_wait_per_issue_active.ratio", 2},
                 {"smsp__average_warps_issue_stalled_drain_per_issue_active.ratio", 0.5}};
  const Values v = derive({k});
  EXPECT_EQ(v.kernels, 1);
  EXPECT_DOUBLE_EQ(*v.dram_bytes(), 1200);
  EXPECT_DOUBLE_EQ(*v.ld_sectors_per_request(), 16);
  EXPECT_DOUBLE_EQ(*v.st_sectors_per_request(), 4);
  EXPECT_DOUBLE_EQ(*v.shared_ld_conflicts, 7);
  EXPECT_FALSE(v.shared_st_conflicts.has_value()) << "a metric not reported stays unknown, never 0";
  EXPECT_DOUBLE_EQ(*v.achieved_occupancy_pct, 50);
  EXPECT_DOUBLE_EQ(*v.warp_efficiency_pct, 75);
  ASSERT_EQ(v.top_stalls.size(), 3u);
  EXPECT_EQ(v.top_stalls[0].reason, "long_scoreboard");
  EXPECT_EQ(v.top_stalls[1].reason, "wait");
  EXPECT_EQ(v.top_stalls[2].reason, "barrier");
}

TEST(CountersDerive, WeightsSeveralKernels) {
  const Raw a = {{"sm__warps_active.avg.pct_of_peak_sustained_active", 20},
                 {"sm__cycles_active.sum", 100},
                 {"smsp__thread_inst_executed.sum", 32 * 10},
                 {"smsp__inst_executed.sum", 10},
                 {"dram__bytes_read.sum", 1}};
  const Raw b = {{"sm__warps_active.avg.pct_of_peak_sustained_active", 80},
                 {"sm__cycles_active.sum", 300},
                 {"smsp__thread_inst_executed.sum", 0},
                 {"smsp__inst_executed.sum", 10},
                 {"dram__bytes_read.sum", 2}};
  const Values v = derive({a, b});
  EXPECT_EQ(v.kernels, 2);
  EXPECT_DOUBLE_EQ(*v.dram_read_bytes, 3);
  EXPECT_DOUBLE_EQ(*v.achieved_occupancy_pct, (20 * 100 + 80 * 300) / 400.0);
  EXPECT_DOUBLE_EQ(*v.warp_efficiency_pct, 50);
  EXPECT_FALSE(v.dram_bytes().has_value()) << "read without write is not a total";
  EXPECT_FALSE(v.ld_sectors_per_request().has_value());
}

TEST(CountersMetrics, NcuListIsTheCollectedList) {
  const auto names = metric_names();
  ASSERT_GE(names.size(), 12u);
  std::string joined;
  for (const auto& n : names)
    joined += (joined.empty() ? "" : ",") + n;
  EXPECT_EQ(ncu_metric_list(), joined);
  EXPECT_NE(joined.find("dram__bytes_read.sum"), std::string::npos);
}

TEST(CountersNotAllowed, PrivilegesSayHowToEnable) {
  const auto [status, msg] =
      explain_cupti_error(35, "cuptiRangeProfilerEnable", "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  EXPECT_EQ(status, Status::NotAllowed);
  EXPECT_NE(msg.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("root"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cuptiRangeProfilerEnable"), std::string::npos) << msg;
  EXPECT_NE(msg.find("model"), std::string::npos) << msg;
  EXPECT_EQ(explain_cupti_error(40, "x").first, Status::NotAllowed);  // vGPU without profiling rights
}

TEST(CountersNotAllowed, UnsupportedSetupsAreNamed) {
  EXPECT_EQ(explain_cupti_error(27, "s").first, Status::Unsupported);
  EXPECT_EQ(explain_cupti_error(14, "s").first, Status::Unsupported);
  const auto mig = explain_cupti_error(43, "s");
  EXPECT_EQ(mig.first, Status::Unsupported);
  EXPECT_NE(mig.second.find("MIG"), std::string::npos);
  EXPECT_NE(explain_cupti_error(45, "s").second.find("WSL"), std::string::npos);
  EXPECT_NE(explain_cupti_error(33, "s").second.find("virtual GPU"), std::string::npos);
  const auto other = explain_cupti_error(999, "cuptiRangeProfilerStart", "CUPTI_ERROR_UNKNOWN");
  EXPECT_EQ(other.first, Status::Failed);
  EXPECT_NE(other.second.find("cuptiRangeProfilerStart returned 999 (CUPTI_ERROR_UNKNOWN)"),
            std::string::npos);
}

TEST(CountersNoLibrary, MissingCuptiIsAMessageNotACrash) {
  std::string why;
  EXPECT_FALSE(try_load_cupti({"libcupti-does-not-exist.so.99"}, &why));
  EXPECT_NE(why.find("CUPTI not found (libcupti-does-not-exist.so.99)"), std::string::npos) << why;
  EXPECT_NE(why.find("cuda-cupti"), std::string::npos) << why;

  // collect() with the library forced to a missing name: NoLibrary, the launch never runs.
  setenv("BLOCKSCOPE_CUPTI_LIBRARY", "libcupti-does-not-exist.so.99", 1);
  bool launched = false;
  const Result r = collect([&] { launched = true; });
  unsetenv("BLOCKSCOPE_CUPTI_LIBRARY");
  EXPECT_EQ(r.status, Status::NoLibrary);
  EXPECT_FALSE(launched);
  EXPECT_NE(r.message.find("CUPTI not found"), std::string::npos) << r.message;
  // The cache follows the variable: with it unset, the real library is found again where it exists.
  EXPECT_EQ(cupti_available(), try_load_cupti({"libcupti.so.13", "libcupti.so"}, nullptr));
}

TEST(CountersNoDevice, SaysThereIsNoGpu) {
  if (query_device().available)
    GTEST_SKIP() << "a CUDA device exists: the no-GPU path is tested on the CPU machine";
  std::string why;
  if (!cupti_available(&why)) GTEST_SKIP() << "no libcupti here: " << why;
  bool launched = false;
  const Result r = collect([&] { launched = true; });
  EXPECT_EQ(r.status, Status::NoDevice);
  EXPECT_FALSE(launched);
  EXPECT_NE(r.message.find("no CUDA device"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("model"), std::string::npos) << r.message;
}

// On the GPU: the float4 vector add of n floats reads 2n*4 bytes and writes n*4 from DRAM (inputs copied in
// by an earlier run, but the L2 is flushed first), with 4 sectors per warp request (a warp's float4s: 512
// bytes). At the bench's default size (64M floats, plus a partial block) the collection takes under 2 s: the
// passes replay the kernel alone (launch_kernels), not the 768 MiB of copies around it.
TEST(CountersGpu, VectorAddMovesWhatItMust) {
  const DeviceInfo dev = query_device();
  if (!dev.available) GTEST_SKIP() << "no CUDA device: " << dev.reason;
  vector::Params p;
  p.n = (int64_t{64} << 20) + 37;  // the bench default (vector::k_bench_n), not a multiple of the block
  p.op = vector::Op::Add;
  p.width = vector::LoadWidth::Float4;
  p.chunks = 1;
  p.streams = 1;
  vector::GpuRunner runner;
  EXPECT_THROW(runner.launch_kernels(p), InvalidRequest);  // nothing on the device yet
  (void)runner.run(p, 1, false);
  const Result r = collect([&] { runner.launch_kernels(p); });
  if (r.status == Status::NotAllowed || r.status == Status::Unsupported || under_another_profiler(r))
    GTEST_SKIP() << r.message;
  ASSERT_TRUE(r.ok()) << to_string(r.status) << ": " << r.message;
  std::printf("counters: %d kernel(s), %d passes, %.3f s, chip %s\n", r.values.kernels, r.passes, r.seconds,
              r.chip.c_str());
  EXPECT_LT(r.seconds, 2.0) << "collecting one kernel's counters must take under 2 s";
  const double n = static_cast<double>(p.n);
  ASSERT_TRUE(r.values.dram_read_bytes && r.values.dram_write_bytes);
  // DRAM within 5% of the minimum (sector granularity and ECC/refresh noise aside).
  EXPECT_NEAR(*r.values.dram_read_bytes, 8 * n, 0.05 * 8 * n);
  EXPECT_NEAR(*r.values.dram_write_bytes, 4 * n, 0.05 * 4 * n);
  ASSERT_TRUE(r.values.ld_sectors_per_request());
  EXPECT_NEAR(*r.values.ld_sectors_per_request(), 16.0, 0.1);  // float4: 32 lanes x 16 B = 16 sectors
  ASSERT_TRUE(r.values.achieved_occupancy_pct);
  EXPECT_GT(*r.values.achieved_occupancy_pct, 10.0);
  EXPECT_LE(*r.values.achieved_occupancy_pct, 100.0);
}

}  // namespace
}  // namespace bs::counters

namespace bs::counters {
namespace {

// On the GPU: what the launch throws comes back to the caller after the profiler is shut down, and a launch
// that starts no kernel is a clear failure; a collection after either still works.
TEST(CountersGpu, LaunchFailuresAreReportedAndLeaveNoSession) {
  if (!query_device().available) GTEST_SKIP() << "no CUDA device: " << query_device().reason;
  EXPECT_THROW(collect([] { throw std::runtime_error("launch failed on purpose"); }), std::runtime_error);
  const Result none = collect([] {});
  if (none.status == Status::NotAllowed || none.status == Status::Unsupported || under_another_profiler(none))
    GTEST_SKIP() << none.message;
  EXPECT_EQ(none.status, Status::Failed);
  EXPECT_NE(none.message.find("no kernel ran"), std::string::npos) << none.message;
  vector::Params p;
  p.n = 1000003;
  vector::GpuRunner runner;
  runner.prepare(p);
  const std::vector<float> a(runner.input_a().begin(), runner.input_a().end()),
      b(runner.input_b().begin(), runner.input_b().end());
  const Result r = collect([&] { runner.compute(p, a, b); });
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.values.kernels, 1);
  EXPECT_NEAR(*r.values.ld_sectors_per_request(), 4.0, 0.01);  // float loads: 32 lanes x 4 B = 4 sectors
}

}  // namespace
}  // namespace bs::counters
