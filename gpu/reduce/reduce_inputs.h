// reduce_inputs.h: the reduction lab's inputs as a function of the index, shared by the CPU (fill_inputs,
// the reference sums) and the device's fill kernel, so both sides see the very same numbers without copying
// them. Compiles with g++ alone (no CUDA headers).
#pragma once

#include <cstdint>

#include "gpu/common/hd.h"

namespace bs::reduce::detail {

// A 32-bit integer hash (the murmur3 finalizer): uniform bits from consecutive indices.
BS_HD uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x85ebca6bu;
  x ^= x >> 13;
  x *= 0xc2b2ae35u;
  x ^= x >> 16;
  return x;
}

BS_HD uint32_t hash_index(int64_t i, uint32_t seed) {
  return mix(static_cast<uint32_t>(i) ^ mix(static_cast<uint32_t>(static_cast<uint64_t>(i) >> 32) + seed));
}

// [0.5, 1.5): 24 random bits as a fraction plus one half (exact in float and in double).
BS_HD float input_f32(int64_t i, uint32_t seed) {
  return 0.5f + static_cast<float>(hash_index(i, seed) >> 8) * (1.0f / 16777216.0f);
}

// -7..7, mean 0 (15 values, drawn from the high bits).
BS_HD int32_t input_i32(int64_t i, uint32_t seed) {
  return static_cast<int32_t>((hash_index(i, seed ^ 0x9e3779b9u) >> 16) % 15u) - 7;
}

}  // namespace bs::reduce::detail
