// roofline.h: a sweep drawn as a roofline (the figure kind "roofline": `--metric roofline`, the Sweep
// window's "roofline" button). Every series at every point becomes one run at its model intensity (FLOPs over
// the minimum DRAM bytes, from the lab's work model through Target::work_model) and its achieved GFLOP/s
// (runs without FLOPs: their GB/s, in the table), under the ceilings measured on this machine (gpu/roofline,
// cached per device). The figure, CSV and JSON are app/roofline/roofline_figure's, so a sweep and the Roofline window
// draw alike. Pure C++ (no CUDA, no ImGui).
#pragma once

#include <string>
#include <vector>

#include "app/roofline/roofline_figure.h"
#include "app/sweep/export.h"
#include "app/sweep/figure.h"
#include "app/sweep/target.h"

namespace bs::sweep {

// "" when the lab has a work model, else the refusal: "the roofline figure needs the lab's work model
// (FLOPs and DRAM bytes per run): lab X has none (labs with one: heat, matmul, ...)".
std::string roofline_refusal(const Target& t);
// Throws bs::InvalidRequest with roofline_refusal()'s message when it is not empty.
void check_roofline(const Target& t);

// The result's runs (median time of each series at each point, labelled "lab: series, param=value ...")
// under the ceilings of `opt`, one legend entry per series. Series without a model are left out
// (`unmodelled` lists their names once each, when given).
roofline::Chart roofline_chart(const Result& r, const Target& t, const FigureOptions& opt,
                               std::vector<std::string>* unmodelled = nullptr);
// The figure of roofline_chart(); its subtitle names the ceilings (device, date) or says which are missing,
// and which series have no model.
fig::Figure roofline_figure(const Result& r, const Target& t, const FigureOptions& opt);

// Fills opt's ceilings for the sides a sweep runs (`gpu`, `cpu`) as `blockscope roofline` does: from the
// cache in `cache_dir`, else measured now and cached. A side that cannot be measured (no GPU, a CUDA error)
// stays empty. Returns one line per side saying what happened.
std::vector<std::string> fill_ceilings(FigureOptions& opt, bool gpu, bool cpu, const std::string& cache_dir);

}  // namespace bs::sweep
