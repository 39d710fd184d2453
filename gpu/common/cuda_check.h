// cuda_check.h: error-checking macros for CUDA runtime calls (gpu/ only; includes cuda_runtime.h).
// BS_CUDA_CHECK throws bs::GpuError with the call's text, file and line; BS_CUDA_LOG only logs (for
// destructors).
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "core/error.h"

namespace bs {

// Errors after which the context is unusable until cudaDeviceReset(): the CUDA runtime documents these as
// leaving the process in an inconsistent state.
bool is_sticky_cuda_error(cudaError_t err);

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line);
void log_cuda_error(cudaError_t err, const char* expr, const char* file, int line);

}  // namespace bs

#define BS_CUDA_CHECK(expr)                                                                 \
  do {                                                                                      \
    cudaError_t bs_err_ = (expr);                                                           \
    if (bs_err_ != cudaSuccess) ::bs::throw_cuda_error(bs_err_, #expr, __FILE__, __LINE__); \
  } while (0)

#define BS_CUDA_LOG(expr)                                                                 \
  do {                                                                                    \
    cudaError_t bs_err_ = (expr);                                                         \
    if (bs_err_ != cudaSuccess) ::bs::log_cuda_error(bs_err_, #expr, __FILE__, __LINE__); \
  } while (0)

// After every kernel launch: launch-configuration errors surface here (and are cleared by the call).
#define BS_CUDA_CHECK_LAUNCH() BS_CUDA_CHECK(cudaGetLastError())
