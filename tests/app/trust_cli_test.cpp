// trust_cli_test.cpp: the binary as a user runs it, on the inputs that must never hang or be silently taken
// (issue 29): kernel sources through every door (a FIFO, an over-limit file, bytes that are not UTF-8, a BOM,
// a self-including file, an #include of a FIFO, a #line, a macro bomb), a session holding a macro bomb that
// must not keep the process alive, -D of any identifier, enum options by name only, repeated options, the
// multi-GPU and reduce options checked with or without a GPU, a failed export that leaves the folder whole,
// a sweep whose points fail, and the replay of a user-kernel sweep.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "app/sweep/export.h"
#include "gpu/kernel/nvrtc_loader.h"
#include "run_util.h"
#include "test_util.h"

namespace {

namespace fs = std::filesystem;
using bs::test::RunResult;
using bs::test::read_text;
using bs::test::run_blockscope;
using Clock = std::chrono::steady_clock;

#define REQUIRE_NVRTC()                                                                               \
  do {                                                                                                \
    if (!bs::kernel::nvrtc().ok()) GTEST_SKIP() << "NVRTC is not installed: " << bs::kernel::nvrtc().error; \
  } while (0)

fs::path fresh(const std::string& name) {
  const fs::path p = fs::path(BS_TEST_OUT) / "trust" / name;
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

std::string q(const fs::path& p) {
  std::string out = "'";  // appended, not "'" + ...: GCC 12's -Wrestrict false positive
  out += p.string();
  out += "'";
  return out;
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The last line of the output (the CLI's one-line message on a failure).
std::string last_line(const std::string& out) {
  std::string s = out;
  while (!s.empty() && s.back() == '\n')
    s.pop_back();
  const size_t nl = s.find_last_of('\n');
  return nl == std::string::npos ? s : s.substr(nl + 1);
}

const char* const k_heat_kernel =
    "extern \"C\" __global__ void heat_step(const float* in, float* out, int nx, int ny, float r,\n"
    "                                       float boundary_temp, int fixed_boundary) {\n"
    "  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "  if (x >= nx || y >= ny) return;\n"
    "  const float c = in[y * nx + x];\n"
    "  const float o = fixed_boundary ? boundary_temp : c;\n"
    "  const float l = x > 0 ? in[y * nx + x - 1] : o, rr = x + 1 < nx ? in[y * nx + x + 1] : o;\n"
    "  const float d = y > 0 ? in[(y - 1) * nx + x] : o, u = y + 1 < ny ? in[(y + 1) * nx + x] : o;\n"
    "  out[y * nx + x] = c + r * (l + rr + d + u - 4.0f * c);\n"
    "}\n";

std::string macro_bomb() {
  std::string s = "#define A0 x x x x x x x x x x\n";
  for (int i = 1; i <= 9; ++i) {
    s += "#define A" + std::to_string(i);
    for (int k = 0; k < 10; ++k)
      s += " A" + std::to_string(i - 1);
    s += "\n";
  }
  return s + "__device__ int v[] = { A9 };\n";
}

fs::path write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

// --- Kernel sources: every door refuses a FIFO, a device and an over-limit file before reading -------------

TEST(TrustCli, EveryKernelSourceDoorRefusesAFifoAtOnce) {
  const fs::path dir = fresh("fifo");
  const fs::path fifo = dir / "k.cu";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& cmd :
       {"kernel compile " + q(fifo), "bench kernel --target heat --source " + q(fifo) + " --size 64",
        "sweep heat --param size=64 --fixed kernel=user --device cpu --reps 1 --kernel " + q(fifo) +
            " --out " + q(dir / "out")}) {
    SCOPED_TRACE(cmd);
    const auto t0 = Clock::now();
    const RunResult r = run_blockscope(cmd);
    EXPECT_LT(seconds_since(t0), 20.0);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(last_line(r.output).find("is not a regular file"), std::string::npos) << r.output;
    EXPECT_NE(last_line(r.output).find(fifo.string()), std::string::npos) << r.output;
  }
}

TEST(TrustCli, EveryKernelSourceDoorRefusesAnOverLimitFile) {
  const fs::path dir = fresh("big");
  const fs::path big = write(dir / "big.cu", "");
  fs::resize_file(big, (size_t{1} << 20) + 1);
  for (const std::string& cmd : {"kernel compile " + q(big), "bench kernel --target heat --source " + q(big),
                                 "sweep heat --param size=64 --fixed kernel=user --device cpu --kernel " +
                                     q(big) + " --out " + q(dir / "out")}) {
    SCOPED_TRACE(cmd);
    const RunResult r = run_blockscope(cmd);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(last_line(r.output).find("larger than 1 MiB"), std::string::npos) << r.output;
  }
  const RunResult dev = run_blockscope("bench kernel --target heat --source /dev/zero");
  EXPECT_EQ(dev.exit_code, 2) << dev.output;
  EXPECT_NE(last_line(dev.output).find("not a regular file"), std::string::npos) << dev.output;
}

TEST(TrustCli, SourceProblemsAreMessagesAboutTheSource) {
  REQUIRE_NVRTC();
  const fs::path dir = fresh("source");
  struct Case {
    std::string file, text, says;
  };
  const fs::path self = dir / "self.cu";
  const std::vector<Case> cases = {
      {"latin1.cu", std::string(k_heat_kernel) + "// caf\xe9\n", "latin1.cu:11:7: byte 0xe9 is not UTF-8"},
      {"self.cu", "#include \"" + self.string() + "\"\n" + k_heat_kernel, "includes itself"},
      {"line.cu", std::string(k_heat_kernel) + "#line 7 \"other.cu\"\n__device__ int y = ;\n",
       "other.cu(7): expected an expression"},
      {"dev.cu", "#include \"/dev/zero\"\n" + std::string(k_heat_kernel),
       "dev.cu:1: error: #include \"/dev/zero\": is a device"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    const fs::path f = write(dir / c.file, c.text);
    const RunResult r = run_blockscope("kernel compile --no-cache --target heat " + q(f));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    // (stdout, with the diagnostics, is flushed after stderr's last line: the message is searched in both.)
    EXPECT_NE(r.output.find("blockscope: kernel compile: "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("refused the options"), std::string::npos) << r.output;
  }
}

TEST(TrustCli, AnIncludeOfAFifoIsRefusedWithoutWaiting) {
  REQUIRE_NVRTC();
  const fs::path dir = fresh("include-fifo");
  const fs::path fifo = dir / "pipe.h";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const fs::path f = write(dir / "k.cu", "#include \"" + fifo.string() + "\"\n" + k_heat_kernel);
  const auto t0 = Clock::now();
  const RunResult r = run_blockscope("kernel compile --no-cache " + q(f));
  EXPECT_LT(seconds_since(t0), 15.0);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("is a pipe or socket"), std::string::npos) << r.output;
}

TEST(TrustCli, AMacroBombIsStoppedWithAMessageNamingTheFile) {
  REQUIRE_NVRTC();
  const fs::path dir = fresh("bomb");
  const fs::path f = write(dir / "bomb.cu", macro_bomb());
  const auto t0 = Clock::now();
  const RunResult r = run_blockscope("kernel compile --no-cache --compile-timeout 2 " + q(f), "timeout 60");
  EXPECT_LT(seconds_since(t0), 15.0);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(last_line(r.output).find(f.string() + ": compile stopped after 2.0 s (the time limit)"),
            std::string::npos)
      << r.output;
  const RunResult b = run_blockscope("bench kernel --target heat --size 64 --compile-timeout 1 --source " + q(f));
  EXPECT_EQ(b.exit_code, 2) << b.output;
  EXPECT_NE(last_line(b.output).find("the time limit"), std::string::npos) << b.output;
}

TEST(TrustCli, ASessionHoldingAMacroBombExitsPromptlyAfterItsLastFrame) {
  REQUIRE_NVRTC();
  const fs::path dir = fresh("session-bomb");
  const nlohmann::json s = {
      {"blockscope_session", 1},
      {"active_lab", "heat"},
      {"open_labs", {"heat"}},
      {"kernel", {{"target", "heat"}, {"auto_compile", true}, {"documents", {{"heat", {{"source", macro_bomb()}}}}}}}};
  const fs::path f = write(dir / "bomb.json", s.dump());
  const auto t0 = Clock::now();
  // (timeout 60: without abandonment the process waited on NVRTC for as long as the bomb took.)
  const RunResult r = run_blockscope("--headless --frames 3 --width 320 --height 240 --session " + q(f),
                                     "BLOCKSCOPE_CACHE_DIR=" + (dir / "cache").string() + " timeout 60");
  // The compile would take 20 s to hit its time limit: an exit well before that means it was abandoned.
  EXPECT_LT(seconds_since(t0), 15.0) << r.output;
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST(TrustCli, AByteOrderMarkAndDefinesOfAnyIdentifierCompile) {
  REQUIRE_NVRTC();
  const fs::path dir = fresh("bom");
  const fs::path f = write(dir / "bom.cu", "\xEF\xBB\xBF" + std::string(k_heat_kernel));
  const RunResult r = run_blockscope("kernel compile --no-cache --target heat " + q(f) +
                                     " -D value=2 -D A=1 -D is_same=3 -D bs_contract -D B=");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("compiled for sm_"), std::string::npos) << r.output;
}

// --- Options: names only, once, checked before anything runs ------------------------------------------------

TEST(TrustCli, EnumOptionsTakeNamesOnlyAndListThem) {
  for (const std::string& cmd :
       {std::string("bench heat --size 64 --steps 1 --cpu-steps 1 --device 1"),
        std::string("bench heat --size 64 --steps 1 --cpu-steps 1 --device 0"),
        std::string("bench kernel --target 2 --source x.cu"), std::string("--headless --frames 1 --overlay 1")}) {
    SCOPED_TRACE(cmd);
    const RunResult r = run_blockscope(cmd);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    const std::string line = last_line(r.output);
    EXPECT_NE(line.find("is not one of"), std::string::npos) << r.output;
    EXPECT_EQ(line.find("->"), std::string::npos) << r.output;  // CLI11's mapping "{gpu->1, ...}"
  }
  const RunResult ok = run_blockscope("bench heat --size 64 --steps 1 --cpu-steps 1 --device CPU");
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
}

TEST(TrustCli, ARepeatedSingleValueOptionIsRefused) {
  for (const std::string& cmd : {std::string("bench heat --size 64 --size 128 --device cpu"),
                                 std::string("bench vector --n 1K --n 2K --device cpu"),
                                 std::string("occupancy --arch sm_90 --threads 128 --threads 256"),
                                 std::string("--headless --frames 1 --frames 2"),
                                 std::string("sweep heat --param size=16 --reps 1 --reps 2 --device cpu --out d")}) {
    SCOPED_TRACE(cmd);
    const RunResult r = run_blockscope(cmd);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(last_line(r.output).find("given more than once"), std::string::npos) << r.output;
  }
}

TEST(TrustCli, MultiGpuOptionsAreCheckedWithOrWithoutAGpu) {
  struct Case {
    std::string args, says;
  };
  for (const Case& c : std::vector<Case>{
           {"bench heat --gpus 1 --size 0", "--size"},
           {"bench heat --gpus 1 --size 64x", "--size"},
           {"bench heat --per-rank --rank -3 --nranks 2", "--rank -3"},
           {"bench heat --per-rank --rank 2 --nranks 2", "--rank 2"},
           {"bench heat --per-rank --rank 0 --nranks 0", "--nranks 0"},
           {"bench montecarlo --gpus 1 --nranks -1 --paths 1000", "--nranks -1"},
           {"bench heat --size 64 --device cpu --scaling-out plot", "--scaling-out applies to the multi-GPU"},
           {"bench heat --size 64 --device cpu --weak", "--weak applies"},
           {"bench heat --gpus 1 --scaling-out /nonexistent-folder/plot", "--scaling-out"},
       }) {
    SCOPED_TRACE(c.args);
    const RunResult r = run_blockscope(c.args);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(last_line(r.output).find(c.says), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("rows skipped"), std::string::npos) << r.output;
  }
}

TEST(TrustCli, ReduceAndScanRefuseTheBlocksTheHelpRefuses) {
  for (const char* op : {"reduce", "scan"}) {
    SCOPED_TRACE(op);
    const RunResult r = run_blockscope(std::string("bench ") + op + " --n 4096 --block 96 --device cpu");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(last_line(r.output).find("--block 96 is not a power of two"), std::string::npos) << r.output;
    const RunResult ok = run_blockscope(std::string("bench ") + op + " --n 4096 --block 128 --device cpu --reps 1");
    EXPECT_EQ(ok.exit_code, 0) << ok.output;
  }
}

// --- Exports and sweeps -------------------------------------------------------------------------------------

const std::string k_tiny_sweep =
    "sweep heat --param size=16,24 --fixed steps=1 --reps 1 --warmup 0 --device cpu --png 64x64";

std::map<std::string, std::string> folder_contents(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    out[e.path().filename().string()] = e.is_regular_file() ? read_text(e.path()) : "<not a file>";
  return out;
}

TEST(TrustCli, AFailedExportLeavesTheEarlierRunsFilesAllOfThem) {
  const fs::path dir = fresh("export");
  const fs::path out = dir / "out";
  const RunResult first = run_blockscope(k_tiny_sweep + " --out " + q(out));
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const auto before = folder_contents(out);
  ASSERT_EQ(before.size(), 6u);
  // The same sweep again (new samples, new dates), failing as a full disk would at the SVG: nothing replaced.
  const RunResult failed = run_blockscope(k_tiny_sweep + " --out " + q(out), "BLOCKSCOPE_TEST_FAIL_EXPORT=figure.svg");
  EXPECT_EQ(failed.exit_code, 1) << failed.output;
  EXPECT_NE(failed.output.find("No space left on device"), std::string::npos) << failed.output;
  EXPECT_NE(failed.output.find("nothing was replaced"), std::string::npos) << failed.output;
  EXPECT_EQ(folder_contents(out), before);  // byte for byte, and no temporaries left
  // A folder in the way of one file: refused the same way, before anything is replaced.
  fs::remove(out / "summary.csv");
  fs::create_directory(out / "summary.csv");
  auto expected = folder_contents(out);
  const RunResult blocked = run_blockscope(k_tiny_sweep + " --out " + q(out));
  EXPECT_EQ(blocked.exit_code, 1) << blocked.output;
  EXPECT_EQ(folder_contents(out), expected);
  // And a good export replaces them all.
  fs::remove(out / "summary.csv");
  const RunResult again = run_blockscope(k_tiny_sweep + " --out " + q(out));
  EXPECT_EQ(again.exit_code, 0) << again.output;
  const auto after = folder_contents(out);
  EXPECT_EQ(after.size(), 6u);  // the six files, no temporaries
  for (const auto& [name, text] : after) {
    EXPECT_NE(text, "<not a file>") << name;
  }
}

// NVTX stays behind the C++ wall: nvtx3 only through gpu/common/nvtx_range.h, that header only in gpu/'s .cu
// and .cpp files (never a header ui/ could include), and every lab's GPU timing file names its ranges.
// (That the ranges reach a tool: tests/nvtx/, through NVTX's injection interface, on the CPU and on a GPU.)
TEST(TrustCli, NvtxStaysInGpuSourcesAndEveryLabTimesInARange) {
  const fs::path root = BS_SOURCE_DIR;
  for (const char* top : {"app", "core", "gpu", "ui"}) {
    for (const auto& e : fs::recursive_directory_iterator(root / top)) {
      if (!e.is_regular_file()) continue;
      const std::string rel = fs::relative(e.path(), root).string();
      const std::string ext = e.path().extension().string();
      if (ext != ".h" && ext != ".cuh" && ext != ".cpp" && ext != ".cu") continue;
      const std::string text = read_text(e.path());
      if (rel != "gpu/common/nvtx_range.h") {
        EXPECT_EQ(text.find("nvtx3/"), std::string::npos) << rel << " includes NVTX directly";
      }
      if (text.find("gpu/common/nvtx_range.h") != std::string::npos) {
        EXPECT_EQ(rel.rfind("gpu/", 0), 0u) << rel << ": NVTX outside gpu/";
        EXPECT_TRUE(ext == ".cu" || ext == ".cpp") << rel << ": a header includes nvtx_range.h";
      }
    }
  }
  for (const char* f : {"gpu/heat/heat_gpu.cu", "gpu/matmul/matmul_gpu.cu", "gpu/vector/vector_gpu.cu",
                        "gpu/memory/memory_gpu.cu", "gpu/reduce/reduce_gpu.cu", "gpu/montecarlo/montecarlo_gpu.cu",
                        "gpu/multigpu/multi_heat.cu", "gpu/multigpu/multi_mc.cpp", "gpu/kernel/kernel_runner.cu",
                        "gpu/kernel/lab_runs.cu"}) {
    EXPECT_NE(read_text(root / f).find("const NvtxRange range("), std::string::npos) << f;
  }
}

TEST(TrustCli, PointsThatFailedWhileRunningMakeTheSweepFail) {
  bs::sweep::Result r;
  r.points.resize(3);
  EXPECT_EQ(bs::sweep::failed_points(r), 0u);
  r.points[1].error = "skipped: block 256x8 is more than 1024 threads";  // the lab's rule, not a failure
  EXPECT_EQ(bs::sweep::failed_points(r), 0u);
  r.points[2].error = "std::bad_alloc";
  EXPECT_EQ(bs::sweep::failed_points(r), 1u);
  r.points[0].error = "GPU error: an illegal memory access";
  EXPECT_EQ(bs::sweep::failed_points(r), 2u);
}

TEST(TrustCli, ReplayOfAUserKernelSweepCompilesTheRecordedSource) {
  REQUIRE_NVRTC();
  const fs::path dir = fresh("replay-user");
  const RunResult first = run_blockscope(k_tiny_sweep + " --out " + q(dir / "a"));
  ASSERT_EQ(first.exit_code, 0) << first.output;
  // The record a user-kernel sweep writes: the sweep as it was, and the kernel's source and options.
  const nlohmann::json k_defines = nlohmann::json::array({nlohmann::json::array({"UNUSED", "1"})});
  nlohmann::json rec = nlohmann::json::parse(read_text(dir / "a" / "record.json"));
  rec["user_kernels"] = {{"heat",
                          {{"kernel", "heat_step"},
                           {"source", k_heat_kernel},
                           {"options", {{"fast_math", false}, {"maxrregcount", 0}, {"lineinfo", true},
                                        {"device_debug", false}, {"defines", k_defines}}},
                           {"arch", "sm_90"},
                           {"name", "my_heat.cu"}}}};
  write(dir / "user.json", rec.dump(1));
  const RunResult r = run_blockscope("replay " + q(dir / "user.json") + " --out " + q(dir / "b"),
                                     "BLOCKSCOPE_CACHE_DIR=" + (dir / "cache").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json again = nlohmann::json::parse(read_text(dir / "b" / "record.json"));
  ASSERT_TRUE(again.contains("user_kernels")) << again.dump(1);
  EXPECT_EQ(again["user_kernels"]["heat"]["source"], k_heat_kernel);
  EXPECT_EQ(again["user_kernels"]["heat"]["options"]["defines"], k_defines);
  // A recorded source that does not compile is refused, naming the field.
  rec["user_kernels"]["heat"]["source"] = "extern \"C\" __global__ void heat_step() { int x = ; }\n";
  write(dir / "broken.json", rec.dump(1));
  const RunResult bad = run_blockscope("replay " + q(dir / "broken.json") + " --out " + q(dir / "c"),
                                       "BLOCKSCOPE_CACHE_DIR=" + (dir / "cache").string());
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(last_line(bad.output).find("user_kernels.heat.source: the recorded kernel does not compile"),
            std::string::npos)
      << bad.output;
}

}  // namespace
