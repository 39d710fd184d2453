// memory_picture.h: the warp picture of the memory lab, drawn with ImGui draw lists: for a global access the
// 32 lanes above the 128-byte lines and 32-byte sectors they touch (one link per lane, the lanes coloured by
// the sector that serves them); for a shared access the 32 lanes above the 32 banks, each bank a column of
// the distinct words asked of it, conflicts in red. The geometry is pure arithmetic (tests check it without a
// GL context); draw_warp_picture paints it.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ui/memory/memory_trace.h"

namespace bs::ui {

// Where the lanes, the sectors (global) or banks (shared) and the links between them go, inside a region
// `width` pixels wide starting at x = 0, y = 0.
struct WarpPictureLayout {
  float lane_w = 0,
        lane_h = 0;    // lane boxes: lane i spans [i * lane_w, (i + 1) * lane_w) at y in [0, lane_h)
  float target_y = 0;  // top of the sector row (global) or of the bank columns (shared)
  float height = 0;    // total height used

  // Global: the touched lines, left to right in address order, each with its 4 sectors. A gap (for the
  // untouched lines between two touched ones) separates lines that are not neighbours in memory.
  struct Line {
    int64_t line = 0;  // byte / 128
    float x0 = 0, x1 = 0;
    bool gap_before = false;
  };
  std::vector<Line> lines;
  float sector_h = 0;

  // Shared: bank b spans [b * bank_w, (b + 1) * bank_w); word k of a bank is a cell word_h high from
  // target_y.
  float bank_w = 0, word_h = 0;

  float lane_centre(int lane) const { return (static_cast<float>(lane) + 0.5f) * lane_w; }
  // The x range of sector `s` (address / 32) in the global layout; false when its line is not shown.
  bool sector_x(int64_t sector, float* x0, float* x1) const;
};

// `text_h`: the font's line height (boxes are made tall enough for a label).
WarpPictureLayout global_layout(const memory::GlobalDetail& c, float width, float text_h);
WarpPictureLayout shared_layout(const memory::SharedDetail& c, float width, float max_h, float text_h);

// "[12][5]" (row >= 0) or "[1234]" (row < 0): an element as the tooltips name it.
std::string index_text(int64_t row, int64_t col);

// Categorical colour for group `i` (a lane's sector or line), as ImGui's 32-bit colour.
uint32_t group_colour(int i);

// Draws the picture of `op` at the cursor, `width` wide and at most `max_h` high (the shared banks shrink to
// fit); hovering a lane, sector or bank shows what it holds. Advances the cursor. Returns the lane hovered
// (-1: none). `row_width`: the buffer's elements per row for the tooltips' [row][col] (0: a 1-D index).
int draw_warp_picture(const memory::WarpAccess& op, float width, float max_h, int64_t row_width);

}  // namespace bs::ui
