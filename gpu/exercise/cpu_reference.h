// cpu_reference.h: named CPU references. A contract's reference may be a function here instead of a reference
// kernel ("reference": {"cpu": "heat_step"}): the runner calls it on a copy of the test's inputs and compares
// the submission's outputs with what it wrote. Each reference states the arguments it takes (their shape:
// pointer types and scalar kinds, any integer width counting as "int"); a contract that names an unknown
// reference, or one whose args do not have its shape, is refused when it loads, with the field named.
// Plain C++.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bs::exercise {

// One test's arguments as the runner holds them: buffers as 4-byte words (8-byte elements take two), scalars
// as values (integers in `ints`, floats in `reals`; the other vector's entry is 0).
struct CpuCall {
  std::vector<std::vector<uint32_t>>* data = nullptr;  // per argument (scalars: empty)
  std::vector<int64_t> ints;
  std::vector<double> reals;
  float f32(size_t arg, size_t k) const;
  void set_f32(size_t arg, size_t k, float v);
  double f64(size_t arg, size_t k) const;
  void set_f64(size_t arg, size_t k, double v);
  int64_t i64(size_t arg, size_t k) const;
  void set_i64(size_t arg, size_t k, int64_t v);
  int32_t i32(size_t arg, size_t k) const;
  void set_i32(size_t arg, size_t k, int32_t v);
};

struct CpuReference {
  std::string_view name;     // "heat_step"
  std::string_view shape;    // "const float*, float*, int, int, float, float, int"
  std::string_view summary;  // one line
  void (*run)(CpuCall&);
};
std::span<const CpuReference> cpu_references();
const CpuReference* find_cpu_reference(std::string_view name);
// "heat_step, heat_step_fixed, ..."
std::string cpu_reference_names();

}  // namespace bs::exercise
