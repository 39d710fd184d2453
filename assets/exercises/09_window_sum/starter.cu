// Exercise 9: out[i] = a[i - 1] + a[i] + a[i + 1], zeros outside [0, n).
extern "C" __global__ void window3(const float* a, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  // TODO: what do i - 1 and i + 1 read at the ends of the array? (Then: can shared memory save reads?)
  if (i < n) out[i] = a[i - 1] + a[i] + a[i + 1];
}
