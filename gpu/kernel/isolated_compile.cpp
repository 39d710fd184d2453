// isolated_compile.cpp: see isolated_compile.h. The child writes one message on a pipe:
//   <finished 0|1>\n<message length>\n<message>\n then serialize_entry(kernel_cache.h) of its result,
// and the parent derives diagnostics and resources again (finish_result) when the child got that far.
#include "gpu/kernel/isolated_compile.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <new>

#include "core/text.h"
#include "gpu/kernel/kernel_cache.h"
#include "gpu/kernel/nvrtc_loader.h"

namespace bs::kernel {

void count_nvrtc_compile();  // compiler.cpp

namespace {

constexpr std::string_view k_pipe_key = "child";
constexpr size_t k_max_reply_bytes = size_t{512} << 20;  // a CUBIN and its PTX are a few MiB at most

// The process's virtual size now (VmSize): the child's limit is this plus the compile's budget, since the
// child starts as a copy of this process (a CUDA context alone reserves many GiB of address space).
uint64_t virtual_size_bytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long long pages = 0;
  const int got = std::fscanf(f, "%llu", &pages);
  std::fclose(f);
  return got == 1 ? pages * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)) : 0;
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

[[noreturn]] void child_main(const CompileRequest& r, int out_fd, uint64_t address_limit) {
  // Ctrl+C in the terminal reaches the whole process group: the child just ends (the parent reports it).
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  ::signal(SIGPIPE, SIG_DFL);
  // Only the reply's pipe stays open: another thread's compile child must not hold this one's pipe (its
  // parent would wait for that child too before it saw the end of the reply), nor this one theirs.
  if (out_fd > 3) ::close_range(3, static_cast<unsigned>(out_fd) - 1, 0);
  ::close_range(static_cast<unsigned>(out_fd) + 1, ~0u, 0);
  const rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  if (address_limit > 0) {
    const rlimit as{address_limit, address_limit};
    ::setrlimit(RLIMIT_AS, &as);
  }
  std::string reply;
  try {
    CompileResult res = compile_kernel_in_process(r);
    // finish_result ran when NVRTC compiled (the log or the CUBIN are there); the parent runs it again.
    const bool finished = !res.log.empty() || !res.cubin.empty() || res.status == CompileStatus::Ok ||
                          res.status == CompileStatus::SignatureError;
    reply = std::string(finished ? "1" : "0") + "\n" + std::to_string(res.message.size()) + "\n" + res.message +
            "\n" + serialize_entry(std::string(k_pipe_key), res);
  } catch (const std::bad_alloc&) {
    ::_exit(3);  // over the memory limit (the parent says so)
  } catch (...) {
    ::_exit(4);
  }
  ::_exit(write_all(out_fd, reply) ? 0 : 5);
}

// Parses the child's reply; nullopt when it is damaged.
std::optional<CompileResult> parse_reply(const CompileRequest& r, std::string_view data) {
  if (data.size() < 4 || (data[0] != '0' && data[0] != '1') || data[1] != '\n') return std::nullopt;
  const bool finished = data[0] == '1';
  data.remove_prefix(2);
  const size_t nl = data.find('\n');
  if (nl == std::string_view::npos || nl == 0 || nl > 12) return std::nullopt;
  size_t len = 0;
  for (char c : data.substr(0, nl)) {
    if (c < '0' || c > '9') return std::nullopt;
    len = len * 10 + static_cast<size_t>(c - '0');
  }
  data.remove_prefix(nl + 1);
  if (data.size() < len + 1 || data[len] != '\n') return std::nullopt;
  const std::string message(data.substr(0, len));
  data.remove_prefix(len + 1);
  auto res = parse_entry(std::string(k_pipe_key), data);
  if (!res) return std::nullopt;
  if (finished) {
    finish_result(r, &*res);
  } else {
    res->message = message;
  }
  return res;
}

