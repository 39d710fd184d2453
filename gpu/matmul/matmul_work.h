// matmul_work.h: the matmul work model for the roofline (core/work_model.h), the same for every variant and
// the CPU baselines: C = A x B does m*n*k multiply-adds (2mnk FLOPs); the minimum DRAM traffic reads A (m x
// k) and B (k x n) once and writes C (m x n) once, float32. Tiling decides how close a kernel comes to that
// minimum (the naive kernels re-read A and B from DRAM or L2 many times: counters show it).
#pragma once

#include "core/work_model.h"
#include "gpu/matmul/matmul.h"

namespace bs::matmul {

inline work::Work run_work(const Problem& p) {
  work::Work w;
  w.flops = p.flops();
  w.read_bytes = 4.0 * (static_cast<double>(p.a_count()) + static_cast<double>(p.b_count()));
  w.write_bytes = 4.0 * static_cast<double>(p.c_count());
  return w;
}

}  // namespace bs::matmul
