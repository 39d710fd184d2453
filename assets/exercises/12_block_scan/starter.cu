// Exercise 12: an inclusive scan of each 256-element segment.
extern "C" __global__ void block_scan(const int* a, int* out, int n) {
  __shared__ int buf[256];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  buf[t] = i < n ? a[i] : 0;
  __syncthreads();
  for (int d = 1; d < blockDim.x; d *= 2) {
    // TODO: thread t reads slot t - d while thread t - d may already be overwriting it.
    if (t >= d) buf[t] += buf[t - d];
    __syncthreads();
  }
  if (i < n) out[i] = buf[t];
}
