// clock.h: a time of day for people ("14:03:12", local time), for read-outs that say when something happened
// (a compile, a timed run).
#pragma once

#include <chrono>
#include <string>

namespace bs {

// "14:03:12" in local time.
std::string clock_text(std::chrono::system_clock::time_point t);

}  // namespace bs
