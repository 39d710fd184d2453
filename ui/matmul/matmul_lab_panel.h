// matmul_lab_panel.h: the matmul lab's ImGui side: the panel (problem size, variant ladder, run / run all,
// per-variant read-outs, CPU baselines, the ladder bar chart), the block-grid overlay drawn over the C heat
// map, the A/B side diagram of the k-loop, and the pure tile geometry behind them (tested without ImGui).
#pragma once

#include "ui/matmul/tc_views.h"
#include <imgui.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/stats.h"
#include "gpu/matmul/matmul.h"
#include "ui/kernel/simulated_run.h"

namespace bs::ui {

// --- Tile geometry (pure) ----------------------------------------------------------------------------------
// A rectangle of matrix cells: rows [row0, row0 + rows), columns [col0, col0 + cols).
struct CellRect {
  int64_t row0 = 0, col0 = 0, rows = 0, cols = 0;
  friend bool operator==(const CellRect&, const CellRect&) = default;
};

// How a BM x BN block tile covers an M x N matrix C.
struct TileCover {
  int64_t m = 0, n = 0;
  int64_t bm = 1, bn = 1;
  int64_t tile_rows() const;  // ceil(M / BM): tiles down C
  int64_t tile_cols() const;  // ceil(N / BN): tiles across C
  int64_t count() const { return tile_rows() * tile_cols(); }
  // Tile (ty, tx) holding cell (row, col); nullopt outside C.
  std::optional<std::pair<int64_t, int64_t>> tile_of(int64_t row, int64_t col) const;
  // Cells of C that tile (ty, tx) computes: BM x BN except at the bottom / right edge.
  CellRect tile(int64_t ty, int64_t tx) const;
  // The tile as launched (always BM x BN, may stick out of C).
  CellRect nominal(int64_t ty, int64_t tx) const;
  bool partial(int64_t ty, int64_t tx) const { return !(tile(ty, tx) == nominal(ty, tx)); }
  // Outputs of C that the last row / column of tiles computes (BM / BN when M / N divide evenly).
  int64_t edge_rows() const;
  int64_t edge_cols() const;
};

// The k-loop of a shared-memory tiled variant: steps = ceil(K / BK); at step s the block holds A's tile
// rows of its C tile x columns [s*BK, s*BK+BK) and B's tile rows [s*BK, ..) x columns of its C tile.
int64_t k_steps(int64_t k, int64_t bk);
CellRect a_row_panel(const TileCover& c, int64_t ty, int64_t k);  // all of K: what the whole loop reads
CellRect b_col_panel(const TileCover& c, int64_t tx, int64_t k);
CellRect a_tile_at_step(const TileCover& c, int64_t ty, int64_t k, int64_t bk, int64_t step);
CellRect b_tile_at_step(const TileCover& c, int64_t tx, int64_t k, int64_t bk, int64_t step);

// blockIdx of tile (ty, tx) for variant v: x indexes tile columns, except NaiveUncoalesced (x indexes rows).
std::pair<int64_t, int64_t> block_index(matmul::Variant v, int64_t ty, int64_t tx);
// A distinct translucent colour per block (golden-ratio hue walk over the linear block index).
ImU32 block_colour(int64_t linear_index, int alpha);

// --- Panel model -------------------------------------------------------------------------------------------
// One measured variant (GPU or CPU) in this session at the current problem size.
struct LadderRow {
  std::string name;   // "smem_tile32", "cpu_openblas"
  std::string title;  // "shared-memory tiles 32x32"
  bool gpu = true;
  bool cublas = false;
  Summary ms;
  double gflops = 0;
  matmul::KernelAttributes attr;
  std::optional<matmul::CheckResult> check;
  std::string note;
};

struct CpuRunView {
  std::string label;  // "CPU naive triple loop, 1 thread"
  bool running = false;
  double progress = 0;
  std::string status;   // "cancelled", error text, or "computing the float64 reference"
  std::string warning;  // e.g. "naive at this size takes minutes: cancel any time"
};

struct MatmulPanelModel {
  // Every edited field from the matmul schema's defaults (ui/matmul/matmul_schema.h).
  MatmulPanelModel();
  // Edited by the panel.
  int mnk[3] = {};
  int variant = 0;  // index into matmul::gpu_variants()
  int colormap = 0;
  bool overlay = false;
  int k_step = 0;
  bool animate_k = false;

