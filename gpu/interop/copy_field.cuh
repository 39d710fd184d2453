// copy_field.cuh: the device copy from a solver's field into GL-visible memory, shared by both interop
// mechanisms. float4 where the pointers allow it (both come from allocations aligned far beyond 16 bytes), a
// scalar tail, grid-stride so any size works with a fixed grid.
#pragma once

#include <cstddef>

namespace bs::interop {

__global__ inline void copy_field_kernel(const float* __restrict__ src, float* __restrict__ dst, size_t n) {
  const size_t n4 = n / 4;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t t = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  const float4* s4 = reinterpret_cast<const float4*>(src);
  float4* d4 = reinterpret_cast<float4*>(dst);
  for (size_t i = t; i < n4; i += stride)
    d4[i] = s4[i];
  for (size_t i = n4 * 4 + t; i < n; i += stride)
    dst[i] = src[i];
}

}  // namespace bs::interop
