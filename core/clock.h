// clock.h: a time of day for people ("14:03:12", local time), for read-outs that say when something happened
// (a compile, a timed run); and wall-clock milliseconds since a steady_clock instant, for host timings.
#pragma once

#include <chrono>
#include <string>

namespace bs {

// "14:03:12" in local time.
std::string clock_text(std::chrono::system_clock::time_point t);

// Milliseconds from t0 to now on the steady clock.
inline double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace bs
