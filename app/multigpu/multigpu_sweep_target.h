// multigpu_sweep_target.h: the Multi-GPU lab as a sweep target: the GPU count (and field size, halo,
// transport, paths) as sweep axes, so strong scaling is a sweep like any other (app/sweep/).
#pragma once

#include "app/sweep/target.h"

namespace bs::sweep {

const Target& multigpu_sweep_target();

}  // namespace bs::sweep
