// exercise_grade.cpp: see exercise_grade.h.
#include "app/exercise/exercise_grade.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "app/exercise/exercise_cli.h"
#include "core/text.h"
#include "gpu/exercise/exercise.h"

namespace bs::cli {

namespace {

namespace fs = std::filesystem;

struct GradeArgs {
  std::string dir, out, pack, exercise;
  double timeout_s = 0;  // 0: the exercise's limit
  uint64_t memory_mb = 0;
};

struct Row {
  std::string student, exercise, status;  // pass | fail | compile error | timeout | crashed | missing | error
  int passed = 0, total = 0;
  std::string first_failure, score, detail;
  std::string per_test;  // each test's status, in order: "pass pass timeout"
  std::vector<std::string> diagnostics;
  double seconds = 0;
};

uint64_t virtual_bytes() {
  std::ifstream in("/proc/self/statm");
  uint64_t pages = 0;
  in >> pages;
  return pages * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

struct ChildOutput {
  std::string out, err;
  bool timed_out = false;
  int status = 0;
  double seconds = 0;
};

// Runs this executable with `argv` in a child: its own process group (killed whole at the deadline, with the
// compile's own child), stdout and stderr captured (at most 4 MiB each), RLIMIT_AS as given.
ChildOutput run_child(const std::vector<std::string>& argv, double timeout_s, uint64_t as_limit) {
  ChildOutput r;
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  int out_fd[2], err_fd[2];
  if (::pipe2(out_fd, O_CLOEXEC) != 0) {
    r.err = "no pipe: " + std::string(std::strerror(errno));
    r.status = -1;
    return r;
  }
  if (::pipe2(err_fd, O_CLOEXEC) != 0) {
    ::close(out_fd[0]);
    ::close(out_fd[1]);
    r.err = "no pipe: " + std::string(std::strerror(errno));
    r.status = -1;
    return r;
  }
  std::vector<char*> args;
  for (const std::string& s : argv) args.push_back(const_cast<char*>(s.c_str()));
  args.push_back(nullptr);
  std::fflush(stdout);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(out_fd[1], 1);
    ::dup2(err_fd[1], 2);
    if (as_limit) {
      rlimit rl{as_limit, as_limit};
      ::setrlimit(RLIMIT_AS, &rl);
    }
    rlimit core{0, 0};
    ::setrlimit(RLIMIT_CORE, &core);
    ::execv("/proc/self/exe", args.data());
    ::_exit(127);
  }
  ::close(out_fd[1]);
  ::close(err_fd[1]);
  if (pid < 0) {
    ::close(out_fd[0]);
    ::close(err_fd[0]);
    r.err = "no child process: " + std::string(std::strerror(errno));
    r.status = -1;
    return r;
  }
  ::setpgid(pid, pid);  // also here: no race with the child's own call
  const auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  pollfd fds[2] = {{out_fd[0], POLLIN, 0}, {err_fd[0], POLLIN, 0}};
  std::string* sink[2] = {&r.out, &r.err};
  int open = 2;
  char buf[65536];
  while (open > 0) {
    const auto now = Clock::now();
    if (now >= deadline) {
      r.timed_out = true;
      break;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    const int ready = ::poll(fds, 2, static_cast<int>(std::min<long long>(left + 1, 200)));
    if (ready < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0 && sink[i]->size() < (4u << 20)) sink[i]->append(buf, static_cast<size_t>(n));
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      }
    }
  }
  for (pollfd& p : fds)
    if (p.fd >= 0) ::close(p.fd);
  if (r.timed_out) ::kill(-pid, SIGKILL);
  // The pipes closed: the child is exiting. Wait for it, but never past the deadline.
  for (;;) {
    const pid_t w = ::waitpid(pid, &r.status, WNOHANG);
    if (w == pid || (w < 0 && errno != EINTR)) break;
    if (Clock::now() >= deadline && !r.timed_out) {
      r.timed_out = true;
      ::kill(-pid, SIGKILL);
    }
    ::usleep(2000);
  }
  ::kill(-pid, SIGKILL);  // whatever of its group is left (a compile child)
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

std::string last_line(const std::string& s) {
  std::string t = s;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
  const size_t at = t.rfind('\n');
  t = at == std::string::npos ? t : t.substr(at + 1);
  if (t.rfind("blockscope: ", 0) == 0) t.erase(0, 12);
  return t.size() > 400 ? t.substr(0, 397) + "..." : t;
}

// One test of one submission in its own child: "pass", "fail", "timeout", "crashed", "compile error" or
// "error", with the reason and the simulator's diagnostics.
struct TestOutcome {
  std::string status, detail, score;
  std::vector<std::string> diagnostics;
  double seconds = 0;
};

TestOutcome run_test(const exercise::Exercise& e, size_t index, const fs::path& file, const std::string& pack,
                     double timeout, uint64_t mb) {
  TestOutcome t;
  const ChildOutput c = run_child({"blockscope", "exercise", "check", e.id, file.string(), "--pack", pack, "--json",
                                   "--sim", "--test", std::to_string(index + 1)},
                                  timeout, virtual_bytes() + (mb << 20));
  t.seconds = c.seconds;
  if (c.timed_out) {
    t.status = "timeout";
    t.detail = "stopped after " + fmt_fixed(timeout, 1) + " s (the time limit)";
    return t;
  }
  if (WIFSIGNALED(c.status)) {
    const int sig = WTERMSIG(c.status);
    t.status = "crashed";
    t.detail = std::string("killed by signal ") + strsignal(sig) +
               (sig == SIGKILL || sig == SIGABRT || sig == SIGSEGV ? " (over the " + std::to_string(mb) + " MiB memory limit?)"
                                                                    : "");
    return t;
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(c.out);
  } catch (const nlohmann::json::exception&) {
    t.status = "error";
    t.detail = c.err.empty() ? "no result from the check (exit " + std::to_string(WEXITSTATUS(c.status)) + ")"
                             : last_line(c.err);
    return t;
  }
  t.score = j.value("score", "");
  if (!j.value("compiled", false)) {
    t.status = "compile error";
    t.detail = j.value("compile", "");
  } else if (!j.value("error", "").empty()) {
    t.status = "error";
    t.detail = j.value("error", "");
  } else if (j.value("passed", false)) {
    t.status = "pass";
  } else {
    t.status = "fail";
    for (const auto& r : j["tests"]) {
      t.detail = r.value("stopped", "").empty() ? r.value("check", "") : "stopped: " + r.value("stopped", "");
      for (const auto& d : r["diagnostics"])
        if (t.diagnostics.size() < 5) t.diagnostics.push_back(d.get<std::string>());
    }
  }
  return t;
}

Row grade_one(const std::string& student, const exercise::Exercise& e, const fs::path& file, const std::string& pack,
              const GradeArgs& a) {
  Row row;
  row.student = student;
  row.exercise = e.id;
  row.total = static_cast<int>(e.tests.size());
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    row.status = "missing";
    row.detail = file.string() + " is not there";
    return row;
  }
  // Only what lies in the submissions folder is graded: a link (the file or the student's folder) to the pack's
  // reference or to any other file elsewhere is refused, never compiled or echoed.
  std::error_code ec_root, ec_real;
  const fs::path root = fs::weakly_canonical(a.dir, ec_root), real = fs::weakly_canonical(file, ec_real);
  const fs::path inside = real.lexically_relative(root);
  if (ec_root || ec_real || inside.empty() || *inside.begin() == "..") {
    row.status = "error";
    row.detail = file.string() + " leads outside the submissions folder (to " + real.string() + "): not read";
    return row;
  }
  if (!fs::is_regular_file(file, ec)) {  // never opened: a FIFO would block the child until its deadline
    row.status = "error";
    row.detail = file.string() + " is not a regular file (a FIFO, a device or a folder is not read)";
    return row;
  }
  const double timeout = a.timeout_s > 0 ? a.timeout_s : e.timeout_s;
  const uint64_t mb = a.memory_mb ? a.memory_mb : e.memory_mb;
  row.status = "pass";
  for (size_t i = 0; i < e.tests.size(); ++i) {
    const TestOutcome t = run_test(e, i, file, pack, timeout, mb);
    row.seconds += t.seconds;
    if (i == 0) row.score = t.score;
    row.per_test += (i ? " " : "") + t.status;
    if (t.status == "pass") {
      ++row.passed;
      continue;
    }
    if (t.status == "compile error" || t.status == "error") {  // the same for every test: stop here
      row.status = t.status;
      row.detail = t.detail;
      row.per_test.clear();
      return row;
    }
    if (row.status == "pass") {  // the first failing test names the row
      row.status = t.status;
      row.first_failure = e.tests[i].name + (e.tests[i].hidden ? " (hidden)" : "");
      row.detail = row.first_failure + ": " + t.detail;
      row.diagnostics = t.diagnostics;
    }
  }
  return row;
}

int run_grade(const GradeArgs& a) {
  std::error_code ec;
  if (!fs::is_directory(a.dir, ec)) return print_error(a.dir + ": not a folder of submissions", 2);
  const std::string pack_dir = fs::absolute(a.pack.empty() ? default_exercise_pack() : a.pack, ec).string();
  const exercise::Pack pack = exercise::load_pack(pack_dir);
  for (const std::string& e : pack.errors) std::fprintf(stderr, "blockscope: refused: %s\n", e.c_str());
  const exercise::Exercise* only = nullptr;
  if (!a.exercise.empty() && !(only = pack.find(a.exercise)))
    return print_error("no exercise named " + a.exercise + " in " + pack_dir, 2);
  if (!only && pack.exercises.empty()) return print_error(pack_dir + ": no exercise loaded", 2);
  std::vector<fs::path> entries;
  for (const fs::directory_entry& de : fs::directory_iterator(a.dir, ec)) entries.push_back(de.path());
  std::sort(entries.begin(), entries.end());
  std::vector<Row> rows;
  for (const fs::path& p : entries) {
    const bool folder = fs::is_directory(p, ec);
    const std::string student = folder ? p.filename().string() : p.stem().string();
    if (!folder && p.extension() != ".cu") continue;
    if (!folder && !only) {
      std::fprintf(stderr, "blockscope: %s: a file per student needs --exercise NAME; skipped\n",
                   printable(p.string(), 400).c_str());
      continue;
    }
    std::vector<std::pair<const exercise::Exercise*, fs::path>> work;
    if (only) {
      work.push_back({only, folder ? p / (only->id + ".cu") : p});
    } else {
      for (const exercise::Exercise& e : pack.exercises)
        if (fs::exists(p / (e.id + ".cu"), ec)) work.push_back({&e, p / (e.id + ".cu")});
      if (work.empty()) {
        Row r;
        r.student = student;
        r.status = "missing";
        r.detail = "no NAME.cu of any exercise of the pack in " + p.string();
        rows.push_back(r);
      }
    }
    for (const auto& [e, file] : work) {
      rows.push_back(grade_one(student, *e, file, pack_dir, a));
      const Row& r = rows.back();
      const std::string tests = r.per_test.empty() ? "" : "[" + r.per_test + "]  ";
      // Names and messages come from the students' files: escaped, so none can drive the terminal (the CSV keeps
      // them as they are, quoted).
      std::printf("%-16s %-22s %-13s %d/%d tests  %5.1f s  %s%s\n", printable(r.student).c_str(), r.exercise.c_str(),
                  r.status.c_str(), r.passed, r.total, r.seconds, tests.c_str(), printable(r.detail, 400).c_str());
      for (const std::string& d : r.diagnostics) std::printf("%40s%s\n", "", printable(d, 400).c_str());
      std::fflush(stdout);
    }
  }
  if (rows.empty()) return print_error(a.dir + ": no submissions (folders, or .cu files with --exercise)", 2);
  std::string csv =
      "student,exercise,status,tests_passed,tests_total,tests,first_failure,score,seconds,detail,diagnostics\n";
  int pass = 0;
  for (const Row& r : rows) {
    pass += r.status == "pass";
    std::string diags;
    for (const std::string& d : r.diagnostics) diags += (diags.empty() ? "" : " | ") + d;
    csv += csv_field(r.student) + "," + csv_field(r.exercise) + "," + csv_field(r.status) + "," +
           std::to_string(r.passed) + "," + std::to_string(r.total) + "," + csv_field(r.per_test) + "," +
           csv_field(r.first_failure) + "," +
           csv_field(r.score) + "," + fmt_fixed(r.seconds, 2) + "," + csv_field(r.detail) + "," + csv_field(diags) +
           "\n";
  }
  std::string err;
  if (!write_text_file(a.out, csv, &err)) return print_error("--out: " + err, 2);
  std::printf("graded %zu submissions in the simulator: %d pass, %zu not; %s\n", rows.size(), pass,
              rows.size() - static_cast<size_t>(pass), a.out.c_str());
  return 0;
}

}  // namespace

void register_exercise_grade(CLI::App& exercise, BenchContext& ctx) {
  auto a = std::make_shared<GradeArgs>();
  CLI::App* sub = exercise.add_subcommand(
      "grade", "Grade a folder of submissions, each test in a child process with a time and memory limit");
  sub->add_option("submissions", a->dir, "One folder per student (NAME.cu files), or .cu files with --exercise")
      ->required();
  sub->add_option("--out", a->out, "The grades (CSV)")->required();
  sub->add_option("--pack", a->pack, "The pack's folder (default: $BLOCKSCOPE_EXERCISES or the built-in pack)");
  sub->add_option("--exercise", a->exercise, "Grade this exercise only (then a student may be one .cu file)");
  sub->add_option("--timeout", a->timeout_s, "Seconds per submission (default: the exercise's limit)")
      ->check(CLI::Range(0.1, 3600.0));
  sub->add_option("--memory-mb", a->memory_mb, "Memory per submission (default: the exercise's limit)")
      ->check(CLI::Range(uint64_t{64}, uint64_t{65536}));
  sub->callback([a, &ctx] { run_guarded(ctx, [&] { return run_grade(*a); }); });
}

}  // namespace bs::cli
