// array_launch.h: a 1-D launch over an input array, as the anatomy tools draw it (the array map,
// array_map.h) and a lab describes its kernel (e.g. reduce::first_kernel_shape): which contiguous chunk of
// elements each block takes, and the launch's shape for the occupancy read-out. Plain C++, header only, so a
// lab's host interface can name it without linking the anatomy library.
#pragma once

#include <cstdint>
#include <string>

namespace bs::anatomy {

struct ArrayLaunch {
  bool known = false;        // false where a library picks its kernels and their launches (CUB)
  std::string kernel;        // the kernel's name, e.g. "k_sequential", "k_lookback"
  int threads = 0;           // per block
  int64_t grid = 0;          // blocks of that launch
  int64_t static_smem = 0;   // __shared__ bytes as the kernel declares them (the compiler may add a few)
  int64_t dynamic_smem = 0;  // the launch's third parameter
  int64_t chunk = 0;         // contiguous input elements one block takes at a time
  bool grid_stride = false;  // a fixed grid strides over the input: block b takes chunks b, b + grid, ...
  bool transposed = false;   // tiles staged through shared memory (else direct loads)
  int64_t tail_from = -1;    // elements from here on go to block 0 (a vectorized kernel's scalar tail)
  std::string note;          // how the blocks own the input, one line
};

// The block that takes input element i under `s`; -1 when none does.
inline int64_t block_of_element(const ArrayLaunch& s, int64_t i) {
  if (!s.known || i < 0 || s.chunk <= 0) return -1;
  if (s.tail_from >= 0 && i >= s.tail_from) return 0;  // the scalar tail: threads 0.. of block 0
  const int64_t c = i / s.chunk;
  if (s.grid_stride) return c % s.grid;
  return c < s.grid ? c : -1;
}

}  // namespace bs::anatomy
