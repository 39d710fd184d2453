// fuzz_runner_test.cpp: runs the real blockscope binary on every case of the CLI corpus (cli_corpus.txt) and
// on every hostile file under sessions/ (as --session) and records/ (as `replay FILE`), each in a fresh
// temporary HOME and working directory, with a time limit. A case passes when the binary exits 0, or exits
// non-zero with a clear one-line message: the last line on stderr starts "blockscope: " and no line holds a
// control character. It fails on a crash signal, a hang, "terminate called", a sanitizer report, or a file
// written where it does not belong (the source tree, the build folder, the test folder).
//
// Corpus format (one case a line; '#' starts a comment line): EXPECT ARG ARG ...
//   EXPECT: ok (must exit 0) | fail (must exit non-zero, cleanly) | any (either, cleanly) | fail:TEXT (and
//           the message contains TEXT).
//   ARGs are split on blanks; '...' quotes literally, "..." quotes with C escapes (\n \t \e \\ \" \xNN);
//   "" is an empty argument. @TMP@ is the case's temporary folder, @HUGE@ a 100,000-character argument,
//   @HUGE_NUM@ a 5,000-digit number, @KERNELS@ a folder of hostile kernel sources made for the case
//   (make_kernel_files: a FIFO, an over-limit file, a macro bomb, a self-including file, ...).
//   BLOCKSCOPE_FUZZ_TIMEOUT (seconds, default 30) bounds each case.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "fuzz_files.h"  // generated: BS_FUZZ_SESSION_FILES, BS_FUZZ_RECORD_FILES
#include "test_util.h"

