// figure_scale.cpp: see figure.h. What every figure output shares before anything is drawn: the palette,
// themes and colour map, colours kept readable on a background, number formats, and the axes (ticks,
// padding).
#include "ui/figure.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace bs::fig {

uint32_t palette(size_t i) {
  // Mid-luminance, saturated hues: readable on white paper and on the dark UI alike (no pale yellow).
  static constexpr std::array<uint32_t, 10> k_colors = {
      0x3b8bebffu, 0xf28e2bffu, 0x3daa5cffu, 0xe15759ffu, 0xa66fd1ffu,
      0x1fb3b3ffu, 0xd4a21affu, 0xe377c2ffu, 0x8c8c8cffu, 0x9c6b4effu,
  };
  return k_colors[i % k_colors.size()];
}

Theme light_theme() {
  return Theme{0xffffffffu, 0x222222ffu, 0x5f5f5fffu, 0xe6e6e6ffu,
               0x444444ffu, 0xffffffe6u, 0xd9d9d9ffu, 0xe8412cffu};
}

Theme dark_theme() {
  return Theme{0x1e2024ffu, 0xe8e8e8ffu, 0xa0a4aaffu, 0x3a3d44ffu,
               0xa8acb2ffu, 0x1e2024e6u, 0x4a4d54ffu, 0xff6a4dffu};
}

uint32_t colormap(double t) {
  // Viridis control points (matplotlib's, sampled at ninths), interpolated linearly in sRGB.
  static constexpr std::array<std::array<double, 3>, 10> k_pts = {{{68, 1, 84},
                                                                   {72, 36, 117},
                                                                   {64, 67, 135},
                                                                   {52, 94, 141},
                                                                   {41, 120, 142},
                                                                   {32, 144, 140},
                                                                   {34, 167, 132},
                                                                   {68, 190, 112},
                                                                   {121, 209, 81},
                                                                   {253, 231, 37}}};
  if (!std::isfinite(t)) t = 0;
  t = std::clamp(t, 0.0, 1.0) * (k_pts.size() - 1);
  const size_t i = std::min(static_cast<size_t>(t), k_pts.size() - 2);
  const double f = t - static_cast<double>(i);
  uint32_t out = 0xffu;
  for (int c = 0; c < 3; ++c) {
    const double v = k_pts[i][c] + (k_pts[i + 1][c] - k_pts[i][c]) * f;
    out |= static_cast<uint32_t>(std::lround(v)) << (24 - 8 * c);
  }
  return out;
}

int best_cell(const Heatmap& h) {
  if (h.no_best) return -1;
  int best = -1;
  for (size_t i = 0; i < h.values.size(); ++i) {
    const double v = h.values[i];
    if (!std::isfinite(v)) continue;
    if (best < 0 || (h.higher_is_better ? v > h.values[best] : v < h.values[best]))
      best = static_cast<int>(i);
  }
  if (best < 0 || h.lo.size() != h.values.size() || h.hi.size() != h.values.size()) return best;
  // The lowest median alone would crown whichever cell the noise favoured this run (a replay crowns another):
  // the best must be separated from every other cell, its whole p10-p90 range beyond theirs. Strict, so equal
  // edges (one repetition each, equal values) are not a win.
  const auto b = static_cast<size_t>(best);
  for (size_t i = 0; i < h.values.size(); ++i) {
    if (i == b || !std::isfinite(h.values[i])) continue;
    const bool clear = h.higher_is_better ? h.lo[b] > h.hi[i] : h.hi[b] < h.lo[i];
    if (!clear) return -1;
  }
  return best;
}

std::string format_value(double v) {
  if (!std::isfinite(v)) return "n/a";
  char buf[32];
  const double a = std::abs(v);
  if (a >= 1e9)
    std::snprintf(buf, sizeof buf, "%.3gG", v / 1e9);
  else if (a >= 1e6)
    std::snprintf(buf, sizeof buf, "%.3gM", v / 1e6);
  else if (a >= 1e4)
    std::snprintf(buf, sizeof buf, "%.3gk", v / 1e3);
  else if (a >= 100)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else if (a >= 1e-3 || a == 0)
    std::snprintf(buf, sizeof buf, "%.3g", v);
  else
    std::snprintf(buf, sizeof buf, "%.2e", v);
  return buf;
}

