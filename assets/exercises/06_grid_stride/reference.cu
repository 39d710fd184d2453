// Exercise 6, reference: the stride is the number of threads in the grid.
extern "C" __global__ void affine(const float* a, float* out, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = 0.5f * a[i] + 1.0f;
}
