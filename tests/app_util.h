// app_util.h: the options of a real App driven headless by a test (the CPU path: no GPU needed, the same on
// every machine), for the suites that link bs_app.
#pragma once

#include <string>

#include "app/app.h"

namespace bs::test {

// Headless, the CPU path, `scene` opened first, a width x height frame.
inline AppOptions headless_cpu_app(std::string scene, int width = 640, int height = 480) {
  AppOptions o;
  o.headless = true;
  o.render_path = PathRequest::Cpu;
  o.width = width;
  o.height = height;
  o.scene = std::move(scene);
  return o;
}

}  // namespace bs::test
