// precision.cpp: the CPU model of the tensor-core precisions (precision.h): rounding, error, inputs, the GEMM.
#include "gpu/matmul/precision.h"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/error.h"

namespace bs::matmul {

namespace {

constexpr std::array k_precisions{
    PrecisionInfo{Precision::Bf16, "bf16", "BF16 (8-bit exponent, 7-bit mantissa)", 7, 0x1p-8,
                  "FP32's range with 3 significant decimal digits: each input off by up to 2^-8 (0.4%)"},
    PrecisionInfo{Precision::Fp16, "fp16", "FP16 (5-bit exponent, 10-bit mantissa)", 10, 0x1p-11,
                  "8x finer than BF16 but a small range: above 65504 an input becomes infinity, below 2^-24 zero"},
    PrecisionInfo{Precision::Tf32, "tf32", "TF32 (8-bit exponent, 10-bit mantissa)", 10, 0x1p-11,
                  "FP32's range with FP16's mantissa: what cuBLAS's TF32 mode and PyTorch's allow_tf32 compute"},
    PrecisionInfo{Precision::Fp32, "fp32", "FP32 (8-bit exponent, 23-bit mantissa)", 23, 0.0,
                  "inputs exact; only the FP32 accumulation rounds (the SIMT ladder and cuBLAS SGEMM)"},
    PrecisionInfo{Precision::Tf32x3, "3xtf32", "3xTF32 (TF32 high + TF32 low, three products)", 21, 0x1p-22,
                  "FP32 inputs as hi + lo TF32 pairs: a_lo*b_hi + a_hi*b_lo + a_hi*b_hi on TF32 tensor cores "
                  "recovers FP32 accuracy"},
};

uint32_t bits_of(float x) {
  return std::bit_cast<uint32_t>(x);
}
float float_of(uint32_t u) {
  return std::bit_cast<float>(u);
}

// Rounds away the `drop` low bits of a finite float's bit pattern, ties to even. A carry out of the mantissa
// raises the exponent, which is right (up to infinity at the top).
uint32_t round_low_bits(uint32_t u, int drop) {
  const uint32_t half = (uint32_t{1} << (drop - 1)) - 1;
  const uint32_t lsb = (u >> drop) & 1u;
  return (u + half + lsb) & ~((uint32_t{1} << drop) - 1);
}

}  // namespace

std::span<const PrecisionInfo> precisions() {
  return k_precisions;
}

const PrecisionInfo& info(Precision p) {
  for (const auto& i : k_precisions)
    if (i.id == p) return i;
  throw InvalidRequest("unknown precision");
}

std::optional<Precision> parse_precision(std::string_view name) {
  for (const auto& i : k_precisions)
    if (name == i.name) return i.id;
  return std::nullopt;
}

float round_to_tf32(float x) {
  if (!std::isfinite(x)) return x;
  return float_of(round_low_bits(bits_of(x), 13));
}

uint16_t to_bf16_bits(float x) {
  const uint32_t u = bits_of(x);
  if (std::isnan(x)) return static_cast<uint16_t>((u >> 16) | 0x0040u);  // keep it a (quiet) NaN
  if (std::isinf(x)) return static_cast<uint16_t>(u >> 16);
  return static_cast<uint16_t>(round_low_bits(u, 16) >> 16);
}

float bf16_bits_to_float(uint16_t h) {
  return float_of(static_cast<uint32_t>(h) << 16);
}

float round_to_bf16(float x) {
  return bf16_bits_to_float(to_bf16_bits(x));
}

uint16_t to_fp16_bits(float x) {
  const uint32_t u = bits_of(x);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t au = u & 0x7FFFFFFFu;
  if (au >= 0x7F800000u) return static_cast<uint16_t>(sign | (au > 0x7F800000u ? 0x7E00u : 0x7C00u));
  if (au >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // >= 65520: rounds to infinity
  if (au < 0x38800000u) {
    // Below 2^-14: an FP16 subnormal q * 2^-24. With m the 24-bit significand and e the biased exponent,
    // |x| / 2^-24 = m * 2^(e - 126).
    const uint32_t e = au >> 23;
    if (e == 0) return static_cast<uint16_t>(sign);  // FP32 subnormals are far below 2^-25
    const int shift = 126 - static_cast<int>(e);     // >= 14
    if (shift > 24) return static_cast<uint16_t>(sign);
    const uint32_t m = (au & 0x7FFFFFu) | 0x800000u;
    uint32_t q = m >> shift;
    const uint32_t rem = m & ((uint32_t{1} << shift) - 1), half = uint32_t{1} << (shift - 1);
    if (rem > half || (rem == half && (q & 1u))) ++q;  // q = 0x400 is the smallest normal: still right
    return static_cast<uint16_t>(sign | q);
  }
  const uint32_t e16 = (au >> 23) - 112;  // rebias 127 -> 15
  const uint32_t mant = au & 0x7FFFFFu;
  uint32_t h = (e16 << 10) | (mant >> 13);
  const uint32_t rem = mant & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // a carry raises the exponent
  return static_cast<uint16_t>(sign | h);
}

float fp16_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1Fu, mant = h & 0x3FFu;
  if (e == 0x1F) return float_of(sign | 0x7F800000u | (mant << 13));
  if (e == 0) {
    const float v = std::ldexp(static_cast<float>(mant), -24);  // exact
    return sign ? -v : v;
  }
  return float_of(sign | ((e + 112) << 23) | (mant << 13));
}

float round_to_fp16(float x) {
  return fp16_bits_to_float(to_fp16_bits(x));
}

float round_to(Precision p, float x) {
  switch (p) {
    case Precision::Bf16: return round_to_bf16(x);
    case Precision::Fp16: return round_to_fp16(x);
    case Precision::Tf32: return round_to_tf32(x);
    case Precision::Fp32:
    case Precision::Tf32x3: return x;
  }
  return x;
}

Tf32Split split_tf32(float x) {
  const float hi = round_to_tf32(x);
  return {hi, round_to_tf32(x - hi)};
}

double error_bound(Precision p, int64_t k) {
  const double acc = 8.0 * 0x1p-24 * std::sqrt(static_cast<double>(std::max<int64_t>(k, 1)));
  return std::max(1e-6, 4.0 * info(p).input_roundoff + acc);
}

ErrorStats measure_error(std::span<const float> c, std::span<const double> ref, int64_t cols, double bound) {
  ErrorStats s;
  s.bound = bound;
  if (c.size() != ref.size() || c.empty() || cols <= 0)
    throw InvalidRequest("measure_error: C has " + std::to_string(c.size()) + " cells, the reference " +
                         std::to_string(ref.size()));
  double num = 0, den = 0;
  size_t worst = 0;
  bool worst_nonfinite = false;
  for (size_t i = 0; i < c.size(); ++i) {
    const double x = ref[i];
    den += x * x;
    if (!std::isfinite(c[i])) {
      if (s.nonfinite++ == 0) {
        worst = i;
        worst_nonfinite = true;
      }
      continue;
    }
    const double d = static_cast<double>(c[i]) - x;
    num += d * d;
    if (!worst_nonfinite && std::abs(d) > s.worst_abs) {
      s.worst_abs = std::abs(d);
      worst = i;
    }
  }
  if (worst_nonfinite) s.worst_abs = std::numeric_limits<double>::infinity();
  const size_t finite = c.size() - s.nonfinite;
  s.rel_frobenius = finite == 0 ? std::numeric_limits<double>::quiet_NaN() : den > 0 ? std::sqrt(num / den) : 0.0;
  s.ref_rms = std::sqrt(den / static_cast<double>(c.size()));
  s.worst_row = static_cast<int64_t>(worst) / cols;
  s.worst_col = static_cast<int64_t>(worst) % cols;
  s.worst_value = c[worst];
  s.worst_reference = ref[worst];
  s.within_bound = s.nonfinite == 0 && s.rel_frobenius <= s.bound;
  return s;
}

std::string ErrorStats::summary() const {
  char buf[320];
  if (nonfinite > 0)
    std::snprintf(buf, sizeof buf, "%zu cells not finite (overflow or never written), first at (%lld, %lld): %g vs "
                  "%.6g: over the bound",
                  nonfinite, static_cast<long long>(worst_row), static_cast<long long>(worst_col), worst_value,
                  worst_reference);
  else
    std::snprintf(buf, sizeof buf, "rel %.2e %s %.2e; worst |C-ref| %.2e (%.2g%% of rms) at (%lld, %lld): %.7g vs %.7g",
                  rel_frobenius, within_bound ? "<=" : ">", bound, worst_abs,
                  ref_rms > 0 ? 100.0 * worst_abs / ref_rms : 0.0, static_cast<long long>(worst_row),
                  static_cast<long long>(worst_col), worst_value, worst_reference);
  return buf;
}

std::optional<std::string> validate(const InputRange& r) {
  if (!std::isfinite(r.r) || r.r < 1e-30 || r.r > 1e30) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "--range %g: choose a half-width r from 1e-30 to 1e30 (inputs uniform in (-r, r))",
                  r.r);
    return std::string(buf);
  }
  return std::nullopt;
}

