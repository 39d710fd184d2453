// precision.h: the precisions of the tensor-core rungs (BF16, FP16, TF32, FP32 and 3xTF32) as a model on the CPU:
// exact round-to-nearest-even conversions, the error of a result against float64 (relative Frobenius norm and the
// worst element) with the bound each precision allows, inputs of a chosen range, and C = A x B with the inputs
// rounded to a precision and the products accumulated in FP32 (what a tensor core does, up to summation order).
// Pure C++ (ui/ and app/ include it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/cpu_job.h"
#include "gpu/matmul/matmul.h"

namespace bs::matmul {

enum class Precision {
  Bf16,   // 8-bit exponent, 7 explicit mantissa bits: FP32's range, about 2-3 decimal digits
  Fp16,   // 5-bit exponent, 10 mantissa bits: more digits, but overflows above 65504 and flushes below 2^-24
  Tf32,   // FP32's exponent with FP16's 10 mantissa bits (stored in 32 bits; the low 13 bits ignored)
  Fp32,   // IEEE single precision, the SIMT ladder's
  Tf32x3  // each FP32 input split into TF32 high + TF32 low parts, three TF32 products: about FP32 accuracy
};

struct PrecisionInfo {
  Precision id;
  const char* name;         // command-line name, e.g. "bf16"
  const char* title;        // "BF16 (8-bit exponent, 7-bit mantissa)"
  int mantissa_bits;        // explicit mantissa bits of an input (3xTF32: hi + lo together)
  double input_roundoff;    // u_in: the relative error of rounding one input (0: inputs exact)
  const char* description;  // what rounding to it does to a matrix product
};
std::span<const PrecisionInfo> precisions();
const PrecisionInfo& info(Precision p);
std::optional<Precision> parse_precision(std::string_view name);

// --- Round to nearest, ties to even (exact; NaN stays NaN, infinity stays infinity) --------------------------
// TF32: the 13 low mantissa bits rounded off (the result is a float whose low 13 bits are zero).
float round_to_tf32(float x);
// BF16: the high 16 bits of the float after rounding (so the BF16 value is bf16_bits << 16).
uint16_t to_bf16_bits(float x);
float bf16_bits_to_float(uint16_t h);
float round_to_bf16(float x);
// FP16 (IEEE binary16): values from 65520 on (half an ulp above 65504) become infinity; below 2^-14 the result is
// subnormal (multiples of 2^-24) and up to 2^-25 it is zero (signed; 2^-25 itself ties to even, to 0).
uint16_t to_fp16_bits(float x);
float fp16_bits_to_float(uint16_t h);
float round_to_fp16(float x);
// The value an input becomes in precision `p` (FP32 and 3xTF32: unchanged).
float round_to(Precision p, float x);
// 3xTF32's split: hi = round_to_tf32(x), lo = round_to_tf32(x - hi) (x - hi is exact in float). hi + lo is within
// 2^-22 |x| of x, where hi alone is within 2^-11 |x|.
struct Tf32Split {
  float hi, lo;
};
Tf32Split split_tf32(float x);

// --- Error against float64 ------------------------------------------------------------------------------------
// The bound on ||C - ref||_F / ||ref||_F for inner dimension k, inputs of random sign:
//   bound(p, k) = 4 * u_in(p) + 8 * 2^-24 * sqrt(k), at least 1e-6,
// where u_in is the input rounding (2^-8 BF16, 2^-11 FP16 and TF32, 2^-22 3xTF32, 0 FP32). Each product a*b of
// rounded inputs carries a relative error up to 2 u_in; with random signs these errors add like a random walk, as
// the products do, so the relative error of a sum stays near u_in whatever k (4 u_in leaves room for the worst
// rows). The second term is FP32 accumulation, the SIMT ladder's tolerance (matmul.h, tolerance()).
double error_bound(Precision p, int64_t k);

struct ErrorStats {
  double rel_frobenius = 0;  // ||C - ref||_F / ||ref||_F over the finite cells (NaN if none)
  size_t nonfinite = 0;      // cells of C that are NaN or infinite (FP16 overflow, or never written)
  int64_t worst_row = -1, worst_col = -1;  // the cell with the largest |C - ref| (a non-finite one first)
  double worst_value = 0;                  // C there
  double worst_reference = 0;              // ref there
  double worst_abs = 0;                    // |C - ref| there (infinity for a non-finite cell)
  double ref_rms = 0;                      // sqrt(mean(ref^2)): the scale worst_abs is read against
  double bound = 0;
  bool within_bound = false;  // no non-finite cell and rel_frobenius <= bound
  // "rel 3.1e-03 <= 7.8e-03; worst |C-ref| 1.2e-02 (0.4% of rms) at (12, 7): 1.2345 vs 1.2467"
  std::string summary() const;
};
// C and ref are M x N row-major (`cols` = N); `bound` is copied into the result and decides within_bound.
ErrorStats measure_error(std::span<const float> c, std::span<const double> ref, int64_t cols, double bound);

// --- Inputs ---------------------------------------------------------------------------------------------------
struct InputRange {
  double r = 1.0;     // values uniform in (-r, r), never zero
  bool wide = false;  // mix magnitudes: each value times 2^e, e uniform in [-30, 17] (FP16 overflows above 65504
                      // and underflows below 2^-24; BF16 and TF32 keep FP32's range)
};
// nullopt when r is finite and in [1e-30, 1e30]; otherwise a message naming --range.
std::optional<std::string> validate(const InputRange& r);
// rows x cols values as make_matrix (deterministic in seed and index) scaled to `range`; never zero.
std::vector<float> make_input(int64_t rows, int64_t cols, uint32_t seed, const InputRange& range);
std::string to_string(const InputRange& r);  // "uniform in (-1, 1)" or "wide: (-1, 1) x 2^[-30, 17]"

// --- The CPU model --------------------------------------------------------------------------------------------
// C = A x B with A and B rounded to `p` once, each product formed exactly in FP32 (two inputs of at most 11
// significant bits multiply exactly) and accumulated in FP32 along k in order. 3xTF32 accumulates a_lo*b_hi,
// a_hi*b_lo and a_hi*b_hi (a_lo*b_lo, about 2^-22 of the product, is dropped). OpenMP over rows; honours cancel.
std::vector<float> gemm_precision_cpu(Precision p, std::span<const float> a, std::span<const float> b,
                                      const Problem& prob, JobControl* ctl = nullptr);

// Every precision of the model on the same A and B against one float64 reference (computed here, OpenBLAS
// dgemm): what `bench matmul --precision` prints and the matmul lab's tensor-core section shows. Progress runs
// 0..1 within each precision; cancel is honoured (JobCancelled).
struct PrecisionReport {
  Precision precision;
  double ms = 0;  // the CPU model's wall time
  ErrorStats error;
};
std::vector<PrecisionReport> precision_model(std::span<const float> a, std::span<const float> b, const Problem& prob,
                                             JobControl* ctl = nullptr);
// "6.14e-02 at (272, 284): 6.77192 vs 6.83332", or "89909 not finite, first (0, 0)".
std::string worst_text(const ErrorStats& e);

}  // namespace bs::matmul
