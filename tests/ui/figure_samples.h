// figure_samples.h: figures of every kind shared by the SVG and PNG tests, shaped like real sweep output.
#pragma once

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ui/figure.h"

namespace bs::test {

// A canvas that measures text like a 0.6 em monospace font (body 15 units, as the SVG) and draws nothing; it
// records what the painter wrote: texts, and the colour of every polyline.
class NullCanvas final : public fig::Canvas {
 public:
  float font_size(fig::TextStyle s) const override { return s == fig::TextStyle::Title ? 19.5f : 15.0f; }
  float text_width(const std::string& s, fig::TextStyle st) override {
    return 0.6f * font_size(st) * static_cast<float>(s.size());
  }
  void rect(fig::Pt, fig::Pt, uint32_t, uint32_t, float, const char*) override {}
  void line(fig::Pt, fig::Pt, uint32_t, float, bool) override {}
  void polyline(const std::vector<fig::Pt>&, uint32_t color, float) override {
    ++polylines;
    polyline_colors.push_back(color);
  }
  void band(const std::vector<fig::Pt>&, const std::vector<fig::Pt>&, uint32_t) override {}
  void marker(fig::Pt, int, float, uint32_t, uint32_t) override {}
  void text(fig::Pt p, const std::string& s, fig::TextStyle st, uint32_t, fig::Anchor a, float angle,
            const char*) override {
    texts.push_back(s);
    // Where an unrotated text ends on the right (rotated ones: their anchor).
    const float w = angle == 0 ? text_width(s, st) : 0.0f;
    text_right.push_back(a == fig::Anchor::Start ? p.x + w : a == fig::Anchor::Middle ? p.x + w / 2 : p.x);
  }
  int polylines = 0;
  std::vector<uint32_t> polyline_colors;
  std::vector<std::string> texts;
  std::vector<float> text_right;  // per text, as above
};

// Time against problem size, log-log, GPU vs two CPU baselines with p10-p90 bands and a crossover marker.
inline fig::Figure sample_lines() {
  fig::Figure f;
  f.kind = fig::Kind::Lines;
  f.title = "vector add: GPU vs CPU";
  f.subtitle = "NVIDIA H200, CUDA 13.0, median of 10 runs, band p10-p90";
  f.x_label = "elements";
  f.y_label = "time (ms)";
  f.log_x = f.log_y = true;
  const char* names[3] = {"GPU (float4)", "CPU, 1 thread", "CPU, all threads"};
  for (int s = 0; s < 3; ++s) {
    fig::Series ser;
    ser.label = names[s];
    ser.rgba = fig::palette(static_cast<size_t>(s));
    for (int e = 10; e <= 28; e += 2) {
      const double n = std::pow(2.0, e);
      const double t = s == 0 ? 0.008 + n * 2e-9 : s == 1 ? n * 1.2e-6 : 0.02 + n * 1.5e-7;
      ser.x.push_back(n);
      ser.y.push_back(t);
      ser.y_lo.push_back(t * 0.9);
      ser.y_hi.push_back(t * (1.12 + 0.05 * s));
    }
    f.series.push_back(ser);
  }
  f.markers.push_back({std::pow(2.0, 20), "GPU faster from 2^20"});
  return f;
}

// block.x by block.y, time in ms; one cell that did not run (NaN).
inline fig::Figure sample_heatmap(bool higher_is_better = false) {
  fig::Figure f;
  f.kind = fig::Kind::Heatmap;
  f.title = "heat: time per step by block shape";
  f.subtitle = "N = 2048, median of 10 runs";
  f.x_label = "block.x";
  f.y_label = "block.y";
  f.heatmap.x_values = {"32", "64", "128", "256"};
  f.heatmap.y_values = {"1", "2", "4"};
  f.heatmap.value_label = higher_is_better ? "throughput (GB/s)" : "time (ms)";
  f.heatmap.higher_is_better = higher_is_better;
  f.heatmap.values = {0.91, 0.62, 0.55, 0.58,  //
                      0.70, 0.48, 0.52, 0.66,  //
                      0.64, 0.57, 0.61, std::numeric_limits<double>::quiet_NaN()};
  return f;
}

inline fig::Figure sample_bars(bool long_labels = false) {
  fig::Figure f;
  f.kind = fig::Kind::Bars;
  f.title = "matmul 2048: throughput by variant";
  f.subtitle = "median of 10 runs, whiskers p10-p90";
  f.y_label = "GFLOP/s";
  const char* names[5] = {"naive", "naive_coalesced", "smem_tile32", "register_tile", "cublas"};
  const double vals[5] = {310, 1450, 5200, 17800, 42100};
  for (int i = 0; i < 5; ++i) {
    fig::Bar b;
    b.label = long_labels ? std::string(names[i]) + " (GPU, float32, 2048^3)" : names[i];
    b.value = vals[i];
    b.lo = vals[i] * 0.96;
    b.hi = vals[i] * 1.03;
    b.rgba = fig::palette(static_cast<size_t>(i));
    f.bars.push_back(b);
  }
  return f;
}

}  // namespace bs::test

