// test_util.h: helpers shared by the test suites: GPU presence (skip with a reason), error norms.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <span>
#include <string>

#include "gpu/common/device_info.h"

namespace bs::test {

// A file's whole content, bytes as they are ("" when it cannot be read): what tests compare written files
// with.
inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The device, queried once per process.
inline const DeviceInfo& device() {
  static const DeviceInfo info = query_device();
  return info;
}

// max |a - b| over two equally long ranges.
template <class A, class B>
double max_abs_diff(const A& a, const B& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i)
    m = std::max(m, std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
  return m;
}

// ||a - b||_2 / ||b||_2: the relative error used to compare a GPU result with a CPU reference.
template <class A, class B>
double rel_l2_error(const A& a, const B& ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = static_cast<double>(a[i]) - static_cast<double>(ref[i]);
    num += d * d;
    den += static_cast<double>(ref[i]) * static_cast<double>(ref[i]);
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

}  // namespace bs::test

// Skips the current test where no CUDA device is usable, saying why (e.g. the driver is missing).
#define BS_REQUIRE_GPU()                                                                                    \
  do {                                                                                                      \
    if (!::bs::test::device().available) GTEST_SKIP() << "no CUDA device: " << ::bs::test::device().reason; \
  } while (0)
