// roofline.h: roofline geometry (pure C++). A roof is one compute ceiling (GFLOP/s) and one bandwidth
// (GB/s); a run of arithmetic intensity I (FLOPs per DRAM byte) can reach at most min(peak, bandwidth x I).
// The ridge point peak / bandwidth separates memory-bound intensities (left) from compute-bound ones.
#pragma once

#include <string>

#include "core/work_model.h"

namespace bs::roofline {

struct Roof {
  double peak_gflops = 0;
  double gbs = 0;
  // The cache in front of DRAM on this side (the GPU's L2, the CPU's last-level cache), 0 when unknown: a run
  // whose footprint fits in it can pass the DRAM ceiling, and its placement says so.
  double cache_bytes = 0;
  std::string cache_name;  // "L2", "the last-level cache"
  bool valid() const { return peak_gflops > 0 && gbs > 0; }
};

double ridge(const Roof& r);  // FLOP/byte
double attainable_gflops(const Roof& r, double intensity);

enum class Bound { Memory, Compute };
const char* to_string(Bound b);  // "memory" / "compute"
Bound bound_at(const Roof& r, double intensity);

// Where a run sits under a roof.
struct Placement {
  double intensity = 0;  // FLOP/byte (model bytes, or measured DRAM bytes when asked and known)
  double gflops = 0;     // achieved
  double gbs = 0;        // achieved DRAM bytes per second / 1e9 (the same bytes as the intensity)
  Bound bound = Bound::Memory;
  double pct = 0;            // % of the nearer ceiling: achieved / attainable at this intensity
  bool no_flops = false;     // a pure data-movement run: its % is of the bandwidth ceiling, it has no point
  bool measured = false;     // the intensity uses measured DRAM bytes
  // Above 100%: why. "data fits in L2 (0.52 MB < 50 MB): served from the cache, not DRAM", or, without a
  // footprint or a cache size, that a cache or the timing is the likely reason. Empty at or below 100%.
  std::string note;
  std::string text() const;  // "42% of the DRAM bandwidth ceiling (memory bound, 0.88 FLOP/B)[; note]"
};
// `measured`: use the run's measured DRAM bytes where it has them.
Placement place(const Roof& r, const work::RunRecord& run, bool measured = false);

}  // namespace bs::roofline