namespace bs::test {

// Awkward inputs: linear axes, a single point, NaN gaps, no bands, many series with long names.
inline fig::Figure sample_lines_awkward() {
  fig::Figure f;
  f.title = "montecarlo: paths per second by block size";
  f.x_label = "block.x";
  f.y_label = "Gpaths/s";
  for (int s = 0; s < 7; ++s) {
    fig::Series ser;
    ser.label = "generator " + std::to_string(s) + (s % 2 ? " (xorwow, grid-stride)" : " (philox)");
    ser.rgba = fig::palette(static_cast<size_t>(s));
    for (int b = 32; b <= 1024; b *= 2) {
      ser.x.push_back(b);
      ser.y.push_back(b == 256 && s == 3 ? std::numeric_limits<double>::quiet_NaN()
                                         : 1.0 + s * 0.4 + b / 900.0);
    }
    f.series.push_back(ser);
  }
  f.series.push_back({"single point", {512}, {2.2}, {}, {}, fig::palette(7)});
  f.markers.push_back({640, "warp limit"});
  f.markers.push_back({1e9, "off-scale marker"});
  return f;
}

inline fig::Figure sample_heatmap_big() {
  fig::Figure f;
  f.kind = fig::Kind::Heatmap;
  f.title = "vector: bandwidth by streams and block size";
  f.x_label = "block.x";
  f.y_label = "streams, layout";
  f.heatmap.value_label = "bandwidth (GB/s)";
  f.heatmap.higher_is_better = true;
  for (int x = 32; x <= 1024; x *= 2)
    f.heatmap.x_values.push_back(std::to_string(x));
  for (int y = 1; y <= 6; ++y)
    f.heatmap.y_values.push_back(std::to_string(y) + (y % 2 ? " grid-stride" : " one-per-thread"));
  for (size_t r = 0; r < f.heatmap.y_values.size(); ++r)
    for (size_t c = 0; c < f.heatmap.x_values.size(); ++c)
      f.heatmap.values.push_back(r == 2 && c == 5 ? std::numeric_limits<double>::quiet_NaN()
                                                  : 2800 + 900 * std::sin(0.7 * c + 0.3 * r) + 40 * r);
  return f;
}

inline fig::Figure sample_bars_log() {
  fig::Figure f;
  f.kind = fig::Kind::Bars;
  f.title = "matmul 4096: time by variant (log scale)";
  f.y_label = "time (ms)";
  f.log_y = true;
  for (int i = 0; i < 12; ++i) {
    fig::Bar b;
    b.label = std::to_string(i);
    b.label.insert(0, "variant ");  // (not "v" + ...: GCC 12's -Wrestrict false positive)
    b.value = i == 5 ? std::numeric_limits<double>::quiet_NaN() : 0.5 * std::pow(2.2, i);
    b.lo = b.hi = b.value;
    b.rgba = fig::palette(static_cast<size_t>(i));
    f.bars.push_back(b);
  }
  return f;
}

}  // namespace bs::test
