// kernel_check.h: `blockscope kernel check FILE.cu --target heat|vector|matmul` (the user's kernel run in the
// PTX simulator, no GPU needed: the check against the lab's reference, every diagnostic as file:line, and
// with --trace the accesses and counts as CSV) and `blockscope bench sim` (the simulator's speed).
// Exit codes of `kernel check`: 0 pass with no diagnostic, 1 a failed check, a diagnostic or a run the
// simulator stopped, 2 bad input (unreadable file, compile error, bad size or launch).
#pragma once

#include <CLI/CLI.hpp>

#include "app/bench.h"

namespace bs::cli {

void register_kernel_check(CLI::App& kernel, BenchContext& ctx);
void register_sim_bench(CLI::App& bench, BenchContext& ctx);

}  // namespace bs::cli
