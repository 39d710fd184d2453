// matmul: C = A x B in float32, all row-major: A is M x K, B is K x N, C is M x N.
// The lab launches block (bx, by) (default 16 x 16) and grid (ceil(N / bx), ceil(M / by)).
//
// The tutorials' naive kernel: one thread per output, a dot product of a row of A and a column of B read
// straight from global memory. x picks the column, so a warp reads one value of A (a broadcast) and 32
// consecutive values of B per step: coalesced, but every value is read from memory K times over. The tiled
// template (matmul-tiled) stages tiles in shared memory to reuse them.
extern "C" __global__ void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k)
    acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc;
}
