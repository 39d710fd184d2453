// splitk_fold.cuh: split-k's reduction folded into auto's skinny kernels (device code; included by
// skinny_kernels.cuh). Each block writes its slice's partial tile of C to the workspace, then counts itself
// in its tile's counter; the last of the tile's slices to arrive adds the tile's partials in slice order,
// 0 .. slices-1, and writes C. Which block is last varies from run to run, the order of the additions does
// not: the result is the same bits every run, as with the separate splitk_reduce launch, which this saves.
#pragma once

#include <cuda_runtime.h>

namespace bs::matmul::kernels {

// Called by every thread of the block after its stores of the block's partial tile (the block's last use of
// shared memory must be behind it: this takes one more __syncthreads). Returns, in every thread, whether this
// block is the tile's last slice to arrive; that block has reset the counter to 0 for the next launch (every
// other slice has counted itself by then, so no one touches it again in this launch).
__device__ __forceinline__ bool splitk_fold_last(unsigned* counter, unsigned slices) {
  __shared__ bool last;
  // Release: this thread's partial stores are visible device-wide before the block counts itself.
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    const bool l = atomicAdd(counter, 1u) == slices - 1;
    if (l) {
      *counter = 0;
      __threadfence();  // acquire: the other slices' partials are read after their counts were seen
    }
    last = l;
  }
  __syncthreads();
  return last;
}

// The sum over the slices of element i of the workspace (slices `stride` floats apart), in slice order.
// __ldcg: from L2 (the other blocks' partials never sat in this SM's L1, but never risk a stale line).
__device__ __forceinline__ float splitk_fold_sum(const float* ws, size_t i, size_t stride, int slices) {
  float s = __ldcg(ws + i);
  for (int z = 1; z < slices; ++z)
    s += __ldcg(ws + (static_cast<size_t>(z) * stride + i));
  return s;
}

}  // namespace bs::matmul::kernels