namespace bs::test {

namespace fs = std::filesystem;

namespace {

struct Case {
  int line = 0;
  std::string text;    // the line as written, for messages
  std::string expect;  // ok | fail | any
  std::string mention;
  std::vector<std::string> args;
};

// Printed as the corpus line, not as bytes, when a case fails.
void PrintTo(const Case& c, std::ostream* os) {
  *os << "'" << c.text << "'";
}

std::string binary() {
  const char* env = std::getenv("BLOCKSCOPE_BIN");
  return env && *env ? env : BS_BINARY;
}

int timeout_seconds() {
  const char* env = std::getenv("BLOCKSCOPE_FUZZ_TIMEOUT");
  const int t = env ? std::atoi(env) : 0;
  return t > 0 ? t : 30;
}

// Splits a corpus line into arguments (see the header comment). Returns false on a malformed line.
bool tokenize(const std::string& line, std::vector<std::string>& out, std::string* error) {
  size_t i = 0;
  const size_t n = line.size();
  while (i < n) {
    while (i < n && (line[i] == ' ' || line[i] == '\t'))
      ++i;
    if (i >= n) break;
    std::string tok;
    while (i < n && line[i] != ' ' && line[i] != '\t') {
      const char c = line[i];
      if (c == '\'') {
        const size_t end = line.find('\'', i + 1);
        if (end == std::string::npos) return *error = "unterminated '", false;
        tok += line.substr(i + 1, end - i - 1);
        i = end + 1;
      } else if (c == '"') {
        ++i;
        for (;;) {
          if (i >= n) return *error = "unterminated \"", false;
          char d = line[i++];
          if (d == '"') break;
          if (d != '\\') {
            tok += d;
            continue;
          }
          if (i >= n) return *error = "dangling \\", false;
          d = line[i++];
          switch (d) {
            case 'n':
              tok += '\n';
              break;
            case 't':
              tok += '\t';
              break;
            case 'r':
              tok += '\r';
              break;
            case 'e':
              tok += '\x1b';
              break;
            case 'x': {
              if (i + 2 > n) return *error = "short \\x", false;
              tok += static_cast<char>(std::stoi(line.substr(i, 2), nullptr, 16));
              i += 2;
              break;
            }
            default:
              tok += d;
          }
        }
      } else {
        tok += c;
        ++i;
      }
    }
    out.push_back(tok);
  }
  return true;
}

std::vector<Case> load_corpus() {
  std::vector<Case> cases;
  std::ifstream in(BS_FUZZ_CORPUS);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#' || line.find_first_not_of(" \t") == std::string::npos) continue;
    Case c;
    c.line = number;
    c.text = line;
    std::vector<std::string> tokens;
    std::string error;
    if (!tokenize(line, tokens, &error) || tokens.empty()) {
      c.expect = "malformed: " + error;
    } else {
      c.expect = tokens.front();
      if (c.expect.rfind("fail:", 0) == 0) {
        c.mention = c.expect.substr(5);
        c.expect = "fail";
      }
      c.args.assign(tokens.begin() + 1, tokens.end());
    }
    cases.push_back(c);
  }
  return cases;
}

std::vector<Case> file_cases() {
  std::vector<Case> cases;
  for (const char* f : BS_FUZZ_SESSION_FILES) {
    Case c;
    c.text = std::string("--headless --frames 2 --session ") + f;
    c.expect = "any";
    c.args = {"--headless", "--frames", "2", "--session", f};
    cases.push_back(c);
  }
  for (const char* f : BS_FUZZ_RECORD_FILES) {
    Case c;
    c.text = std::string("replay ") + f + " --out @TMP@/replay";
    c.expect = "any";
    c.args = {"replay", f, "--out", "@TMP@/replay"};
    cases.push_back(c);
  }
  return cases;
}

struct Outcome {
  bool timed_out = false;
  int exit_code = -1;  // when exited
  int signal = 0;      // when killed by a signal
  std::string out, err;
};

// Runs the binary with `args` in `dir`/work, HOME = `dir`/home, TMPDIR = `dir`/tmp, no display.
Outcome run_case(const std::vector<std::string>& args, const fs::path& dir) {
  Outcome o;
  const fs::path work = dir / "work", home = dir / "home", tmp = dir / "tmp";
  for (const auto& d : {work, home, tmp})
    fs::create_directories(d);
  const std::string out_file = (dir / "stdout.txt").string(), err_file = (dir / "stderr.txt").string();
  std::vector<std::string> argv_s{binary()};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string work_s = work.string(), home_s = home.string(), tmp_s = tmp.string();

  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    const int fo = open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int fe = open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int fi = open("/dev/null", O_RDONLY);
    if (fo < 0 || fe < 0 || fi < 0 || chdir(work_s.c_str()) != 0) _exit(125);
    dup2(fi, 0);
    dup2(fo, 1);
    dup2(fe, 2);
    setenv("HOME", home_s.c_str(), 1);
    setenv("TMPDIR", tmp_s.c_str(), 1);
    setenv("XDG_CONFIG_HOME", (home_s + "/.config").c_str(), 1);
    setenv("XDG_DATA_HOME", (home_s + "/.local/share").c_str(), 1);
    setenv("XDG_CACHE_HOME", (home_s + "/.cache").c_str(), 1);
    unsetenv("DISPLAY");  // no window may open: a case without --headless must fail cleanly, not wait
    unsetenv("WAYLAND_DISPLAY");
    execv(argv[0], argv.data());
    _exit(126);
  }
  if (pid < 0) return o;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds());
  int status = 0;
  for (;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      o.timed_out = true;
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!o.timed_out) {
    if (WIFEXITED(status)) o.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) o.signal = WTERMSIG(status);
  }
  o.out = read_text(out_file);
  o.err = read_text(err_file);
  return o;
}

// A kernel that keeps the heat contract (fixed and insulated edges), for the cases that must compile.
constexpr const char* k_heat_kernel =
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

