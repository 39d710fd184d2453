// cpu_reference.cpp: see cpu_reference.h. The float references compute in float in the order the labs'
// kernels do (the heat step's c + r * (sum - 4c); the tutorials' formula from gpu/vector/elementwise.h; matmul
// summing k upwards with fused multiply-adds, as nvcc contracts a * b + acc), so a right kernel agrees to a
// few ulps and the contracts' tolerances stay tight.
#include "gpu/exercise/cpu_reference.h"

#include <array>
#include <bit>
#include <cmath>

#include "gpu/vector/elementwise.h"

namespace bs::exercise {

float CpuCall::f32(size_t arg, size_t k) const {
  return std::bit_cast<float>((*data)[arg][k]);
}
void CpuCall::set_f32(size_t arg, size_t k, float v) {
  (*data)[arg][k] = std::bit_cast<uint32_t>(v);
}
int32_t CpuCall::i32(size_t arg, size_t k) const {
  return static_cast<int32_t>((*data)[arg][k]);
}
void CpuCall::set_i32(size_t arg, size_t k, int32_t v) {
  (*data)[arg][k] = static_cast<uint32_t>(v);
}
int64_t CpuCall::i64(size_t arg, size_t k) const {
  const std::vector<uint32_t>& w = (*data)[arg];
  return static_cast<int64_t>(uint64_t{w[2 * k]} | uint64_t{w[2 * k + 1]} << 32);
}
void CpuCall::set_i64(size_t arg, size_t k, int64_t v) {
  std::vector<uint32_t>& w = (*data)[arg];
  w[2 * k] = static_cast<uint32_t>(static_cast<uint64_t>(v));
  w[2 * k + 1] = static_cast<uint32_t>(static_cast<uint64_t>(v) >> 32);
}
double CpuCall::f64(size_t arg, size_t k) const {
  return std::bit_cast<double>(static_cast<uint64_t>(i64(arg, k)));
}
void CpuCall::set_f64(size_t arg, size_t k, double v) {
  set_i64(arg, k, static_cast<int64_t>(std::bit_cast<uint64_t>(v)));
}

namespace {

// heat_step(in, out, nx, ny, r, boundary_temp[, fixed_boundary]): one explicit 5-point step.
void heat(CpuCall& c, bool fixed) {
  const int64_t nx = c.ints[2], ny = c.ints[3];
  const float r = static_cast<float>(c.reals[4]), edge = static_cast<float>(c.reals[5]);
  for (int64_t y = 0; y < ny; ++y)
    for (int64_t x = 0; x < nx; ++x) {
      const size_t i = static_cast<size_t>(y * nx + x);
      const float v = c.f32(0, i);
      const float out_v = fixed ? edge : v;
      const float l = x > 0 ? c.f32(0, i - 1) : out_v;
      const float rt = x + 1 < nx ? c.f32(0, i + 1) : out_v;
      const float u = y > 0 ? c.f32(0, i - static_cast<size_t>(nx)) : out_v;
      const float d = y + 1 < ny ? c.f32(0, i + static_cast<size_t>(nx)) : out_v;
      c.set_f32(1, i, v + r * (l + rt + u + d - 4.0f * v));
    }
}

void heat_step(CpuCall& c) {
  heat(c, c.ints[6] != 0);
}
void heat_step_fixed(CpuCall& c) {
  heat(c, true);
}

template <float (*op)(float, float)>
void elementwise(CpuCall& c) {
  const int64_t n = c.ints[3];
  for (int64_t i = 0; i < n; ++i)
    c.set_f32(2, static_cast<size_t>(i), op(c.f32(0, static_cast<size_t>(i)), c.f32(1, static_cast<size_t>(i))));
}

void matmul(CpuCall& c) {
  const int64_t m = c.ints[3], n = c.ints[4], kk = c.ints[5];
  for (int64_t row = 0; row < m; ++row)
    for (int64_t col = 0; col < n; ++col) {
      float acc = 0;
      for (int64_t k = 0; k < kk; ++k)
        acc = std::fma(c.f32(0, static_cast<size_t>(row * kk + k)), c.f32(1, static_cast<size_t>(k * n + col)), acc);
      c.set_f32(2, static_cast<size_t>(row * n + col), acc);
    }
}

const std::array<CpuReference, 5> k_refs = {{
    {"heat_step", "const float*, float*, int, int, float, float, int",
     "the heat lab's step: fixed_boundary 1 = boundary_temp outside, 0 = insulated", heat_step},
    {"heat_step_fixed", "const float*, float*, int, int, float, float",
     "the heat step with a fixed boundary temperature", heat_step_fixed},
    {"vector_formula", "const float*, const float*, float*, int",
     "c[i] = (a[i]*10 + 2) * ((b[i] + 2)*10 - 5) * 5, the tutorials' formula", elementwise<vector::formula_op>},
    {"vector_add", "const float*, const float*, float*, int", "c[i] = a[i] + b[i]", elementwise<vector::add_op>},
    {"matmul", "const float*, const float*, float*, int, int, int",
     "C = A x B, row-major, A M x K, B K x N, float sums with fused multiply-adds", matmul},
}};

}  // namespace

std::span<const CpuReference> cpu_references() {
  return k_refs;
}

const CpuReference* find_cpu_reference(std::string_view name) {
  for (const CpuReference& r : k_refs)
    if (r.name == name) return &r;
  return nullptr;
}

std::string cpu_reference_names() {
  std::string s;
  for (const CpuReference& r : k_refs) s += (s.empty() ? "" : ", ") + std::string(r.name);
  return s;
}

}  // namespace bs::exercise
