// sim_util.h: helpers for the simulator's tests: compile CUDA C++ to PTX with NVRTC (the project's wrapper)
// and run a kernel of it in the simulator.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu/kernel/compiler.h"
#include "gpu/kernel/nvrtc_loader.h"
#include "sim/sim.h"

#define REQUIRE_NVRTC()                                                                                \
  do {                                                                                                 \
    if (!::bs::kernel::nvrtc().ok()) GTEST_SKIP() << "NVRTC is not installed: " << ::bs::kernel::nvrtc().error; \
  } while (0)

namespace bs::sim::test {

// The PTX of `src` (no contract), compiled for sm_90 with line info; fails the test on a compile error.
inline std::string ptx_of(const std::string& src, bool fast_math = false) {
  kernel::CompileRequest r;
  r.source = src;
  r.options.fast_math = fast_math;
  const kernel::CompileResult c = kernel::compile_kernel(r);
  EXPECT_TRUE(c.ok()) << c.message << "\n" << c.log;
  return c.ptx;
}

inline Module module_of(const std::string& src, bool fast_math = false) { return parse_ptx(ptx_of(src, fast_math)); }

template <class T>
Buffer buffer(const char* name, std::vector<T>& v, bool output = false) {
  return buffer_over(name, v, output);
}

inline Dim3 dim(uint32_t x, uint32_t y = 1, uint32_t z = 1) { return Dim3{x, y, z}; }

// n integers in 0..100, no pattern a bug could hide behind.
inline std::vector<int> ints(int n) {
  std::vector<int> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = (i * 37 + 11) % 101;
  return v;
}

inline std::string all_diagnostics(const LaunchResult& r) {
  std::string s = r.ok ? "" : "failure: " + r.failure.message + "\n";
  for (const Diagnostic& d : r.diagnostics) s += format_diagnostic(d) + "\n";
  return s;
}

inline int count_kind(const LaunchResult& r, DiagKind k) {
  int n = 0;
  for (const Diagnostic& d : r.diagnostics) n += d.kind == k;
  return n;
}

}  // namespace bs::sim::test
