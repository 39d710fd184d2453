// reduce_bench.h: `blockscope bench reduce ...` and `blockscope bench scan ...`, the reduction lab's bench
// commands (one register function adds both).
#pragma once

namespace CLI {
class App;
}

namespace bs::cli {

struct BenchContext;

// Adds `bench reduce` and `bench scan` to the bench command.
void register_reduce_bench(CLI::App& bench, BenchContext& ctx);

}  // namespace bs::cli
