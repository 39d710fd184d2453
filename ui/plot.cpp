// plot.cpp: see plot.h. A thin adapter: series -> fig::Figure -> the figure painter.
#include "ui/plot.h"

#include <algorithm>

#include "ui/plot_export.h"

namespace bs::ui {

namespace {
uint32_t to_rgba(ImU32 c) {  // ImGui packs 0xAABBGGRR; figures use 0xRRGGBBAA
  const uint32_t r = (c >> IM_COL32_R_SHIFT) & 0xffu, g = (c >> IM_COL32_G_SHIFT) & 0xffu;
  const uint32_t b = (c >> IM_COL32_B_SHIFT) & 0xffu, a = (c >> IM_COL32_A_SHIFT) & 0xffu;
  return (r << 24) | (g << 16) | (b << 8) | a;
}
}  // namespace

fig::Figure figure_from_plot(const PlotAxes& axes, std::span<const PlotSeries> series) {
  fig::Figure f;
  f.kind = fig::Kind::Lines;
  f.x_label = axes.x_label;
  f.y_label = axes.y_label;
  f.log_x = axes.log_x;
  f.log_y = axes.log_y;
  f.y_from_zero = axes.y_from_zero;
  f.title = axes.y_label.empty() ? std::string("blockscope plot")
                                 : axes.y_label + (axes.x_label.empty() ? "" : " vs " + axes.x_label);
  for (size_t i = 0; i < series.size(); ++i) {
    const PlotSeries& s = series[i];
    fig::Series out;
    out.label = s.label;
    const size_t n = std::min(s.x.size(), s.y.size());
    out.x.assign(s.x.begin(), s.x.begin() + static_cast<std::ptrdiff_t>(n));
    out.y.assign(s.y.begin(), s.y.begin() + static_cast<std::ptrdiff_t>(n));
    if (s.y_lo.size() >= n && s.y_hi.size() >= n && n > 0) {
      out.y_lo.assign(s.y_lo.begin(), s.y_lo.begin() + static_cast<std::ptrdiff_t>(n));
      out.y_hi.assign(s.y_hi.begin(), s.y_hi.begin() + static_cast<std::ptrdiff_t>(n));
    }
    // The panel's colour on screen and in the files alike (the painter keeps it readable on white paper).
    out.rgba = s.color == 0 ? fig::palette(i) : to_rgba(s.color);
    f.series.push_back(std::move(out));
  }
  return f;
}

fig::Figure live_figure(const PlotAxes& axes, std::span<const PlotSeries> series) {
  fig::Figure f = figure_from_plot(axes, series);
  f.compact = true;
  return f;
}

bool plot_lines(const char* id, ImVec2 size, const PlotAxes& axes, std::span<const PlotSeries> series,
                FigureDrawn* drawn) {
  ImGui::PushID(id);
  if (size.y <= 0) size.y = std::max(ImGui::GetContentRegionAvail().y, 120.0f);
  const bool hovered =
      draw_figure("##plot", size, live_figure(axes, series), false, HoverPick::Nearest, drawn);
  plot_export_menu(id, axes, series);  // right-click the plot: save it as PNG / SVG / CSV / JSON
  ImGui::PopID();
  return hovered;
}

}  // namespace bs::ui
