// vector_work.h: the vector lab's kernel work model for the roofline (core/work_model.h). Per element: add
// does 1 FLOP; the formula (elementwise.h: (a*10 + 2) * ((b + 2)*10 - 5) * 5) does 7 (2 + 3 + 2 multiplies
// joining them; nvcc's FMA contraction changes instructions, not the FLOPs stated). Minimum DRAM traffic: a
// and b read, c written (12 bytes per element), float or float4 loads alike. The host<->device copies are not
// part of the kernel's point.
#pragma once

#include "core/work_model.h"
#include "gpu/vector/vector.h"

namespace bs::vector {

inline double flops_per_element(Op op) {
  return op == Op::Add ? 1.0 : 7.0;
}

inline work::Work kernel_work(Op op, int64_t n) {
  work::Work w;
  w.flops = flops_per_element(op) * static_cast<double>(n);
  w.read_bytes = 8.0 * static_cast<double>(n);
  w.write_bytes = 4.0 * static_cast<double>(n);
  w.footprint_bytes = 12.0 * static_cast<double>(n);  // a, b and c
  return w;
}

}  // namespace bs::vector
