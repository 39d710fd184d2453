// exercise_cli.h: `blockscope exercise list | show NAME | check NAME FILE.cu | grade SUBMISSIONS` (the course
// pack on the command line; gpu/exercise/ does the work, in the PTX simulator, no GPU needed).
// Exit codes: check 0 pass, 1 a failed test, 2 bad input (unreadable file, compile error, unknown exercise,
// broken pack); list 0 when every exercise loaded, 2 when one was refused (the others are still listed).
#pragma once

#include <CLI/CLI.hpp>

#include "app/bench.h"

namespace bs::cli {

void register_exercise_commands(CLI::App& app, BenchContext& ctx);

// The pack used when --pack is not given: $BLOCKSCOPE_EXERCISES, else the installed one beside the binary
// (PREFIX/share/blockscope/exercises), else the source tree's assets/exercises.
std::string default_exercise_pack();

}  // namespace bs::cli
