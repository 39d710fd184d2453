// figure.cpp: see figure.h. The painter: the layout of lines, heat maps and bars onto any Canvas. The SVG
// canvas is in figure_svg.cpp, the screen and PNG canvases in figure_view.cpp, so every output shares this
// layout; scales and colours are in figure_scale.cpp.
#include "ui/figure.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "ui/text_fit.h"

namespace bs::fig {

namespace {

struct Box {
  float x0, y0, x1, y1;
  float w() const { return x1 - x0; }
  float h() const { return y1 - y0; }
};

std::string fit_text(Canvas& c, const std::string& s, TextStyle st, float max_w);

// Space between the figure's edge and its outermost text, in body text heights.
float edge(const Figure& f) {
  return f.compact ? 0.25f : 0.6f;
}

// Title and subtitle at the top (shortened to the width); returns the y where the chart may start. Compact
// figures have none: the panel around them names the plot.
float paint_header(const Figure& f, Canvas& c, const Box& b, const Theme& t) {
  const float fh = c.font_size(TextStyle::Body);
  if (f.compact) return b.y0 + fh * 0.2f;
  float y = b.y0 + fh * 0.7f;
  if (!f.title.empty()) {
    const float ft = c.font_size(TextStyle::Title);
    c.text(Pt{b.x0 + fh, y + ft * 0.5f}, fit_text(c, f.title, TextStyle::Title, b.w() - fh * 2),
           TextStyle::Title, t.text);
    y += ft * 1.35f;
  }
  if (!f.subtitle.empty()) {
    const float fs = c.font_size(TextStyle::Small);
    c.text(Pt{b.x0 + fh, y + fs * 0.5f}, fit_text(c, f.subtitle, TextStyle::Small, b.w() - fh * 2),
           TextStyle::Small, t.text_dim);
    y += fs * 1.5f;
  }
  return y + fh * 0.6f;
}

void paint_no_data(Canvas& c, const Box& plot, const Theme& t) {
  c.rect(Pt{plot.x0, plot.y0}, Pt{plot.x1, plot.y1}, 0, t.axis, 1.0f);
  c.text(Pt{(plot.x0 + plot.x1) * 0.5f, (plot.y0 + plot.y1) * 0.5f}, "no data", TextStyle::Body, t.text_dim,
         Anchor::Middle);
}

// The x label under the plot; the y label along it unless `y_along` is false (drawn elsewhere).
void paint_axis_labels(const Figure& f, Canvas& c, const Box& b, const Box& plot, const Theme& t,
                       float x_label_y, bool y_along = true) {
  const float fh = c.font_size(TextStyle::Body);
  if (!f.x_label.empty())
    c.text(Pt{(plot.x0 + plot.x1) * 0.5f, x_label_y}, f.x_label, TextStyle::Body, t.text, Anchor::Middle);
  if (!f.y_label.empty() && y_along)
    c.text(Pt{b.x0 + fh * (edge(f) + 0.5f), (plot.y0 + plot.y1) * 0.5f},
           fit_text(c, f.y_label, TextStyle::Body, std::max(plot.h(), fh)), TextStyle::Body, t.text,
           Anchor::Middle, 90.0f);
}

float max_width(Canvas& c, const std::vector<std::string>& labels, TextStyle st) {
  float w = 0;
  for (const auto& s : labels)
    w = std::max(w, c.text_width(s, st));
  return w;
}

// `s` shortened with "..." to at most max_w wide (whole UTF-8 characters only).
std::string fit_text(Canvas& c, const std::string& s, TextStyle st, float max_w) {
  return ui::fit_text_with(s, max_w, [&](const std::string& t) { return c.text_width(t, st); });
}

std::vector<std::string> tick_labels(const std::vector<double>& ticks) {
  std::vector<std::string> out;
  for (double v : ticks)
    out.push_back(format_tick(v));
  return out;
}

// Value axis on the left of `plot`: grid lines, tick marks and labels.
void paint_y_axis(Canvas& c, const Box& plot, const Axis& ay, const Theme& t) {
  const float fh = c.font_size(TextStyle::Body);
  auto ymap = [&](double v) { return plot.y1 - static_cast<float>(ay.frac(v)) * plot.h(); };
  for (double v : ay.minor)
    c.line(Pt{plot.x0, ymap(v)}, Pt{plot.x1, ymap(v)}, t.grid & 0xffffff70u, 1.0f);
  for (double v : ay.ticks) {
    const float y = ymap(v);
    if (y < plot.y0 - 0.5f || y > plot.y1 + 0.5f) continue;
    c.line(Pt{plot.x0, y}, Pt{plot.x1, y}, t.grid, 1.0f);
    c.line(Pt{plot.x0 - fh * 0.3f, y}, Pt{plot.x0, y}, t.axis, 1.0f);
    c.text(Pt{plot.x0 - fh * 0.6f, y}, format_tick(v), TextStyle::Small, t.text, Anchor::End);
  }
}

std::string hit_line(const std::string& label, const std::string& fallback, double v) {
  return (label.empty() ? fallback : label) + ": " + format_value(v);
}

// ---- Lines ----
// A legend entry: line sample with the series' marker, then the label (y is the entry's middle), shortened
// to `label_w` where given.
void legend_entry(Canvas& c, float x, float y, const Series& s, int shape, const Theme& t,
                  float label_w = -1.0f) {
  const float fh = c.font_size(TextStyle::Body);
  const uint32_t rgba = readable_on(s.rgba, t.background);
  if (!s.points_only) c.line(Pt{x, y}, Pt{x + fh * 1.8f, y}, rgba, 2.2f);
  c.marker(Pt{x + fh * 0.9f, y}, shape, fh * 0.27f, rgba, t.background);
  c.text(Pt{x + fh * 2.3f, y}, label_w < 0 ? s.label : fit_text(c, s.label, TextStyle::Body, label_w),
         TextStyle::Body, t.text);
}

// The range of the points that are drawn: NaN, inf, and <= 0 on a log axis are skipped. Markers do not widen
// the x range: one outside the data (a crossover never reached) is not drawn.
void lines_range(const Figure& f, Range& rx, Range& ry) {
  for (const auto& s : f.series) {
    const size_t n = std::min(s.x.size(), s.y.size());
    for (size_t i = 0; i < n; ++i) {
      if (!std::isfinite(s.y[i]) || (f.log_y && s.y[i] <= 0)) continue;
      if (!std::isfinite(s.x[i]) || (f.log_x && s.x[i] <= 0)) continue;
      rx.add(s.x[i], f.log_x);
      ry.add(s.y[i], f.log_y);
      if (i < s.y_lo.size()) ry.add(s.y_lo[i], f.log_y);
      if (i < s.y_hi.size()) ry.add(s.y_hi[i], f.log_y);
    }
  }
}

// Where a line plot's legend goes: inside the plot (placed once the points are known) or in rows above it.
struct LinesLegend {
  std::vector<size_t> listed;  // the series with a label
  float w = 0, h = 0, row = 0;
  bool inside = true;
  bool caption = false;  // the y label is a caption above the plot, not along it
  float top_after = 0;   // where the plot may start
};

// The caption and the legend rows above the plot. The legend goes inside the plot unless it would hide too
// much of a small plot: then it is a row (or rows) of entries between the header and the plot.
LinesLegend paint_lines_top(const Figure& f, Canvas& c, const Box& b, const Theme& t, float top,
                            bool has_data) {
  const float fh = c.font_size(TextStyle::Body);
  LinesLegend lg;
  for (size_t i = 0; i < f.series.size(); ++i)
    if (!f.series[i].label.empty()) {
      lg.listed.push_back(i);
      lg.w = std::max(lg.w, c.text_width(f.series[i].label, TextStyle::Body));
    }
  lg.row = fh * 1.35f;
  lg.w += fh * 3.2f;
  lg.h = lg.row * static_cast<float>(lg.listed.size()) + fh * 0.5f;
  lg.top_after = top;
  // A compact plot names its y axis in a caption above it (the legend may share that row), not along it: a
  // short panel has no height for a rotated label, and the width goes to the data.
  const float m = edge(f);
  lg.caption = f.compact && !f.y_label.empty();
  float row_x0 = b.x0 + fh * (f.compact ? m : 1.0f);
  if (lg.caption) {
    const std::string text = fit_text(c, f.y_label, TextStyle::Body, b.w() - fh * 2 * m);
    c.text(Pt{row_x0, top + lg.row * 0.5f}, text, TextStyle::Body, t.text);
    row_x0 += c.text_width(text, TextStyle::Body) + fh * 1.2f;
    lg.top_after = top + lg.row;
  }
  if (lg.listed.empty() || !has_data) return lg;
  const float pw = b.w() - fh * 7, ph = b.y1 - top - fh * 4.5f;
  // A compact plot has no room to spare for a row above it; its legend may take more of the plot (the
  // corner it goes to is the one with the fewest points, and its background is translucent).
  const float area = f.compact ? 0.3f : 0.12f, side = f.compact ? 0.62f : 0.45f;
  if (lg.w * lg.h > area * pw * ph || lg.h > side * ph || lg.w > side * pw) {
    lg.inside = false;
    const float x0 = b.x0 + fh * (f.compact ? m : 1.0f), x1 = b.x1 - fh * (f.compact ? m : 1.0f);
    float lx = row_x0, ly = top + lg.row * 0.5f;
    for (size_t i : lg.listed) {
      const float ew = c.text_width(f.series[i].label, TextStyle::Body) + fh * 3.6f;
      if (lx > x0 && lx + ew > x1) lx = x0, ly += lg.row;
      // An entry wider than a whole row (a long label in a narrow panel, or a wider fallback font) is
      // shortened to the row instead of running past the figure's edge.
      legend_entry(c, lx, ly, f.series[i], static_cast<int>(i % 4), t, x1 - lx - fh * 2.3f);
      lx += ew;
    }
    lg.top_after = ly + lg.row * 0.5f + fh * 0.2f;
  }
  return lg;
}

// The x axis: its count follows the figure's width (the same with or without the compact margins), and ticks
// whose labels would collide are thinned.
Axis lines_x_axis(const Figure& f, Canvas& c, const Box& b, const Box& plot, const Range& rx) {
  const float fh = c.font_size(TextStyle::Body);
  Axis ax =
      make_axis(rx, f.log_x, std::clamp(static_cast<int>((b.w() - fh * 7) / (fh * 9)), 2, 10), false, 0.03);
  const auto labels = tick_labels(ax.ticks);
  const float need = (max_width(c, labels, TextStyle::Small) + fh) * static_cast<float>(ax.ticks.size());
  if (need > plot.w() && ax.ticks.size() > 2) {
    const size_t step = static_cast<size_t>(std::ceil(need / plot.w()));
    std::vector<double> kept;
    for (size_t i = 0; i < ax.ticks.size(); i += step)
      kept.push_back(ax.ticks[i]);
    ax.ticks = kept;
  }
  return ax;
}

// Maps data to the plot box.
struct PlotMap {
  const Box& plot;
  const Axis& ax;
  const Axis& ay;
  Pt operator()(double x, double y) const {
    return Pt{plot.x0 + static_cast<float>(ax.frac(x)) * plot.w(),
              plot.y1 - static_cast<float>(ay.frac(y)) * plot.h()};
  }
};

void paint_x_axis(Canvas& c, const PlotMap& map, const Theme& t) {
  const float fh = c.font_size(TextStyle::Body), fs = c.font_size(TextStyle::Small);
  const Box& plot = map.plot;
  for (double v : map.ax.minor)
    c.line(Pt{map(v, map.ay.lo).x, plot.y0}, Pt{map(v, map.ay.lo).x, plot.y1}, t.grid & 0xffffff70u, 1);
  for (double v : map.ax.ticks) {
    const float x = map(v, map.ay.lo).x;
    if (x < plot.x0 - 0.5f || x > plot.x1 + 0.5f) continue;
    c.line(Pt{x, plot.y0}, Pt{x, plot.y1}, t.grid, 1.0f);
    c.line(Pt{x, plot.y1}, Pt{x, plot.y1 + fh * 0.3f}, t.axis, 1.0f);
    c.text(Pt{x, plot.y1 + fh * 0.35f + fs * 0.6f}, format_tick(v), TextStyle::Small, t.text, Anchor::Middle);
  }
}

// The p10-p90 bands, drawn before any line so every line stays on top of every band.
void paint_bands(const Figure& f, Canvas& c, const PlotMap& map, const Theme& t) {
  for (const auto& s : f.series) {
    const size_t n = std::min(s.x.size(), s.y.size());
    if (s.y_lo.size() < n || s.y_hi.size() < n) continue;
    std::vector<Pt> up, lo;
    for (size_t i = 0; i < n; ++i) {
      if (!map.ax.accepts(s.x[i]) || !map.ay.accepts(s.y_lo[i]) || !map.ay.accepts(s.y_hi[i])) continue;
      up.push_back(map(s.x[i], s.y_hi[i]));
      lo.push_back(map(s.x[i], s.y_lo[i]));
    }
    if (up.size() >= 2) c.band(up, lo, (readable_on(s.rgba, t.background) & 0xffffff00u) | 0x38u);
  }
}

// A vertical marker's label: drawn last, over the lines, in its box.
struct MarkerLabel {
  Box box;
  Pt at;
  const std::string* text;
};

// Vertical markers: dashed lines under the data; their labels near the top, staggered, are returned.
std::vector<MarkerLabel> paint_markers(const Figure& f, Canvas& c, const PlotMap& map, const Theme& t) {
  const float fh = c.font_size(TextStyle::Body), fs = c.font_size(TextStyle::Small);
  const Box& plot = map.plot;
  std::vector<MarkerLabel> labels;
  for (size_t k = 0; k < f.markers.size(); ++k) {
    const auto& m = f.markers[k];
    if (!map.ax.accepts(m.x) || m.x < map.ax.lo || m.x > map.ax.hi) continue;
    const float x = map(m.x, map.ay.lo).x;
    c.line(Pt{x, plot.y0}, Pt{x, plot.y1}, t.text_dim, 1.3f, true);
    if (m.label.empty()) continue;
    const float tw = c.text_width(m.label, TextStyle::Small);
    const float ly = plot.y0 + fs * (0.9f + 1.5f * static_cast<float>(k % 4));
    const bool left = x + fh * 0.4f + tw > plot.x1;
    const float lx0 = left ? x - fh * 0.4f - tw : x + fh * 0.4f;
    labels.push_back(
        MarkerLabel{Box{lx0 - 3, ly - fs * 0.65f, lx0 + tw + 3, ly + fs * 0.65f}, Pt{lx0, ly}, &m.label});
  }
  return labels;
}

// The hover text of one point of series `si`.
Hit point_hit(const Figure& f, size_t si, size_t i, Pt p) {
  const auto& s = f.series[si];
  Hit h;
  h.x0 = h.x1 = p.x;
  h.y0 = h.y1 = p.y;
  h.point = true;
  h.series = static_cast<int>(si);
  h.text = (s.label.empty() ? std::string("series ") + std::to_string(si + 1) : s.label) + "\n" +
           hit_line(f.x_label, "x", s.x[i]) + "\n" + hit_line(f.y_label, "y", s.y[i]);
  if (i < s.point_labels.size()) h.text = s.point_labels[i] + "\n" + h.text;
  if (i < s.y_lo.size() && i < s.y_hi.size())
    h.text += "\np10-p90: " + format_value(s.y_lo[i]) + " - " + format_value(s.y_hi[i]);
  return h;
}

// Lines, then point markers (distinct shapes per series: readable in greyscale print). Returns the points
// the inside legend should avoid: the markers and samples along every segment.
std::vector<Pt> paint_series(const Figure& f, Canvas& c, const PlotMap& map, const Theme& t,
                             std::vector<Hit>* hits) {
  const float fh = c.font_size(TextStyle::Body);
  std::vector<Pt> all_pts;
  for (size_t si = 0; si < f.series.size(); ++si) {
    const auto& s = f.series[si];
    const size_t n = std::min(s.x.size(), s.y.size());
    const uint32_t rgba = readable_on(s.rgba, t.background);
    std::vector<Pt> pts;
    for (size_t i = 0; i < n; ++i) {
      if (!map.ax.accepts(s.x[i]) || !map.ay.accepts(s.y[i])) continue;
      pts.push_back(map(s.x[i], s.y[i]));
      if (hits) hits->push_back(point_hit(f, si, i, pts.back()));
    }
    if (!s.points_only) c.polyline(pts, rgba, 2.2f);
    if (pts.size() <= 60 || s.points_only)
      for (const Pt& p : pts)
        c.marker(p, static_cast<int>(si % 4), fh * 0.27f, rgba, t.background);
    for (size_t i = 0; !s.points_only && i + 1 < pts.size(); ++i)
      for (int k = 0; k < 8; ++k) {
        const float u = static_cast<float>(k) / 8;
        all_pts.push_back(
            Pt{pts[i].x + (pts[i + 1].x - pts[i].x) * u, pts[i].y + (pts[i + 1].y - pts[i].y) * u});
      }
    if (s.points_only)
      all_pts.insert(all_pts.end(), pts.begin(), pts.end());
    else if (!pts.empty())
      all_pts.push_back(pts.back());
  }
  return all_pts;
}

// The legend in the plot corner with the fewest points and marker labels underneath.
void paint_legend_inside(const Figure& f, Canvas& c, const Box& plot, const LinesLegend& lg,
                         const std::vector<Pt>& all_pts, const std::vector<MarkerLabel>& labels,
                         const Theme& t) {
  const float fh = c.font_size(TextStyle::Body);
  const float inset = fh * 0.6f, lw = lg.w, lh = lg.h;
  const std::array<Box, 4> corners = {
      Box{plot.x0 + inset, plot.y0 + inset, plot.x0 + inset + lw, plot.y0 + inset + lh},
      Box{plot.x1 - inset - lw, plot.y0 + inset, plot.x1 - inset, plot.y0 + inset + lh},
      Box{plot.x1 - inset - lw, plot.y1 - inset - lh, plot.x1 - inset, plot.y1 - inset},
      Box{plot.x0 + inset, plot.y1 - inset - lh, plot.x0 + inset + lw, plot.y1 - inset}};
  size_t best = 0, best_count = std::numeric_limits<size_t>::max();
  for (size_t k = 0; k < corners.size(); ++k) {
    const Box& q = corners[k];
    size_t count = 0;
    for (const Pt& p : all_pts)
      count += (p.x >= q.x0 && p.x <= q.x1 && p.y >= q.y0 && p.y <= q.y1) ? 1 : 0;
    for (const MarkerLabel& ml : labels) {
      const Box& lb = ml.box;
      count += (lb.x1 >= q.x0 && lb.x0 <= q.x1 && lb.y1 >= q.y0 && lb.y0 <= q.y1) ? 100 : 0;
    }
    if (count < best_count) best = k, best_count = count;
  }
  const Box& q = corners[best];
  c.rect(Pt{q.x0, q.y0}, Pt{q.x1, q.y1}, t.legend_bg, t.grid, 1.0f);
  for (size_t k = 0; k < lg.listed.size(); ++k) {
    const float y = q.y0 + fh * 0.25f + lg.row * (static_cast<float>(k) + 0.5f);
    legend_entry(c, q.x0 + fh * 0.5f, y, f.series[lg.listed[k]], static_cast<int>(lg.listed[k] % 4), t);
  }
}

void paint_lines(const Figure& f, Canvas& c, const Box& b, const Theme& t, std::vector<Hit>* hits,
                 Layout* layout) {
  const float fh = c.font_size(TextStyle::Body), fs = c.font_size(TextStyle::Small);
  const float top = paint_header(f, c, b, t);
  Range rx, ry;
  lines_range(f, rx, ry);
  const bool has_data = rx.valid() && ry.valid();
  const LinesLegend lg = paint_lines_top(f, c, b, t, top, has_data);

  const float m = edge(f);
  Box plot{0, lg.top_after + fh * 0.3f, b.x1 - fh * (f.compact ? 1.2f : 1.5f),
           b.y1 - fh * m - fs * 1.6f - (f.x_label.empty() ? 0 : fh * 1.3f)};
  // The tick count follows the figure's height, not whether it shows a title: a compact plot on screen and
  // its export at the same size get the same ticks.
  const int y_target = std::clamp(static_cast<int>((b.h() - fh * 6.0f) / (fh * 4.0f)), 2, 10);
  Axis ay;
  float ylab_w = 0;
  if (has_data) {
    ay = make_axis(ry, f.log_y, y_target, f.y_from_zero, f.log_y ? 0.05 : 0.06);
    ylab_w = max_width(c, tick_labels(ay.ticks), TextStyle::Small);
  }
  plot.x0 = b.x0 + fh * m + (f.y_label.empty() || lg.caption ? 0 : fh * 1.6f) + ylab_w + fh * 0.6f;
  const float x_label_y = b.y1 - fh * m - fh * 0.5f;
  if (plot.w() < fh * 2 || plot.h() < fh * 2) return;
  if (layout) *layout = Layout{plot.x0, plot.y0, plot.x1, plot.y1, false, {}, {}};
  paint_axis_labels(f, c, b, plot, t, x_label_y, !lg.caption);
  if (!has_data) {
    paint_no_data(c, plot, t);
    return;
  }
  const Axis ax = lines_x_axis(f, c, b, plot, rx);
  const PlotMap map{plot, ax, ay};
  if (layout) {
    layout->has_axes = true;
    layout->x = ax;
    layout->y = ay;
  }

  paint_y_axis(c, plot, ay, t);
  paint_x_axis(c, map, t);
  c.line(Pt{plot.x0, plot.y0}, Pt{plot.x0, plot.y1}, t.axis, 1.2f);
  c.line(Pt{plot.x0, plot.y1}, Pt{plot.x1, plot.y1}, t.axis, 1.2f);
  paint_bands(f, c, map, t);
  const std::vector<MarkerLabel> labels = paint_markers(f, c, map, t);
  const std::vector<Pt> all_pts = paint_series(f, c, map, t, hits);
  for (const MarkerLabel& ml : labels) {
    c.rect(Pt{ml.box.x0, ml.box.y0}, Pt{ml.box.x1, ml.box.y1}, t.legend_bg);
    c.text(ml.at, *ml.text, TextStyle::Small, t.text);
  }
  if (!lg.listed.empty() && lg.inside) paint_legend_inside(f, c, plot, lg, all_pts, labels, t);
}

// ---- Heat map ----
float luminance(uint32_t rgba) {
  return (0.2126f * ((rgba >> 24) & 0xff) + 0.7152f * ((rgba >> 16) & 0xff) +
          0.0722f * ((rgba >> 8) & 0xff)) /
         255.0f;
}

void paint_heatmap(const Figure& f, Canvas& c, const Box& b, const Theme& t, std::vector<Hit>* hits,
                   Layout* layout) {
  const float fh = c.font_size(TextStyle::Body), fs = c.font_size(TextStyle::Small);
  const Heatmap& hm = f.heatmap;
  const float top = paint_header(f, c, b, t);
  const size_t nx = hm.x_values.size(), ny = hm.y_values.size();
  const bool has_data = nx > 0 && ny > 0 && hm.values.size() == nx * ny;
  Range r;
  if (has_data)
    for (double v : hm.values)
      r.add(v, false);

  // Colour bar on the right: bar, tick labels, value label.
  std::vector<double> bar_ticks;
  if (r.valid()) bar_ticks = nice_ticks(r.lo, r.hi == r.lo ? r.lo + 1 : r.hi, 5, false);
  const float bar_lab_w = max_width(c, tick_labels(bar_ticks), TextStyle::Small);
  const float right_w =
      r.valid() ? fh * 1.2f + fh * 1.1f + fh * 0.6f + bar_lab_w + (hm.value_label.empty() ? 0 : fh * 1.8f)
                : 0;
  const float ycat_w = max_width(c, hm.y_values, TextStyle::Small);
  Box grid{b.x0 + fh * 0.6f + (f.y_label.empty() ? 0 : fh * 1.6f) + ycat_w + fh * 0.6f, top + fh * 0.3f,
           b.x1 - fh * 1.0f - right_w, b.y1 - fh * 0.6f - fs * 1.6f - (f.x_label.empty() ? 0 : fh * 1.3f)};
  if (grid.w() < fh * 2 || grid.h() < fh * 2) return;
  if (layout) *layout = Layout{grid.x0, grid.y0, grid.x1, grid.y1, false, {}, {}};
  paint_axis_labels(f, c, b, grid, t, b.y1 - fh * 1.1f);
  if (!has_data) {
    paint_no_data(c, grid, t);
    return;
  }
  const double lo = r.valid() ? r.lo : 0, hi = r.valid() ? r.hi : 1;
  // Brightness = goodness: the best cell is the brightest whichever direction is better.
  auto goodness = [&](double v) {
    const double u = hi > lo ? (v - lo) / (hi - lo) : 0.5;
    return hm.higher_is_better ? u : 1 - u;
  };
  const float cw = grid.w() / static_cast<float>(nx), ch = grid.h() / static_cast<float>(ny);
  const float gap = std::min(2.0f, std::min(cw, ch) * 0.05f);
  const int best = best_cell(hm);
  auto cell_box = [&](size_t row, size_t col) {  // row 0 at the bottom, like a plot's y axis
    return Box{grid.x0 + cw * col + gap * 0.5f, grid.y1 - ch * (row + 1) + gap * 0.5f,
               grid.x0 + cw * (col + 1) - gap * 0.5f, grid.y1 - ch * row - gap * 0.5f};
  };
  for (size_t row = 0; row < ny; ++row) {
    for (size_t col = 0; col < nx; ++col) {
      const double v = hm.values[row * nx + col];
      const Box q = cell_box(row, col);
      const bool ok = std::isfinite(v);
      const uint32_t fill = ok ? colormap(goodness(v)) : t.missing;
      const std::string id = "cell-r" + std::to_string(row) + "-c" + std::to_string(col);
      c.rect(Pt{q.x0, q.y0}, Pt{q.x1, q.y1}, fill, 0, 0, id.c_str());
      const uint32_t ink = ok ? (luminance(fill) > 0.45f ? 0x111111ffu : 0xffffffffu) : 0x333333ffu;
      const std::string val = ok ? format_value(v) : "n/a";
      const Pt mid{(q.x0 + q.x1) * 0.5f, (q.y0 + q.y1) * 0.5f};
      const bool is_best = static_cast<int>(row * nx + col) == best;
      // Roomy cells get body-size values; the best cell's label goes under its value when it fits.
      const TextStyle vs = (q.h() >= fh * 3.2f && c.text_width(val, TextStyle::Body) < q.w() - 8)
                               ? TextStyle::Body
                               : TextStyle::Small;
      const float vh = c.font_size(vs);
      if (is_best && q.h() >= vh * 2.8f) {
        c.text(Pt{mid.x, mid.y - vh * 0.6f}, val, vs, ink, Anchor::Middle);
        c.text(Pt{mid.x, mid.y + vh * 0.7f}, "best", vs, ink, Anchor::Middle, 0, "best-label");
      } else if (is_best) {
        const bool both = c.text_width("best " + val, TextStyle::Small) < q.w() - 4;
        c.text(mid, both ? "best " + val : std::string("best"), TextStyle::Small, ink, Anchor::Middle, 0,
               "best-label");
      } else if (c.text_width(val, vs) < q.w() - 4) {
        c.text(mid, val, vs, ink, Anchor::Middle);
      }
      if (hits) {
        Hit h{q.x0, q.y0, q.x1, q.y1, false, ""};
        h.text = (f.x_label.empty() ? std::string("x") : f.x_label) + " = " + hm.x_values[col] + ", " +
                 (f.y_label.empty() ? std::string("y") : f.y_label) + " = " + hm.y_values[row] + "\n" +
                 (hm.value_label.empty() ? std::string("value") : hm.value_label) + ": " + val +
                 (is_best ? "  (best)" : "");
        const size_t k = row * nx + col;
        if (ok && k < hm.lo.size() && k < hm.hi.size())
          h.text += "\np10-p90: " + format_value(hm.lo[k]) + " - " + format_value(hm.hi[k]);
        hits->push_back(std::move(h));
      }
    }
  }
  if (best >= 0) {
    const Box q = cell_box(static_cast<size_t>(best) / nx, static_cast<size_t>(best) % nx);
    c.rect(Pt{q.x0 + 1.5f, q.y0 + 1.5f}, Pt{q.x1 - 1.5f, q.y1 - 1.5f}, 0, t.best, 3.0f, "best-cell");
  }
  // Category labels.
  for (size_t col = 0; col < nx; ++col)
    c.text(Pt{grid.x0 + cw * (col + 0.5f), grid.y1 + fh * 0.35f + fs * 0.6f}, hm.x_values[col],
           TextStyle::Small, t.text, Anchor::Middle);
  for (size_t row = 0; row < ny; ++row)
    c.text(Pt{grid.x0 - fh * 0.45f, grid.y1 - ch * (row + 0.5f)}, hm.y_values[row], TextStyle::Small, t.text,
           Anchor::End);

  // Colour bar: the value axis runs upward; colours as in the cells.
  if (!r.valid()) return;
  const float bx0 = grid.x1 + fh * 1.2f, bx1 = bx0 + fh * 1.1f;
  const float by0 = grid.y0, by1 = grid.y1;
  const int steps = 64;
  for (int i = 0; i < steps; ++i) {
    const double v0 = lo + (hi - lo) * i / steps, v1 = lo + (hi - lo) * (i + 1) / steps;
    const float y0 = by1 - (by1 - by0) * static_cast<float>(i + 1) / steps;
    const float y1 = by1 - (by1 - by0) * static_cast<float>(i) / steps;
    c.rect(Pt{bx0, y0 - 0.5f}, Pt{bx1, y1 + 0.5f}, colormap(goodness((v0 + v1) * 0.5)));
  }
  c.rect(Pt{bx0, by0}, Pt{bx1, by1}, 0, t.axis, 1.0f);
  for (double v : bar_ticks) {
    if (hi <= lo) break;
    const float y = by1 - static_cast<float>((v - lo) / (hi - lo)) * (by1 - by0);
    if (y < by0 - 0.5f || y > by1 + 0.5f) continue;
    c.line(Pt{bx1, y}, Pt{bx1 + fh * 0.3f, y}, t.axis, 1.0f);
    c.text(Pt{bx1 + fh * 0.6f, y}, format_tick(v), TextStyle::Small, t.text);
  }
  if (!hm.value_label.empty())
    c.text(Pt{bx1 + fh * 0.6f + bar_lab_w + fh * 1.1f, (by0 + by1) * 0.5f}, hm.value_label, TextStyle::Body,
           t.text, Anchor::Middle, 90.0f);
}

// ---- Bars ----
void paint_bars(const Figure& f, Canvas& c, const Box& b, const Theme& t, std::vector<Hit>* hits,
                Layout* layout) {
  const float fh = c.font_size(TextStyle::Body), fs = c.font_size(TextStyle::Small);
  const float top = paint_header(f, c, b, t);
  Range r;
  for (const auto& bar : f.bars) {
    r.add(bar.value, f.log_y);
    if (bar.lo != bar.hi) {
      r.add(bar.lo, f.log_y);
      r.add(bar.hi, f.log_y);
    }
  }
  const bool has_data = !f.bars.empty() && r.valid();
  std::vector<std::string> names;
  for (const auto& bar : f.bars)
    names.push_back(bar.label);
  float name_w = max_width(c, names, TextStyle::Small);
  // Long names are drawn at 35 degrees so they never run into each other.
  const float k_angle = 35.0f, rad = k_angle * 3.14159265f / 180.0f;
  const float right = b.x1 - fh * 1.2f;
  const float left_guess = b.x0 + fh * 4.5f + (f.y_label.empty() ? 0 : fh * 1.6f);
  const float slot_guess = f.bars.empty() ? 1 : (right - left_guess) / f.bars.size();
  const bool rotate = name_w > slot_guess * 0.92f;
  if (rotate) {
    // Shortened ("...") so the slanted names take at most a third of the figure's height.
    const float max_w = std::max(fh * 3, (b.h() / 3 - fs * std::cos(rad) - fh * 0.5f) / std::sin(rad));
    for (auto& n : names)
      n = fit_text(c, n, TextStyle::Small, max_w);
    name_w = std::min(name_w, max_w);
  }
  const float names_h = rotate ? name_w * std::sin(rad) + fs * std::cos(rad) + fh * 0.5f : fs * 1.6f;
  // Value labels wider than their bar's slot stand upright above the bar; the plot leaves room for them.
  std::vector<std::string> values;
  for (const auto& bar : f.bars)
    values.push_back(format_value(bar.value));
  const float value_w = max_width(c, values, TextStyle::Small);
  const bool upright = value_w > slot_guess * 0.9f;
  Box plot{0, top + (upright ? value_w + fs * 0.6f : fs * 1.4f), right,
           b.y1 - fh * 0.6f - names_h - (f.x_label.empty() ? 0 : fh * 1.3f)};
  Axis ay;
  float ylab_w = 0;
  if (has_data) {
    ay = make_axis(r, f.log_y, std::clamp(static_cast<int>(plot.h() / (fh * 4.5f)), 2, 8), true, 0.08);
    ylab_w = max_width(c, tick_labels(ay.ticks), TextStyle::Small);
  }
  plot.x0 = b.x0 + fh * 0.6f + (f.y_label.empty() ? 0 : fh * 1.6f) + ylab_w + fh * 0.6f;
  if (plot.w() < fh * 2 || plot.h() < fh * 2) return;
  if (layout) *layout = Layout{plot.x0, plot.y0, plot.x1, plot.y1, has_data, {}, ay};
  paint_axis_labels(f, c, b, plot, t, b.y1 - fh * 1.1f);
  if (!has_data) {
    paint_no_data(c, plot, t);
    return;
  }
  paint_y_axis(c, plot, ay, t);
  c.line(Pt{plot.x0, plot.y0}, Pt{plot.x0, plot.y1}, t.axis, 1.2f);
  c.line(Pt{plot.x0, plot.y1}, Pt{plot.x1, plot.y1}, t.axis, 1.2f);
  auto ymap = [&](double v) {
    if (!ay.accepts(v)) return plot.y1;
    return std::clamp(plot.y1 - static_cast<float>(ay.frac(v)) * plot.h(), plot.y0, plot.y1);
  };
  const float slot = plot.w() / static_cast<float>(f.bars.size());
  const float bw = std::min(slot * 0.62f, fh * 6.0f);
  for (size_t i = 0; i < f.bars.size(); ++i) {
    const Bar& bar = f.bars[i];
    const float cx = plot.x0 + slot * (static_cast<float>(i) + 0.5f);
    const float base = f.log_y ? plot.y1 : ymap(std::max(0.0, ay.lo));
    const bool ok = ay.accepts(bar.value);
    const float yv = ymap(bar.value);
    float label_y = yv;
    if (ok) c.rect(Pt{cx - bw * 0.5f, std::min(yv, base)}, Pt{cx + bw * 0.5f, std::max(yv, base)}, bar.rgba);
    if (ok && bar.lo != bar.hi && ay.accepts(bar.lo) && ay.accepts(bar.hi)) {
      const float ylo = ymap(bar.lo), yhi = ymap(bar.hi), cap = std::min(bw * 0.18f, fh * 0.5f);
      c.line(Pt{cx, ylo}, Pt{cx, yhi}, t.text, 1.5f);
      c.line(Pt{cx - cap, ylo}, Pt{cx + cap, ylo}, t.text, 1.5f);
      c.line(Pt{cx - cap, yhi}, Pt{cx + cap, yhi}, t.text, 1.5f);
      label_y = std::min(yv, yhi);
    }
    if (upright)
      c.text(Pt{cx, label_y - fs * 0.4f}, values[i], TextStyle::Small, t.text, Anchor::Start, 90.0f);
    else
      c.text(Pt{cx, label_y - fs * 0.8f}, values[i], TextStyle::Small, t.text, Anchor::Middle);
    if (rotate)
      c.text(Pt{cx + fs * 0.3f, plot.y1 + fh * 0.6f}, names[i], TextStyle::Small, t.text, Anchor::End,
             k_angle);
    else
      c.text(Pt{cx, plot.y1 + fh * 0.35f + fs * 0.6f}, names[i], TextStyle::Small, t.text, Anchor::Middle);
    if (hits) {
      Hit h{cx - slot * 0.5f, plot.y0, cx + slot * 0.5f, plot.y1, false, ""};
      h.text = bar.label + "\n" + hit_line(f.y_label, "value", bar.value);
      if (bar.lo != bar.hi) h.text += "\np10-p90: " + format_value(bar.lo) + " - " + format_value(bar.hi);
      hits->push_back(std::move(h));
    }
  }
}

}  // namespace

void paint(const Figure& f, Canvas& c, float x, float y, float w, float h, const Theme& theme,
           std::vector<Hit>* hits, Layout* layout) {
  const Box b{x, y, x + w, y + h};
  if (layout) *layout = Layout{};
  c.rect(Pt{b.x0, b.y0}, Pt{b.x1, b.y1}, theme.background);
  switch (f.kind) {
    case Kind::Lines:
      paint_lines(f, c, b, theme, hits, layout);
      break;
    case Kind::Heatmap:
      paint_heatmap(f, c, b, theme, hits, layout);
      break;
    case Kind::Bars:
      paint_bars(f, c, b, theme, hits, layout);
      break;
  }
}

}  // namespace bs::fig
