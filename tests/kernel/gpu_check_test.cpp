// gpu_check_test.cpp: "Check on the GPU" (app/kernel/gpu_check.h), shared by the kernel editor's Simulator
// tab and the labs' simulated runs (app/kernel/lab_sim.h). On this CPU machine a fake compute-sanitizer (a
// shell script on PATH printing a canned report) stands in for the real one, so the child process really
// runs: its command line, the source file it gets, the report read back, the reasons the button is greyed.
// GpuCheckDevice.* runs the real compute-sanitizer on the GPU machine (skips, saying why, elsewhere).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "app/kernel/gpu_check.h"
#include "app/kernel/lab_sim.h"
#include "app/kernel/user_kernels.h"
#include "gpu/kernel/compiler.h"
#include "gpu/kernel/nvrtc_loader.h"
#include "gpu/kernel/contracts.h"
#include "run_util.h"
#include "test_util.h"

namespace bs {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// PATH with a directory in front (or, with `replace`, exactly `dir`) for the scope's lifetime (restored after).
class ScopedPath {
 public:
  explicit ScopedPath(const std::string& dir, bool replace = false) {
    const char* old = std::getenv("PATH");
    m_had = old != nullptr;
    if (old) m_old = old;
    const std::string now = replace ? dir : dir + (m_old.empty() ? "" : ":" + m_old);
    ::setenv("PATH", now.c_str(), 1);
  }
  ScopedPath(const ScopedPath&) = delete;
  ScopedPath& operator=(const ScopedPath&) = delete;
  ~ScopedPath() {
    if (m_had)
      ::setenv("PATH", m_old.c_str(), 1);
    else
      ::unsetenv("PATH");
  }

