// montecarlo.cpp: parameter validation, labels, the closed forms (Black-Scholes, lognormal S_T), estimates
// from sums, histogram helpers and batch splitting. Pure C++, shared by the CPU and GPU paths.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <sstream>

#include "gpu/montecarlo/montecarlo.h"

namespace bs::montecarlo {

namespace {

std::string num(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace

const char* option_label(OptionType o) {
  return k_option_names.c_name(o);
}

const char* option_long_label(OptionType o) {
  switch (o) {
    case OptionType::Call:
      return "European call";
    case OptionType::Put:
      return "European put";
    case OptionType::AsianCall:
      return "Asian call (arithmetic)";
  }
  return "?";
}

std::optional<OptionType> parse_option(std::string_view t) {
  return k_option_names.parse(t);
}

const char* generator_label(Generator g) {
  return g == Generator::Philox ? "Philox4_32_10" : "XORWOW";
}

std::optional<Generator> parse_generator(std::string_view t) {
  return k_generator_names.parse(t);
}

bool is_european(OptionType o) {
  return o == OptionType::Call || o == OptionType::Put;
}

double Params::discount() const {
  return std::exp(-rate * maturity);
}

std::optional<ParamError> check(const Params& p) {
  // A plain table, not an initializer_list of std::optional<ParamError>: copying those optionals made GCC 12
  // warn maybe-uninitialized (an error here) under -fsanitize=undefined at -O2.
  struct Input {
    const char* name;
    const char* symbol;
    double value;
  };
  const Input inputs[] = {{"s0", "S0", p.s0},
                          {"strike", "K", p.strike},
                          {"rate", "r", p.rate},
                          {"sigma", "sigma", p.sigma},
                          {"maturity", "T", p.maturity}};
  for (const Input& in : inputs)
    if (!std::isfinite(in.value))
      return ParamError{in.name, std::string(in.symbol) + " = " + num(in.value) + " is not a finite number"};
  if (p.paths < 1)
    return ParamError{"paths", "paths = " + std::to_string(p.paths) + ": a run needs at least 1 path"};
  if (p.paths > k_max_paths)
    return ParamError{"paths", "paths = " + std::to_string(p.paths) + " is more than " +
                                   std::to_string(k_max_paths) + " (16M), the most this lab simulates"};
  if (p.steps < 1)
    return ParamError{"steps", "steps = " + std::to_string(p.steps) + ": a path needs at least 1 time step"};
  if (p.steps > k_max_steps)
    return ParamError{"steps", "steps = " + std::to_string(p.steps) + " is more than " +
                                   std::to_string(k_max_steps) + ", the most this lab simulates"};
  if (p.s0 <= 0) return ParamError{"s0", "S0 = " + num(p.s0) + ": the initial price must be positive"};
  if (p.strike <= 0) return ParamError{"strike", "K = " + num(p.strike) + ": the strike must be positive"};
  if (p.sigma < 0)
    return ParamError{"sigma", "sigma = " + num(p.sigma) + ": the volatility cannot be negative"};
  if (p.maturity <= 0)
    return ParamError{"maturity", "T = " + num(p.maturity) + ": the maturity must be positive (in years)"};
  const auto price_range = [](const char* name, const char* symbol, double v) -> std::optional<ParamError> {
    if (v < k_min_price || v > k_max_price)
      return ParamError{name, std::string(symbol) + " = " + num(v) + " is outside " + num(k_min_price) +
                                  " .. " + num(k_max_price) +
                                  ", the prices this lab simulates (float32 paths)"};
    return std::nullopt;
  };
  if (auto e = price_range("s0", "S0", p.s0)) return e;
  if (auto e = price_range("strike", "K", p.strike)) return e;
  if (std::abs(p.rate) > k_max_abs_rate)
    return ParamError{"rate", "r = " + num(p.rate) + " is outside -" + num(k_max_abs_rate) + " .. " +
                                  num(k_max_abs_rate) + " (at most 100% a year either way)"};
  if (p.maturity > k_max_maturity)
    return ParamError{"maturity", "T = " + num(p.maturity) + " is more than " + num(k_max_maturity) +
                                      " years, the longest maturity this lab prices"};
  if (p.sigma * std::sqrt(p.maturity) > k_max_sigma_sqrt_t)
    return ParamError{"sigma", "sigma * sqrt(T) = " + num(p.sigma * std::sqrt(p.maturity)) +
                                   " is more than " + num(k_max_sigma_sqrt_t) +
                                   ": float32 prices would overflow in the tails; lower sigma or T"};
  if (std::abs(p.rate) * p.maturity > k_max_abs_rate_t)
    return ParamError{"rate", "|r| * T = " + num(std::abs(p.rate) * p.maturity) + " is more than " +
                                  num(k_max_abs_rate_t) + ": lower the rate or the maturity"};
  return std::nullopt;
}

std::optional<std::string> validate(const Params& p) {
  if (auto e = check(p)) return e->message;
  return std::nullopt;
}

int64_t sample_count(const Params& p) {
  return p.antithetic ? (p.paths + 1) / 2 : p.paths;
}

int64_t paths_for_samples(int64_t samples, bool antithetic) {
  return antithetic ? 2 * samples : samples;
}

// --- Closed forms
// --------------------------------------------------------------------------------------------------

double normal_cdf(double x) {
  return 0.5 * std::erfc(-x / std::numbers::sqrt2);
}

// Acklam's rational approximation (relative error 1.15e-9), polished by one Halley step on erfc: near double
// precision, more than the histogram range or a test tolerance ever needs.
double normal_quantile(double p) {
  if (!(p > 0.0)) return -std::numeric_limits<double>::infinity();
  if (!(p < 1.0)) return std::numeric_limits<double>::infinity();
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                                 1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                 6.680131188771972e+01, -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                 -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                 3.754408661907416e+00};
  constexpr double p_low = 0.02425;
  double x;
  if (p < p_low || p > 1.0 - p_low) {
    const double q = std::sqrt(-2.0 * std::log(p < p_low ? p : 1.0 - p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
    if (p > 1.0 - p_low) x = -x;
  } else {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
  }
  const double e = normal_cdf(x) - p;
  const double u = e * std::sqrt(2.0 * std::numbers::pi) * std::exp(0.5 * x * x);
  return x - u / (1.0 + 0.5 * x * u);
}

BlackScholes black_scholes(double s0, double k, double r, double sigma, double t) {
  BlackScholes bs;
  const double kd = k * std::exp(-r * t);
  const double vol = sigma * std::sqrt(t);
  if (vol <= 0.0) {
    bs.call = std::max(s0 - kd, 0.0);
    bs.put = std::max(kd - s0, 0.0);
    return bs;
  }
  const double d1 = (std::log(s0 / k) + (r + 0.5 * sigma * sigma) * t) / vol;
  const double d2 = d1 - vol;
  bs.call = s0 * normal_cdf(d1) - kd * normal_cdf(d2);
  bs.put = kd * normal_cdf(-d2) - s0 * normal_cdf(-d1);
  return bs;
}

std::optional<double> reference_price(const Params& p) {
  if (!is_european(p.option)) return std::nullopt;
  const BlackScholes bs = black_scholes(p.s0, p.strike, p.rate, p.sigma, p.maturity);
  return p.option == OptionType::Call ? bs.call : bs.put;
}

namespace {
double log_mean(const Params& p) {
  return std::log(p.s0) + (p.rate - 0.5 * p.sigma * p.sigma) * p.maturity;
}
double log_sd(const Params& p) {
  return p.sigma * std::sqrt(p.maturity);
}
}  // namespace

double lognormal_pdf(double s, const Params& p) {
  const double sd = log_sd(p);
  if (!(s > 0.0) || sd <= 0.0) return 0.0;
  const double z = (std::log(s) - log_mean(p)) / sd;
  return std::exp(-0.5 * z * z) / (s * sd * std::sqrt(2.0 * std::numbers::pi));
}

double lognormal_cdf(double s, const Params& p) {
  if (!(s > 0.0)) return 0.0;
  const double sd = log_sd(p);
  const double x = std::log(s) - log_mean(p);
  if (sd <= 0.0) return x >= 0.0 ? 1.0 : 0.0;
  return normal_cdf(x / sd);
}

double lognormal_quantile(double prob, const Params& p) {
  return std::exp(log_mean(p) + log_sd(p) * normal_quantile(prob));
}

// --- Results
// -------------------------------------------------------------------------------------------------------

Estimate make_estimate(const Moments& m, const Params& p) {
  Estimate e;
  e.samples = m.n;
  e.paths = paths_for_samples(m.n, p.antithetic);
  if (m.n <= 0) {
    e.price = e.std_error = e.ci_low = e.ci_high = std::numeric_limits<double>::quiet_NaN();
    return e;
  }
  const double n = static_cast<double>(m.n);
  const double mean = m.sum / n;
  const double disc = p.discount();
  e.price = disc * mean;
  if (m.n < 2) {
    e.std_error = std::numeric_limits<double>::quiet_NaN();
    e.ci_low = -std::numeric_limits<double>::infinity();
    e.ci_high = std::numeric_limits<double>::infinity();
    return e;
  }
  // sum_sq - sum * mean loses little here: payoffs are O(S0) and their variance is of the same order as the
  // squared mean, so double keeps ~12 significant digits of the variance even at 16M samples.
  const double var = std::max(0.0, (m.sum_sq - m.sum * mean) / (n - 1.0));
  e.std_error = disc * std::sqrt(var / n);
  e.ci_low = e.price - k_z95 * e.std_error;
  e.ci_high = e.price + k_z95 * e.std_error;
  return e;
}

double error_in_std_errors(const Estimate& e, double reference) {
  const double d = e.price - reference;
  if (e.std_error > 0) return d / e.std_error;
  if (d == 0) return 0.0;
  return d > 0 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
}

// --- Histogram
// -----------------------------------------------------------------------------------------------------

std::vector<double> Histogram::edges() const {
  std::vector<double> e(counts.size() + 1);
  const double w = width();
  for (size_t i = 0; i < e.size(); ++i)
    e[i] = lo + w * static_cast<double>(i);
  if (!counts.empty()) e.back() = hi;
  return e;
}

uint64_t Histogram::total() const {
  uint64_t t = underflow + overflow;
  for (uint64_t c : counts)
    t += c;
  return t;
}

Range default_histogram_range(const Params& p) {
  if (log_sd(p) <= 0.0) {
    const double forward = p.s0 * std::exp(p.rate * p.maturity);
    return {0.99 * forward, 1.01 * forward};
  }
  return {lognormal_quantile(0.001, p), lognormal_quantile(0.999, p)};
}

std::vector<double> expected_counts(const Histogram& h, const Params& p) {
  std::vector<double> out(h.counts.size());
  const std::vector<double> e = h.edges();
  const double total = static_cast<double>(h.total());
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = total * (lognormal_cdf(e[i + 1], p) - lognormal_cdf(e[i], p));
  return out;
}

// --- Batches
// -------------------------------------------------------------------------------------------------------

std::vector<SampleRange> even_batches(int64_t samples, int batches) {
  std::vector<SampleRange> out;
  if (samples <= 0) return out;
  const int64_t n = std::clamp<int64_t>(batches, 1, samples);
  int64_t first = 0;
  for (int64_t b = 0; b < n; ++b) {
    const int64_t end = samples * (b + 1) / n;
    out.push_back({first, end - first});
    first = end;
  }
  return out;
}

std::vector<SampleRange> doubling_batches(int64_t samples, int64_t first) {
  std::vector<SampleRange> out;
  if (samples <= 0) return out;
  int64_t end = std::clamp<int64_t>(first, 1, samples);
  out.push_back({0, end});
  while (end < samples) {
    const int64_t next = std::min(samples, 2 * end);
    out.push_back({end, next - end});
    end = next;
  }
  return out;
}

std::optional<std::string> validate(const RunOptions& o) {
  if (o.histogram_bins < 0 || o.histogram_bins > k_max_histogram_bins)
    return "histogram bins = " + std::to_string(o.histogram_bins) + ": choose 0 (no histogram) to " +
           std::to_string(k_max_histogram_bins);
  if (o.histogram_hi > o.histogram_lo && !(std::isfinite(o.histogram_lo) && std::isfinite(o.histogram_hi)))
    return "the histogram range must be finite";
  if (o.sample_paths < 0 || o.sample_paths > k_max_sample_paths)
    return "sample paths = " + std::to_string(o.sample_paths) + ": choose 0 to " +
           std::to_string(k_max_sample_paths);
  return std::nullopt;
}

}  // namespace bs::montecarlo
