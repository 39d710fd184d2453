// matmul-tiled: C = A x B in float32, all row-major: A is M x K, B is K x N, C is M x N.
// Launch with block 16 x 16 (TILE x TILE: the kernel assumes it) and grid (ceil(N / 16), ceil(M / 16)).
//
// Each block computes a 16 x 16 tile of C. It walks K in steps of 16: the block loads a 16 x 16 tile of A and
// one of B into shared memory (one value per thread), waits, and every thread reads 16 values of each from
// shared memory: each value loaded from global memory now feeds 16 multiply-adds instead of one. Threads past
// the edges of C still load (zeros) and reach every __syncthreads(); only the store is guarded.
#define TILE 16

extern "C" __global__ void __launch_bounds__(TILE * TILE)
    matmul(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float as[TILE][TILE];
  __shared__ float bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;
  const int col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    as[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
    bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
    __syncthreads();  // both tiles are complete
    for (int i = 0; i < TILE; ++i)
      acc += as[ty][i] * bs[i][tx];
    __syncthreads();  // everyone is done reading before the next tiles overwrite them
  }
  if (row < M && col < N) C[row * N + col] = acc;
}
