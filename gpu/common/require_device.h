// require_device.h: the device a GPU runner or an anatomy run needs, or the GpuError that says why there is
// none (the shell's recovery shows it). Plain C++.
#pragma once

#include "core/error.h"
#include "gpu/common/device_info.h"

namespace bs {

inline DeviceInfo require_device() {
  DeviceInfo info = query_device();
  if (!info.available) throw GpuError("no CUDA device: " + info.reason, 100, false);
  return info;
}

}  // namespace bs
