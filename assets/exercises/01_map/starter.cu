// Exercise 1: one thread per element. out[i] = a[i] + 10 for i in [0, n); launched with n / 256 blocks of 256.
extern "C" __global__ void add_ten(const float* a, float* out) {
  // TODO: every thread of the launch handles one element. Which one? (threadIdx.x alone repeats in every block.)
  const int i = threadIdx.x;
  out[i] = a[i] + 10.0f;
}
