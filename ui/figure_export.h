// figure_export.h: a figure written to disk. SVG needs nothing; PNG renders the figure through ImGui into an
// offscreen framebuffer of exactly the requested pixel size, with fonts rasterized at `scale` (so a 2x PNG is
// sharp, whatever the screen's DPI), and needs a current GL context: the app's window, or a headless one.
#pragma once

#include <imgui.h>

#include <functional>
#include <string>

#include "ui/figure.h"

namespace bs::ui {

struct PngOptions {
  int width = 1600, height = 900;  // pixels of the file
  float scale = 1.0f;              // text and line size multiplier (2: for slides / HiDPI)
};

// The smallest text scale at which a figure `height` pixels high is readable on a slide (tick labels at least
// 1/50 of the height). export_png never draws a figure smaller than that: a 1600x900 PNG at scale 1 gets
// scale 1.38.
float slide_ready_scale(int height);

// Both return false with `error` filled ("cannot write /x/y.png: No such file or directory", ...).
bool export_svg(const fig::Figure& f, int width, int height, const std::string& path, std::string* error);
// Needs a current GL 3.3+ context (made with gl::create_window or gl::create_headless). Leaves the caller's
// ImGui context, framebuffer binding and viewport as they were.
bool export_png(const fig::Figure& f, const PngOptions& opt, const std::string& path, std::string* error);

// The general form behind export_png: `draw` fills an ImGui draw list covering `size` (in pixels / scale,
// i.e. layout units; the draw list's transform maps them to the file's pixels) with the default font at
// `scale`. Other charts (the anatomy timeline) write their PNGs through it.
using DrawFn = std::function<void(ImDrawList* dl, ImVec2 origin, ImVec2 size)>;
bool render_png(const DrawFn& draw, const PngOptions& opt, const std::string& path, std::string* error);

}  // namespace bs::ui