// The hostile kernel sources @KERNELS@ names, made in each case's folder (a FIFO and absolute paths cannot
// be committed): see CORPUS.md.
void make_kernel_files(const fs::path& dir) {
  fs::create_directories(dir);
  const auto write = [&](const char* name, const std::string& text) {
    std::ofstream(dir / name, std::ios::binary) << text;
  };
  write("heat.cu", k_heat_kernel);
  write("bom_heat.cu", "\xEF\xBB\xBF" + std::string(k_heat_kernel));
  write("bad_utf8.cu", std::string(k_heat_kernel) + "// caf\xe9 in Latin-1\n");
  write("self.cu", "#include \"" + (dir / "self.cu").string() + "\"\n" + k_heat_kernel);
  write("include_fifo.cu", "#include \"" + (dir / "fifo.cu").string() + "\"\n" + k_heat_kernel);
  write("include_dev.cu", "#include \"/dev/zero\"\n" + std::string(k_heat_kernel));
  write("line.cu", std::string(k_heat_kernel) + "#line 7 \"other.cu\"\n__device__ int y = ;\n");
  std::string bomb = "#define A0 x x x x x x x x x x\n";
  for (int i = 1; i <= 9; ++i) {
    bomb += "#define A" + std::to_string(i);
    for (int k = 0; k < 10; ++k)
      bomb += " A" + std::to_string(i - 1);
    bomb += "\n";
  }
  write("bomb.cu", bomb + "__device__ int v[] = { A9 };\n" + k_heat_kernel);
  write("big.cu", "");
  fs::resize_file(dir / "big.cu", (size_t{1} << 20) + 1);  // sparse: over the 1 MiB limit
  mkfifo((dir / "fifo.cu").c_str(), 0600);
}

std::string expand(const std::string& a, const fs::path& dir) {
  if (a == "@HUGE@") return std::string(100000, 'x');
  if (a == "@HUGE_NUM@") return std::string(5000, '9');
  std::string s = a;
  for (size_t p; (p = s.find("@TMP@")) != std::string::npos;)
    s.replace(p, 5, dir.string());
  for (size_t p; (p = s.find("@KERNELS@")) != std::string::npos;)
    s.replace(p, 9, (dir / "kernels").string());
  return s;
}

// Names of the entries of `dir`, to notice a stray file. In the source tree's top, build folders (build*) and
// hidden entries are left out: other builds and editors create those while the tests run.
std::set<std::string> entries(const fs::path& dir) {
  std::set<std::string> names;
  std::error_code ec;
  const bool source_top = fs::equivalent(dir, BS_SOURCE_DIR, ec);
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (source_top && (name.rfind("build", 0) == 0 || name.rfind(".", 0) == 0)) continue;
    names.insert(name);
  }
  return names;
}

// Places where a case might leave a stray file: the source tree's top, this folder's sources and the test's
// working folder. (HOME, TMPDIR and the binary's working directory are the case's own. The build folder's top
// is not watched: other tests running beside this one create their output folders there.)
std::vector<fs::path> watched_dirs() {
  return {BS_SOURCE_DIR, fs::path(BS_SOURCE_DIR) / "tests" / "fuzz", fs::current_path()};
}

std::string escape_for_log(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '\n' || (c >= 0x20 && c != 0x7f)) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out.size() > 4000 ? out.substr(0, 4000) + "..." : out;
}

