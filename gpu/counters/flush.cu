// flush.cu: see flush.h.
#include <cuda_runtime.h>

#include "gpu/counters/flush.h"

namespace bs::counters::detail {

namespace {

// Reads every float4 of the buffer (grid-stride) and writes nothing unless the sum is an impossible value:
// the loads cannot be optimised away and no cache line becomes dirty.
__global__ void read_all(const float4* __restrict__ in, size_t n4, float* sink) {
  float acc = 0.f;
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n4;
       i += size_t{gridDim.x} * blockDim.x) {
    const float4 v = in[i];
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc == -1.2345e-30f) *sink = acc;
}

}  // namespace

L2Flusher::L2Flusher(size_t l2_bytes) {
  if (l2_bytes == 0) return;
  const size_t bytes = 3 * l2_bytes;
  if (cudaMalloc(&m_buffer, bytes) != cudaSuccess || cudaMalloc(&m_sink, sizeof(float)) != cudaSuccess) {
    cudaGetLastError();
    if (m_buffer) cudaFree(m_buffer);
    m_buffer = nullptr;
    return;
  }
  // The contents do not matter (only reads follow); the memset makes them defined, and the first flush()
  // evicts what it leaves dirty before anything is measured.
  cudaMemset(m_buffer, 0, bytes);
  m_count4 = bytes / sizeof(float4);
  flush();
}

L2Flusher::~L2Flusher() {
  if (m_buffer) cudaFree(m_buffer);
  if (m_sink) cudaFree(m_sink);
}

void L2Flusher::flush() {
  if (!m_buffer) return;
  // Twice: the first pass writes back whatever was dirty, the second leaves only clean lines of the buffer.
  for (int i = 0; i < 2; ++i)
    read_all<<<1024, 256>>>(static_cast<const float4*>(m_buffer), m_count4, m_sink);
  cudaDeviceSynchronize();
  cudaGetLastError();
}

}  // namespace bs::counters::detail
