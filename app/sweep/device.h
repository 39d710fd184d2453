// device.h: where a sweep runs (all / gpu / cpu / auto), shared by sweep definitions and the targets that say
// which device a value can run on.
#pragma once

#include <optional>
#include <string_view>

namespace bs::sweep {

// All: GPU series where a GPU exists, and the CPU series. Gpu / Cpu: only those. Auto: the GPU series when a
// GPU exists, else the CPU series (presets use it, so they run on a laptop without a GPU and say so).
enum class Device { All, Gpu, Cpu, Auto };
const char* to_string(Device d);                         // "all" / "gpu" / "cpu" / "auto"
std::optional<Device> parse_device(std::string_view s);  // the same names

}  // namespace bs::sweep
