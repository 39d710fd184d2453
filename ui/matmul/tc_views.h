// tc_views.h: the matmul lab's tensor-core section (pure ImGui, no CUDA headers): the rungs with their precision
// and whether this device runs them, each precision's error against float64 from the CPU model on the lab's own
// A and B, and four pictures for the lecture: which lane holds which element of an m16n8k16 fragment, the
// shared-memory swizzle (16-byte chunk -> banks, plain and swizzled, with the ldmatrix conflict ways), the TMA boxes
// of the Hopper rungs over the lab's A and B (zero-filled edges, the 128B swizzle inside a box), and the timeline
// of a k-stage ring (producer loads, consumer multiplies, the barriers between, the bubbles).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bs::ui {

struct TcRungView {
  std::string name, title, precision, description;
  std::string unavailable;  // "" when this device runs it, else why not
};
struct TcPrecisionRow {
  std::string precision, title;
  double ms = 0;  // the CPU model's time
  double rel_error = 0, bound = 0;
  bool within = false;
  std::string worst;  // "6.1e-02 at (272,284): 6.77 vs 6.83" or the non-finite count
};
// One rung timed on the GPU at the lab's size (the "time the rungs" button).
struct TcTimedRow {
  std::string name, precision;
  std::string skipped;  // why it did not run here ("" when timed; nothing else is set then)
  double ms = 0;        // median of the timed runs (CUDA events, after a warm-up)
  int runs = 0;
  double tflops = 0;
  double pct_cublas = -1;  // % of cuBLAS at the rung's own precision; < 0 unknown
  double rel_error = 0, bound = 0;  // against float64, and the bound its precision allows
  bool within = false;
};
struct TcPanelModel {
  std::vector<TcRungView> rungs;
  std::vector<TcPrecisionRow> precision_rows;  // the CPU model at `model_problem`
  std::string model_problem;                  // "200x155x67 (M x N x K)"
  bool running = false;
  double progress = 0;
  std::string status;
  bool wide = false;     // the model's inputs: the lab's A, B, or wide magnitudes
  int operand = 0;       // fragment picture: 0 A, 1 B, 2 C
  bool b_tile = false;   // swizzle picture: the A tile (64-byte rows) or the B tile (256-byte rows)
  int hovered_lane = -1;
  int64_t lab_m = 0, lab_n = 0, lab_k = 0;  // the lab's problem, for the TMA box picture (set by the panel)
  int tma_bn = 128;                         // 128: wgmma_tma; 256: the warp-specialized rungs
  int pipe_stages = 4;                      // the pipeline picture: stages in the ring
  float pipe_ratio = 0.5f;                  // load time / compute time of one k-tile
  bool pipe_hopper = true;                  // TMA + wgmma, or cp.async + mma.sync (labels only)
  // Timing the rungs on the GPU at the lab's size (a job of the lab's): the button is disabled with
  // `time_unavailable` as the reason where there is no GPU to time on.
  std::string time_unavailable;
  bool timing = false;
  double timing_progress = 0;
  std::string timing_status;
  std::vector<TcTimedRow> timed;  // the last timing, at `timed_problem` on `timed_device`
  std::string timed_problem, timed_device, timed_reference;
};
struct TcPanelActions {
  bool run_model = false;
  bool cancel_model = false;
  bool time_rungs = false;
  bool cancel_timing = false;
};

void draw_tc_section(TcPanelModel& m, TcPanelActions& a);
// The timing part alone (the section draws it after the rung list): first the button (or cancel and the
// progress), then one wrapped line per rung.
void draw_tc_timing(TcPanelModel& m, TcPanelActions& a);
// The pictures alone (draw lists; `width` 0 = the available width).
void draw_fragment_view(int operand, int& hovered_lane, float width);
void draw_swizzle_view(bool b_tile, float width);
// The TMA boxes over A (m x k) and B (k x n) for tiles bn wide; returns the box under the mouse (matrix -1: none).
struct TmaHover {
  int matrix = -1;  // 0 A, 1 B
  int64_t i = 0, j = 0;
};
TmaHover draw_tma_view(int64_t m, int64_t n, int64_t k, int bn, float width);
// One box's 128B swizzle: 8 rows of 8 chunks of 16 bytes, where each lands in shared memory.
void draw_tma_swizzle_view(float width);
// The ring's timeline for 10 k-tiles; returns the k-tile under the mouse, or -1.
int draw_pipeline_view(int stages, float load_ratio, bool hopper, float width);

}  // namespace bs::ui
