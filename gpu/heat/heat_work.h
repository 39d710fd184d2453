// heat_work.h: the heat step's work model for the roofline (core/work_model.h). Per cell and step the stencil
// (stencil.h: c + r * ((w + e) + (n + s) - 4c)) does 7 FLOPs: 3 adds, 1 multiply (4c), 1 subtract, 1 multiply
// by r, 1 add. Minimum DRAM traffic: the field read once and written once per pass over it (4 + 4 bytes per
// cell); a temporally blocked kernel that fuses `fused_steps` steps in one pass pays that once per pass.
#pragma once

#include "core/work_model.h"
#include "gpu/heat/heat.h"

namespace bs::heat {

constexpr double k_flops_per_cell_step = 7;

inline work::Work step_work(const Params& p, int steps = 1, int fused_steps = 1) {
  const double cells = static_cast<double>(p.cells());
  const int fused = fused_steps < 1 ? 1 : fused_steps;
  const double passes = static_cast<double>((steps + fused - 1) / fused);
  work::Work w;
  w.flops = k_flops_per_cell_step * cells * steps;
  w.read_bytes = 4.0 * cells * passes;
  w.write_bytes = 4.0 * cells * passes;
  w.footprint_bytes = 8.0 * cells;  // the two float fields (ping-pong)
  return w;
}

}  // namespace bs::heat
