// montecarlo_work.h: the Monte Carlo pricer's work model for the roofline (core/work_model.h), counted from
// gbm.h's PathAccumulator per sample (the normals' generation by cuRAND is not counted: it is integer work):
//   every step adds Z to the running sum (1);
//   European, per simulated path at the end: drift multiply 1, fma 2, exp 1, S_T multiply 1, payoff 1 (6);
//   Asian, per path and step: drift multiply 1, fma 2, exp 1, add to the sum 1 (5); at the end S_T 1 and the
//   average's 2 multiplies and payoff subtract (4);
//   antithetic pairs average their two payoffs (2); every sample adds to the sum and sum of squares (3).
// Minimum DRAM traffic: the estimate's two sums (16 bytes); the pricer is compute bound by construction.
#pragma once

#include "core/work_model.h"
#include "gpu/montecarlo/montecarlo.h"

namespace bs::montecarlo {

inline double flops_per_sample(const Params& p) {
  const double steps = p.steps;
  const double sides = p.antithetic ? 2 : 1;
  const double pair = p.antithetic ? 2 : 0;
  if (p.option == OptionType::AsianCall) return steps * (1 + 5 * sides) + 4 * sides + pair + 3;
  return steps + 6 * sides + pair + 3;
}

inline work::Work run_work(const Params& p) {
  work::Work w;
  w.flops = flops_per_sample(p) * static_cast<double>(sample_count(p));
  w.write_bytes = 16;
  return w;
}

}  // namespace bs::montecarlo
