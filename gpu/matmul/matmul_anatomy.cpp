// matmul_anatomy.cpp: the matmul variants' cell mappings (pure arithmetic; see matmul_anatomy.h).
#include "gpu/matmul/matmul_anatomy.h"

namespace bs::anatomy {

std::optional<CellMapping> matmul_mapping(matmul::Variant v, const matmul::Problem& p) {
  if (v == matmul::Variant::Cublas) return std::nullopt;
  const matmul::TileGeometry g = matmul::tile_geometry(v, p);
  const matmul::LaunchShape s = matmul::launch_shape(v, p);
  CellMapping m;
  m.block = s.block;
  m.grid = s.grid;
  m.tile = {g.bn, g.bm};
  m.kernel = std::string("matmul ") + matmul::info(v).name;
  switch (v) {
    case matmul::Variant::NaiveUncoalesced:
      m.swap_xy = true;  // threadIdx.x / blockIdx.x walk the rows of C
      break;
    case matmul::Variant::NaiveCoalesced:
    case matmul::Variant::SmemTile8:
    case matmul::Variant::SmemTile16:
    case matmul::Variant::SmemTile32:
      break;
    case matmul::Variant::RegBlock1D:
      // Thread t owns column t % BN and the TM rows (t / BN) * TM ...
      m.thread_rows = g.tm;
      break;
    case matmul::Variant::RegBlock2D:
      // Plain layout: thread t owns the contiguous TM x TN micro-tile at rows TM * (t / (BN/TN)), columns
      // TN * (t % (BN/TN)).
      m.thread_rows = g.tm;
      m.thread_cols = g.tn;
      break;
    default:
      m.threads_known = false;
      if (g.k_threads > 1) {  // auto's matrix-vector kernels
        m.why_threads_unknown = std::string(matmul::info(v).name) + ": each output's K is split over " +
                                std::to_string(g.k_threads) + " threads whose partial sums are added; only " +
                                "blockIdx is drawn";
        break;
      }
      m.why_threads_unknown = std::string(matmul::info(v).name) + ": each thread owns " +
                              std::to_string(g.tm) + "x" + std::to_string(g.tn) +
                              " outputs in strided 4x4 pieces of its warp's tile; only blockIdx is drawn";
      break;
  }
  return m;
}

std::vector<std::string> instrumented_matmul_variants() {
  return {"naive_uncoalesced", "naive_coalesced", "smem_tile8", "smem_tile16", "smem_tile32"};
}

bool is_instrumented_matmul_variant(std::string_view variant) {
  for (const auto& v : instrumented_matmul_variants())
    if (v == variant) return true;
  return false;
}

}  // namespace bs::anatomy
