// Exercise 7: 2D blocks. out = alpha * x + y over a rows x cols matrix; grid ceil(cols/bx) x ceil(rows/by).
extern "C" __global__ void axpy2d(const float* x, const float* y, float* out, float alpha, int rows, int cols) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  // TODO: check this guard against the grid: which index runs along the columns?
  if (r < cols && c < rows) out[r * cols + c] = alpha * x[r * cols + c] + y[r * cols + c];
}
