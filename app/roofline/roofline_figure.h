// roofline_figure.h: the roofline as a figure (ui/figure.h: the one painter for screen, SVG and PNG), its
// table (CSV, JSON) and the files `blockscope roofline` and the Roofline window write. Ceilings are lines of
// a log-log plot (GFLOP/s against FLOP per DRAM byte); every timed run with FLOPs is a point at its model
// intensity, and a second point where counters measured its DRAM bytes; runs without FLOPs (copies,
// transposes) have no point and are listed in the table with their % of the bandwidth ceiling. The GPU's
// tensor-core ceilings (BF16, FP16, TF32: measured, ceilings.h) are roofs of their own, labelled with their
// precision; a run on tensor cores is placed under its precision's roof.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "core/roofline.h"
#include "core/work_model.h"
#include "gpu/roofline/ceilings.h"
#include "ui/figure.h"

namespace bs::roofline {

// What the figure and tables are made from.
struct Chart {
  std::optional<Ceilings> gpu, cpu;
  std::optional<Datasheet> datasheet;  // of the GPU, when known
  std::vector<work::RunRecord> runs;
  std::string title = "Roofline";
  // Sweeps: one legend entry per variant (a sweep's series, in first-seen order); else one per side (GPU
  // runs, CPU runs).
  bool series_per_variant = false;
  // The caches in front of DRAM (bytes, 0 unknown): the GPU's L2 and the CPU's last-level cache. A run whose
  // footprint fits in one is explained where it passes the DRAM ceiling.
  double gpu_cache_bytes = 0, cpu_cache_bytes = 0;
};

Roof dram_roof(const Ceilings& c);                         // FP32 peak under the DRAM (copy) bandwidth
// The GPU's or the CPU's; a GPU run on tensor cores (work.math) gets its precision's ceiling under the DRAM
// bandwidth. Invalid when that ceiling is absent (roof_missing says why).
Roof roof_for(const Chart& ch, const work::RunRecord& r);
std::string roof_missing(const Chart& ch, const work::RunRecord& r);  // "" when roof_for is valid

fig::Figure make_figure(const Chart& ch);
// One row per run: label, lab, variant, device, seconds, FLOPs, model bytes, measured bytes, intensities,
// GFLOP/s, GB/s, bound, % of the nearer ceiling; then one row per ceiling.
std::string to_csv(const Chart& ch);
nlohmann::json to_json(const Chart& ch);

// Writes roofline.png (width x height; needs GL: a headless context is made), roofline.svg, roofline.csv,
// roofline.json and record.json into `dir` (created). Returns the file names written; errors (e.g. no GL for
// the PNG) are appended to `errors`.
std::vector<std::string> write_files(const Chart& ch, const std::string& dir, int width, int height,
                                     std::vector<std::string>& errors);

}  // namespace bs::roofline
