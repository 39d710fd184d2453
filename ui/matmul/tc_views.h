// tc_views.h: the matmul lab's tensor-core section (pure ImGui, no CUDA headers): the rungs with their precision
// and whether this device runs them, each precision's error against float64 from the CPU model on the lab's own
// A and B, and two pictures for the lecture: which lane holds which element of an m16n8k16 fragment, and the
// shared-memory swizzle (16-byte chunk -> banks, plain and swizzled, with the ldmatrix conflict ways).
#pragma once

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
};
struct TcPanelActions {
  bool run_model = false;
  bool cancel_model = false;
};

void draw_tc_section(TcPanelModel& m, TcPanelActions& a);
// The pictures alone (draw lists; `width` 0 = the available width).
void draw_fragment_view(int operand, int& hovered_lane, float width);
void draw_swizzle_view(bool b_tile, float width);

}  // namespace bs::ui