// ---- Axes ----
std::vector<double> nice_ticks(double lo, double hi, int target, bool log_scale) {
  std::vector<double> ticks;
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi) || (log_scale && !(lo > 0))) return ticks;
  if (log_scale) {
    for (double e = std::floor(std::log10(lo)); e <= std::ceil(std::log10(hi)); e += 1.0) {
      const double v = std::pow(10.0, e);
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) ticks.push_back(v);
    }
    return ticks;
  }
  const double raw = (hi - lo) / std::max(target, 1);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / mag;
  const double step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
  const double first = std::ceil(lo / step) * step;
  // Counted, not accumulated: a span far below the values' precision (1e15 .. 1e15 + 1) cannot loop forever.
  const int count = static_cast<int>(std::min(std::floor((hi - first) / step + 1e-9), 1000.0)) + 1;
  for (int k = 0; k < count; ++k) {
    const double v = first + step * k;
    if (!ticks.empty() && v <= ticks.back()) break;
    ticks.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
  }
  return ticks;
}

std::string format_tick(double v) {
  char buf[32];
  const double a = std::abs(v);
  if (a == 0) return "0";
  if (a >= 1e9)
    std::snprintf(buf, sizeof buf, "%gG", v / 1e9);
  else if (a >= 1e6)
    std::snprintf(buf, sizeof buf, "%gM", v / 1e6);
  else if (a >= 1e3)  // every label of an axis in the same unit: 500, 1k, 1.5k, 2k
    std::snprintf(buf, sizeof buf, "%gk", v / 1e3);
  else if (a >= 1e-3)
    std::snprintf(buf, sizeof buf, "%.4g", v);
  else
    std::snprintf(buf, sizeof buf, "%.1e", v);
  return buf;
}

bool Axis::accepts(double v) const {
  return std::isfinite(v) && (!log || v > 0);
}

double Axis::frac(double v) const {
  const auto tr = [this](double u) { return log ? std::log10(u) : u; };
  return (tr(v) - tr(lo)) / (tr(hi) - tr(lo));
}

void Range::add(double v, bool log_scale) {
  if (!std::isfinite(v) || (log_scale && v <= 0)) return;
  lo = std::min(lo, v);
  hi = std::max(hi, v);
}

