// device_panel.h: the device panel (CUDA device, GL context, render path and why) and the always-visible
// overlay naming the active path.
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
// A small translucent window pinned to the top-left corner of the main viewport.
void draw_path_overlay(const PathView& path);

}  // namespace bs::ui
