// main.cpp: blockscope's entry point. Everything lives in the libraries; this only hands over to the CLI and
// catches what nothing else caught.
#include <cstdio>
#include <exception>

#include "app/cli.h"

int main(int argc, char** argv) {
  try {
    return bs::run_cli(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "blockscope: %s\n", e.what());
    return 1;
  }
}
