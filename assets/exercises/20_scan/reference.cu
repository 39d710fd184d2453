// Exercise 20, reference: a single-pass chained scan. Each block takes a ticket (the order blocks started in),
// scans its tile in shared memory, waits for the tile before it to publish its inclusive prefix, adds it, and
// publishes its own: sums[ticket] first, then (after a fence) ready[ticket] = 1.
extern "C" __global__ void scan(const int* a, long long* out, long long* sums, int* ready, int* counter, int n) {
  __shared__ long long buf[2][256];
  __shared__ int ticket;
  __shared__ long long before;
  const int t = threadIdx.x;
  if (t == 0) ticket = atomicAdd(counter, 1);
  __syncthreads();
  const int tile = ticket;
  const int i = tile * blockDim.x + t;
  buf[0][t] = i < n ? a[i] : 0;
  __syncthreads();
  int src = 0;
  for (int d = 1; d < blockDim.x; d *= 2) {
    long long v = buf[src][t];
    if (t >= d) v += buf[src][t - d];
    buf[1 - src][t] = v;
    __syncthreads();
    src = 1 - src;
  }
  if (t == 0) {
    long long prefix = 0;
    if (tile > 0) {
      while (atomicAdd(&ready[tile - 1], 0) == 0) {
      }
      __threadfence();
      prefix = ((volatile long long*)sums)[tile - 1];
    }
    before = prefix;
    sums[tile] = prefix + buf[src][blockDim.x - 1];
    __threadfence();
    atomicExch(&ready[tile], 1);
  }
  __syncthreads();
  if (i < n) out[i] = before + buf[src][t];
}
