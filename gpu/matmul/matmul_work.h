// matmul_work.h: the matmul work model for the roofline (core/work_model.h), the same for every variant and
// the CPU baselines: C = A x B does m*n*k multiply-adds (2mnk FLOPs); the minimum DRAM traffic reads A (m x
// k) and B (k x n) once and writes C (m x n) once, float32. Tiling decides how close a kernel comes to that
// minimum (the naive kernels re-read A and B from DRAM or L2 many times: counters show it).
#pragma once

#include "core/work_model.h"
#include "gpu/matmul/matmul.h"
#include "gpu/matmul/precision.h"

namespace bs::matmul {

inline work::Work run_work(const Problem& p) {
  work::Work w;
  w.flops = p.flops();
  w.read_bytes = 4.0 * (static_cast<double>(p.a_count()) + static_cast<double>(p.b_count()));
  w.write_bytes = 4.0 * static_cast<double>(p.c_count());
  return w;
}

// The ceiling a tensor-core rung of precision `q` is measured against: its tensor cores (3xTF32: TF32's, its
// three products run there), or FP32 on the CUDA cores.
inline work::Math math_of(Precision q) {
  switch (q) {
    case Precision::Bf16: return work::Math::Bf16;
    case Precision::Fp16: return work::Math::Fp16;
    case Precision::Tf32:
    case Precision::Tf32x3: return work::Math::Tf32;
    case Precision::Fp32: return work::Math::Fp32;
  }
  return work::Math::Fp32;
}

// A tensor-core rung (tc.h) of precision `q`: the useful 2mnk FLOPs (3xTF32's three products count once: the
// product it delivers), A and B read once in the precision the kernel reads (2 bytes for FP16/BF16 copies, 4 for
// the float32 TF32 and 3xTF32 read), C written once as float32. The one-time conversion is not in it.
inline work::Work rung_work(const Problem& p, Precision q) {
  work::Work w = run_work(p);
  const double in_bytes = q == Precision::Bf16 || q == Precision::Fp16 ? 2.0 : 4.0;
  w.read_bytes = in_bytes * (static_cast<double>(p.a_count()) + static_cast<double>(p.b_count()));
  w.math = math_of(q);
  return w;
}

}  // namespace bs::matmul
