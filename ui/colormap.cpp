// colormap.cpp: see colormap.h.
#include "ui/colormap.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "assets/embedded.h"

namespace bs {

std::optional<Colormap> parse_colormap(std::string_view name, std::string_view text, std::string* error) {
  struct Stop {
    double t, r, g, b;
  };
  std::vector<Stop> stops;
  std::istringstream in{std::string(text)};
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::istringstream ls(line);
    Stop s{};
    if (!(ls >> s.t >> s.r >> s.g >> s.b) || s.t < 0 || s.t > 1) {
      if (error)
        *error = std::string(name) + ":" + std::to_string(line_no) + ": expected 't r g b' with t in [0, 1]";
      return std::nullopt;
    }
    stops.push_back(s);
  }
  if (stops.size() < 2) {
    if (error) *error = std::string(name) + ": a colormap needs at least two stops";
    return std::nullopt;
  }
  std::sort(stops.begin(), stops.end(), [](const Stop& a, const Stop& b) { return a.t < b.t; });
  Colormap cm;
  cm.name = std::string(name);
  auto byte = [](double v) { return static_cast<uint32_t>(std::lround(std::clamp(v, 0.0, 1.0) * 255.0)); };
  for (int i = 0; i < 256; ++i) {
    const double t = i / 255.0;
    size_t k = 1;
    while (k + 1 < stops.size() && stops[k].t < t)
      ++k;
    const Stop& a = stops[k - 1];
    const Stop& b = stops[k];
    const double f = b.t > a.t ? std::clamp((t - a.t) / (b.t - a.t), 0.0, 1.0) : 0.0;
    const double r = a.r + (b.r - a.r) * f, g = a.g + (b.g - a.g) * f, bl = a.b + (b.b - a.b) * f;
    cm.rgba[static_cast<size_t>(i)] = byte(r) | (byte(g) << 8) | (byte(bl) << 16) | (0xFFu << 24);
  }
  return cm;
}

const std::vector<Colormap>& builtin_colormaps() {
  static const std::vector<Colormap> maps = [] {
    std::vector<Colormap> out;
    for (const char* name : {"inferno", "viridis", "turbo", "coolwarm", "grey"}) {
      const std::string file = std::string(name) + ".txt";
      std::string err;
      if (auto cm = parse_colormap(name, embedded::find(file), &err)) out.push_back(std::move(*cm));
    }
    return out;
  }();
  return maps;
}

std::vector<std::string> builtin_colormap_names() {
  std::vector<std::string> names;
  for (const Colormap& c : builtin_colormaps())
    names.push_back(c.name);
  return names;
}

}  // namespace bs
