// exercise_cli_test.cpp: `blockscope exercise list | show | check | grade` run as a user would: exit codes
// (check: 0 pass, 1 fail, 2 bad input; list: 2 when an exercise is refused, the others still listed), what a
// failing check prints, and a class graded in one command: good, wrong, hanging, out-of-bounds and
// non-compiling submissions, each failing alone in its child process, with the CSV; hostile submissions (huge,
// binary, links out of the folder, folders of files, odd names) and FIFOs.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gpu/exercise/gpu_runner.h"
#include "gpu/kernel/nvrtc_loader.h"
#include "run_util.h"

namespace bs {
namespace {

namespace fs = std::filesystem;
using test::run_blockscope;

const std::string k_pack = std::string(BS_SOURCE_DIR) + "/assets/exercises";
const std::string k_map = k_pack + "/01_map";

class ExerciseCli : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir = fs::path(BS_TEST_OUT) / ("exercise-cli-" + std::to_string(getpid()) + "-" +
                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
    // Checks record progress: never into the real user's file.
    ::setenv("BLOCKSCOPE_PROGRESS", (m_dir / "test-progress.json").c_str(), 1);
    ::setenv("BLOCKSCOPE_CACHE_DIR", (m_dir / "cache").c_str(), 1);
  }
  void TearDown() override { fs::remove_all(m_dir); }
  static void write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  static std::string read(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  fs::path m_dir;
};

#define REQUIRE_NVRTC() \
  if (!kernel::nvrtc().ok()) GTEST_SKIP() << "NVRTC cannot be loaded: " << kernel::nvrtc().error

TEST_F(ExerciseCli, ListAndShow) {
  auto r = run_blockscope("exercise list --pack " + k_pack);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("01_map"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("One thread per element"), std::string::npos);
  r = run_blockscope("exercise show 01_map --pack " + k_pack);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("extern \"C\" __global__ void add_ten(const float* a, float* out)"), std::string::npos);
  EXPECT_EQ(r.output.find("hint 1:"), std::string::npos);  // hints only on request, one by one
  EXPECT_EQ(r.output.find("blockIdx.x * blockDim.x + threadIdx.x;"), std::string::npos);  // nor the solution
  r = run_blockscope("exercise show 01_map --hints 1 --pack " + k_pack);
  EXPECT_NE(r.output.find("hint 1:"), std::string::npos);
  EXPECT_EQ(r.output.find("hint 2:"), std::string::npos);
  r = run_blockscope("exercise show 01_map --solution --pack " + k_pack);
  EXPECT_NE(r.output.find("blockIdx.x * blockDim.x + threadIdx.x"), std::string::npos);
  r = run_blockscope("exercise show nope --pack " + k_pack);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("no exercise named nope"), std::string::npos);
}

