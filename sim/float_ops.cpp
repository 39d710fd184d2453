// float_ops.cpp: see float_ops.h. Directed rounding sets the host's rounding mode around one operation; this
// file is compiled with -frounding-math so the compiler neither folds nor moves the operations across it.
#include "sim/float_ops.h"

#include <cfenv>
#include <cstring>
#include <limits>

namespace bs::sim::fp {

namespace {

int host_mode(Round r) {
  switch (r) {
    case Round::Zero: return FE_TOWARDZERO;
    case Round::Down: return FE_DOWNWARD;
    case Round::Up: return FE_UPWARD;
    default: return FE_TONEAREST;
  }
}

// Runs f under rounding mode r and restores round-to-nearest.
template <class F>
auto rounded(Round r, F f) {
  if (r == Round::Nearest) return f();
  std::fesetround(host_mode(r));
  auto v = f();
  std::fesetround(FE_TONEAREST);
  return v;
}

}  // namespace

// The volatile operand keeps each operation after the mode switch.
template <class T>
T add(T a, T b, Round r) {
  return rounded(r, [&] { volatile T x = a; return x + b; });
}
template <class T>
T mul(T a, T b, Round r) {
  return rounded(r, [&] { volatile T x = a; return x * b; });
}
template <class T>
T fma(T a, T b, T c, Round r) {
  return rounded(r, [&] { volatile T x = a; return std::fma(x, b, c); });
}
template <class T>
T div(T a, T b, Round r) {
  return rounded(r, [&] { volatile T x = a; return x / b; });
}
template <class T>
T sqrt(T a, Round r) {
  return rounded(r, [&] { volatile T x = a; return std::sqrt(x); });
}
template float add(float, float, Round);
template float mul(float, float, Round);
template float fma(float, float, float, Round);
template float div(float, float, Round);
template float sqrt(float, Round);
template double add(double, double, Round);
template double mul(double, double, Round);
template double fma(double, double, double, Round);
template double div(double, double, Round);
template double sqrt(double, Round);
float narrow(double d, Round r) {
  return rounded(r, [&] { volatile double x = d; return static_cast<float>(x); });
}
float from_int(int64_t v, bool is_signed, Round r) {
  return rounded(r, [&] {
    volatile int64_t x = v;
    return is_signed ? static_cast<float>(static_cast<int64_t>(x)) : static_cast<float>(static_cast<uint64_t>(x));
  });
}
double from_int_f64(int64_t v, bool is_signed, Round r) {
  return rounded(r, [&] {
    volatile int64_t x = v;
    return is_signed ? static_cast<double>(static_cast<int64_t>(x))
                     : static_cast<double>(static_cast<uint64_t>(x));
  });
}

double round_integral(double x, Round r) {
  switch (r) {
    case Round::Zero: return std::trunc(x);
    case Round::Down: return std::floor(x);
    case Round::Up: return std::ceil(x);
    default: return std::nearbyint(x);  // ties to even (the mode is round-to-nearest here)
  }
}

uint64_t to_int(double x, Round r, int bytes, bool is_signed) {
  if (std::isnan(x)) return 0;
  const double v = round_integral(x, r);
  const int bits = bytes * 8;
  if (is_signed) {
    const double lo = -std::ldexp(1.0, bits - 1), hi = std::ldexp(1.0, bits - 1);  // [lo, hi)
    int64_t out;
    if (v <= lo) out = bits == 64 ? std::numeric_limits<int64_t>::min() : static_cast<int64_t>(lo);
    else if (v >= hi) out = bits == 64 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(hi) - 1;
    else out = static_cast<int64_t>(v);
    const uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    return static_cast<uint64_t>(out) & mask;
  }
  const double hi = std::ldexp(1.0, bits);
  if (v <= 0) return 0;
  if (v >= hi) return bits == 64 ? ~0ull : (1ull << bits) - 1;
  return static_cast<uint64_t>(v);
}

template <class T>
T min_impl(T a, T b) {
  if (std::isnan(a)) return std::isnan(b) ? std::numeric_limits<T>::quiet_NaN() : b;
  if (std::isnan(b)) return a;
  if (a == b) return std::signbit(a) ? a : b;  // -0 < +0
  return a < b ? a : b;
}
template <class T>
T max_impl(T a, T b) {
  if (std::isnan(a)) return std::isnan(b) ? std::numeric_limits<T>::quiet_NaN() : b;
  if (std::isnan(b)) return a;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
float fmin(float a, float b) { return min_impl(a, b); }
float fmax(float a, float b) { return max_impl(a, b); }
double fmin(double a, double b) { return min_impl(a, b); }
double fmax(double a, double b) { return max_impl(a, b); }

float half_to_float(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  const int exp = (h >> 10) & 0x1f;
  const uint32_t man = h & 0x3ffu;
  float f;
  if (exp == 0) f = std::ldexp(static_cast<float>(man), -24);
  else if (exp == 31) f = man ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else f = std::ldexp(static_cast<float>(man | 0x400u), exp - 25);
  return sign ? -f : f;
}

uint16_t float_to_half(float f, Round r) {
  if (std::isnan(f)) return 0x7fff;
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  double a = std::fabs(static_cast<double>(f));
  // Round a to the half grid: spacing 2^(e-10) for normal halves, 2^-24 for subnormals.
  int e;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  const int exp = std::max(e - 1, -14);
  const double ulp = std::ldexp(1.0, exp - 10);
  double q = a / ulp;  // exact (power-of-two scaling)
  Round rr = r;
  if (sign && r == Round::Down) rr = Round::Up;
  else if (sign && r == Round::Up) rr = Round::Down;
  q = round_integral(q, rr);
  a = q * ulp;
  if (a >= 65536.0 || (a > 65504.0)) {
    const bool to_inf = r == Round::Nearest || (r == Round::Up && !sign) || (r == Round::Down && sign);
    return static_cast<uint16_t>(sign | (to_inf ? 0x7c00 : 0x7bff));
  }
  if (a == 0) return sign;
  int e2;
  std::frexp(a, &e2);
  const int hexp = e2 - 1;  // a in [2^hexp, 2^(hexp+1))
  if (hexp < -14) return static_cast<uint16_t>(sign | static_cast<uint16_t>(a / std::ldexp(1.0, -24)));
  const uint16_t man = static_cast<uint16_t>(a / std::ldexp(1.0, hexp - 10)) & 0x3ff;
  return static_cast<uint16_t>(sign | ((hexp + 15) << 10) | man);
}

}  // namespace bs::sim::fp
