// scaling_figure.h: strong and weak scaling as figures (ui/figure.h), so they draw live and export like every
// plot (SVG, PNG, CSV, JSON). Pure C++, no CUDA.
#pragma once

#include <string>
#include <vector>

#include "gpu/multigpu/scaling.h"
#include "ui/figure.h"

namespace bs::ui {

enum class ScalingKind { Strong, Weak };
// Speedup against GPU count with the ideal line (y = k for strong, the work grows with k for weak) and the
// measured efficiency in the legend labels. `what` names the workload ("heat 16384x16384").
fig::Figure scaling_figure(const std::vector<multigpu::ScalingRow>& rows, ScalingKind kind, const std::string& what,
                           const std::string& subtitle);

}  // namespace bs::ui
