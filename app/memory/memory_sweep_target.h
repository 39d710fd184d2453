// memory_sweep_target.h: the memory lab as a sweep target: any kernel over stride, bank stride, tile padding
// (the transpose and banks variants), block shape, threads per block or size, GPU and CPU series, GB/s.
#pragma once

namespace bs::sweep {

class Target;
const Target& memory_sweep_target();

}  // namespace bs::sweep
