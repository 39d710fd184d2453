// Exercise 12, reference: Hillis-Steele with two buffers, a barrier after every step.
extern "C" __global__ void block_scan(const int* a, int* out, int n) {
  __shared__ int buf[2][256];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  buf[0][t] = i < n ? a[i] : 0;
  __syncthreads();
  int src = 0;
  for (int d = 1; d < blockDim.x; d *= 2) {
    int v = buf[src][t];
    if (t >= d) v += buf[src][t - d];
    buf[1 - src][t] = v;
    __syncthreads();
    src = 1 - src;
  }
  if (i < n) out[i] = buf[src][t];
}
