// toasts.h: short messages over the lab's view (a saved screenshot, a loaded session, an error), drawn above
// every window for a few seconds and echoed to stderr.
#pragma once

#include <string>

#include "app/layout.h"

namespace bs {

class Toasts {
 public:
  // Shown for 4 s (8 s for an error; `seconds` when given) from now; inside a frame or between frames.
  void show(std::string text, bool error = false, double seconds = 0);
  // Centred over `view`, just above its bottom edge: over the field, not over the panel's controls.
  void draw(const Rect& view) const;
  const std::string& last() const { return m_text; }

 private:
  std::string m_text;
  bool m_error = false;
  double m_until = 0;
};

}  // namespace bs