std::vector<float> make_input(int64_t rows, int64_t cols, uint32_t seed, const InputRange& range) {
  if (auto err = validate(range)) throw InvalidRequest(*err);
  std::vector<float> v = make_matrix(rows, cols, seed);
  const float r = static_cast<float>(range.r);
  if (!range.wide) {
    for (float& x : v) {
      const float y = x * r;
      // r near 1e-30 can underflow the smallest values: keep them non-zero.
      x = y != 0.0f ? y : std::copysign(std::numeric_limits<float>::denorm_min(), x);
    }
    return v;
  }
  // The exponent from an independent stream of the same generator: e = -30 + floor(48 * (w + 1) / 2).
  const std::vector<float> w = make_matrix(rows, cols, seed ^ 0x5EEDu);
  for (size_t i = 0; i < v.size(); ++i) {
    const int e = std::clamp(-30 + static_cast<int>(std::floor(24.0 * (static_cast<double>(w[i]) + 1.0))), -30, 17);
    const double y = static_cast<double>(v[i]) * range.r * std::ldexp(1.0, e);
    const float f = static_cast<float>(std::clamp(y, -3e38, 3e38));
    v[i] = f != 0.0f ? f : std::copysign(std::numeric_limits<float>::denorm_min(), v[i]);
  }
  return v;
}

