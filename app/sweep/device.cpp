// device.cpp: see device.h.
#include "app/sweep/device.h"

namespace bs::sweep {

const char* to_string(Device d) {
  return k_device_names.c_name(d);
}

std::optional<Device> parse_device(std::string_view s) {
  return k_device_names.parse(s);
}

}  // namespace bs::sweep