CompileResult stopped(const CompileRequest& r, std::string message) {
  CompileResult out;
  out.arch = r.arch;
  out.status = CompileStatus::LimitExceeded;
  out.nvrtc_version = nvrtc().version();
  out.message = std::move(message);
  Diagnostic d;  // on the first line, so the editor and the CLI show it with the file's name
  d.line = 1;
  d.message = out.message;
  out.diagnostics.push_back(std::move(d));
  return out;
}

std::string seconds_text(double s) {
  return fmt_fixed(s, s < 10 ? 1 : 0) + " s";
}

std::string mib_text(uint64_t bytes) {
  return std::to_string(bytes >> 20) + " MiB";
}

}  // namespace

CompileResult compile_kernel_isolated(const CompileRequest& r) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  (void)nvrtc();  // loaded here, once, so every child starts with NVRTC mapped
  const CompileControl& ctl = r.control;
  const uint64_t vm = virtual_size_bytes();
  const uint64_t limit = ctl.memory_bytes > 0 && vm > 0 ? vm + ctl.memory_bytes : 0;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return compile_kernel_in_process(r);
  const pid_t pid = ::fork();
  if (pid < 0) {  // no child (process or memory limits): compile here, without the limits
    ::close(fds[0]);
    ::close(fds[1]);
    return compile_kernel_in_process(r);
  }
  if (pid == 0) {
    ::close(fds[0]);
    child_main(r, fds[1], limit);
  }
  ::close(fds[1]);
  count_nvrtc_compile();
  const int fd = fds[0];
  const double timeout_s = ctl.timeout_s > 0 ? ctl.timeout_s : k_default_compile_timeout_s;
  const auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  std::string data;
  bool timed_out = false, abandoned = false, too_big = false;
  char buf[65536];
  for (;;) {
    if (ctl.abandon && ctl.abandon->load()) {
      abandoned = true;
      break;
    }
    const auto now = Clock::now();
    if (now >= deadline) {
      timed_out = true;
      break;
    }
    // Short waits: an abandon is seen within 20 ms.
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left + 1, 20)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      break;
    }
    if (n == 0) break;  // the child is done (or died)
    data.append(buf, static_cast<size_t>(n));
    if (data.size() > k_max_reply_bytes) {
      too_big = true;
      break;
    }
  }
  ::close(fd);
  if (timed_out || abandoned || too_big) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (abandoned) return stopped(r, "compile abandoned (a newer request, Cancel, or closing)");
  if (timed_out)
    return stopped(r, "compile stopped after " + seconds_text(timeout_s) +
                          " (the time limit): a macro that expands without end, or an #include that never "
                          "ends?");
  if (too_big) return stopped(r, "compile stopped: NVRTC's output passed " + mib_text(k_max_reply_bytes));
  const std::string memory = limit > 0 ? " (" + mib_text(ctl.memory_bytes) + ")" : std::string();
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    if (auto res = parse_reply(r, data)) {
      res->total_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      // NVRTC reports running out of memory as an error on the line where it happened: say which limit.
      for (const Diagnostic& d : res->diagnostics)
        if (d.message == "out of memory") {  // a limit's result, not the source's: never cached
          res->status = CompileStatus::LimitExceeded;
          res->message = "compile stopped on line " + std::to_string(d.line) +
                         ": NVRTC ran out of its memory limit" + memory + ": a macro that expands without end?";
          res->cubin.clear();
          res->ptx.clear();
          break;
        }
      return *res;
    }
    return stopped(r, "compile failed: the compiler process gave a damaged reply");
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
    return stopped(r, "compile stopped: NVRTC ran out of its memory limit" + memory +
                          ": a macro that expands without end?");
  if (WIFSIGNALED(status))
    return stopped(r, "compile stopped: the compiler process ended on signal " +
                          std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) +
                          "), most likely over its memory limit" + memory);
  return stopped(r, "compile failed: the compiler process exited with code " +
                        std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1));
}

}  // namespace bs::kernel
