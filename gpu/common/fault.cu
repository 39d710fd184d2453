// fault.cu: see fault.h.
#include "gpu/common/cuda_check.h"
#include "gpu/common/fault.h"

namespace bs {

namespace {
__global__ void wild_store(float* p) {
  p[threadIdx.x * 1000003u] = 1.0f;
}
}  // namespace

void inject_illegal_address() {
  wild_store<<<1, 32>>>(reinterpret_cast<float*>(0x10));
  BS_CUDA_CHECK_LAUNCH();
  BS_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace bs
