// Exercise 4, reference.
extern "C" __global__ void mirror(const float* a, float* out, int rows, int cols) {
  const int c = threadIdx.x, r = threadIdx.y;
  if (r < rows && c < cols) out[r * cols + c] = a[r * cols + (cols - 1 - c)];
}
