// embedded.h: files compiled into the executable (shaders/, assets/colormaps/, assets/presets/, README.md,
// assets/kernels/), by file name.
#pragma once

#include <span>
#include <string_view>

namespace bs::embedded {

struct File {
  std::string_view name;
  std::string_view content;
};

std::span<const File> files();
// The content of the file called `name` (e.g. "field.frag.glsl"), or an empty view.
std::string_view find(std::string_view name);

}  // namespace bs::embedded
