// kernel_cli.h: `blockscope kernel template ID` and `blockscope kernel compile FILE.cu ...` (the kernel lab's
// compiler on the command line: diagnostics with line numbers, resources, PTX with source lines, the cache,
// and --repeat for the compile benchmark).
#pragma once

#include <CLI/CLI.hpp>

#include "app/bench.h"

namespace bs::cli {

void register_kernel_commands(CLI::App& app, BenchContext& ctx);

}  // namespace bs::cli
