// Exercise 16: out (cols x rows) = transpose of a (rows x cols); 32 x 8 threads per 32 x 32 tile.
extern "C" __global__ void transpose(const float* a, float* out, int rows, int cols) {
  __shared__ float tile[32][33];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int c = blockIdx.x * 32 + tx;
  for (int j = 0; j < 32; j += 8) {
    const int r = blockIdx.y * 32 + ty + j;
    if (r < rows && c < cols) tile[ty + j][tx] = a[r * cols + c];
  }
  __syncthreads();
  // TODO: the tile is transposed, so its place in out is too: out's row block is this block's column block.
  for (int j = 0; j < 32; j += 8) {
    const int r = blockIdx.y * 32 + ty + j, cc = blockIdx.x * 32 + tx;
    if (r < cols && cc < rows) out[r * rows + cc] = tile[tx][ty + j];
  }
}
