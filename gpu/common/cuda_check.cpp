// cuda_check.cpp: turns CUDA error codes into bs::GpuError and log lines.
#include "gpu/common/cuda_check.h"

#include <cstdio>

namespace bs {

bool is_sticky_cuda_error(cudaError_t err) {
  switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
    case cudaErrorLaunchTimeout:
    case cudaErrorUnknown:
      return true;
    default:
      return false;
  }
}

void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line) {
  const bool sticky = is_sticky_cuda_error(err);
  if (!sticky) (void)cudaGetLastError();  // clear the non-sticky error so later calls start clean
  std::string msg = std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err) + " (in " + expr +
                    " at " + file + ":" + std::to_string(line) + ")";
  if (sticky) msg += " [the CUDA context is lost until the device is reset]";
  throw GpuError(msg, static_cast<int>(err), sticky);
}

void log_cuda_error(cudaError_t err, const char* expr, const char* file, int line) {
  std::fprintf(stderr, "blockscope: %s: %s (in %s at %s:%d)\n", cudaGetErrorName(err),
               cudaGetErrorString(err), expr, file, line);
}

}  // namespace bs
