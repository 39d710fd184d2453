// brush.h: the one definition of which cells a paint stroke covers, shared by the CPU field and the CUDA
// brush kernel: a cell is painted when its centre lies within the radius of the stroke's segment (a capsule).
#pragma once

#include "gpu/common/hd.h"

namespace bs::heat {

// Squared distance from (px, py) to the segment (x0, y0)-(x1, y1); a zero-length segment is a point.
BS_HD float segment_dist2(float px, float py, float x0, float y0, float x1, float y1) {
  const float sx = x1 - x0, sy = y1 - y0;
  const float len2 = sx * sx + sy * sy;
  float t = len2 > 0.0f ? ((px - x0) * sx + (py - y0) * sy) / len2 : 0.0f;
  t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
  const float dx = px - (x0 + t * sx), dy = py - (y0 + t * sy);
  return dx * dx + dy * dy;
}

}  // namespace bs::heat
