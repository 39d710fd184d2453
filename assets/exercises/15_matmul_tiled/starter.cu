// Exercise 15: tiled C = A B. Two 16 x 16 tiles in shared memory per step along K.
extern "C" __global__ void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[16][16], Bs[16][16];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int col = blockIdx.x * 16 + tx, row = blockIdx.y * 16 + ty;
  float s = 0.0f;
  for (int k0 = 0; k0 < K; k0 += 16) {
    As[ty][tx] = row < M && k0 + tx < K ? A[row * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = k0 + ty < K && col < N ? B[(k0 + ty) * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < 16; ++k) s += As[ty][k] * Bs[k][tx];
    // TODO: the next step overwrites As and Bs. Has every thread finished reading them?
  }
  if (row < M && col < N) C[row * N + col] = s;
}
