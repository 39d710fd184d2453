// run_util.h: runs the blockscope executable as a user would and captures its exit code and output.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace bs::test {

struct RunResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// The binary built with the tests, unless BLOCKSCOPE_BIN names another (the GPU machine runs a copied build).
inline std::string blockscope_binary() {
  const char* env = std::getenv("BLOCKSCOPE_BIN");
  return env && *env ? env : BS_BINARY;
}

// Runs a shell command line; stdout and stderr together.
inline RunResult run_command(const std::string& command) {
  const std::string cmd = command + " 2>&1";
  RunResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
    r.output.append(buf.data(), n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

inline RunResult run_blockscope(const std::string& args, const std::string& prefix = "") {
  return run_command(prefix + " " + blockscope_binary() + " " + args);
}

}  // namespace bs::test
