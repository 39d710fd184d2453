// elementwise.h: the one definition of each element-wise op, shared by the CPU baselines and the kernels.
// Compiles with g++ alone (BS_HD expands to `inline` there).
#pragma once

#include "gpu/common/hd.h"
#include "gpu/vector/vector.h"

namespace bs::vector {

BS_HD float add_op(float a, float b) {
  return a + b;
}

// Written as the tutorials write it. nvcc is free to fuse a*10 + 2 and (b + 2)*10 - 5 into FMAs (and does, by
// default); see k_formula_rel_tol for what that costs in agreement with the CPU.
BS_HD float formula_op(float a, float b) {
  return (a * 10.0f + 2.0f) * ((b + 2.0f) * 10.0f - 5.0f) * 5.0f;
}

template <Op op>
BS_HD float apply_op(float a, float b) {
  if constexpr (op == Op::Add)
    return add_op(a, b);
  else
    return formula_op(a, b);
}

}  // namespace bs::vector
