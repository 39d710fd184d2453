// exercise_grade.h: `blockscope exercise grade SUBMISSIONS_DIR --out grades.csv` grades a class offline: each
// submission (a student's folder of NAME.cu files, or with --exercise a file or folder per student) runs as
// `blockscope exercise check --json` in a child process of its own, in its own process group, under an
// address-space limit and a wall-clock deadline. A submission that hangs, crashes, runs out of memory, writes
// out of bounds or does not compile fails alone, with its reason, and the grading goes on. Prints a table per
// student (with the first failing test and the simulator's diagnostics) and a summary; writes the CSV.
#pragma once

#include <CLI/CLI.hpp>

#include "app/bench.h"

namespace bs::cli {

void register_exercise_grade(CLI::App& exercise, BenchContext& ctx);

}  // namespace bs::cli
