// device.cpp: see device.h.
#include "app/sweep/device.h"

namespace bs::sweep {

const char* to_string(Device d) {
  switch (d) {
    case Device::Gpu:
      return "gpu";
    case Device::Cpu:
      return "cpu";
    case Device::Auto:
      return "auto";
    case Device::All:
    default:
      return "all";
  }
}

std::optional<Device> parse_device(std::string_view s) {
  if (s == "all") return Device::All;
  if (s == "gpu") return Device::Gpu;
  if (s == "cpu") return Device::Cpu;
  if (s == "auto") return Device::Auto;
  return std::nullopt;
}

}  // namespace bs::sweep