 private:
  bool m_had = false;
  std::string m_old;
};

// A directory holding a fake compute-sanitizer: it prints its arguments, whether the --source file exists
// and what its first line is, then `report`, and exits with `rc`.
fs::path fake_sanitizer(const std::string& name, const std::string& report, int rc) {
  const fs::path dir = fs::path(BS_TEST_OUT) / "gpu_check" / name;
  fs::create_directories(dir);
  const fs::path script = dir / "compute-sanitizer";
  std::ofstream f(script);
  f << "#!/bin/sh\n"
       "echo \"args: $*\"\n"
       "src=''\n"
       "prev=''\n"
       "for a in \"$@\"; do [ \"$prev\" = --source ] && src=\"$a\"; prev=\"$a\"; done\n"
       "if [ -f \"$src\" ]; then echo \"source file: present\"; grep -c __global__ \"$src\" | sed 's/^/kernels: /'; "
       "else echo \"source file: missing\"; fi\n"
       "cat <<'REPORT'\n"
    << report << "\nREPORT\nexit " << rc << "\n";
  f.close();
  fs::permissions(script, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
  return dir;
}

const char* k_clean_report = "========= COMPUTE-SANITIZER\ncheck: PASS\n========= ERROR SUMMARY: 0 errors";
const char* k_oob_report =
    "========= COMPUTE-SANITIZER\n"
    "========= Invalid __global__ write of size 4 bytes\n"
    "=========     at vector_op+0x90 in kernel.cu:5\n"
    "=========     by thread (232,0,0) in block (3,0,0)\n"
    "========= ERROR SUMMARY: 2 errors";

// Polls until the check's report arrives (a minute at most).
bool finish(GpuCheck& c) {
  const auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - t0 < 60s) {
    if (c.poll()) return true;
    std::this_thread::sleep_for(5ms);
  }
  return false;
}

std::string template_of(kernel::Target t) {
  return std::string(kernel::template_source(*kernel::find_template(kernel::k_target_names.name_of(t))));
}

TEST(GpuCheck, TheCommandLineRunsBenchKernelWithTheSimulatedLaunch) {
  GpuCheckRequest heat{kernel::Target::Heat, "", {}, std::nullopt};
  heat.settings = {67, 45, 0, 16, 4, 3, 2};
  EXPECT_EQ(gpu_check_command("/cuda/bin/compute-sanitizer", "/opt/blockscope", "/tmp/k.cu", heat),
            "'/cuda/bin/compute-sanitizer' --tool memcheck --print-limit 20 '/opt/blockscope' bench kernel "
            "--target heat --source '/tmp/k.cu' --size 67x45 --block 16x4 --grid 3x2 2>&1");
  GpuCheckRequest vec{kernel::Target::Vector, "", {}, std::string("formula")};
  vec.settings = {1000, 0, 0, 256, 1};
  EXPECT_EQ(gpu_check_command("cs", "it's", "/tmp/a b.cu", vec),
            "'cs' --tool memcheck --print-limit 20 'it'\\''s' bench kernel --target vector --source '/tmp/a b.cu' "
            "--size 1000 --block 256 --reference 'formula' 2>&1");
  GpuCheckRequest mm{kernel::Target::Matmul, "", {}, std::nullopt};
  mm.settings = {100, 77, 33, 0, 0};  // block 0: the contract's default
  const kernel::Contract& c = kernel::contract(kernel::Target::Matmul);
  EXPECT_NE(gpu_check_command("cs", "bs", "f", mm)
                .find("--target matmul --source 'f' --size 100x77x33 --block " + std::to_string(c.default_block_x) +
                      "x" + std::to_string(c.default_block_y) + " 2>&1"),
            std::string::npos);
}

TEST(GpuCheck, TheReportIsReadFromItsErrorSummary) {
  SanitizerReport r = parse_sanitizer_report(k_clean_report, 0);
  EXPECT_EQ(r.errors, 0);
  EXPECT_TRUE(r.clean());
  EXPECT_EQ(r.summary, "compute-sanitizer: no errors; the GPU run's check passed (exit status 0)");
  r = parse_sanitizer_report(k_oob_report, 1);
  EXPECT_EQ(r.errors, 2);
  EXPECT_FALSE(r.clean());
  EXPECT_EQ(r.summary, "compute-sanitizer: 2 errors (exit status 1)");
  r = parse_sanitizer_report("========= ERROR SUMMARY: 1 error\n", 1);
  EXPECT_EQ(r.summary, "compute-sanitizer: 1 error (exit status 1)");
  r = parse_sanitizer_report("check: FAIL\n========= ERROR SUMMARY: 0 errors\n", 1);
  EXPECT_FALSE(r.clean());
  EXPECT_EQ(r.summary, "compute-sanitizer: no errors; but the run failed (exit status 1)");
  r = parse_sanitizer_report("sh: 1: blockscope: not found\n", 127);
  EXPECT_EQ(r.errors, -1);
  EXPECT_NE(r.summary.find("no ERROR SUMMARY (exit status 127)"), std::string::npos) << r.summary;
  // The last summary counts (the bench's own output may quote the words before it).
  EXPECT_EQ(parse_sanitizer_report("ERROR SUMMARY: x\nERROR SUMMARY: 3 errors", 1).errors, 3);
}

TEST(GpuCheck, DisabledWithTheReason) {
  EXPECT_EQ(gpu_check_unavailable(false, "CUDA driver version is insufficient", "/bin"),
            "needs a CUDA GPU (CUDA driver version is insufficient)");
  EXPECT_EQ(gpu_check_unavailable(false, "", "/bin"), "needs a CUDA GPU (none found)");
  const fs::path dir = fake_sanitizer("reasons", k_clean_report, 0);
  EXPECT_EQ(gpu_check_unavailable(true, "", "/bin"),
            "needs compute-sanitizer on the PATH (it comes with the CUDA toolkit: add /usr/local/cuda/bin)");
  EXPECT_EQ(gpu_check_unavailable(true, "", ("/nonexistent:" + dir.string()).c_str()), "");
  EXPECT_NE(gpu_check_unavailable(true, "", nullptr).find("compute-sanitizer"), std::string::npos);
  EXPECT_EQ(find_on_path("compute-sanitizer", dir.c_str()), (dir / "compute-sanitizer").string());

  // The object: the device first, then compute-sanitizer looked up on PATH each time (it counts once it appears).
  GpuCheck c;
  c.set_gpu(false, "no NVIDIA driver found");
  EXPECT_EQ(c.unavailable(), "needs a CUDA GPU (no NVIDIA driver found)");
  EXPECT_FALSE(c.start({kernel::Target::Vector, "x", {1000, 0, 0, 256, 1}, std::nullopt}));
  EXPECT_EQ(c.report(), "cannot check on the GPU: needs a CUDA GPU (no NVIDIA driver found)");
  c.set_gpu(true, "");
  {
    ScopedPath p("/nonexistent", true);
    EXPECT_NE(c.unavailable().find("needs compute-sanitizer on the PATH"), std::string::npos) << c.unavailable();
  }
  ScopedPath p(dir.string());
  EXPECT_EQ(c.unavailable(), "");
}

// The child process really runs: the fake compute-sanitizer gets bench kernel's command line and the source
// file (removed afterwards), and its report and summary come back.
TEST(GpuCheck, RunsComputeSanitizerInAChildProcessAndReadsItsReport) {
  const fs::path dir = fake_sanitizer("oob", k_oob_report, 1);
  ScopedPath path(dir.string());
  GpuCheck c;
  c.set_gpu(true, "");
  c.set_program("/opt/bs/blockscope");
  GpuCheckRequest r{kernel::Target::Vector, template_of(kernel::Target::Vector), {1000, 0, 0, 256, 1}, "add"};
  ASSERT_TRUE(c.start(r)) << c.report();
  EXPECT_FALSE(c.start(r));  // one at a time
  ASSERT_TRUE(finish(c));
  EXPECT_FALSE(c.running());
  const std::string& rep = c.report();
  EXPECT_NE(rep.find("args: --tool memcheck --print-limit 20 /opt/bs/blockscope bench kernel --target vector --source "),
            std::string::npos)
      << rep;
  EXPECT_NE(rep.find("--size 1000 --block 256 --reference add"), std::string::npos) << rep;
  EXPECT_NE(rep.find("source file: present"), std::string::npos) << rep;
  EXPECT_NE(rep.find("kernels: 1"), std::string::npos) << rep;
  EXPECT_NE(rep.find("by thread (232,0,0) in block (3,0,0)"), std::string::npos) << rep;
  EXPECT_NE(rep.find("(exit status 1)"), std::string::npos) << rep;
  EXPECT_EQ(c.summary(), "compute-sanitizer: 2 errors (exit status 1)");
  EXPECT_FALSE(c.clean());
  // The source file was removed after the run.
  const size_t at = rep.find("--source '") + 10;
  const std::string file = rep.substr(at, rep.find('\'', at) - at);
  EXPECT_NE(file.find("blockscope-check-"), std::string::npos) << file;
  EXPECT_FALSE(fs::exists(file)) << file;
}

// Compiles the template of `t` and publishes it.
UserKernel published(UserKernels& uk, kernel::Target t) {
  kernel::CompileRequest req;
  req.source = template_of(t);
  req.target = t;
  auto result = std::make_shared<const kernel::CompileResult>(kernel::compile_kernel(req));
  EXPECT_TRUE(result->ok()) << result->message << result->log;
  uk.publish(req, result, "test");
  return uk.current(t);
}

// Simulates `k` to the end through `sim`.
void simulate(LabSimulation& sim, const UserKernel& k, LabSimRequest r) {
  ASSERT_TRUE(sim.start(k, std::move(r))) << sim.view().status;
  sim.wait();
  ASSERT_TRUE(sim.poll()) << sim.view().status;
  ASSERT_TRUE(sim.view().has);
}

// The labs' simulated run: the button is greyed with the reason until a device and compute-sanitizer exist;
// then the view's click runs the same kernel and launch, and the report lands beside the simulator's verdict.
TEST(LabSimulationGpuCheck, TheButtonRunsTheSimulatedKernelAndItsReportSitsBesideTheSimulators) {
  if (!kernel::nvrtc().ok()) GTEST_SKIP() << "NVRTC is not installed: " << kernel::nvrtc().error;
  UserKernels uk;
  const UserKernel k = published(uk, kernel::Target::Vector);
  LabSimulation sim;
  sim.set_gpu(false, "CUDA driver version is insufficient");
  EXPECT_FALSE(sim.check_on_gpu());
  EXPECT_NE(sim.view().gpu_report.find("simulate a kernel first"), std::string::npos) << sim.view().gpu_report;
  LabSimRequest r;
  r.target = kernel::Target::Vector;
  r.settings = {1000, 0, 0, 256, 1};
  r.inputs.vector_op = vector::Op::Formula;
  simulate(sim, k, r);
  EXPECT_EQ(sim.view().verdict, "PASS (simulated)");
  EXPECT_FALSE(sim.view().gpu_check_enabled);
  EXPECT_EQ(sim.view().gpu_check_reason, "needs a CUDA GPU (CUDA driver version is insufficient)");

  // A device but no compute-sanitizer.
  sim.set_gpu(true, "");
  {
    ScopedPath p("/nonexistent", true);
    sim.poll();
    EXPECT_FALSE(sim.view().gpu_check_enabled);
    EXPECT_NE(sim.view().gpu_check_reason.find("needs compute-sanitizer on the PATH"), std::string::npos);
  }
  // Both: offered; the view's click (what draw_simulated_run sets) starts it on the next poll.
  const fs::path dir = fake_sanitizer("lab", k_clean_report, 0);
  ScopedPath p(dir.string());
  sim.poll();
  EXPECT_TRUE(sim.view().gpu_check_enabled) << sim.view().gpu_check_reason;
  EXPECT_TRUE(sim.view().gpu_check_reason.empty());
  ASSERT_TRUE(sim.view().gpu_check_clicked);
  *sim.view().gpu_check_clicked = true;
  sim.poll();
  EXPECT_FALSE(*sim.view().gpu_check_clicked);
  EXPECT_TRUE(sim.checking_on_gpu() || !sim.gpu_check().report().empty());
  sim.wait_gpu_check();
  sim.poll();
  const ui::SimulatedRunView& v = sim.view();
  EXPECT_FALSE(v.gpu_check_running);
  EXPECT_EQ(v.gpu_summary, "compute-sanitizer: no errors; the GPU run's check passed (exit status 0)");
  EXPECT_TRUE(v.gpu_clean);
  EXPECT_NE(v.gpu_report.find("--target vector"), std::string::npos) << v.gpu_report;
  EXPECT_NE(v.gpu_report.find("--size 1000 --block 256 --reference 'formula'"), std::string::npos) << v.gpu_report;
  EXPECT_NE(v.gpu_report.find("source file: present"), std::string::npos) << v.gpu_report;
  // Beside the simulator's result, which stays.
  EXPECT_EQ(v.verdict, "PASS (simulated)");
  EXPECT_TRUE(v.has);
  // A new run forgets the old report only through clear().
  sim.clear();
  EXPECT_TRUE(sim.view().gpu_summary.empty());
  ASSERT_TRUE(sim.view().gpu_check_clicked);
}

// Without set_gpu the lab's check asks the device itself: here (no GPU) it is greyed with the CUDA
// runtime's reason; on the GPU machine it is offered where compute-sanitizer is on the PATH.
TEST(LabSimulationGpuCheck, WithoutSetGpuItAsksTheDevice) {
  GpuCheck c;
  const std::string why = c.unavailable();
  if (!test::device().available)
    EXPECT_EQ(why, "needs a CUDA GPU (" + test::device().reason + ")");
  else if (find_on_path("compute-sanitizer", std::getenv("PATH")).empty())
    EXPECT_NE(why.find("needs compute-sanitizer"), std::string::npos) << why;
  else
    EXPECT_EQ(why, "");
}

// The GPU machine: the real compute-sanitizer runs the built blockscope on the heat template, at an odd
// size, and finds nothing; a vector_op that writes past its output is caught.
TEST(GpuCheckDevice, RealComputeSanitizerChecksTheTemplateAndCatchesAnOutOfBoundsWrite) {
  BS_REQUIRE_GPU();
  if (find_on_path("compute-sanitizer", std::getenv("PATH")).empty())
    GTEST_SKIP() << "compute-sanitizer is not on the PATH (add /usr/local/cuda/bin)";
  GpuCheck c;
  c.set_program(test::blockscope_binary());
  ASSERT_EQ(c.unavailable(), "");
  ASSERT_TRUE(c.start({kernel::Target::Heat, template_of(kernel::Target::Heat), {67, 45, 0, 32, 8}, std::nullopt}))
      << c.report();
  c.wait();
  ASSERT_TRUE(c.poll());
  EXPECT_TRUE(c.clean()) << c.report();
  EXPECT_EQ(c.summary(), "compute-sanitizer: no errors; the GPU run's check passed (exit status 0)") << c.report();

  std::string bad = template_of(kernel::Target::Vector);
  const std::string write = "if (i < n) c[i] =";
  const size_t at = bad.find(write);
  ASSERT_NE(at, std::string::npos) << bad;
  bad.replace(at, write.size(), "if (i < n) c[i + 2 * n] =");  // every thread writes far past the output
  ASSERT_TRUE(c.start({kernel::Target::Vector, bad, {1000, 0, 0, 256, 1}, std::nullopt})) << c.report();
  c.wait();
  ASSERT_TRUE(c.poll());
  EXPECT_FALSE(c.clean()) << c.report();
  EXPECT_GT(parse_sanitizer_report(c.report(), 0).errors, 0) << c.report();
}

}  // namespace
}  // namespace bs
