// device_panel.h: the device panel (CUDA device, GL context, render path and why) and the always-visible
// path status at the right end of the menu bar.
#pragma once

#include <string>

#include "gpu/common/device_info.h"

namespace bs::ui {

struct PathView {
  std::string path;    // "CUDA + interop", "CUDA + host copy", "CPU"
  std::string reason;  // why this path
  std::string gl_renderer, gl_version, gl_platform;
  float fps = 0;
};

void draw_device_panel(const DeviceInfo& dev, const PathView& path);
// Inside the main menu bar: the active path, right-aligned so it ends at `right` (screen x), as much as fits
// of "path: CUDA + interop  60 fps" (no floating window that could cover a lab's controls); the reason shows
// when hovered. Returns the width it took (0 when not even the path's name fits).
float draw_path_status(const PathView& path, float right);
// The narrowest form draw_path_status can take (the path's name alone).
float path_status_min_width(const PathView& path);

}  // namespace bs::ui
