// main.cpp: blockscope's entry point. Everything lives in the libraries; this only hands over to the CLI and
// catches what nothing else caught, as one line on stderr and a non-zero exit.
#include <cstdio>
#include <exception>
#include <new>

#include "app/cli.h"

int main(int argc, char** argv) {
  try {
    return bs::run_cli(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr,
                 "blockscope: out of host memory: an allocation failed (std::bad_alloc); choose a smaller "
                 "problem, or raise the process's memory limit (ulimit -v, the container's memory.max)\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "blockscope: %s\n", e.what());
    return 1;
  } catch (...) {
    std::fprintf(stderr, "blockscope: an unexpected error ended the program\n");
    return 1;
  }
}
