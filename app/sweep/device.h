// device.h: where a sweep runs (all / gpu / cpu / auto), shared by sweep definitions and the targets that say
// which device a value can run on.
#pragma once

#include <optional>
#include <string_view>

#include "core/enum_names.h"

namespace bs::sweep {

// All: GPU series where a GPU exists, and the CPU series. Gpu / Cpu: only those. Auto: the GPU series when a
// GPU exists, else the CPU series (presets use it, so they run on a laptop without a GPU and say so).
enum class Device { All, Gpu, Cpu, Auto };
// In the order messages list them.
inline constexpr auto k_device_names = enum_names<Device>(
    {{Device::Auto, "auto"}, {Device::Gpu, "gpu"}, {Device::Cpu, "cpu"}, {Device::All, "all"}});
const char* to_string(Device d);                         // k_device_names
std::optional<Device> parse_device(std::string_view s);  // the same names

}  // namespace bs::sweep
