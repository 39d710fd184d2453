// Exercise 13: out[r] = sum of row r; one block of 256 threads per row.
extern "C" __global__ void row_sum(const float* a, float* out, int rows, int cols) {
  const int r = blockIdx.x, t = threadIdx.x;
  float s = 0.0f;
  for (int c = t; c < cols; c += blockDim.x) s += a[r * cols + c];
  // TODO: 256 partial sums, one element: combine them in shared memory first.
  out[r] = s;
}
