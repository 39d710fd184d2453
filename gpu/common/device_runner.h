// device_runner.h: the base of a lab's GpuRunner. It finds the device before the runner allocates anything
// (or throws the bs::GpuError that says why there is none, for the shell's recovery) and keeps what it found
// for device(). Runners own device buffers, streams and events, so they are neither copied nor moved. Plain
// C++ (ui/ and app/ include the runners' headers).
#pragma once

#include "gpu/common/device_info.h"
#include "gpu/common/require_device.h"

namespace bs {

class DeviceRunner {
 public:
  DeviceRunner(const DeviceRunner&) = delete;
  DeviceRunner& operator=(const DeviceRunner&) = delete;

  const DeviceInfo& device() const { return m_device; }

 protected:
  DeviceRunner() : m_device(require_device()) {}
  ~DeviceRunner() = default;

 private:
  DeviceInfo m_device;
};

}  // namespace bs
