// overlay.h: which block, thread and warp owns each cell of a lab's field, for colouring the live view by
// blockIdx, threadIdx, warp, the SM that ran the block or the block's run time (pure C++; app/ and ui/
// include it). A CellMapping describes a kernel's launch the way its code assigns cells; each lab makes its
// own (gpu/heat/heat_anatomy.h: the coarsened stencil; gpu/matmul/matmul_anatomy.h: the matmul variants).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpu/anatomy/anatomy.h"
#include "core/enum_names.h"
#include "core/launch.h"

namespace bs::anatomy {

// How the threads of a 2D launch own the cells of a field (x = column, y = row).
//  - A block owns a `tile` of cells: block (bx, by) owns columns bx*tile.x .. and rows by*tile.y ..
//    (with swap_xy, blockIdx.x walks the rows and blockIdx.y the columns: matmul's naive_uncoalesced).
//  - Inside the tile the threads form a (tile.x / thread_cols) x (tile.y / thread_rows) arrangement,
//  row-major;
//    each owns thread_cols x thread_rows contiguous cells. The arrangement's linear index is the thread's
//    linear index threadIdx.y * blockDim.x + threadIdx.x (for a 1D block, threadIdx.x itself).
//  - threads_known = false: the per-thread layout is not modelled (strided micro-tiles); blockIdx is exact.
struct CellMapping {
  Dim2 block{32, 8};  // blockDim
  Dim2 grid{1, 1};    // gridDim
  Dim2 tile{32, 8};   // cells one block owns (x: columns, y: rows), after swap_xy is undone
  int thread_cols = 1, thread_rows = 1;
  bool swap_xy = false;
  bool threads_known = true;
  std::string kernel;  // "heat stencil, 4 cells/thread", "matmul smem_tile32", ...
  std::string why_threads_unknown;
};

struct CellOwner {
  bool covered = false;  // false: no thread of the grid owns the cell
  int64_t bx = 0, by = 0;
  int64_t tx = 0, ty = 0;     // threadIdx (only when threads_known)
  int64_t block_linear = 0;   // blockIdx.x + blockIdx.y * gridDim.x
  int64_t thread_linear = 0;  // threadIdx.x + threadIdx.y * blockDim.x
  int64_t warp = 0;           // thread_linear / 32
};
CellOwner cell_owner(const CellMapping& m, int64_t x, int64_t y);

// Overlay modes in the order the O key cycles through them.
enum class OverlayMode { Off, BlockIdx, ThreadIdx, Warp, Sm, BlockTime };
constexpr int k_overlay_mode_count = 6;
const char* overlay_mode_label(OverlayMode m);  // "off", "blockIdx", "threadIdx", "warp in block", ...
OverlayMode next_overlay_mode(OverlayMode m);
// The CLI's --overlay names, also in sessions: "off", "blockidx", "threadidx", "warp", "sm", "time".
inline constexpr auto k_overlay_mode_names = enum_names<OverlayMode>({{OverlayMode::Off, "off"},
                                                                      {OverlayMode::BlockIdx, "blockidx"},
                                                                      {OverlayMode::ThreadIdx, "threadidx"},
                                                                      {OverlayMode::Warp, "warp"},
                                                                      {OverlayMode::Sm, "sm"},
                                                                      {OverlayMode::BlockTime, "time"}});
static_assert(k_overlay_mode_names.size() == k_overlay_mode_count);
std::optional<OverlayMode> parse_overlay_mode(
    std::string_view name);                    // k_overlay_mode_names; nullopt otherwise
const char* overlay_mode_name(OverlayMode m);  // the inverse
bool overlay_needs_record(OverlayMode m);

// A categorical palette of 12 colours (0xAABBGGRR, ImGui's ImU32 layout) and the period used for a mode: the
// id is coloured (id mod period). 12, or 11 when `row_stride` (gridDim.x for blocks, blockDim.x for threads)
// is a multiple of 12, so that vertically adjacent blocks or threads never share a colour.
const std::array<uint32_t, 12>& categorical_palette();
int categorical_period(int64_t row_stride);

// A sampled overlay image: w x h RGBA texels (row 0 = field row 0), texel (i, j) showing the cell at its
// centre. Categorical modes colour id mod period; BlockTime maps [lo_us, hi_us] through `ramp` (256 RGBA).
// Cells no thread owns are transparent.
struct OverlayImage {
  int w = 0, h = 0;
  std::vector<uint32_t> rgba;
  int period = 12;              // categorical modes
  double lo_us = 0, hi_us = 0;  // BlockTime: the colour bar's range in microseconds
  std::string legend;           // "colour = (blockIdx.x + blockIdx.y * gridDim.x) mod 12", ...
  std::string error;            // set (and rgba empty) when the mode cannot be drawn
};
// `record` is needed for Sm and BlockTime (the record of a launch with the same grid). At most max_w x max_h
// texels (larger fields are sampled, one texel per ceil(nx / max_w) cells).
OverlayImage make_overlay(OverlayMode mode, const CellMapping& m, int64_t nx, int64_t ny,
                          std::span<const BlockRecord> record, const std::array<uint32_t, 256>& ramp,
                          int max_w = 2048, int max_h = 2048);

// Block (bx, by) -> its record entry (nullptr when the record lacks it), built once per record.
class BlockLookup {
 public:
  BlockLookup() = default;
  BlockLookup(std::span<const BlockRecord> record, Dim2 grid);
  const BlockRecord* find(int64_t bx, int64_t by) const;
  bool empty() const { return m_index.empty(); }

 private:
  std::vector<int64_t> m_index;
  std::vector<BlockRecord> m_record;
  Dim2 m_grid;
};

}  // namespace bs::anatomy
