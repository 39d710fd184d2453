// kernel_bench.h: `blockscope bench kernel --target heat|vector|matmul --source FILE.cu [lab options]`: the
// user's kernel compiled (through the compile cache), run, checked and timed beside the lab's built-in
// kernels in one table.
#pragma once

#include <optional>
#include <string>

#include "app/bench.h"
#include "core/launch.h"
#include "gpu/heat/heat.h"
#include "gpu/kernel/compiler.h"
#include "gpu/matmul/matmul.h"
#include "gpu/vector/vector.h"

namespace bs::cli {

void register_kernel_bench(CLI::App& bench, BenchContext& ctx);

// A .cu file compiled for `target` the way the CLI does it (`bench kernel`, `sweep --kernel`): read through
// kernel::read_kernel_source (source_file.h), compiled
// through the cache under the user's cache directory for `arch` (0: the compiler's default), NVRTC's
// messages printed to stderr with the file's own name on an error. `error` (exit 2) says why there is no
// result: an unreadable file or the compile's message.
struct SourceCompile {
  kernel::CompileRequest request;
  std::optional<kernel::CompileResult> result;  // a good compile
  std::string error;
};
SourceCompile compile_source_file(const std::string& path, kernel::Target target, int arch,
                                  const kernel::CompileOptions& options = {},
                                  double timeout_s = kernel::k_default_compile_timeout_s);

// A lab's problem as `bench kernel` and `kernel check` take it (--size, --block, --grid, --steps, --reference),
// checked before anything is compiled or run. The *_default sizes are used when --size is empty.
struct LabProblemText {
  std::string size, block, grid, reference;
  int steps = 1;
  std::string heat_default, vector_default, matmul_default;
};
struct LabProblem {
  heat::Params heat;
  matmul::Problem matmul;
  int64_t n = 0;  // vector
  vector::Op reference = vector::Op::Formula;
  Dim2 block{};  // the contract's default when --block is empty
  std::optional<Dim2> grid;
  Dim2 domain(kernel::Target t) const;  // the threads the launch covers: heat (nx, ny), vector (n, 1), matmul (N, M)
};
// nullopt with *error set (a message naming the option) for bad input.
std::optional<LabProblem> parse_lab_problem(kernel::Target t, const LabProblemText& in, std::string* error);

// "MxNxK" (e.g. 1000x777x333) or "N" (N x N x N); nullopt for anything else. Not validated (matmul::validate).
std::optional<matmul::Problem> parse_matmul_size(const std::string& s);

}  // namespace bs::cli