  // Shown by the panel.
  bool gpu = true;
  std::string compute_label;  // which path computes what
  matmul::Problem problem;    // in force
  std::string param_error;
  std::string runtime_error;
  double peak_gflops = 0;
  std::string device_name;
  std::string reference_label;
  std::string c_source;  // "C below: smem_tile32 on the GPU" etc.
  bool gpu_busy = false;
  std::string gpu_status;  // "running warptile_db: 5 of 12 timed launches"
  int queue_left = 0;
  std::vector<LadderRow> rows;  // measured so far (ladder order, CPU rows after)
  // The user's matmul (kernel lab): one more rung, run with user_block (the grid covers C).
  int user_block[2] = {16, 16};  // from the schema's user_block
  bool user_ready = false;  // a compiled matmul kernel is loaded and can run
  bool user_running = false;
  std::string user_status;   // what runs, or why not ("needs a GPU", "no matmul kernel yet", ...)
  std::string user_figures;  // "32 regs, 0 B smem, ... occupancy" at user_block
  // Without a GPU: the user's matmul in the PTX simulator (app/kernel/lab_sim.h), checked like its rung.
  bool user_can_simulate = false;
  SimulatedRunView user_sim;
  CpuRunView cpu[3];
  TcPanelModel tc;  // the tensor-core section (ui/matmul/tc_views.h)
};

struct MatmulPanelActions {
  bool apply_size = false;
  bool run = false;       // run the selected GPU variant
  bool run_all = false;   // the whole ladder, one variant at a time across frames
  bool stop = false;      // drop the queue
  bool run_user = false;  // the user's matmul kernel as one more rung
  bool clear = false;     // forget measured rows
  bool simulate_user = false;  // the user's matmul in the simulator (no GPU)
  SimulatedRunActions user_sim;
  bool run_cpu[3] = {false, false, false};
  bool cancel_cpu[3] = {false, false, false};
  TcPanelActions tc;
};

void draw_matmul_panel(MatmulPanelModel& m, MatmulPanelActions& a);

// Bars of GFLOP/s per measured row with % of cuBLAS (draw-list chart; `width` 0 = available).
void draw_ladder_chart(const std::vector<LadderRow>& rows, float width);

// --- Overlay and A/B diagram -------------------------------------------------------------------------------
struct OverlayInput {
  matmul::Problem p;
  matmul::Variant variant = matmul::Variant::SmemTile32;
  ImVec2 image_min, image_max;           // where C's image sits on screen
  std::optional<double> cell_x, cell_y;  // mouse in cells (column, row), when over the image
  bool clicked = false;                  // left click this frame: pin the hovered tile
  bool draw_grid = true;                 // false: hover and pin only
};
struct OverlayState {
  std::optional<std::pair<int64_t, int64_t>> pinned;  // tile (ty, tx) shown when nothing is hovered
  std::optional<std::pair<int64_t, int64_t>> shown;   // tile the A/B diagram shows this frame
};
// Draws the block grid over C on the window's draw list, highlights the hovered (or pinned) tile and sets a
// tooltip. Updates `st.shown`.
void draw_block_overlay(const OverlayInput& in, OverlayState& st);
// The boxes of the A / B / C diagram (index 0: A, 1: B, 2: C) in a region of `size` at `origin`, and where
// their labels go: B's above B, A's and C's below theirs, each shortened to its letter when its full name
// would run into the next box or past the region (so labels never collide, at 720p or in presenter mode).
struct AbBoxes {
  ImVec2 lo[3], hi[3];
  ImVec2 label_at[3];
  const char* label[3] = {};
  float scale = 1;     // pixels per matrix cell
  double total_h = 0;  // the diagram's height in cells
};
AbBoxes ab_diagram_boxes(const matmul::Problem& p, ImVec2 origin, ImVec2 size, float font_size);
// The A / B / C layout (A left of C, B above it) with the shown tile's A row-panel and B column-panel, and
// for tiled variants the A and B tiles in shared memory at k step `k_step`. Draws into a region of `size`.
void draw_ab_diagram(const matmul::Problem& p, matmul::Variant v, const OverlayState& st, int& k_step,
                     bool& animate, ImVec2 size);

}  // namespace bs::ui
