// Exercise 13, reference: strided partial sums, then a tree in shared memory.
extern "C" __global__ void row_sum(const float* a, float* out, int rows, int cols) {
  __shared__ float part[256];
  const int r = blockIdx.x, t = threadIdx.x;
  float s = 0.0f;
  for (int c = t; c < cols; c += blockDim.x) s += a[(long long)r * cols + c];
  part[t] = s;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k /= 2) {
    if (t < k) part[t] += part[t + k];
    __syncthreads();
  }
  if (t == 0) out[r] = part[0];
}
