// scaling_figure.cpp: see scaling_figure.h.
#include "ui/multigpu/scaling_figure.h"

#include "core/text.h"

namespace bs::ui {

fig::Figure scaling_figure(const std::vector<multigpu::ScalingRow>& rows, ScalingKind kind, const std::string& what,
                           const std::string& subtitle) {
  fig::Figure f;
  f.kind = fig::Kind::Lines;
  f.title = (kind == ScalingKind::Strong ? "Strong scaling: " : "Weak scaling: ") + what;
  f.subtitle = subtitle;
  f.x_label = "GPUs";
  f.y_label = kind == ScalingKind::Strong ? "speedup over 1 GPU" : "scaled speedup (work x / time)";
  fig::Series measured, ideal;
  measured.label = "measured";
  ideal.label = "ideal";
  measured.rgba = fig::palette(0);
  ideal.rgba = 0x9a9a9aff;
  for (const auto& r : rows) {
    measured.x.push_back(r.gpus);
    measured.y.push_back(r.speedup);
    ideal.x.push_back(r.gpus);
    ideal.y.push_back(r.gpus);
  }
  if (!rows.empty()) {
    measured.label += " (efficiency " + fmt_fixed(100.0 * rows.back().efficiency, 1) + "% at " +
                      std::to_string(rows.back().gpus) + (rows.back().gpus == 1 ? " GPU)" : " GPUs)");
  }
  f.series = {ideal, measured};
  return f;
}

}  // namespace bs::ui
