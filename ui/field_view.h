// field_view.h: the window that shows a rendered field image, keeps its aspect ratio, draws the colour bar,
// and reports where the mouse is in cell coordinates so the lab can paint and read cells out.
#pragma once

#include <optional>
#include <string>

namespace bs::ui {

struct FieldViewInput {
  unsigned texture = 0;  // rendered RGBA image of the field
  int nx = 0, ny = 0;
  int colormap = 0;
  float range_min = 0, range_max = 1;
  std::string caption;       // shown under the image, e.g. "1024x1024, interop"
  bool cell_tooltip = true;  // "cell (x, y)" under the mouse; false: the caller draws its own read-out
};

struct FieldViewResult {
  int image_w = 0, image_h = 0;          // pixel size the image should be rendered at next frame
  std::optional<double> cell_x, cell_y;  // mouse position in cells, over the image or dragging from it
  bool hovered = false;                  // the mouse is over the image
  // A drag that started on the image with the left (hot) or right (cold) button, still held. The image is an
  // item that owns the drag, so dragging on it never moves the window.
  bool paint_hot = false;
  bool paint_cold = false;
};

// Draws inside the current window (call between Begin/End).
FieldViewResult draw_field_view(const FieldViewInput& in);
// A horizontal colour bar with min/mid/max labels.
void draw_colorbar(int colormap, float lo, float hi, float width);

}  // namespace bs::ui
