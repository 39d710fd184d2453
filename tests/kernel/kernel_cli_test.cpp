// kernel_cli_test.cpp: `blockscope kernel template|compile` run as a user would (tests/run_util.h), with the
// cache in a private folder (BLOCKSCOPE_CACHE_DIR).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gpu/kernel/contracts.h"
#include "gpu/kernel/nvrtc_loader.h"
#include "run_util.h"

namespace bs {
namespace {

namespace fs = std::filesystem;
using test::run_blockscope;

class KernelCli : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir = fs::path(BS_TEST_OUT) / ("kernel-cli-" + std::to_string(getpid()) + "-" +
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
  test::RunResult run(const std::string& args) { return run_blockscope(args, m_env); }
  bool have_nvrtc() const { return kernel::nvrtc().ok(); }

  fs::path m_dir;
  std::string m_env;
};

TEST_F(KernelCli, TemplatePrintsTheEmbeddedSource) {
  for (const kernel::KernelTemplate& t : kernel::kernel_templates()) {
    const auto r = run("kernel template " + std::string(t.id));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output, std::string(kernel::template_source(t)));
  }
  const auto bad = run("kernel template fft");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("'fft' is not one of heat, heat-tutorial, vector, matmul, matmul-tiled"),
            std::string::npos)
      << bad.output;
}

TEST_F(KernelCli, CompilesATemplateAndPrintsResources) {
  if (!have_nvrtc()) GTEST_SKIP() << "NVRTC is not installed";
  const std::string file =
      write("heat.cu", std::string(kernel::template_source(*kernel::find_template("heat"))));
  const auto r = run("kernel compile " + file + " --target heat --arch sm_90");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("compiled for sm_90"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("kernel heat_step: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(
                " registers, 0 B static shared memory, 0 B local memory (stack frame), spills 0 B stored"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("compiled in "), std::string::npos) << r.output;
  // The second time: from the disk cache.
  const auto again = run("kernel compile " + file + " --target heat --arch sm_90");
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("from the cache in "), std::string::npos) << again.output;
}

TEST_F(KernelCli, CompileErrorExitsTwoWithFileLineColumnAndTheSourceLine) {
  if (!have_nvrtc()) GTEST_SKIP() << "NVRTC is not installed";
  const std::string file =
      write("bad.cu",
            "extern \"C\" __global__ void vector_op(const float* a, const float* b, float* c, "
            "long long n) {\n"
            "  long long i = threadIdx.x;\n"
            "  if (i < n) c[i] = a[i] + scale * b[i];\n"
            "}\n");
  const auto r = run("kernel compile " + file + " --target vector");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(file + ":3:28: error: identifier \"scale\" is undefined"), std::string::npos)
      << r.output;
  EXPECT_NE(
      r.output.find("  3 |   if (i < n) c[i] = a[i] + scale * b[i];\n    | " + std::string(27, ' ') + "^\n"),
      std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("compile failed: 1 error"), std::string::npos) << r.output;
}

TEST_F(KernelCli, WrongSignatureExitsTwoWithTheExpectedSignature) {
  if (!have_nvrtc()) GTEST_SKIP() << "NVRTC is not installed";
  const std::string file = write(
      "sig.cu", "extern \"C\" __global__ void matmul(const float* A, const float* B, float* C, int n) {}\n");
  const auto r = run("kernel compile " + file + " --target matmul");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(file +
                          ":1: error: matmul has the wrong signature; the matmul contract expects: extern "
                          "\"C\" __global__ void matmul(const float* A, const float* B, float* C, int M, int "
                          "N, int K)"),
            std::string::npos)
      << r.output;
}

TEST_F(KernelCli, PtxIsAnnotatedWithSourceLines) {
  if (!have_nvrtc()) GTEST_SKIP() << "NVRTC is not installed";
  const std::string file =
      write("v.cu", std::string(kernel::template_source(*kernel::find_template("vector"))));
  const auto r = run("kernel compile " + file + " --target vector --ptx --no-cache");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(".visible .entry vector_op("), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("//## " + file + ":8:   if (i < n) c[i] = (a[i] * 10.0f + 2.0f)"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(m_dir / "cache"));  // --no-cache wrote nothing
}

TEST_F(KernelCli, BadInputExitsTwo) {
  if (!have_nvrtc()) GTEST_SKIP() << "NVRTC is not installed";
  const std::string file = write("k.cu", "extern \"C\" __global__ void k() {}\n");
  auto r = run("kernel compile " + file + " --arch sm_61");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("sm_61 is not supported by NVRTC 13"), std::string::npos) << r.output;
  r = run("kernel compile " + file + " --arch 90");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("'90' is not sm_XX"), std::string::npos) << r.output;
  r = run("kernel compile " + file + " --target fft");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("'fft' is not one of heat, vector, matmul"), std::string::npos) << r.output;
  r = run("kernel compile " + file + " --maxrregcount 8");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = run("kernel compile " + (m_dir / "missing.cu").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("missing.cu"), std::string::npos) << r.output;
}

TEST_F(KernelCli, MissingNvrtcExitsOneWithWhatToInstall) {
  const std::string file = write("k.cu", "extern \"C\" __global__ void k() {}\n");
  const auto r =
      run_blockscope("kernel compile " + file, m_env + " BLOCKSCOPE_NVRTC_LIBRARY=libnvrtc-missing.so.13");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(
      r.output.find("NVRTC not found (libnvrtc.so.13): install the CUDA toolkit's NVRTC (cuda-nvrtc-13-0)"),
      std::string::npos)
      << r.output;
  // Templates need no NVRTC.
  EXPECT_EQ(
      run_blockscope("kernel template vector", "BLOCKSCOPE_NVRTC_LIBRARY=libnvrtc-missing.so.13").exit_code,
      0);
}

TEST_F(KernelCli, RepeatReportsFirstCompileAndCacheHits) {
  if (!have_nvrtc()) GTEST_SKIP() << "NVRTC is not installed";
  const std::string file =
      write("heat.cu", std::string(kernel::template_source(*kernel::find_template("heat"))));
  const auto r = run("kernel compile " + file + " --target heat --arch sm_90 --repeat 3");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* want : {"compile benchmark: 3 rounds, sm_90", "first compile in this process:",
                           "first compile (entry removed): median", "nvrtcCompileProgram alone:     median",
                           "from the disk cache (load):    median", "from the memory cache:         median"})
    EXPECT_NE(r.output.find(want), std::string::npos) << want << "\n" << r.output;
}

}  // namespace
}  // namespace bs
