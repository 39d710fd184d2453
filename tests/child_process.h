// child_process.h: runs a piece of a test in a forked child with a time limit, so that code which could hang
// (reading /dev/zero) or crash (a stack overflow on deeply nested JSON) fails its test instead of taking the
// whole test binary down.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <thread>

namespace bs::test {

// `fn`'s return value as the child's exit code; -1 when it did not finish within `seconds` (it is killed);
// 128 + signal when it crashed; 98 when it threw.
inline int run_in_child(const std::function<int()>& fn, int seconds) {
  const pid_t pid = ::fork();
  if (pid < 0) return -2;
  if (pid == 0) {
    int code = 99;
    try {
      code = fn();
    } catch (...) {
      code = 98;
    }
    ::_exit(code);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace bs::test