std::string to_string(const InputRange& r) {
  char buf[96];
  if (r.wide)
    std::snprintf(buf, sizeof buf, "wide: uniform in (-%g, %g) times 2^e, e in [-30, 17]", r.r, r.r);
  else
    std::snprintf(buf, sizeof buf, "uniform in (-%g, %g)", r.r, r.r);
  return buf;
}

std::vector<float> gemm_precision_cpu(Precision p, std::span<const float> a, std::span<const float> b,
                                      const Problem& prob, JobControl* ctl) {
  if (auto err = validate(prob)) throw InvalidRequest(*err);
  if (a.size() != prob.a_count() || b.size() != prob.b_count())
    throw InvalidRequest("input sizes do not match " + to_string(prob) + ": A needs M*K values, B needs K*N");
  const int64_t M = prob.m, N = prob.n, K = prob.k;
  const bool split = p == Precision::Tf32x3;
  // Inputs converted once (as the GPU rungs do); for 3xTF32 the hi parts here and the lo parts beside them.
  std::vector<float> ah(a.size()), bh(b.size()), al, bl;
  if (split) {
    al.resize(a.size());
    bl.resize(b.size());
  }
  auto convert = [&](std::span<const float> in, std::vector<float>& hi, std::vector<float>& lo) {
    for (size_t i = 0; i < in.size(); ++i) {
      if (split) {
        const Tf32Split s = split_tf32(in[i]);
        hi[i] = s.hi;
        lo[i] = s.lo;
      } else {
        hi[i] = round_to(p, in[i]);
      }
    }
  };
  convert(a, ah, al);
  convert(b, bh, bl);
  std::vector<float> c(prob.c_count(), 0.0f);
  constexpr int64_t k_rows_per_check = 16;
  if (ctl) ctl->set_progress(0.0);
  for (int64_t i0 = 0; i0 < M; i0 += k_rows_per_check) {
    if (ctl && ctl->cancelled()) throw JobCancelled{};
    const int64_t i1 = std::min(M, i0 + k_rows_per_check);
#pragma omp parallel for schedule(static)
    for (int64_t i = i0; i < i1; ++i) {
      float* crow = c.data() + i * N;
      for (int64_t kk = 0; kk < K; ++kk) {
        const float x = ah[static_cast<size_t>(i * K + kk)];
        const float* brow = bh.data() + kk * N;
        if (!split) {
          for (int64_t j = 0; j < N; ++j)
            crow[j] += x * brow[j];
          continue;
        }
        const float xl = al[static_cast<size_t>(i * K + kk)];
        const float* blrow = bl.data() + kk * N;
        for (int64_t j = 0; j < N; ++j) {
          float acc = crow[j];
          acc += xl * brow[j];
          acc += x * blrow[j];
          acc += x * brow[j];
          crow[j] = acc;
        }
      }
    }
    if (ctl) ctl->set_progress(static_cast<double>(i1) / static_cast<double>(M));
  }
  return c;
}

std::vector<PrecisionReport> precision_model(std::span<const float> a, std::span<const float> b, const Problem& prob,
                                             JobControl* ctl) {
  const std::vector<double> ref = reference_cpu(a, b, prob, ctl);
  std::vector<PrecisionReport> out;
  for (const PrecisionInfo& pi : precisions()) {
    const auto t0 = std::chrono::steady_clock::now();
    // Cancel is honoured inside each product; its progress runs 0..1 per precision, then the whole model's.
    const std::vector<float> c = gemm_precision_cpu(pi.id, a, b, prob, ctl);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    out.push_back({pi.id, ms, measure_error(c, ref, prob.n, error_bound(pi.id, prob.k))});
    if (ctl) ctl->set_progress(static_cast<double>(out.size()) / static_cast<double>(precisions().size()));
  }
  return out;
}

std::string worst_text(const ErrorStats& e) {
  char buf[128];
  if (e.nonfinite > 0)
    std::snprintf(buf, sizeof buf, "%zu not finite, first (%lld, %lld)", e.nonfinite,
                  static_cast<long long>(e.worst_row), static_cast<long long>(e.worst_col));
  else
    std::snprintf(buf, sizeof buf, "%.2e at (%lld, %lld): %.6g vs %.6g", e.worst_abs,
                  static_cast<long long>(e.worst_row), static_cast<long long>(e.worst_col), e.worst_value,
                  e.worst_reference);
  return buf;
}

}  // namespace bs::matmul
