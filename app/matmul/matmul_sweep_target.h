// matmul_sweep_target.h: the matmul lab as a sweep target (its parameters, validator, cost estimate and timed
// runner), for the sweep's table of labs (app/sweep/targets.cpp).
#pragma once

namespace bs::sweep {

class Target;
const Target& matmul_sweep_target();

}  // namespace bs::sweep