TEST_F(ExerciseCli, ListRefusesABrokenExerciseAndListsTheRest) {
  fs::create_directories(m_dir / "pack");
  fs::copy(k_map, m_dir / "pack" / "good", fs::copy_options::recursive);
  fs::copy(k_map, m_dir / "pack" / "broken", fs::copy_options::recursive);
  std::string j = read(m_dir / "pack" / "broken" / "exercise.json");
  j.replace(j.find("\"size\": \"n\""), 11, "\"size\": \"q\"");
  write(m_dir / "pack" / "broken" / "exercise.json", j);
  const auto r = run_blockscope("exercise list --pack " + (m_dir / "pack").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("refused: " + (m_dir / "pack" / "broken" / "exercise.json").string() +
                          ": args[0].size: 'q': unknown name 'q' (known: n)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("good "), std::string::npos) << r.output;
}

TEST_F(ExerciseCli, CheckExitCodes) {
  REQUIRE_NVRTC();
  auto r = run_blockscope("exercise check 01_map " + k_map + "/reference.cu --pack " + k_pack);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("result: pass (3 of 3 tests)"), std::string::npos) << r.output;
  // Where it ran, named: here "simulator (no GPU: <the runtime's reason>)", on a GPU machine "GPU: <name>".
  const bs::exercise::GpuStatus& gpu = bs::exercise::gpu_status();
  EXPECT_NE(r.output.find(gpu.available ? "ran on: GPU: " + gpu.device : "ran on: simulator (no GPU: " + gpu.reason + ")"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(gpu.available, r.output.find("GPU time: ") != std::string::npos) << r.output;
  r = run_blockscope("exercise check 01_map " + k_map + "/reference.cu --sim --no-record --pack " + k_pack);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("ran on: simulator\n"), std::string::npos) << r.output;
  r = run_blockscope("exercise check 01_map " + k_map + "/reference.cu --sim --gpu --pack " + k_pack);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--sim and --gpu: give one of them"), std::string::npos) << r.output;
  r = run_blockscope("exercise check 01_map " + k_map + "/starter.cu --pack " + k_pack);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("FAIL  n=1024"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("out, element 256: expected"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("starter.cu:5: several writers"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("result: FAIL at test n=1024"), std::string::npos) << r.output;
  // --maps: the failing test's access maps: the launch, and the thread the first diagnostic names.
  r = run_blockscope("exercise check 01_map " + k_map + "/starter.cu --maps " + (m_dir / "maps").string() +
                     " --pack " + k_pack);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("access maps of test n=1024"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(m_dir / "maps" / "access-launch.svg"));
  EXPECT_TRUE(fs::exists(m_dir / "maps" / "access-launch-out.png"));
  // Which of the 256 double writers the simulator names first depends on its worker threads: any one thread.
  int thread_maps = 0;
  for (const auto& f : fs::directory_iterator(m_dir / "maps"))
    thread_maps += f.path().filename().string().rfind("access-thread_", 0) == 0 && f.path().extension() == ".svg";
  EXPECT_EQ(thread_maps, 1);
  write(m_dir / "bad.cu", "extern \"C\" __global__ void add_ten(const float* a, float* out) { oops }\n");
  r = run_blockscope("exercise check 01_map " + (m_dir / "bad.cu").string() + " --pack " + k_pack);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("bad.cu:1:"), std::string::npos) << r.output;
  r = run_blockscope("exercise check 01_map " + (m_dir / "absent.cu").string() + " --pack " + k_pack);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = run_blockscope("exercise check 01_map " + k_map + "/reference.cu --block 7x0 --pack " + k_pack);
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

TEST_F(ExerciseCli, GradeAClass) {
  REQUIRE_NVRTC();
  const fs::path cls = m_dir / "class";
  const std::string head = "extern \"C\" __global__ void add_ten(const float* a, float* out) {\n"
                           "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n";
  fs::create_directories(cls / "alice");
  fs::copy_file(k_map + "/reference.cu", cls / "alice" / "01_map.cu");
  write(cls / "bob" / "01_map.cu", head + "  out[i] = a[i] + 1.0f;\n}\n");                     // wrong
  write(cls / "carol" / "01_map.cu", head + "  out[i + 5] = a[i] + 10.0f;\n}\n");              // out of bounds
  write(cls / "dave" / "01_map.cu", head + "  out[i] = a[i] + 10.0f\n}\n");                    // no ';'
  // A loop without end, in a copy of the pack whose budget lets a thread run 2^32 instructions: a real hang
  // on any machine, stopped by the grader's deadline.
  fs::create_directories(m_dir / "pack");
  fs::copy(k_map, m_dir / "pack" / "01_map", fs::copy_options::recursive);
  std::string contract = read(m_dir / "pack" / "01_map" / "exercise.json");
  const std::string budget = "\"budget\": 10000";
  ASSERT_NE(contract.find(budget), std::string::npos);
  contract.replace(contract.find(budget), budget.size(), "\"budget\": 4294967296");
  write(m_dir / "pack" / "01_map" / "exercise.json", contract);
  write(cls / "erin" / "01_map.cu", head + "  volatile int k = 1;\n  while (k) { }\n  out[i] = a[i] + 10.0f;\n}\n");
  write(cls / "frank" / "notes.txt", "no kernel here\n");
  const fs::path csv = m_dir / "grades.csv";
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run_blockscope("exercise grade " + cls.string() + " --out " + csv.string() + " --timeout 3 --pack " +
                                 (m_dir / "pack").string());
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_LT(s, 60.0) << "bounded time";
  const std::string g = read(csv);
  // Each test in its own child: a hang fails alone (every test of it), the grading goes on.
  EXPECT_NE(g.find("alice,01_map,pass,3,3,pass pass pass,,"), std::string::npos) << g;
  EXPECT_NE(g.find("bob,01_map,fail,0,3,fail fail fail,n=1024,"), std::string::npos) << g;
  EXPECT_NE(g.find("carol,01_map,fail,0,3,fail fail fail,n=1024,"), std::string::npos) << g;
  EXPECT_NE(g.find("out-of-bounds"), std::string::npos) << g;
  EXPECT_NE(g.find("dave,01_map,compile error,0,3,,,"), std::string::npos) << g;
  EXPECT_NE(g.find("erin,01_map,timeout,0,3,timeout timeout timeout,n=1024,"), std::string::npos) << g;
  EXPECT_NE(g.find("frank,,missing,"), std::string::npos) << g;
  EXPECT_NE(r.output.find("graded 6 submissions in the simulator: 1 pass, 5 not"), std::string::npos) << r.output;
}


// Hostile submissions, each graded or refused alone while the others still pass: a file over the 1 MiB limit
// (and a 5 GiB sparse one, refused by its size without being read), binary garbage, a shared array no GPU has,
// links out of the submissions folder (to the pack's reference: a cheat; a student folder linked elsewhere),
// a submission that is a folder of many files, a student with many files but no NAME.cu, and students whose
// names hold a terminal escape, a line break, a comma and quotes, a leading dash and bytes that are not UTF-8.
TEST_F(ExerciseCli, GradeHostileSubmissions) {
  REQUIRE_NVRTC();
  const fs::path cls = m_dir / "class";
  const std::string reference = read(k_map + "/reference.cu");
  write(cls / "alice" / "01_map.cu", reference);
  write(cls / "huge" / "01_map.cu", std::string(2'000'000, 'x'));
  write(cls / "sparse" / "01_map.cu", "");
  fs::resize_file(cls / "sparse" / "01_map.cu", uint64_t{5} << 30);
  std::string garbage(4096, '\0');
  uint32_t x = 12345;
  for (char& c : garbage) c = static_cast<char>((x = x * 1103515245u + 12345u) >> 24);
  write(cls / "garbage" / "01_map.cu", garbage);
  write(cls / "shared" / "01_map.cu",
        "extern \"C\" __global__ void add_ten(const float* a, float* out) {\n"
        "  __shared__ float s[1 << 26];\n  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  s[threadIdx.x] = a[i];\n  out[i] = s[threadIdx.x] + 10.0f;\n}\n");
  fs::create_directories(cls / "cheat");
  fs::create_symlink(fs::absolute(k_map + "/reference.cu"), cls / "cheat" / "01_map.cu");
  write(m_dir / "elsewhere" / "01_map.cu", reference);
  fs::create_directory_symlink(m_dir / "elsewhere", cls / "linked");
  fs::create_directories(cls / "inside");
  fs::create_symlink("../alice/01_map.cu", cls / "inside" / "01_map.cu");  // a link within the folder is fine
  for (int i = 0; i < 2000; ++i) write(cls / "folder" / "01_map.cu" / (std::to_string(i) + ".cu"), "x\n");
  for (int i = 0; i < 2000; ++i) write(cls / "many" / (std::to_string(i) + "_part.cu"), reference);
  const std::vector<std::string> odd = {"esc\x1b[31mred", "new\nline", "comma, \"quoted\"", "-rf", "bad\xff" "utf8"};
  for (const std::string& name : odd) write(cls / name / "01_map.cu", reference);
  const fs::path csv = m_dir / "grades.csv";
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run_blockscope("exercise grade " + cls.string() + " --out " + csv.string() + " --timeout 60 --pack " +
                                k_pack);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 300.0) << "bounded time";
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const std::string g = read(csv);
  EXPECT_NE(g.find("alice,01_map,pass,3,3,"), std::string::npos) << g;
  EXPECT_NE(g.find("inside,01_map,pass,3,3,"), std::string::npos) << g;
  EXPECT_NE(g.find("huge,01_map,error,0,3,,,,"), std::string::npos) << g;
  EXPECT_NE(g.find("01_map.cu: is larger than 1 MiB (2000000 bytes)"), std::string::npos) << g;
  EXPECT_NE(g.find("01_map.cu: is larger than 1 MiB (5368709120 bytes)"), std::string::npos) << g;
  EXPECT_NE(g.find("garbage,01_map,error,0,3,"), std::string::npos) << g;
  EXPECT_NE(g.find("is not UTF-8"), std::string::npos) << g;
  EXPECT_NE(g.find("shared,01_map,compile error,0,3,"), std::string::npos) << g;
  EXPECT_NE(g.find("cheat,01_map,error,0,3,"), std::string::npos) << g;
  EXPECT_NE(g.find("linked,01_map,error,0,3,"), std::string::npos) << g;
  EXPECT_NE(g.find("leads outside the submissions folder (to " + fs::canonical(k_map + "/reference.cu").string()),
            std::string::npos) << g;
  EXPECT_NE(g.find("folder,01_map,error,0,3,"), std::string::npos) << g;
  EXPECT_NE(g.find("is not a regular file"), std::string::npos) << g;
  EXPECT_NE(g.find("many,,missing,"), std::string::npos) << g;
  // Odd names pass like anyone else; the CSV quotes them as they are, the table escapes them.
  EXPECT_NE(g.find("esc\x1b[31mred,01_map,pass,3,3,"), std::string::npos) << g;
  EXPECT_NE(g.find("\"new\nline\",01_map,pass,3,3,"), std::string::npos) << g;
  EXPECT_NE(g.find("\"comma, \"\"quoted\"\"\",01_map,pass,3,3,"), std::string::npos) << g;
  EXPECT_NE(g.find("-rf,01_map,pass,3,3,"), std::string::npos) << g;
  EXPECT_NE(g.find("bad\xff" "utf8,01_map,pass,3,3,"), std::string::npos) << g;
  EXPECT_EQ(r.output.find('\x1b'), std::string::npos) << "an escape reached the terminal";
  EXPECT_NE(r.output.find("esc\\x1b[31mred"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("new\\x0aline"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("graded 15 submissions in the simulator: 7 pass, 8 not"), std::string::npos) << r.output;
}

// The exported program compiles with nvcc here (it runs, checks and times on the GPU machine: without a device
// it stops at the first CUDA call with exit 2 and the runtime's message); the CuPy snippet is valid Python.
TEST_F(ExerciseCli, ExportCompilesWithNvcc) {
  const fs::path out = m_dir / "export";
  const std::string ex = "19_heat_step";
  auto r = run_blockscope("exercise export " + ex + " " + k_pack + "/" + ex + "/reference.cu --out " + out.string() +
                          " --pack " + k_pack);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string program = read(out / (ex + ".cu"));
  EXPECT_NE(program.find("bs_submission::submission_heat_step<<<"), std::string::npos);
  EXPECT_NE(program.find("bs_reference::reference_heat_step<<<"), std::string::npos);
  EXPECT_NE(program.find("{\"nx=700, ny=450\", 1, {315000, 315000, 0, 0, 0, 0, }, {0, 0, 700, 450, 0.2"),
            std::string::npos);
  EXPECT_NE(read(out / "CMakeLists.txt").find("add_executable(" + ex + " " + ex + ".cu)"), std::string::npos);
  const std::string nvcc = "/usr/local/cuda/bin/nvcc";
  if (!fs::exists(nvcc)) GTEST_SKIP() << "no nvcc at " << nvcc << ": the program was written, not compiled";
  r = test::run_command(nvcc + " -O2 -arch=sm_90 -o " + (out / "prog").string() + " " + (out / (ex + ".cu")).string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  if (fs::exists("/usr/bin/python3")) {
    r = test::run_command("/usr/bin/python3 -m py_compile " + (out / (ex + "_cupy.py")).string());
    EXPECT_EQ(r.exit_code, 0) << r.output;
  }
  r = run_blockscope("exercise export " + ex + " " + (out / "absent.cu").string() + " --out " + out.string() +
                     " --pack " + k_pack);
  EXPECT_EQ(r.exit_code, 2) << r.output;
}


// Each check is saved in the user's progress; list shows it; report exports every exercise of the pack.
TEST_F(ExerciseCli, ProgressAndReport) {
  REQUIRE_NVRTC();
  const std::string env = "BLOCKSCOPE_PROGRESS=" + (m_dir / "progress.json").string() + " USER=ada";
  auto r = run_blockscope("exercise check 01_map " + k_map + "/starter.cu --pack " + k_pack, env);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  r = run_blockscope("exercise list --pack " + k_pack, env);
  EXPECT_NE(r.output.find("fail (0/3)"), std::string::npos) << r.output;
  r = run_blockscope("exercise check 01_map " + k_map + "/reference.cu --pack " + k_pack, env);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = run_blockscope("exercise check 02_zip " + k_pack + "/02_zip/starter.cu --no-record --pack " + k_pack, env);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  r = run_blockscope("exercise report --out " + (m_dir / "report.csv").string() + " --pack " + k_pack, env);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("1 of "), std::string::npos) << r.output;
  const std::string csv = read(m_dir / "report.csv");
  EXPECT_NE(csv.find("ada,01_map,One thread per element,pass,3,3,,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",2,true,"), std::string::npos) << csv;  // two attempts, passed
  EXPECT_NE(csv.find("ada,02_zip,Two inputs,not attempted,"), std::string::npos) << csv;  // --no-record
  r = run_blockscope("exercise report --out " + (m_dir / "report.json").string() + " --pack " + k_pack, env);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(read(m_dir / "report.json").find("\"passed\": 1"), std::string::npos);
  r = run_blockscope("exercise report --out " + (m_dir / "report.txt").string() + " --pack " + k_pack, env);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  // A damaged progress file is kept, never overwritten; the check still runs.
  write(m_dir / "progress.json", "{ damaged");
  r = run_blockscope("exercise check 01_map " + k_map + "/reference.cu --pack " + k_pack, env);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("progress not saved"), std::string::npos) << r.output;
  EXPECT_EQ(read(m_dir / "progress.json"), "{ damaged");
}


// A FIFO is never opened: as a submission, as a file in a graded class, or as an exercise's file.
TEST_F(ExerciseCli, FifosAreRefusedAtOnce) {
  const fs::path fifo = m_dir / "k.cu";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto t0 = std::chrono::steady_clock::now();
  for (const std::string& cmd : {"exercise check 01_map " + fifo.string(),
                                 "exercise export 01_map " + fifo.string() + " --out " + (m_dir / "x").string()}) {
    const auto r = run_blockscope(cmd + " --pack " + k_pack);
    EXPECT_EQ(r.exit_code, 2) << cmd << ": " << r.output;
    EXPECT_NE(r.output.find("not a regular file"), std::string::npos) << r.output;
  }
  fs::create_directories(m_dir / "class" / "ann");
  ASSERT_EQ(::mkfifo((m_dir / "class" / "ann" / "01_map.cu").c_str(), 0600), 0);
  auto r = run_blockscope("exercise grade " + (m_dir / "class").string() + " --out " + (m_dir / "g.csv").string() +
                          " --pack " + k_pack);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(read(m_dir / "g.csv").find("ann,01_map,error,"), std::string::npos) << read(m_dir / "g.csv");
  fs::create_directories(m_dir / "pack");
  fs::copy(k_map, m_dir / "pack" / "m", fs::copy_options::recursive);
  fs::remove(m_dir / "pack" / "m" / "statement.md");
  ASSERT_EQ(::mkfifo((m_dir / "pack" / "m" / "statement.md").c_str(), 0600), 0);
  r = run_blockscope("exercise list --pack " + (m_dir / "pack").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("statement.md: not a regular file"), std::string::npos) << r.output;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 20.0);
}

}  // namespace
}  // namespace bs
