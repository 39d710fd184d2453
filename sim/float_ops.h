// float_ops.h (internal to bs_sim): PTX's floating-point semantics on the host: IEEE rounding modes (directed
// ones through the host's rounding mode, float_ops.cpp is built with -frounding-math), flush-to-zero,
// saturation, the GPU's canonical NaN, min/max's NaN and signed-zero rules, cvt between floats and integers
// with PTX's saturating conversions.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace bs::sim::fp {

enum class Round : uint8_t { Nearest, Zero, Down, Up };

inline constexpr uint32_t k_nan32 = 0x7fffffffu;               // the GPU's canonical f32 NaN
inline constexpr uint64_t k_nan64 = 0x7fffffffffffffffull;     // and f64 NaN

inline float f32(uint64_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits)); }
inline double f64(uint64_t bits) { return std::bit_cast<double>(bits); }
inline uint64_t bits32(float f) { return std::isnan(f) ? k_nan32 : std::bit_cast<uint32_t>(f); }
inline uint64_t bits64(double d) { return std::isnan(d) ? k_nan64 : std::bit_cast<uint64_t>(d); }

inline float ftz(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }
inline float sat(float x) { return std::isnan(x) ? 0.0f : x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
inline double sat(double x) { return std::isnan(x) ? 0.0 : x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x; }

// Arithmetic with rounding mode r (Nearest: the plain host operation). T is float or double: float_ops.cpp
// defines them for those two only, since only that file is compiled with -frounding-math.
template <class T>
T add(T a, T b, Round r);
template <class T>
T mul(T a, T b, Round r);
template <class T>
T fma(T a, T b, T c, Round r);
template <class T>
T div(T a, T b, Round r);
template <class T>
T sqrt(T a, Round r);
// float(d) with rounding r (cvt.rX.f32.f64).
float narrow(double d, Round r);
// An integer to a float with rounding r (cvt.rX.f32.s64, ...).
float from_int(int64_t v, bool is_signed, Round r);
double from_int_f64(int64_t v, bool is_signed, Round r);
// Round to an integral value (cvt.rXi.f32.f32, and the first step of float -> int).
double round_integral(double x, Round r);
// PTX float -> integer: rounded with r, NaN -> 0, out of range -> the type's limit.
uint64_t to_int(double x, Round r, int bytes, bool is_signed);

// min/max: a NaN operand gives the other; -0 < +0.
float fmin(float a, float b);
float fmax(float a, float b);
double fmin(double a, double b);
double fmax(double a, double b);

// IEEE binary16 <-> float (cvt.f32.f16, cvt.rn.f16.f32).
float half_to_float(uint16_t h);
uint16_t float_to_half(float f, Round r);

}  // namespace bs::sim::fp
