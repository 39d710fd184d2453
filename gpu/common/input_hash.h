// input_hash.h: the labs' deterministic inputs, a hash of the element index and a seed: never zeros, the same
// for any thread count, and the same on the host and in a kernel (BS_HD), so a CPU baseline, its reference
// and a device-side fill see the very same numbers. Compiles with g++ alone (no CUDA headers).
#pragma once

#include <cstdint>

#include "gpu/common/hd.h"

namespace bs {

// A 32-bit integer hash (the murmur3 finalizer): uniform bits from consecutive indices.
BS_HD uint32_t mix32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x85ebca6bu;
  x ^= x >> 13;
  x *= 0xc2b2ae35u;
  x ^= x >> 16;
  return x;
}

// 32 uniform bits of (i, seed), i >= 0: both halves of the index take part.
BS_HD uint32_t hash_index(int64_t i, uint32_t seed) {
  return mix32(static_cast<uint32_t>(i) ^ mix32(static_cast<uint32_t>(static_cast<uint64_t>(i) >> 32) + seed));
}

// [0, 1): the hash's top 24 bits as a fraction (exact in float and in double).
BS_HD float unit_fraction(int64_t i, uint32_t seed) {
  return static_cast<float>(hash_index(i, seed) >> 8) * (1.0f / 16777216.0f);
}

}  // namespace bs
