// figure.cpp: see figure.h.
#include "app/sweep/figure.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "app/sweep/definition.h"
#include "app/sweep/roofline.h"
#include "app/sweep/targets.h"
#include "app/sweep/util.h"

namespace bs::sweep {

using util::fmt;
using util::join;

std::optional<double> find_crossover(const std::vector<double>& x, const std::vector<double>& gpu_ms,
                                     const std::vector<double>& best_cpu_ms, bool log_x) {
  const size_t n = std::min({x.size(), gpu_ms.size(), best_cpu_ms.size()});
  auto valid = [&](size_t i) {
    return std::isfinite(gpu_ms[i]) && std::isfinite(best_cpu_ms[i]) && gpu_ms[i] > 0 && best_cpu_ms[i] > 0 &&
           (!log_x || x[i] > 0);
  };
  std::optional<size_t> losing;
  for (size_t i = 0; i < n; ++i) {
    if (!valid(i)) continue;
    if (gpu_ms[i] >= best_cpu_ms[i]) {
      losing = i;
      continue;
    }
    if (!losing) return std::nullopt;  // the GPU wins from the first point: no crossover in range
    const size_t a = *losing;
    const double ra = std::log(gpu_ms[a] / best_cpu_ms[a]), rb = std::log(gpu_ms[i] / best_cpu_ms[i]);
    const double xa = log_x ? std::log(x[a]) : x[a], xb = log_x ? std::log(x[i]) : x[i];
    const double f = ra == rb ? 0.0 : ra / (ra - rb);  // ra >= 0 > rb
    const double xc = xa + f * (xb - xa);
    return log_x ? std::exp(xc) : xc;
  }
  return std::nullopt;
}

namespace {

bool all_numeric(const Param& p) {
  for (const std::string& v : p.values)
    if (!numeric_value(v)) return false;
  return true;
}

bool spans(const std::vector<double>& v, double factor) {
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (double x : v) {
    if (!(x > 0) || !std::isfinite(x)) return false;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  return !v.empty() && hi >= factor * lo;
}

const Summary& metric_of(const SeriesResult& s, Metric m) {
  return m == Metric::Time ? s.time : s.rate;
}

std::string default_subtitle(const Result& r) {
  std::string s = r.gpu_name.empty() ? std::string("CPU only") : r.gpu_name;
  s += ", median of " + std::to_string(r.definition.repetitions) + " runs after " +
       std::to_string(r.definition.warmup) + " warm-up, band p10-p90";
  if (r.cancelled) s += " (cancelled: partial)";
  if (!r.ignored_params.empty())
    s += "; " + join(r.ignored_params, " and ") + (r.ignored_params.size() > 1 ? " do" : " does") +
         " not change CPU time (differences are noise)";
  return s;
}

const Point* find_point(const Result& r, const std::vector<std::string>& values) {
  for (const Point& p : r.points)
    if (p.values == values) return &p;
  return nullptr;
}

const SeriesResult* find_series(const Point& p, const std::string& name) {
  for (const SeriesResult& s : p.series)
    if (s.name == name) return &s;
  return nullptr;
}

// Crossover markers (one parameter): where each GPU series first beats the fastest CPU series.
void add_crossover_markers(fig::Figure& f, const Result& r, const Param& xp, const std::vector<double>& xs,
                           const std::vector<size_t>& order, const std::vector<std::string>& names) {
  std::vector<double> sx, best_cpu;
  std::vector<const Point*> pts;
  for (size_t i : order) {
    const Point* p = find_point(r, {xp.values[i]});
    double best = std::numeric_limits<double>::quiet_NaN();
    if (p)
      for (const SeriesResult& s : p->series)
        if (!s.gpu && !s.time_ms.empty() && (std::isnan(best) || s.time.median < best)) best = s.time.median;
    sx.push_back(xs[i]);
    best_cpu.push_back(best);
    pts.push_back(p);
  }
  for (const std::string& name : names) {
    std::vector<double> g;
    bool is_gpu = false;
    for (const Point* p : pts) {
      const SeriesResult* s = p ? find_series(*p, name) : nullptr;
      is_gpu = is_gpu || (s && s->gpu);
      g.push_back(s && !s->time_ms.empty() ? s->time.median : std::numeric_limits<double>::quiet_NaN());
    }
    if (!is_gpu) continue;
    if (auto x = find_crossover(sx, g, best_cpu, f.log_x))
      f.markers.push_back({*x, name + " beats the CPU from ~" + fmt(*x, 3)});
  }
}

// Lines: x the numeric parameter `line_axis`, a series per series name (and per value of the other,
// categorical, parameter where there are two).
void lines_figure(fig::Figure& f, const Result& r, const FigureOptions& opt, int line_axis) {
  const Definition& d = r.definition;
  const bool time = opt.metric == Metric::Time;
  const std::vector<std::string> names = r.series_names();
  f.kind = fig::Kind::Lines;
  const Param& xp = d.params[static_cast<size_t>(line_axis)];
  const int cat_axis = d.params.size() == 2 ? 1 - line_axis : -1;
  f.x_label = xp.name;
  f.title = d.lab + ": " + (time ? "time" : "throughput") + " vs " + xp.name;
  std::vector<double> xs;
  for (const std::string& v : xp.values)
    xs.push_back(*numeric_value(v));
  std::vector<size_t> order(xs.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return xs[a] < xs[b]; });
  f.log_x = opt.log_x.value_or(spans(xs, 16.0));
  const std::vector<std::string> cats =
      cat_axis >= 0 ? d.params[static_cast<size_t>(cat_axis)].values : std::vector<std::string>{""};
  std::vector<double> all_y;
  for (const std::string& cat : cats)
    for (const std::string& name : names) {
      fig::Series s;
      s.label = cat.empty()   ? name
                : name == cat ? cat
                              : d.params[static_cast<size_t>(cat_axis)].name + "=" + cat + ", " + name;
      for (size_t i : order) {
        std::vector<std::string> values(d.params.size());
        values[static_cast<size_t>(line_axis)] = xp.values[i];
        if (cat_axis >= 0) values[static_cast<size_t>(cat_axis)] = cat;
        const Point* p = find_point(r, values);
        const SeriesResult* sr = p ? find_series(*p, name) : nullptr;
        if (!sr || sr->time_ms.empty()) continue;
        const Summary& m = metric_of(*sr, opt.metric);
        s.x.push_back(xs[i]);
        s.y.push_back(m.median);
        s.y_lo.push_back(m.p10);
        s.y_hi.push_back(m.p90);
        all_y.push_back(m.median);
      }
      if (s.x.empty()) continue;
      s.rgba = fig::palette(f.series.size());
      f.series.push_back(std::move(s));
    }
  f.log_y = opt.log_y.value_or(spans(all_y, 16.0));
  if (cat_axis < 0) add_crossover_markers(f, r, xp, xs, order, names);
}

// Bars: one parameter of names (not numbers), a bar per value and series.
void bars_figure(fig::Figure& f, const Result& r, const FigureOptions& opt) {
  const Definition& d = r.definition;
  const bool time = opt.metric == Metric::Time;
  const std::vector<std::string> names = r.series_names();
  f.kind = fig::Kind::Bars;
  f.title = d.lab + ": " + (time ? "time" : "throughput") + " by " + d.params[0].name;
  f.x_label = d.params[0].name;
  for (const Point& p : r.points)
    for (const SeriesResult& s : p.series) {
      if (s.time_ms.empty()) continue;
      const Summary& m = metric_of(s, opt.metric);
      fig::Bar b;
      b.label = names.size() > 1 && s.name != p.values[0] ? p.values[0] + ", " + s.name : p.values[0];
      b.value = m.median;
      b.lo = m.p10;
      b.hi = m.p90;
      const auto idx = static_cast<size_t>(std::find(names.begin(), names.end(), s.name) - names.begin());
      b.rgba = fig::palette(idx);
      f.bars.push_back(std::move(b));
    }
}

// Two parameters of the same kind: a heat map of one series, the GPU one where a GPU ran.
void heatmap_figure(fig::Figure& f, const Result& r, const FigureOptions& opt) {
  const Definition& d = r.definition;
  const bool time = opt.metric == Metric::Time;
  const std::vector<std::string> names = r.series_names();
  f.kind = fig::Kind::Heatmap;
  if (opt.subtitle.empty()) {
    const size_t band = f.subtitle.find(", band p10-p90");
    if (band != std::string::npos) f.subtitle.erase(band, std::string(", band p10-p90").size());
  }
  std::string chosen = names.empty() ? std::string() : names.front();
  for (const std::string& name : names) {
    bool gpu = false;
    for (const Point& p : r.points)
      if (const SeriesResult* s = find_series(p, name); s && s->gpu) gpu = true;
    if (gpu) {
      chosen = name;
      break;
    }
  }
  f.title = d.lab + ": " + (time ? "median time" : "median throughput") + ", " + d.params[0].name + " by " +
            d.params[1].name + (chosen.empty() ? "" : " (" + chosen + ")");
  f.x_label = d.params[0].name;
  f.y_label = d.params[1].name;
  f.heatmap.x_values = d.params[0].values;
  f.heatmap.y_values = d.params[1].values;
  f.heatmap.value_label = time ? (r.time_label.empty() ? "time (ms)" : r.time_label) : r.unit;
  f.heatmap.higher_is_better = !time;
  const size_t cells = f.heatmap.x_values.size() * f.heatmap.y_values.size();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  f.heatmap.values.assign(cells, nan);
  f.heatmap.lo.assign(cells, nan);
  f.heatmap.hi.assign(cells, nan);
  bool chosen_gpu = false;
  size_t finite = 0;
  for (size_t row = 0; row < f.heatmap.y_values.size(); ++row)
    for (size_t col = 0; col < f.heatmap.x_values.size(); ++col) {
      const Point* p = find_point(r, {f.heatmap.x_values[col], f.heatmap.y_values[row]});
      const SeriesResult* s = p ? find_series(*p, chosen) : nullptr;
      if (s && !s->time_ms.empty()) {
        const Summary& m = metric_of(*s, opt.metric);
        const size_t k = row * f.heatmap.x_values.size() + col;
        f.heatmap.values[k] = m.median;
        f.heatmap.lo[k] = m.p10;
        f.heatmap.hi[k] = m.p90;
        chosen_gpu = chosen_gpu || s->gpu;
        finite += std::isfinite(m.median) ? 1 : 0;
      }
    }
  // An axis the shown (CPU) series ignores: its differences are noise, so no cell is crowned at all.
  for (const Param& p : d.params)
    if (!chosen_gpu &&
        std::find(r.ignored_params.begin(), r.ignored_params.end(), p.name) != r.ignored_params.end())
      f.heatmap.no_best = true;
  if (!f.heatmap.no_best && finite > 1 && fig::best_cell(f.heatmap) < 0 && opt.subtitle.empty())
    f.subtitle += "; no best marked: no cell beats the others beyond their p10-p90 spread";
}

}  // namespace

fig::Figure figure_for(const Result& r, const FigureOptions& opt) {
  if (opt.metric == Metric::Roofline) return roofline_figure(r, target_of(r.definition.lab), opt);
  fig::Figure f;
  const Definition& d = r.definition;
  const bool time = opt.metric == Metric::Time;
  f.subtitle = opt.subtitle.empty() ? default_subtitle(r) : opt.subtitle;
  f.y_label = time ? (r.time_label.empty() ? "time (ms)" : r.time_label) : "throughput (" + r.unit + ")";
  if (d.params.empty()) return f;

  const bool num0 = all_numeric(d.params[0]);
  const bool num1 = d.params.size() > 1 && all_numeric(d.params[1]);
  // Lines: a numeric axis, and (with two parameters) a categorical one splitting the series.
  int line_axis = -1;
  if (d.params.size() == 1 && num0) line_axis = 0;
  if (d.params.size() == 2 && num0 != num1) line_axis = num0 ? 0 : 1;

  if (line_axis >= 0)
    lines_figure(f, r, opt, line_axis);
  else if (d.params.size() == 1)
    bars_figure(f, r, opt);
  else
    heatmap_figure(f, r, opt);
  return f;
}

}  // namespace bs::sweep
