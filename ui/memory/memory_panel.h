// memory_panel.h: the memory lab's ImGui panels. The controls (kernel and variant, sizes, stride, bank
// stride, block shape; run GPU / run CPU with progress and cancel; the results with time, GB/s, % of copy and
// the check; the predicted counts next to a place for measured ones; the stride chart) and the view: the
// matrix or array with the chosen warp's elements highlighted (a click picks the warp that touches the
// element), a stepper through the warp's memory instructions and the lane picture (memory_picture.h). The
// panels edit a model and report actions; app/memory/memory_lab.cpp acts on them. The view's geometry is
// pure arithmetic (buffer_window) so tests check it without a GL context.
#pragma once

#include <cstdint>
#include <optional>
#include <map>
#include <string>
#include <vector>

#include "core/stats.h"
#include "gpu/memory/memory.h"
#include "gpu/memory/memory_model.h"
#include "ui/figure.h"
#include "ui/memory/memory_trace.h"

namespace bs::ui {

// --- The matrix / array view's window onto a buffer (pure) ------------------------------------------------

// Which part of a buffer (drawn `width` elements per row) the view shows: rows [row0, row0 + rows) and
// columns [col0, col0 + cols), each cell `cell` px square, chosen so that the highlighted elements are inside
// when they fit, the window starts on a 32-column (tile / line) boundary, and cells are at least min_cell.
struct BufferWindow {
  int64_t row0 = 0, col0 = 0, rows = 0, cols = 0;
  float cell = 0;          // height of a cell (and its width unless widened)
  float cell_w = 0;        // width: when every column is shown and room is left, cells widen up to max_cell
  bool all_inside = true;  // every highlighted element is in the window
};
BufferWindow buffer_window(const memory::BufferView& bv, const std::vector<int64_t>& highlighted,
                           float avail_w, float avail_h, float min_cell, float max_cell);
// The element under pixel (x, y) of the window drawn from (0, 0); nullopt outside the buffer.
std::optional<int64_t> element_at(const memory::BufferView& bv, const BufferWindow& w, float x, float y);

// --- Model and actions -------------------------------------------------------------------------------------

struct MemoryResultRow {
  std::string name;    // the table's short name: "tiled-padded", "naive (1 thread)"
  std::string label;   // "tiled, padded tile (33 columns)" (the tooltip)
  std::string device;  // GPU name or "CPU, all 8 threads (OpenMP)"
  bool gpu = true;
  Summary ms;
  double gbs = 0;
  double pct_of_copy = 0;  // 0: no reference in the same run
  std::string check;
  bool check_passed = true;
};

// Predicted counts of one variant over its whole launch (memory_model.h's predict).
struct MemoryPredictionRow {
  memory::Variant variant = memory::Variant::Copy;
  std::string label;
  memory::Prediction p;
};

// A point of the stride chart: GB/s measured at a stride (GPU or CPU) and the model's sectors per request.
struct StridePoint {
  int stride = 1;  // 0: the random gather
  double gbs = 0;
  double sectors_per_request = 0;
};

struct MemoryPanelModel {
  // Every edited field from the memory schema's defaults (ui/memory/memory_schema.h).
  MemoryPanelModel();
  // Edited by the panel.
  int kernel = 0;                                                                     // memory::Kernel
  int transpose_variant = 0, stride_variant = 0, banks_variant = 0, aos_variant = 0;  // index in each table
  int rows = 0, cols = 0;
  char n_text[32] = "";
  int stride = 1, bank_stride = 1;
  int block[2] = {32, 8};
  int threads = 256;

  // The picture.
  memory::WarpId warp;  // the warp shown (clamped into the launch)
  int step = 0;         // the instruction shown
  bool follow_click = true;

  // Shown by the panel.
  bool gpu = false;
  std::string compute_label;  // what runs where
  std::string gpu_missing;    // why GPU runs are not available
  memory::Params params;      // the parameters in force (last valid)
  std::string param_error;
  std::optional<memory::WarpTrace> trace;

  bool gpu_running = false;
  std::string gpu_status;
  std::vector<MemoryResultRow> gpu_rows;  // the last GPU ladder

  bool cpu_running = false;
  double cpu_progress = 0;
  std::string cpu_stage, cpu_status;
  std::vector<MemoryResultRow> cpu_rows;

  bool predicting = false;
  double predict_progress = 0;
  std::string predict_status;
  std::string predicted_for;  // the parameters the rows describe, for people
  std::vector<MemoryPredictionRow> predictions;
  // Measured with View > Hardware counters, per variant: "ld 4.00 / st 4.00, 0 confl." (app/memory fills it).
  std::map<memory::Variant, std::string> measured;

  bool stride_running = false;
  double stride_progress = 0;
  std::string stride_status;
  std::string stride_device;  // "NVIDIA H100 80GB HBM3" / "CPU, all 8 threads (OpenMP)"
  int64_t stride_n = 0;
  std::vector<StridePoint> stride_points;

  // Where the last frame drew the buffer view (screen pixels): tests aim their clicks with it.
  float view_x = 0, view_y = 0;
  BufferWindow view_window;
  memory::BufferView view_buffer;
};

struct MemoryPanelActions {
  bool params_changed = false;
  bool warp_changed = false;  // model.warp or model.step edited
  // A click on element `clicked_element` of buffer `clicked_buffer` picked model.warp: the lab then steps to
  // the warp's first instruction that touches that element.
  bool clicked = false;
  memory::Buffer clicked_buffer = memory::Buffer::In;
  int64_t clicked_element = -1;
  bool run_gpu = false;
  bool run_cpu = false;
  bool cancel_cpu = false;
  bool run_stride = false;
  bool cancel_stride = false;
};

// Index tables of the per-kernel variant pickers.
memory::Variant variant_of(const MemoryPanelModel& m);
// The model's edited fields as Params (no validation).
memory::Params params_of(const MemoryPanelModel& m);
// The edited fields from p (a loaded session).
void set_params(MemoryPanelModel& m, const memory::Params& p);

void draw_memory_panel(MemoryPanelModel& m, MemoryPanelActions& a);
void draw_memory_view(MemoryPanelModel& m, MemoryPanelActions& a);

// The stride chart as a figure (GB/s against stride; the sectors per request as a second figure).
fig::Figure stride_bandwidth_figure(const MemoryPanelModel& m);
fig::Figure stride_sectors_figure(const MemoryPanelModel& m);

}  // namespace bs::ui
