// readout.h: small number formats the panels and exports share (durations, printf of one value, colours as
// SVG writes them), so each is written once.
#pragma once

#include <cstdint>
#include <string>

namespace bs {

// One double through a printf format of the caller's ("%.4g GB/s"); for read-outs, formats are literals.
std::string fmt_double(const char* format, double v);

// A duration given in ms, for read-outs: "85.0 us" under 0.1 ms, "1.234 ms" under 10 ms, "12.3 ms" above.
std::string format_ms(double ms);

// "#rrggbb" of a 0xRRGGBBAA colour, alpha dropped (SVG 1.1 colours have none).
std::string rgb_hex(uint32_t rgba);

}  // namespace bs
