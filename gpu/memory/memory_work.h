// memory_work.h: the memory lab's work model for the roofline (core/work_model.h), per variant:
//   transpose (copy, naive, tiled, ...): no FLOPs; rows*cols floats read once and written once;
//   stride, random: no FLOPs; n floats read, n written (counted_bytes);
//   banks: n threads each add their shared-memory word k_bank_iterations times (n * k_bank_iterations FLOPs);
//          DRAM: only the n results written (the shared array is filled in the kernel);
//   aos, soa: the particle step (memory_index.h particle_step: 1 divide, then per axis 2 multiplies, a
//          subtract, a multiply and an add: 16 FLOPs), reading 7 fields and writing 6 per particle.
// Zero-FLOP runs sit on the bandwidth axis of the roofline (their % is of the DRAM ceiling).
#pragma once

#include "core/work_model.h"
#include "gpu/memory/memory.h"

namespace bs::memory {

constexpr double k_particle_step_flops = 16;

inline work::Work run_work(const Params& p, Variant v) {
  work::Work w;
  const double n = static_cast<double>(p.n);
  switch (kernel_of(v)) {
    case Kernel::Transpose:
      w.read_bytes = 4.0 * static_cast<double>(p.rows) * static_cast<double>(p.cols);
      w.write_bytes = w.read_bytes;
      break;
    case Kernel::Stride:
      w.read_bytes = 4.0 * n;
      w.write_bytes = 4.0 * n;
      break;
    case Kernel::Banks:
      w.flops = n * k_bank_iterations;
      w.write_bytes = 4.0 * n;
      break;
    case Kernel::Aos:
      w.flops = k_particle_step_flops * n;
      w.read_bytes = 4.0 * k_fields_read * n;
      w.write_bytes = 4.0 * k_fields_written * n;
      break;
  }
  return w;
}

}  // namespace bs::memory
