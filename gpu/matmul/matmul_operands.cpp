// matmul_operands.cpp: see matmul_operands.h.
#include "gpu/matmul/matmul_operands.h"

#include <cuda_runtime.h>

#include "core/error.h"
#include "gpu/common/cuda_check.h"

namespace bs::matmul {

namespace {

// The device, found once the problem is checked and before any buffer is allocated (the first member).
DeviceInfo checked_device(const Problem& p, size_t reserve_bytes, const std::string& reserve_note) {
  if (auto err = validate(p)) throw InvalidRequest(*err);
  DeviceInfo info = query_device();
  if (!info.available) throw GpuError("no CUDA device: " + info.reason, 100, false);
  size_t free_b = 0, total_b = 0;
  BS_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  if (auto err = validate_memory(p, free_b > reserve_bytes ? free_b - reserve_bytes : 0))
    throw InvalidRequest(*err + reserve_note);
  return info;
}

}  // namespace

MatmulOperands::MatmulOperands(const Problem& problem, size_t reserve_bytes, const std::string& reserve_note)
    : info(checked_device(problem, reserve_bytes, reserve_note)),
      p(problem),
      a(problem.a_count()),
      b(problem.b_count()),
      c(problem.c_count()) {}

void MatmulOperands::upload(std::span<const float> a_host, std::span<const float> b_host) {
  if (a_host.size() != p.a_count() || b_host.size() != p.b_count())
    throw InvalidRequest("input sizes do not match " + to_string(p) + ": A needs M*K values, B needs K*N");
  BS_CUDA_CHECK(cudaMemcpyAsync(a.data(), a_host.data(), a.bytes(), cudaMemcpyHostToDevice, stream.get()));
  BS_CUDA_CHECK(cudaMemcpyAsync(b.data(), b_host.data(), b.bytes(), cudaMemcpyHostToDevice, stream.get()));
  stream.sync();
}

}  // namespace bs::matmul
