// matmul_operands.h: what the FP32 ladder's GpuRunner (matmul_gpu.cu) and the tensor-core TcRunner (tc_gpu.cu)
// share: the problem, checked before the device is looked for; the device, found before anything is allocated;
// float32 A, B and C on the device and the stream they are used on; the upload of A and B. Each runner's Impl
// derives from it. Host code for the matmul library's .cu files (uses gpu/common's CUDA RAII types).
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "gpu/common/device_buffer.h"
#include "gpu/common/device_info.h"
#include "gpu/matmul/matmul.h"

namespace bs::matmul {

struct MatmulOperands {
  // Throws InvalidRequest for a problem that cannot run, or that does not fit in free device memory less
  // `reserve_bytes` (what the runner allocates besides A, B, C; `reserve_note` then ends the message), and
  // GpuError without a device.
  explicit MatmulOperands(const Problem& problem, size_t reserve_bytes = 0, const std::string& reserve_note = {});
  MatmulOperands(const MatmulOperands&) = delete;
  MatmulOperands& operator=(const MatmulOperands&) = delete;

  // Copies A (M x K) and B (K x N) to the device and waits; InvalidRequest when the sizes do not match.
  void upload(std::span<const float> a_host, std::span<const float> b_host);

  DeviceInfo info;  // first: found (and the problem checked) before anything else is built
  Problem p;
  DeviceBuffer<float> a, b, c;
  Stream stream;
};

}  // namespace bs::matmul
