// kernel_bench.h: `blockscope bench kernel --target heat|vector|matmul --source FILE.cu [lab options]`: the
// user's kernel compiled (through the compile cache), run, checked and timed beside the lab's built-in
// kernels in one table.
#pragma once

#include "app/bench.h"

namespace bs::cli {

void register_kernel_bench(CLI::App& bench, BenchContext& ctx);

}  // namespace bs::cli
