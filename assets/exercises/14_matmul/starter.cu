// Exercise 14: C = A B, one thread per element of C; x along C's columns, y along its rows.
extern "C" __global__ void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
  // TODO: the grid's x covers N (the columns of C), its y covers M. These are swapped.
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  const int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += A[row * K + k] * B[k * N + col];
    C[row * N + col] = s;
  }
}
