// Exercise 8, reference: load, barrier, then read the mirrored slot.
extern "C" __global__ void block_reverse(const float* a, float* out, int n) {
  __shared__ float tile[256];
  const int base = blockIdx.x * blockDim.x, t = threadIdx.x;
  const int m = min((int)blockDim.x, n - base);
  if (t < m) tile[t] = a[base + t];
  __syncthreads();
  if (t < m) out[base + t] = tile[m - 1 - t];
}
