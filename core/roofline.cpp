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

namespace {

// Above the ceiling (100.5%: a rounding margin): the footprint against the cache, or the likely reasons.
std::string above_ceiling_note(const Roof& r, const work::RunRecord& run, double pct) {
  if (pct <= 100.5) return {};
  const double fp = run.work.footprint_bytes;
  const std::string cache = r.cache_name.empty() ? std::string("a cache") : r.cache_name;
  if (fp > 0 && r.cache_bytes > 0 && fp < r.cache_bytes)
    return "data fits in " + cache + " (" + fmt_fixed(fp / 1e6, fp < 1e7 ? 2 : 1) + " MB < " +
           fmt_fixed(r.cache_bytes / 1e6, r.cache_bytes < 1e7 ? 2 : 1) + " MB): served from the cache, not DRAM";
  if (fp > 0 && r.cache_bytes > 0)
    return "above the measured ceiling with data larger than " + cache + " (" + fmt_fixed(fp / 1e6, 1) +
           " MB): the model counts fewer bytes than moved, or the timing is noisy";
  return "above the DRAM ceiling: the data is likely served from a cache, not DRAM";
}

}  // namespace

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
    p.note = above_ceiling_note(r, run, p.pct);
    return p;
  }
  p.intensity = bytes > 0 ? run.work.flops / bytes : std::numeric_limits<double>::infinity();
  p.bound = bound_at(r, p.intensity);
  const double roof = attainable_gflops(r, p.intensity);
  p.pct = roof > 0 ? 100.0 * p.gflops / roof : 0;
  if (p.bound == Bound::Memory) p.note = above_ceiling_note(r, run, p.pct);
  return p;
}

std::string Placement::text() const {
  const std::string pc = fmt_fixed(pct, pct < 10 ? 1 : 0) + "%";
  const std::string why = note.empty() ? "" : "; " + note;
  if (no_flops) return pc + " of the DRAM bandwidth ceiling (no FLOPs: data movement)" + why;
  return pc + " of the " + (bound == Bound::Memory ? "DRAM bandwidth" : "FP32") + " ceiling (" +
         to_string(bound) + " bound, " +
         (std::isinf(intensity) ? "no DRAM bytes" : fmt_fixed(intensity, 2) + " FLOP/B") +
         (measured ? ", measured bytes" : ", model") + ")" + why;
}

}  // namespace bs::roofline
