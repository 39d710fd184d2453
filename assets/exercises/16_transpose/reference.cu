// Exercise 16, reference: coalesced reads into a padded tile, coalesced writes out of it.
extern "C" __global__ void transpose(const float* a, float* out, int rows, int cols) {
  __shared__ float tile[32][33];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int c = blockIdx.x * 32 + tx;
  for (int j = 0; j < 32; j += 8) {
    const int r = blockIdx.y * 32 + ty + j;
    if (r < rows && c < cols) tile[ty + j][tx] = a[r * cols + c];
  }
  __syncthreads();
  const int out_r0 = blockIdx.x * 32, out_c = blockIdx.y * 32 + tx;  // out is cols x rows
  for (int j = 0; j < 32; j += 8) {
    const int r = out_r0 + ty + j;
    if (r < cols && out_c < rows) out[r * rows + out_c] = tile[tx][ty + j];
  }
}
