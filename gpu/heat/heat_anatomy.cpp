// heat_anatomy.cpp: the heat stencil's cell mapping (pure arithmetic; see heat_anatomy.h).
#include "gpu/heat/heat_anatomy.h"

#include <algorithm>

namespace bs::anatomy {

CellMapping heat_mapping(Dim2 block, Dim2 grid, int cells_per_thread) {
  CellMapping m;
  m.block = block;
  m.grid = grid;
  m.tile = {block.x, block.y * std::max(cells_per_thread, 1)};
  m.thread_rows = std::max(cells_per_thread, 1);
  m.kernel = "heat stencil, " + std::to_string(m.thread_rows) +
             (m.thread_rows == 1 ? " cell/thread" : " cells/thread (down y)");
  return m;
}

std::string heat_kernel_name(int cells_per_thread) {
  return cells_per_thread <= 1 ? std::string("heat") : "heat_c" + std::to_string(cells_per_thread);
}

}  // namespace bs::anatomy
