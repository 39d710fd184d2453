// fault_kernel.cu: a kernel that writes through a wild pointer, to test recovery from sticky CUDA errors.
#include <cuda_runtime.h>

namespace bs::test {

__global__ void wild_write(float* p) {
  p[threadIdx.x * 1000003u] = 1.0f;
}

cudaError_t launch_wild_write() {
  wild_write<<<1, 32>>>(reinterpret_cast<float*>(0x10));
  return cudaDeviceSynchronize();
}

}  // namespace bs::test
