// figure.h: a plot as data (lines with bands, a block-size heat map, or bars), independent of where it is
// drawn: on screen through ImGui (figure_view.h), as SVG text, or as a PNG of a chosen size
// (figure_export.h). Pure C++: sweeps and the headless CLI build figures without ImGui or a GPU.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace bs::fig {

enum class Kind { Lines, Heatmap, Bars };

// One line: y against x, optionally with a 10th-90th percentile band (y_lo/y_hi empty or same length as y).
struct Series {
  std::string label;
  std::vector<double> x, y, y_lo, y_hi;
  uint32_t rgba = 0xffc850ffu;            // 0xRRGGBBAA
  bool points_only = false;               // a scatter: markers, no line (the roofline's runs)
  std::vector<std::string> point_labels;  // optional, one per point: what hovering the point names
};

// A vertical marker on a line plot, e.g. where the GPU starts beating the CPU.
struct Marker {
  double x = 0;
  std::string label;
};

// Values on a grid of x (columns) by y (rows) categories, e.g. block.x by block.y coloured by time. Missing
// cells are NaN. The best cell is marked when there is one (see best_cell).
struct Heatmap {
  std::vector<std::string> x_values, y_values;
  std::vector<double> values;  // row-major: values[row * x_values.size() + col]
  std::string value_label;     // "time (ms)"
  bool higher_is_better = false;
  // Optional spread of every cell (e.g. p10 and p90 of its samples; the layout of `values`, or empty). With
  // it, a best cell must beat the others beyond their spread.
  std::vector<double> lo, hi;
  bool no_best = false;  // crown no cell (the axes do not change what is shown: differences are noise)
};

// One bar per variant, with an optional p10-p90 whisker (lo == hi == value: none).
struct Bar {
  std::string label;
  double value = 0, lo = 0, hi = 0;
  uint32_t rgba = 0x5aa0ffffu;
};

struct Figure {
  Kind kind = Kind::Lines;
  std::string title;
  std::string subtitle;  // e.g. "NVIDIA H200, CUDA 13.0, median of 10 runs, band p10-p90"
  std::string x_label, y_label;
  bool log_x = false, log_y = false;
  bool y_from_zero = true;  // Lines: a linear y axis includes 0 (honest times); false: it fits the data
  // The look inside an app panel that already names the plot (the live plots): no title or subtitle, the y
  // label as a caption above the plot (the legend may share its row), tighter margins. Ranges, ticks, legend
  // and hover targets come from the same layout code as every export.
  bool compact = false;
  std::vector<Series> series;   // Kind::Lines
  std::vector<Marker> markers;  // Kind::Lines
  Heatmap heatmap;              // Kind::Heatmap
  std::vector<Bar> bars;        // Kind::Bars
};

// A distinct colour for series i (the same palette on screen, in SVG and in PNG).
uint32_t palette(size_t i);

// ---- Axes: the one range and tick code behind every plot (live plots, exports, the labs' own charts) ----
// "Nice" tick values between lo and hi: 1-2-5 steps of about target_count ticks (linear), or the powers of
// ten inside [lo, hi] (log). Empty when the range is empty or not finite.
std::vector<double> nice_ticks(double lo, double hi, int target_count, bool log_scale);
// Compact tick label, thousands and up with a suffix: 500, 1k, 1.5k, 2.5M, 0.25, 1.0e-04.
std::string format_tick(double v);

// An axis as drawn: the data range padded (linear axes of times from zero where asked) and its ticks.
struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  std::vector<double> ticks, minor;
  bool accepts(double v) const;  // finite, and positive on a log axis
  double frac(double v) const;   // 0 at lo, 1 at hi (log: in decades)
};
// Values are added with add(); non-finite values (and non-positive ones on a log axis) are skipped.
struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void add(double v, bool log_scale);
  bool valid() const { return lo <= hi; }
};
// `r` (valid) padded by pad_frac of its span on each side, with about `target` ticks (on a log axis also the
// data's first and last values, where no tick is near them).
Axis make_axis(Range r, bool log_scale, int target, bool from_zero, double pad_frac);

