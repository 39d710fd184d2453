// Exercise 18, reference.
extern "C" __global__ void formula(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = (a[i] * 10.0f + 2.0f) * ((b[i] + 2.0f) * 10.0f - 5.0f) * 5.0f;
}
