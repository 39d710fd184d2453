// stencil.h: the one definition of the heat update, shared by the CPU baselines and the CUDA kernel.
#pragma once

#include "gpu/common/hd.h"

namespace bs::heat {

// u' = u + r * (west + east + north + south - 4u)
BS_HD float stencil_update(float c, float w, float e, float n, float s, float r) {
  return c + r * ((w + e) + (n + s) - 4.0f * c);
}

}  // namespace bs::heat