// Pads the data range (linear axes of times start at zero: honest bars and lines) and picks ticks.
Axis make_axis(Range r, bool log, int target, bool from_zero, double pad_frac) {
  Axis a;
  a.log = log;
  if (!r.valid()) return a;
  target = std::max(target, 2);
  if (log) {
    if (r.lo == r.hi) r.lo /= 2, r.hi *= 2;
    const double l0 = std::log10(r.lo), l1 = std::log10(r.hi), pad = (l1 - l0) * pad_frac;
    a.lo = std::pow(10.0, l0 - pad);
    a.hi = std::pow(10.0, l1 + pad);
    std::vector<double> decades = nice_ticks(a.lo, a.hi, target, true);
    // 1-2-5 steps where a few decades leave room for them (and always under two decades).
    std::vector<double> fine;
    for (double e = std::floor(std::log10(a.lo)); e <= std::ceil(std::log10(a.hi)); e += 1)
      for (int m : {1, 2, 5}) {
        const double v = m * std::pow(10.0, e);
        if (v >= a.lo && v <= a.hi) fine.push_back(v);
      }
    if (decades.size() < 2 || (decades.size() < 4 && fine.size() <= static_cast<size_t>(target) * 3 / 2)) {
      a.ticks = fine.size() >= 2 ? fine : nice_ticks(a.lo, a.hi, target, false);
      // Within a decade 1-2-5 can leave two ticks (1k, 2k on 1k..4k): even steps then read better.
      if (a.ticks.size() < 3) {
        std::vector<double> even = nice_ticks(a.lo, a.hi, target, false);
        if (even.size() > a.ticks.size()) a.ticks = std::move(even);
      }
      for (double e = std::floor(std::log10(a.lo)); e <= std::ceil(std::log10(a.hi)); e += 1)
        for (int m : {3, 4, 6, 7, 8, 9}) {
          const double v = m * std::pow(10.0, e);
          if (v > a.lo && v < a.hi) a.minor.push_back(v);
        }
    } else {
      const size_t step = (decades.size() + static_cast<size_t>(target) - 1) / static_cast<size_t>(target);
      for (size_t i = 0; i < decades.size(); i += step)
        a.ticks.push_back(decades[i]);
      if (step == 1 && decades.size() <= 9) {
        for (double e = std::floor(std::log10(a.lo)); e <= std::ceil(std::log10(a.hi)); e += 1)
          for (int m = 2; m <= 9; ++m) {
            const double v = m * std::pow(10.0, e);
            if (v > a.lo && v < a.hi) a.minor.push_back(v);
          }
      }
    }
    // The first and last data values get labels of their own (a sweep's 1024 .. 16M read off the axis, not
    // guessed between decades), unless a tick already sits within a fifth of a decade of them.
    for (double end : {r.lo, r.hi}) {
      const bool near = std::any_of(a.ticks.begin(), a.ticks.end(), [&](double t) {
        return std::abs(std::log10(t) - std::log10(end)) < 0.2;
      });
      if (!near) a.ticks.insert(std::upper_bound(a.ticks.begin(), a.ticks.end(), end), end);
    }
    return a;
  }
  if (from_zero && r.lo > 0) r.lo = 0;
  if (from_zero && r.hi < 0) r.hi = 0;
  if (r.lo == r.hi) {
    const double d = r.lo == 0 ? 1.0 : std::abs(r.lo) * 0.5;
    r.lo = r.lo == 0 ? 0 : r.lo - d;
    r.hi += d;
  }
  const double span = r.hi - r.lo;
  a.lo = (from_zero && r.lo == 0) ? 0 : r.lo - span * pad_frac;
  a.hi = r.hi + span * pad_frac;
  a.ticks = nice_ticks(a.lo, a.hi, target, false);
  return a;
}

namespace {
// WCAG relative luminance of an sRGB colour (alpha ignored).
double relative_luminance(uint32_t rgba) {
  double l = 0;
  const double weight[3] = {0.2126, 0.7152, 0.0722};
  for (int k = 0; k < 3; ++k) {
    const double v = ((rgba >> (24 - 8 * k)) & 0xffu) / 255.0;
    l += weight[k] * (v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4));
  }
  return l;
}
double contrast(uint32_t a, uint32_t b) {
  const double la = relative_luminance(a), lb = relative_luminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}
}  // namespace

uint32_t readable_on(uint32_t rgba, uint32_t background) {
  // 2:1 keeps a line or marker clearly visible; every palette colour has more on both themes, so figures
  // built from the palette are drawn exactly as given.
  constexpr double k_min_contrast = 2.0;
  if (contrast(rgba, background) >= k_min_contrast) return rgba;
  const uint32_t toward = relative_luminance(background) > 0.18 ? 0x000000ffu : 0xffffffffu;
  uint32_t out = rgba;
  for (int step = 1; step <= 20 && contrast(out, background) < k_min_contrast; ++step) {
    const double u = step / 20.0;
    out = rgba & 0xffu;
    for (int k = 0; k < 3; ++k) {
      const int shift = 24 - 8 * k;
      const double from = (rgba >> shift) & 0xffu, to = (toward >> shift) & 0xffu;
      out |= static_cast<uint32_t>(std::lround(from + (to - from) * u)) << shift;
    }
  }
  return out;
}

}  // namespace bs::fig
