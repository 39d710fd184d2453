// reduce_inputs.h: the reduction lab's inputs as a function of the index, shared by the CPU (fill_inputs,
// the reference sums) and the device's fill kernel, so both sides see the very same numbers without copying
// them. Compiles with g++ alone (no CUDA headers).
#pragma once

#include <cstdint>

#include "gpu/common/hd.h"
#include "gpu/common/input_hash.h"

namespace bs::reduce::detail {

// [0.5, 1.5): the input hash's fraction plus one half (exact in float and in double).
BS_HD float input_f32(int64_t i, uint32_t seed) {
  return 0.5f + unit_fraction(i, seed);
}

// -7..7, mean 0 (15 values, drawn from the high bits).
BS_HD int32_t input_i32(int64_t i, uint32_t seed) {
  return static_cast<int32_t>((hash_index(i, seed ^ 0x9e3779b9u) >> 16) % 15u) - 7;
}

}  // namespace bs::reduce::detail
