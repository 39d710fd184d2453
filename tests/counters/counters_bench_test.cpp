// counters_bench_test.cpp: `bench ... --counters`: the flag on every bench, the counter columns and notes of
// the table (made-up results: ok, failed, none), and through the binary the no-GPU and no-CUPTI messages.
#include <gtest/gtest.h>

#include <sstream>

#include "app/bench.h"
#include "app/counters_bench.h"
#include "gpu/common/device_info.h"
#include "run_util.h"

namespace bs::cli {
namespace {

counters::Result ok_result() {
  counters::Result r;
  r.status = counters::Status::Ok;
  r.chip = "GH100";
  r.passes = 3;
  r.values = counters::derive(
      {{{"dram__bytes_read.sum", 8e6},
        {"dram__bytes_write.sum", 4e6},
        {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 1600},
        {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 100},
        {"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", 12.5}}});
  r.raw = {{{"dram__bytes_read.sum", 8e6}, {"dram__bytes_write.sum", 4e6}}};
  return r;
}

TEST(CountersBench, ColumnsForGpuRowsDashesElsewhere) {
  Table t{{"variant", "ms"}, {{"gpu kernel", "1.0"}, {"CPU, 1 thread", "9.0"}, {"gpu other", "2.0"}}};
  counters::Result failed;
  failed.status = counters::Status::NotAllowed;
  failed.message = "restricted to administrators";
  t.counters = {ok_result(), std::nullopt, failed};
  std::ostringstream out;
  t.print(out);
  const std::string s = out.str();
  for (const auto& h : counter_headers())
    EXPECT_NE(s.find(h), std::string::npos) << "header " << h << " in\n" << s;
  EXPECT_NE(s.find("8.00"), std::string::npos) << s;   // DRAM read MB
  EXPECT_NE(s.find("16.00"), std::string::npos) << s;  // ld sectors per request
  EXPECT_NE(s.find("long_scoreboard 12.5"), std::string::npos) << s;
  EXPECT_NE(s.find("counters: not allowed: restricted to administrators"), std::string::npos) << s;
  EXPECT_NE(s.find("never part of a timing"), std::string::npos) << s;
  EXPECT_NE(s.find("dram__bytes_read.sum = 8000000"), std::string::npos) << "raw values for ncu: " << s;
  // The CPU row has dashes in every counter column.
  const auto cpu = s.find("CPU, 1 thread");
  ASSERT_NE(cpu, std::string::npos);
  const std::string line = s.substr(cpu, s.find('\n', cpu) - cpu);
  EXPECT_EQ(line.find("8.00"), std::string::npos) << line;
}

TEST(CountersBench, NoCountersNoColumns) {
  Table t{{"variant", "ms"}, {{"a", "1"}}};
  std::ostringstream out;
  t.print(out);
  EXPECT_EQ(out.str().find("DRAM rd MB"), std::string::npos);
}

TEST(CountersBench, EveryBenchTakesTheFlag) {
  for (const char* b : {"heat", "matmul", "vector", "memory", "reduce", "montecarlo", "interop", "kernel"}) {
    const auto r = test::run_blockscope(std::string("bench ") + b + " --help");
    EXPECT_EQ(r.exit_code, 0) << b << ": " << r.output;
    EXPECT_NE(r.output.find("--counters"), std::string::npos) << b << ": " << r.output;
  }
}

TEST(CountersBench, NoGpuSaysSoAndKeepsTheCpuRows) {
  if (query_device().available)
    GTEST_SKIP() << "a CUDA device exists: the no-GPU path is tested on the CPU machine";
  const auto r = test::run_blockscope("bench vector --n 4099 --reps 1 --counters");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("CPU, 1 thread"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--counters: no counter columns"), std::string::npos) << r.output;
  const auto gpu = test::run_blockscope("bench vector --n 4099 --reps 1 --device gpu --counters");
  EXPECT_EQ(gpu.exit_code, 1) << gpu.output;
  EXPECT_NE(gpu.output.find("no CUDA device"), std::string::npos) << gpu.output;
}

}  // namespace
}  // namespace bs::cli
