// capture.h: screenshots. F12 saves the whole window, Shift+F12 just the lab's view (the rectangle the lab
// host recorded this frame), as PNG files in ~/blockscope-captures/, after ImGui has drawn the frame.
// --screenshot writes the last frame to a file the user named.
#pragma once

#include <optional>
#include <string>

#include "app/layout.h"
#include "app/shell/toasts.h"
#include "ui/gl/context.h"

namespace bs {

class Capture {
 public:
  enum class Kind { None, Window, View };
  void request(Kind k) { m_request = k; }
  Kind requested() const { return m_request; }
  // After ImGui rendered, before the frame is presented: saves the requested capture (if any) and says so in
  // a toast. `view` is the lab's view in ImGui coordinates (none: nothing to capture for Shift+F12).
  void run(const gl::Context& gl, const std::optional<Rect>& view, const std::string& lab_id, Toasts& toasts);
  // The framebuffer to `path` (--screenshot); false, with a message on stderr, when it cannot be written.
  static bool write_screenshot(const gl::Context& gl, const std::string& path);

 private:
  Kind m_request = Kind::None;
};

}  // namespace bs
