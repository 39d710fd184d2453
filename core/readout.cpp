// readout.cpp: see readout.h.
#include "core/readout.h"

#include <cstdio>

namespace bs {

std::string fmt_double(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string format_ms(double ms) {
  if (ms < 0.1) return fmt_double("%.1f us", ms * 1000.0);
  if (ms < 10) return fmt_double("%.3f ms", ms);
  return fmt_double("%.1f ms", ms);
}

std::string rgb_hex(uint32_t rgba) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "#%06x", static_cast<unsigned>(rgba >> 8));
  return buf;
}

}  // namespace bs
