// sim_kernels.h: CUDA sources the simulator's tests run (in the simulator, and on the GPU for the bitwise
// comparison, sim_gpu_test.cpp).
#pragma once

namespace bs::sim::test {

inline const char* k_warp_kernels = R"(
extern "C" __global__ void warp_sum(const int* in, int* out, int* ballots, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  const unsigned b = __ballot_sync(0xffffffffu, i < n && (in[i] & 1));
  const int all = __all_sync(0xffffffffu, i < n);
  const int any = __any_sync(0xffffffffu, i < n && in[i] > 90);
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(out, v);
    const int w = i / 32;
    ballots[3 * w] = (int)b;
    ballots[3 * w + 1] = all;
    ballots[3 * w + 2] = any;
  }
}
extern "C" __global__ void xor_bcast(const int* in, int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  for (int o = 1; o < 32; o <<= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, o));
  const int first = __shfl_sync(0xffffffffu, i, 0);
  const int up = __shfl_up_sync(0xffffffffu, i, 3);
  if (i < n) out[2 * i] = v + first, out[2 * i + 1] = up;
}
extern "C" __global__ void divergent(const int* in, int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  int acc = 0;
  if (i < n) {
    for (int k = 0; k < in[i] % 7; ++k) {  // a different trip count per lane
      if (k & 1) acc += k * in[i];
      else acc -= k;
    }
  }
  // after the loop the warp is whole again: the shuffle sees every lane
  acc += __shfl_down_sync(0xffffffffu, acc, 1);
  if (i < n) out[i] = acc;
}
extern "C" __global__ void block_sum(const int* in, int* out, int n) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int h = blockDim.x / 2; h > 0; h >>= 1) {
    if (t < h) s[t] += s[t + h];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}
extern "C" __global__ void histogram(const int* in, unsigned* bins, int n) {
  __shared__ unsigned local[16];
  if (threadIdx.x < 16) local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[in[i] & 15], 1u);
  __syncthreads();
  if (threadIdx.x < 16) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}
)";

inline const char* k_exact_float = R"(
extern "C" __global__ void exact(const float* a, const float* b, float* out, int* iout, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float x = a[i], y = b[i];
  float* o = out + 12 * i;
  o[0] = __fadd_rn(x, y);
  o[1] = __fmul_rz(x, y);
  o[2] = __fmul_rd(x, y);
  o[3] = __fmul_ru(x, y);
  o[4] = __fdiv_rn(x, y);
  o[5] = __fsqrt_rn(fabsf(x));
  o[6] = __frcp_rn(y);
  o[7] = __fmaf_rn(x, y, -x);
  o[8] = fminf(x, y);
  o[9] = fmaxf(x, -y);
  o[10] = (float)((double)x / (double)y);
  o[11] = __int2float_rz(iout[2 * i] * 12345 + 7);
  iout[2 * i] = __float2int_rd(x * 1000.0f);
  iout[2 * i + 1] = __float2int_rn(y * 1000.0f);
}
)";

inline const char* k_misc = R"(
__device__ __noinline__ float weigh(float v, int k) { return v * (float)k + 0.5f; }
extern "C" __global__ void misc(const float* in, float* out, double* dout, long long* lout, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float window[8];  // a local array indexed at run time: local memory
  for (int k = 0; k < 8; ++k) window[k] = in[(i + k) % n];
  out[i] = weigh(window[i % 8], i % 5);
  dout[i] = (double)in[i] * 1.0000001 + (double)i / 3.0;
  lout[i] = ((long long)i << 35) / 7 + __popc(i) + __clz(i + 1) + (__brev(i) >> 20) + 100 * __ffs(i * 12);
}
)";

inline const char* k_coverage = R"(
__device__ float atomic_max_float(float* addr, float v) {  // the classic CAS loop
  int* p = (int*)addr;
  int old = *p, assumed;
  do {
    assumed = old;
    old = atomicCAS(p, assumed, __float_as_int(fmaxf(v, __int_as_float(assumed))));
  } while (assumed != old);
  return __int_as_float(old);
}
extern "C" __global__ void coverage(const float4* in4, const unsigned char* bytes, float* out, float* fmax_out,
                                    int* imax, unsigned* masks, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float4 v = __ldg(&in4[i]);                 // ld.global.nc.v4.f32
    const float s = v.x + v.y + v.z + v.w + bytes[i];  // ld.global.u8
    out[2 * i] = s;
    out[2 * i + 1] = __saturatef(s * 0.01f);  // .sat
    atomic_max_float(fmax_out, s);
    atomicMax(imax, (int)s);
    __threadfence();
  }
  __syncwarp();
  const unsigned active = __activemask();
  if ((threadIdx.x & 31) == 0) masks[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = active;
}
)";

}  // namespace bs::sim::test
