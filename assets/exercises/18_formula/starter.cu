// Exercise 18: c[i] = (a[i] * 10 + 2) * ((b[i] + 2) * 10 - 5) * 5.
extern "C" __global__ void formula(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  // TODO: compare the brackets with the statement.
  if (i < n) c[i] = (a[i] * 10.0f + 2.0f) * (b[i] + 2.0f) * 10.0f - 5.0f * 5.0f;
}
