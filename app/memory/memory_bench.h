// memory_bench.h: `blockscope bench memory ...` (see memory_bench.cpp for the flags and the table).
#pragma once

#include "app/bench.h"

namespace bs::cli {

void register_memory_bench(CLI::App& bench, BenchContext& ctx);

}  // namespace bs::cli