// Checks one outcome; returns an empty string when it is acceptable, else what is wrong.
std::string judge(const Case& c, const Outcome& o) {
  if (o.timed_out) return "hung: no exit within " + std::to_string(timeout_seconds()) + " s";
  if (o.signal) return "killed by signal " + std::to_string(o.signal) + " (" + strsignal(o.signal) + ")";
  if (o.exit_code >= 125) return "exit code " + std::to_string(o.exit_code) + " (could not run, or a crash)";
  for (const char* bad : {"terminate called", "AddressSanitizer", "LeakSanitizer", "runtime error:",
                          "UndefinedBehaviorSanitizer", "Segmentation fault", "core dumped"})
    if (o.err.find(bad) != std::string::npos || o.out.find(bad) != std::string::npos)
      return std::string("output holds '") + bad + "'";
  if (c.expect == "ok" && o.exit_code != 0) return "expected exit 0, got " + std::to_string(o.exit_code);
  if (c.expect == "fail" && o.exit_code == 0) return "expected a non-zero exit (a refusal), got 0";
  if (c.expect != "ok" && c.expect != "fail" && c.expect != "any") return "bad corpus line: " + c.expect;
  if (o.exit_code != 0) {
    std::string err = o.err;
    while (!err.empty() && err.back() == '\n')
      err.pop_back();
    if (err.empty()) return "non-zero exit " + std::to_string(o.exit_code) + " with nothing on stderr";
    const std::string last =
        err.substr(err.find_last_of('\n') == std::string::npos ? 0 : err.find_last_of('\n') + 1);
    if (last.rfind("blockscope: ", 0) != 0)
      return "the last line on stderr is not a 'blockscope: ' message: '" + last + "'";
    for (unsigned char ch : err)
      if ((ch < 0x20 && ch != '\n' && ch != '\t') || ch == 0x7f)
        return "stderr holds a raw control character (values must be echoed escaped)";
    if (!c.mention.empty() && last.find(c.mention) == std::string::npos)
      return "the message does not mention '" + c.mention + "'";
  }
  return {};
}

fs::path make_temp_dir() {
  std::string templ = (fs::temp_directory_path() / "bs-fuzz-XXXXXX").string();
  if (!mkdtemp(templ.data())) return {};
  return templ;
}

void run_and_check(const Case& c) {
  ASSERT_EQ(c.expect.rfind("malformed", 0), std::string::npos)
      << "corpus line " << c.line << ": " << c.expect;
  const fs::path dir = make_temp_dir();
  ASSERT_FALSE(dir.empty()) << "mkdtemp failed";
  std::vector<std::set<std::string>> before;
  for (const auto& d : watched_dirs())
    before.push_back(entries(d));
  std::vector<std::string> args;
  for (const auto& a : c.args)
    args.push_back(expand(a, dir));
  if (c.text.find("@KERNELS@") != std::string::npos) make_kernel_files(dir / "kernels");
  const Outcome o = run_case(args, dir);
  const std::string problem = judge(c, o);
  EXPECT_TRUE(problem.empty()) << "case (corpus line " << c.line << "): " << escape_for_log(c.text) << "\n"
                               << problem << "\nexit " << o.exit_code << "\n--- stderr:\n"
                               << escape_for_log(o.err) << "\n--- stdout (start):\n"
                               << escape_for_log(o.out.substr(0, 1500));
  const auto dirs = watched_dirs();
  for (size_t i = 0; i < dirs.size(); ++i) {
    const auto after = entries(dirs[i]);
    for (const auto& name : after)
      EXPECT_TRUE(before[i].count(name))
          << "case '" << escape_for_log(c.text) << "' created " << (dirs[i] / name);
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
}

std::string case_name(const Case& c, size_t index) {
  std::string n = "line" + std::to_string(c.line);
  if (c.line == 0) n = "file" + std::to_string(index);
  return n;
}

}  // namespace

class CliCorpus : public ::testing::TestWithParam<Case> {};
TEST_P(CliCorpus, ExitsCleanly) {
  run_and_check(GetParam());
}
INSTANTIATE_TEST_SUITE_P(Fuzz, CliCorpus, ::testing::ValuesIn(load_corpus()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return case_name(info.param, info.index);
                         });

class HostileFiles : public ::testing::TestWithParam<Case> {};
TEST_P(HostileFiles, ExitCleanly) {
  run_and_check(GetParam());
}
INSTANTIATE_TEST_SUITE_P(
    Fuzz, HostileFiles, ::testing::ValuesIn(file_cases()), [](const ::testing::TestParamInfo<Case>& info) {
      std::string n = fs::path(info.param.args[info.param.args[0] == "replay" ? 1 : 4]).filename().string();
      std::string clean = info.param.args[0] == "replay" ? "record_" : "session_";
      for (char ch : n)
        clean += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
      return clean + "_" + std::to_string(info.index);
    });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(HostileFiles);

