// reduce_sweep_target.h: the reduction and scan lab as a sweep target (its parameters from the schema, a
// validator, a cost estimate and a timed runner over n, block size and variant), for the lab's descriptor.
#pragma once

namespace bs::sweep {

class Target;
const Target& reduce_sweep_target();

}  // namespace bs::sweep