// The figure as a standalone SVG document of width x height user units.
std::string to_svg(const Figure& f, int width, int height);

// ---- Drawing shared by every output (added by the figures helper) ----
// One painter lays out and draws a figure onto a Canvas: the SVG writer and the ImGui draw-list canvas
// (screen and PNG) implement it, so all three show the same axes, ticks, legend and labels.

struct Pt {
  float x = 0, y = 0;
};
enum class Anchor { Start, Middle, End };
enum class TextStyle { Body, Small, Title };  // title is bold and larger; small: ticks, subtitle, cell values

class Canvas {
 public:
  virtual ~Canvas() = default;
  virtual float font_size(TextStyle s) const = 0;
  virtual float text_width(const std::string& s, TextStyle st) = 0;
  // Colours are 0xRRGGBBAA; stroke 0 or width 0: no outline. `id` tags the element where the format has ids.
  virtual void rect(Pt a, Pt b, uint32_t fill, uint32_t stroke = 0, float stroke_w = 0,
                    const char* id = nullptr) = 0;
  virtual void line(Pt a, Pt b, uint32_t color, float width, bool dashed = false) = 0;
  virtual void polyline(const std::vector<Pt>& pts, uint32_t color, float width) = 0;
  // A filled band between an upper and a lower line of the same length (p10-p90).
  virtual void band(const std::vector<Pt>& upper, const std::vector<Pt>& lower, uint32_t fill) = 0;
  // Point marker: shape 0 circle, 1 square, 2 diamond, 3 triangle (so series differ in greyscale too).
  virtual void marker(Pt p, int shape, float r, uint32_t fill, uint32_t stroke) = 0;
  // `p` is the anchor point at the text's vertical middle; angle in degrees, counter-clockwise.
  virtual void text(Pt p, const std::string& s, TextStyle st, uint32_t color, Anchor a = Anchor::Start,
                    float angle_deg = 0, const char* id = nullptr) = 0;
};

struct Theme {
  uint32_t background, text, text_dim, grid, axis, legend_bg, missing, best;
};
Theme light_theme();  // white: papers and slides
Theme dark_theme();   // the app's dark UI

// Where the hover read-out finds values: a point (x0,y0; x1 == x0) or a rectangle, with its read-out text.
struct Hit {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool point = false;
  std::string text;
  int series = -1;  // Lines: index into Figure::series of the point
};

// Where paint put things: the plot area (the cell grid of a heat map) and, for lines and bars, the axes with
// their ticks. has_axes is false when there was no data (or no room) to draw them.
struct Layout {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool has_axes = false;
  Axis x, y;  // x: Lines only
};

// Lays out and draws `f` into the rectangle (x, y, w, h) of the canvas; optionally reports hover targets and
// the layout.
void paint(const Figure& f, Canvas& c, float x, float y, float w, float h, const Theme& theme,
           std::vector<Hit>* hits = nullptr, Layout* layout = nullptr);

// `rgba` made readable on `background`: a colour with too little contrast (e.g. a white line on the light
// theme's paper) is mixed toward the contrasting end until it has some. Colours that already contrast
// (every palette colour on both themes) are returned unchanged.
uint32_t readable_on(uint32_t rgba, uint32_t background);

// Viridis-like perceptual colormap for t in [0, 1] (0xRRGGBBAA), used by heat maps everywhere.
uint32_t colormap(double t);
// Index into heatmap.values of the best finite cell (lowest, or highest if higher_is_better); -1 if none.
// With spreads (lo/hi), the best must win beyond the noise: for lower-is-better its hi (p90) is below every
// other finite cell's lo (p10); for higher-is-better its lo is above every other cell's hi. Else -1: no cell
// is crowned from noise. -1 also when no_best is set.
int best_cell(const Heatmap& h);
// Compact value for labels: 3 significant digits ("12.3", "0.0456", "1.23e+06" -> "1.23M").
std::string format_value(double v);

}  // namespace bs::fig
