// capture.cpp: see capture.h.
#include "app/shell/capture.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "app/session.h"

namespace bs {

void Capture::run(const gl::Context& gl, const std::optional<Rect>& view, const std::string& lab_id,
                  Toasts& toasts) {
  const Kind kind = m_request;
  m_request = Kind::None;
  if (kind == Kind::None) return;
  const bool view_only = kind == Kind::View;
  try {
    const char* home = std::getenv("HOME");
    if (!home || !*home) throw std::runtime_error("HOME is not set: nowhere to put ~/blockscope-captures");
    const std::filesystem::path dir = std::filesystem::path(home) / "blockscope-captures";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw std::runtime_error("cannot create " + dir.string() + ": " + ec.message());
    const int fw = gl.width(), fh = gl.height();
    int x = 0, y = 0, w = fw, h = fh;
    if (view_only) {
      if (!view || view->w <= 0)
        throw std::runtime_error("this lab's view is not on screen (collapsed or closed)");
      // ImGui works in window coordinates; the framebuffer may have more pixels (HiDPI).
      const ImVec2 fb = ImGui::GetIO().DisplayFramebufferScale;
      const float sx = fb.x > 0 ? fb.x : 1.0f, sy = fb.y > 0 ? fb.y : 1.0f;
      x = std::clamp(static_cast<int>(view->x * sx), 0, fw);
      y = std::clamp(static_cast<int>(view->y * sy), 0, fh);
      w = std::clamp(static_cast<int>(view->w * sx), 0, fw - x);
      h = std::clamp(static_cast<int>(view->h * sy), 0, fh - y);
      if (w <= 0 || h <= 0) throw std::runtime_error("the lab's view is outside the window");
    }
    const std::vector<unsigned char> full = gl::read_pixels(fw, fh);
    std::vector<unsigned char> px;
    if (view_only) {
      px.resize(static_cast<size_t>(w) * h * 4);
      for (int row = 0; row < h; ++row)
        std::copy_n(full.data() + (static_cast<size_t>(y + row) * fw + x) * 4, static_cast<size_t>(w) * 4,
                    px.data() + static_cast<size_t>(row) * w * 4);
    }
    const std::string stem = timestamped_name("blockscope-" + lab_id + (view_only ? "-view" : ""), "");
    std::filesystem::path path = dir / (stem + ".png");
    for (int n = 2; std::filesystem::exists(path, ec); ++n)  // two captures within a second
      path = dir / (stem + "-" + std::to_string(n) + ".png");
    std::string err;
    if (!gl::write_png(path.string(), w, h, view_only ? px : full, &err)) throw std::runtime_error(err);
    toasts.show("saved " + path.string());
  } catch (const std::exception& e) {
    toasts.show(std::string("screenshot not saved: ") + e.what(), true);
  }
}

bool Capture::write_screenshot(const gl::Context& gl, const std::string& path) {
  const auto px = gl::read_pixels(gl.width(), gl.height());
  std::string err;
  if (!gl::write_png(path, gl.width(), gl.height(), px, &err)) {
    std::fprintf(stderr, "blockscope: %s\n", err.c_str());
    return false;
  }
  std::fprintf(stderr, "blockscope: wrote %s (%dx%d)\n", path.c_str(), gl.width(), gl.height());
  return true;
}

}  // namespace bs
