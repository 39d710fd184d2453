// Exercise 8: shared memory. Each 256-element segment reversed; the last segment may be shorter.
extern "C" __global__ void block_reverse(const float* a, float* out, int n) {
  __shared__ float tile[256];
  const int base = blockIdx.x * blockDim.x, t = threadIdx.x;
  const int m = min((int)blockDim.x, n - base);
  if (t < m) tile[t] = a[base + t];
  // TODO: thread t reads what thread m - 1 - t stored. Is it there yet?
  if (t < m) out[base + t] = tile[m - 1 - t];
}
