// hd.h: BS_HD marks small functions shared by host and device code, so that a CPU baseline and its kernel use
// the very same arithmetic. Compiles with g++ alone (no CUDA headers).
#pragma once

#if defined(__CUDACC__)
#define BS_HD __host__ __device__ __forceinline__
#else
#define BS_HD inline
#endif
