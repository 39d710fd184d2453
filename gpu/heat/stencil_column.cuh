// stencil_column.cuh: one thread's work in the heat kernel (device code), shared by gpu/heat's step kernel
// and gpu/anatomy's instrumented copy of it, so the anatomy lab shows the very code the heat lab times.
#pragma once

#include <cstddef>

#include "gpu/heat/stencil.h"

namespace bs::heat {

// Updates the C cells (x, y0) .. (x, y0 + C - 1) of column x (those inside the grid). The C + 2 loads of the
// column are independent, so a thread keeps several DRAM requests in flight; west and east neighbours hit L1
// (the warp loaded those lines), so DRAM still sees about one read and one write per cell. The caller checks
// x < nx and y0 < ny.
template <bool Fixed, int C>
__device__ __forceinline__ void stencil_column(const float* __restrict__ in, float* __restrict__ out, int x,
                                               int y0, int nx, int ny, float r, float bt) {
  float col[C + 2];  // rows y0 - 1 .. y0 + C of column x
#pragma unroll
  for (int k = 0; k < C + 2; ++k) {
    const int yy = y0 - 1 + k;
    col[k] = (yy >= 0 && yy < ny) ? __ldg(in + static_cast<size_t>(yy) * nx + x) : bt;
  }
#pragma unroll
  for (int k = 0; k < C; ++k) {
    const int y = y0 + k;
    if (y >= ny) break;
    const size_t i = static_cast<size_t>(y) * nx + x;
    const float c = col[k + 1];
    // Off-grid neighbours: the fixed edge temperature (Dirichlet), or the cell itself (insulated, zero flux).
    const float n = y > 0 ? col[k] : (Fixed ? bt : c);
    const float s = y + 1 < ny ? col[k + 2] : (Fixed ? bt : c);
    const float w = x > 0 ? __ldg(in + i - 1) : (Fixed ? bt : c);
    const float e = x + 1 < nx ? __ldg(in + i + 1) : (Fixed ? bt : c);
    out[i] = stencil_update(c, w, e, n, s, r);
  }
}

}  // namespace bs::heat
