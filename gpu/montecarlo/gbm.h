// gbm.h: the float32 arithmetic of one geometric-Brownian-motion sample and its payoff, shared (BS_HD) by the
// CPU baselines and the kernels so that both price with the same formulas. Compiles with g++ alone.
//
// A path is kept as the running sum of its normals, zsum_k = Z_1 + ... + Z_k, because for GBM
//   ln(S_k / S_0) = k (r - sigma^2/2) dt + sigma sqrt(dt) zsum_k
// exactly: a European payoff needs one exp at the end instead of one per step, and every price of the path
// can be rebuilt bit for bit from zsum_k (the stored sample paths and the histogram see the very prices that
// were priced).
#pragma once

#include <cmath>

#include "gpu/common/hd.h"
#include "gpu/montecarlo/montecarlo.h"

namespace bs::montecarlo {

struct PathConstants {
  float s0 = 0;
  float strike = 0;
  float nudt = 0;  // (r - sigma^2/2) dt
  float sdt = 0;   // sigma sqrt(dt)
  float inv_steps = 0;
  int steps = 0;
};

// Rounded to float once, in double, so that CPU and GPU start from identical constants.
inline PathConstants path_constants(const Params& p) {
  const double dt = p.maturity / p.steps;
  PathConstants c;
  c.s0 = static_cast<float>(p.s0);
  c.strike = static_cast<float>(p.strike);
  c.nudt = static_cast<float>((p.rate - 0.5 * p.sigma * p.sigma) * dt);
  c.sdt = static_cast<float>(p.sigma * std::sqrt(dt));
  c.inv_steps = static_cast<float>(1.0 / p.steps);
  c.steps = p.steps;
  return c;
}

// __expf (ex2.approx) on the device: about 2 ulp, ample for float32 prices, and a fraction of expf's cost.
BS_HD float fast_exp(float x) {
#if defined(__CUDA_ARCH__)
  return __expf(x);
#else
  return std::exp(x);
#endif
}

// Rounded sums and products that the compiler may not fuse into an fma: nvcc contracts a*b + c freely, and it
// could do so differently in the pricing and the sample-path kernels (or in the European and the Asian
// payoff), which would break "the same path gives the same bits" for the cost of a few instructions per step.
BS_HD float add_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
BS_HD float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

// ln(S_k / S_0) after k steps whose normals sum to zsum; `mirrored` is the antithetic path (every Z negated).
// One explicit fma, so that every kernel (pricing, sample paths) rounds it the same way.
BS_HD float log_growth(const PathConstants& c, int k, float zsum, bool mirrored) {
  const float drift = mul_rn(c.nudt, static_cast<float>(k));
#if defined(__CUDA_ARCH__)
  return fmaf(mirrored ? -c.sdt : c.sdt, zsum, drift);
#else
  return std::fma(mirrored ? -c.sdt : c.sdt, zsum, drift);
#endif
}

template <OptionType Opt>
BS_HD float payoff(const PathConstants& c, float s_t, float sum_growth) {
  if constexpr (Opt == OptionType::Call) {
    return s_t > c.strike ? s_t - c.strike : 0.0f;
  } else if constexpr (Opt == OptionType::Put) {
    return c.strike > s_t ? c.strike - s_t : 0.0f;
  } else {
    // Arithmetic average of S_1..S_n = S_0 * mean of the growth factors.
    const float average = mul_rn(c.s0, mul_rn(sum_growth, c.inv_steps));
    return average > c.strike ? average - c.strike : 0.0f;
  }
}

struct SampleOutcome {
  float value = 0;       // undiscounted payoff (the mean of the pair's two with antithetic variates)
  float s_t = 0;         // terminal price
  float s_t_mirror = 0;  // terminal price of the antithetic path
};

// Feed it the normals of one sample in order (step(c, 1, Z_1), step(c, 2, Z_2), ...), then call finish().
template <OptionType Opt, bool Antithetic>
struct PathAccumulator {
  float zsum = 0;
  float growth = 0, growth_mirror = 0;          // S_k / S_0 at the last step (Asian only, until finish)
  float sum_growth = 0, sum_growth_mirror = 0;  // Asian only

  BS_HD void step(const PathConstants& c, int k, float z) {
    zsum = add_rn(zsum, z);
    if constexpr (Opt == OptionType::AsianCall) {
      growth = fast_exp(log_growth(c, k, zsum, false));
      sum_growth = add_rn(sum_growth, growth);
      if constexpr (Antithetic) {
        growth_mirror = fast_exp(log_growth(c, k, zsum, true));
        sum_growth_mirror = add_rn(sum_growth_mirror, growth_mirror);
      }
    }
  }

  BS_HD SampleOutcome finish(const PathConstants& c) {
    if constexpr (Opt != OptionType::AsianCall) {
      growth = fast_exp(log_growth(c, c.steps, zsum, false));
      if constexpr (Antithetic) growth_mirror = fast_exp(log_growth(c, c.steps, zsum, true));
    }
    SampleOutcome o;
    o.s_t = mul_rn(c.s0, growth);
    o.value = payoff<Opt>(c, o.s_t, sum_growth);
    if constexpr (Antithetic) {
      o.s_t_mirror = mul_rn(c.s0, growth_mirror);
      o.value = 0.5f * (o.value + payoff<Opt>(c, o.s_t_mirror, sum_growth_mirror));
    }
    return o;
  }
};

}  // namespace bs::montecarlo
