// isolated_compile.h: NVRTC runs in a child process (fork), so a hostile source cannot take blockscope down
// with it: a macro that expands without end, an #include of a pipe that never delivers, a compile that eats
// all memory. The child has an address-space limit (what it inherited plus CompileControl::memory_bytes) and
// a wall-clock deadline; whoever waits may abandon it at any moment (CompileControl::abandon): the child is
// killed at once, so the editor stays responsive and the app exits promptly with a compile pending.
// NVRTC cannot be interrupted inside a call; killing its process is the only real way to abandon it.
// compile_kernel (compiler.h) compiles this way; compile_kernel_in_process is the compile itself (the child's
// body, and tests). Plain C++ (POSIX).
#pragma once

#include "gpu/kernel/compiler.h"

namespace bs::kernel {

// The compile in this process, no limits: what the child runs.
CompileResult compile_kernel_in_process(const CompileRequest& r);

// compile_kernel_in_process in a child process under r.control's limits. When the child does not finish
// (deadline, abandoned, killed by the memory limit or a crash) the result has status LimitExceeded and a
// message saying which limit and what in a source causes it. When no child can be started (fork refused),
// compiles in this process.
CompileResult compile_kernel_isolated(const CompileRequest& r);

}  // namespace bs::kernel