TEST(CliCorpusFile, IsNotEmpty) {
  EXPECT_GT(load_corpus().size(), 100u) << BS_FUZZ_CORPUS;
}

// Beyond the corpus: cases that need a resource limit around the binary. An AddressSanitizer build (this test
// is built with the same flags as the binary) reserves terabytes of shadow address space at start, which
// ulimit -v forbids: there these cases cannot run.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool k_asan_build = true;
#else
constexpr bool k_asan_build = false;
#endif

Outcome run_limited(const std::string& limit, const std::vector<std::string>& args, const fs::path& dir) {
  // `ulimit` is a shell builtin: a shell sets it, then execs the binary with the same arguments. Thread
  // stacks count against an address-space limit, so the thread pools are held at 2 threads: on a 16-core
  // machine OpenBLAS's 16 threads alone failed to start under the limit (H100 machine, 2026-11-23), before
  // the allocation the test is about.
  std::vector<std::string> sh{
      "-c", "ulimit " + limit + " && OPENBLAS_NUM_THREADS=2 OMP_NUM_THREADS=2 exec \"$0\" \"$@\"", binary()};
  sh.insert(sh.end(), args.begin(), args.end());
  Outcome o;
  fs::create_directories(dir);
  const std::string out_file = (dir / "stdout.txt").string(), err_file = (dir / "stderr.txt").string();
  std::string cmd = "/bin/sh";
  for (const auto& a : sh) {
    std::string q = "'";
    for (char ch : a)
      q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    cmd += " " + q + "'";
  }
  cmd += " >" + out_file + " 2>" + err_file;
  const int status = std::system(cmd.c_str());
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  o.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  o.out = read_text(out_file);
  o.err = read_text(err_file);
  return o;
}

TEST(FuzzLimits, HostMemoryCheckHonoursUlimit) {
  if (k_asan_build) GTEST_SKIP() << "AddressSanitizer build: ASan cannot start under ulimit -v";
  // 512M floats x 3 = 6 GiB; under a 4 GB address-space limit the check must refuse before allocating
  // (it used to read only MemAvailable, and the allocation died with std::bad_alloc).
  const fs::path dir = make_temp_dir();
  const Outcome o = run_limited("-v 4000000", {"bench", "vector", "--n", "512M", "--device", "cpu"}, dir);
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_NE(o.err.find("--n: "), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("MiB are available"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("bad_alloc"), std::string::npos) << o.err;
  fs::remove_all(dir);
}

TEST(FuzzLimits, AllocationFailureIsAClearMessage) {
  if (k_asan_build) GTEST_SKIP() << "AddressSanitizer build: ASan cannot start under ulimit -v";
  // matmul 8192x8192x16384 on the CPU allocates two 512 MiB inputs before anything else: under a ~1.2 GB
  // address-space limit one of them fails, and the CLI must say so, not die with "terminate called". (With
  // 8192^3, 256 MiB inputs, the five-architecture binary's own mappings left too little room for OpenMP's
  // thread stacks: libgomp aborted before any allocation of ours failed.)
  const fs::path dir = make_temp_dir();
  const Outcome o = run_limited("-v 1200000",
                                {"bench", "matmul", "--m", "8192", "--n", "8192", "--k", "16384", "--device", "cpu",
                                 "--variant", "cpu_openblas", "--reps", "1"},
                                dir);
  EXPECT_EQ(o.exit_code, 1) << o.err;
  EXPECT_NE(o.err.find("bench matmul: out of host memory"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("terminate called"), std::string::npos) << o.err;
  fs::remove_all(dir);
}

}  // namespace bs::test
