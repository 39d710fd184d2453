// sim_cli_test.cpp: `blockscope kernel check` and `blockscope bench sim` run as a user would (tests/run_util.h):
// a template passes (exit 0), a kernel with a bug fails with the diagnostic on its line (exit 1), an endless
// loop stops with the thread and line (exit 1), bad input is exit 2; --trace writes its CSV files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gpu/kernel/contracts.h"
#include "gpu/kernel/nvrtc_loader.h"
#include "run_util.h"
#include "test_util.h"

namespace bs {
namespace {

namespace fs = std::filesystem;

class SimCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!kernel::nvrtc().ok()) GTEST_SKIP() << "NVRTC is not installed: " << kernel::nvrtc().error;
    m_dir = fs::path(BS_TEST_OUT) / ("sim-cli-" + std::to_string(getpid()) + "-" +
                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
    m_env = "BLOCKSCOPE_CACHE_DIR=" + (m_dir / "cache").string();
  }
  void TearDown() override { fs::remove_all(m_dir); }
  std::string write(const std::string& name, const std::string& text) {
    const fs::path p = m_dir / name;
    std::ofstream(p) << text;
    return p.string();
  }
  std::string tmpl(const char* id) {
    return write(std::string(id) + ".cu", std::string(kernel::template_source(*kernel::find_template(id))));
  }
  test::RunResult run(const std::string& args) { return test::run_blockscope(args, m_env); }
  fs::path m_dir;
  std::string m_env;
};

TEST_F(SimCli, EveryTemplatePassesWithNoDiagnostic) {
  for (const kernel::KernelTemplate& t : kernel::kernel_templates()) {
    SCOPED_TRACE(std::string(t.id));
    const std::string file = tmpl(std::string(t.id).c_str());
    const auto r = run("kernel check " + file + " --target " +
                       std::string(kernel::k_target_names.name_of(t.target)));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("simulated (no GPU)"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(": pass"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("diagnostics: none"), std::string::npos) << r.output;
  }
}

TEST_F(SimCli, AMissingGuardFailsWithTheLineThreadAndBlock) {
  const std::string file = write("noguard.cu", R"(extern "C" __global__ void vector_op(const float* a, const float* b, float* c, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  c[i] = a[i] + b[i];
}
)");
  const auto r = run("kernel check " + file + " --target vector --reference add --size 1000 --block 256");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(file + ":3: out-of-bounds: thread (232, 0, 0) of block (3, 0, 0) read 4 bytes at "
                                 "element 1000 of 'a' (1000 elements): past its end (24 times)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find(": pass"), std::string::npos) << r.output;  // the values are right: only the bug shows
}

TEST_F(SimCli, AnEndlessLoopStopsWithTheLine) {
  const std::string file = write("spin.cu", R"(extern "C" __global__ void vector_op(const float* a, const float* b, float* c, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  while (i < n) c[i] = a[i];  // i never moves
}
)");
  const auto r = run("kernel check " + file + " --target vector --size 64 --block 32 --budget 20000");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("stopped: " + file + ":3: ran 20000 instructions without finishing"), std::string::npos)
      << r.output;
}

TEST_F(SimCli, BadInputIsExitTwo) {
  EXPECT_EQ(run("kernel check /nonexistent.cu --target heat").exit_code, 2);
  const std::string file = tmpl("heat");
  const auto size = run("kernel check " + file + " --target heat --size 0x5");
  EXPECT_EQ(size.exit_code, 2) << size.output;
  const auto block = run("kernel check " + file + " --target heat --block 64x64");
  EXPECT_EQ(block.exit_code, 2) << block.output;
  EXPECT_NE(block.output.find("1024"), std::string::npos) << block.output;
  const std::string broken = write("broken.cu", "extern \"C\" __global__ void heat_step( {\n");
  EXPECT_EQ(run("kernel check " + broken + " --target heat").exit_code, 2);
}

TEST_F(SimCli, TraceWritesAccessesInstructionsAndThreads) {
  const std::string file = tmpl("matmul-tiled");
  const fs::path out = m_dir / "trace";
  const auto r = run("kernel check " + file + " --target matmul --size 40x33x20 --trace " + out.string() +
                     " --trace-blocks 2");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("2 of 9 blocks"), std::string::npos) << r.output;
  const std::string acc = test::read_text(out / "accesses.csv");
  EXPECT_EQ(acc.rfind("block_x,block_y,block_z,thread_x", 0), 0u) << acc.substr(0, 200);
  EXPECT_NE(acc.find(",shared,write,"), std::string::npos);
  EXPECT_NE(acc.find(",global,read,A,"), std::string::npos);
  const std::string ins = test::read_text(out / "instructions.csv");
  EXPECT_NE(ins.find("bar.sync"), std::string::npos);
  const std::string th = test::read_text(out / "threads.csv");
  EXPECT_EQ(std::count(th.begin(), th.end(), '\n'), 1 + 9 * 256);
}

TEST_F(SimCli, BenchSimReportsItsSpeed) {
  const auto r = run("bench sim --size 128");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("M thread-instr/s per core"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("traced (every access recorded)"), std::string::npos) << r.output;
  EXPECT_EQ(run("bench sim --size 5").exit_code, 2);
}

}  // namespace
}  // namespace bs
