// colormap.h: colormaps built from the control points in assets/colormaps/*.txt into 256-entry RGBA tables.
// The GL shader samples the same table as a texture and the colour bar draws it, so both always agree.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bs {

struct Colormap {
  std::string name;
  std::array<uint32_t, 256> rgba{};  // 0xAABBGGRR (ImGui's ImU32 layout, and bytes R,G,B,A in memory)
};

// Parses "t r g b" lines ('#' comments); nullopt with `error` on malformed input.
std::optional<Colormap> parse_colormap(std::string_view name, std::string_view text, std::string* error);
// All embedded colormaps, in a stable order (inferno first: the default).
const std::vector<Colormap>& builtin_colormaps();
// Their names, in the same order (the choices a schema offers for a colormap).
std::vector<std::string> builtin_colormap_names();

}  // namespace bs
