// roofline.cpp: see roofline.h.
#include "core/roofline.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/text.h"

namespace bs::roofline {

double ridge(const Roof& r) {
  return r.gbs > 0 ? r.peak_gflops / r.gbs : 0;
}

double attainable_gflops(const Roof& r, double intensity) {
  if (std::isinf(intensity)) return r.peak_gflops;
  return std::min(r.peak_gflops, r.gbs * intensity);
}

const char* to_string(Bound b) {
  return b == Bound::Memory ? "memory" : "compute";
}

Bound bound_at(const Roof& r, double intensity) {
  return intensity < ridge(r) ? Bound::Memory : Bound::Compute;
}

Placement place(const Roof& r, const work::RunRecord& run, bool measured) {
  Placement p;
  const double s = run.seconds;
  double bytes = run.work.model_bytes();
  if (measured && run.work.measured_dram_bytes && *run.work.measured_dram_bytes > 0) {
    bytes = *run.work.measured_dram_bytes;
    p.measured = true;
  }
  p.gflops = s > 0 ? run.work.flops / s / 1e9 : 0;
  p.gbs = s > 0 ? bytes / s / 1e9 : 0;
  if (run.work.flops <= 0) {
    p.no_flops = true;
    p.bound = Bound::Memory;
    p.pct = r.gbs > 0 ? 100.0 * p.gbs / r.gbs : 0;
    return p;
  }
  p.intensity = bytes > 0 ? run.work.flops / bytes : std::numeric_limits<double>::infinity();
  p.bound = bound_at(r, p.intensity);
  const double roof = attainable_gflops(r, p.intensity);
  p.pct = roof > 0 ? 100.0 * p.gflops / roof : 0;
  return p;
}

std::string Placement::text() const {
  const std::string pc = fmt_fixed(pct, pct < 10 ? 1 : 0) + "%";
  if (no_flops) return pc + " of the DRAM bandwidth ceiling (no FLOPs: data movement)";
  return pc + " of the " + (bound == Bound::Memory ? "DRAM bandwidth" : "FP32") + " ceiling (" +
         to_string(bound) + " bound, " +
         (std::isinf(intensity) ? "no DRAM bytes" : fmt_fixed(intensity, 2) + " FLOP/B") +
         (measured ? ", measured bytes" : ", model") + ")";
}

}  // namespace bs::roofline
