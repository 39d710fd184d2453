// kernel_bench.h: `blockscope bench kernel --target heat|vector|matmul --source FILE.cu [lab options]`: the
// user's kernel compiled (through the compile cache), run, checked and timed beside the lab's built-in
// kernels in one table.
#pragma once

#include <optional>
#include <string>

#include "app/bench.h"
#include "gpu/kernel/compiler.h"

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

}  // namespace bs::cli
