// plot_test.cpp: the live plots (ui/plot.h) are figures drawn by the one painter. What plot_lines draws on
// a real ImGui frame (no GL: nothing is rendered) has the layout and hover targets the painter gives the same
// figure; the export's figure has the same ranges and ticks; empty, single-point and non-finite series draw
// without harm; the read-out is the nearest point's hit.
#include <gtest/gtest.h>
#include <imgui.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "figure_samples.h"
#include "imgui_frame.h"
#include "ui/figure.h"
#include "ui/figure_view.h"
#include "ui/plot.h"

namespace {

using bs::ui::PlotAxes;
using bs::ui::PlotSeries;

constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();
constexpr double k_inf = std::numeric_limits<double>::infinity();

// An ImGui context of its own, with one full-screen window per frame (imgui_frame.h).
class PlotOnAFrame : public bs::test::ImGuiFrameTest {};

struct Data {
  std::vector<double> x = {1024, 4096, 16384, 65536, 262144};
  std::vector<double> gpu = {0.02, 0.025, 0.04, 0.11, 0.39};
  std::vector<double> lo = {0.018, 0.022, 0.037, 0.1, 0.36};
  std::vector<double> hi = {0.024, 0.03, 0.045, 0.12, 0.43};
  std::vector<double> cpu = {0.004, 0.015, 0.06, 0.25, 1.1};
  std::vector<PlotSeries> series() const {
    return {{"GPU, median", x, gpu, IM_COL32(90, 200, 110, 255), lo, hi},
            {"CPU, 1 thread", x, cpu, IM_COL32(255, 255, 255, 255), {}, {}}};
  }
};

PlotAxes axes(bool log_x, bool log_y) {
  PlotAxes a;
  a.x_label = "N elements";
  a.y_label = "ms per run";
  a.log_x = log_x;
  a.log_y = log_y;
  return a;
}

struct Painted {
  bs::fig::Layout layout;
  std::vector<bs::fig::Hit> hits;
  std::vector<std::string> texts;
};

// The painter on a measuring canvas, in a rectangle of w x h.
Painted paint(const bs::fig::Figure& f, float w, float h) {
  bs::test::NullCanvas c;
  Painted p;
  bs::fig::paint(f, c, 0, 0, w, h, bs::fig::dark_theme(), &p.hits, &p.layout);
  p.texts = c.texts;
  return p;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

void expect_same_hits(const std::vector<bs::fig::Hit>& a, const std::vector<bs::fig::Hit>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_FLOAT_EQ(a[i].x0, b[i].x0) << i;
    EXPECT_FLOAT_EQ(a[i].y0, b[i].y0) << i;
    EXPECT_EQ(a[i].text, b[i].text) << i;
    EXPECT_EQ(a[i].series, b[i].series) << i;
  }
}

}  // namespace

class PlotLive : public PlotOnAFrame, public ::testing::WithParamInterface<std::pair<bool, bool>> {};

// plot_lines draws exactly what the painter lays out for the figure: the same plot area, axes, ticks and
// hover targets (paint_figure with the same fonts and rectangle, into a draw list of its own).
TEST_P(PlotLive, DrawsThePaintersLayout) {
  const auto [log_x, log_y] = GetParam();
  const Data d;
  const auto series = d.series();
  const PlotAxes a = axes(log_x, log_y);
  bs::ui::FigureDrawn drawn;
  std::vector<bs::fig::Hit> hits;
  bs::fig::Layout layout;
  frame(ImVec2(-100, -100), [&] {
    bs::ui::plot_lines("timing", ImVec2(640, 260), a, series, &drawn);
    // The same painter into another draw list of the frame.
    bs::ui::paint_figure(ImGui::GetForegroundDrawList(), drawn.origin, drawn.size,
                         bs::ui::live_figure(a, series), bs::fig::dark_theme(), {}, &hits, &layout);
  });
  EXPECT_FLOAT_EQ(drawn.size.x, 640);
  EXPECT_FLOAT_EQ(drawn.size.y, 260);
  ASSERT_TRUE(drawn.layout.has_axes);
  EXPECT_EQ(drawn.layout.x.ticks, layout.x.ticks);
  EXPECT_EQ(drawn.layout.y.ticks, layout.y.ticks);
  EXPECT_FLOAT_EQ(drawn.layout.x0, layout.x0);
  EXPECT_FLOAT_EQ(drawn.layout.y1, layout.y1);
  expect_same_hits(drawn.hits, hits);
  EXPECT_EQ(drawn.hits.size(), 10u);  // every point of both series
  EXPECT_GE(drawn.layout.y.ticks.size(), 2u);
  EXPECT_EQ(drawn.hovered_hit, -1);
}

// The figure the export menu saves has the live plot's ranges and ticks (same rectangle): the compact look
// drops only the title. Its SVG carries the same tick labels.
TEST_P(PlotLive, ExportHasTheSameRangesAndTicks) {
  const auto [log_x, log_y] = GetParam();
  const Data d;
  const auto series = d.series();
  const PlotAxes a = axes(log_x, log_y);
  for (const auto& [w, h] : {std::pair{640.0f, 260.0f}, std::pair{1200.0f, 675.0f}}) {
    const Painted live = paint(bs::ui::live_figure(a, series), w, h);
    const bs::fig::Figure exported = bs::ui::figure_from_plot(a, series);
    const Painted file = paint(exported, w, h);
    ASSERT_TRUE(live.layout.has_axes && file.layout.has_axes);
    EXPECT_EQ(live.layout.x.lo, file.layout.x.lo);
    EXPECT_EQ(live.layout.x.hi, file.layout.x.hi);
    EXPECT_EQ(live.layout.y.lo, file.layout.y.lo);
    EXPECT_EQ(live.layout.y.hi, file.layout.y.hi);
    EXPECT_EQ(live.layout.y.ticks, file.layout.y.ticks) << w << "x" << h;
    EXPECT_EQ(live.layout.x.ticks, file.layout.x.ticks) << w << "x" << h;
    EXPECT_FALSE(contains(live.texts, exported.title));  // the panel names the plot
    EXPECT_TRUE(contains(file.texts, exported.title));
    // The tick labels drawn are the shared format_tick of the ticks, on screen and in the SVG.
    const std::string svg = bs::fig::to_svg(exported, static_cast<int>(w), static_cast<int>(h));
    for (double t : live.layout.y.ticks) {
      EXPECT_TRUE(contains(live.texts, bs::fig::format_tick(t))) << t;
      std::string element(">");  // (appended, not ">" + ...: GCC 12's -Wrestrict false positive)
      element += bs::fig::format_tick(t);
      element += "</text>";
      EXPECT_NE(svg.find(element), std::string::npos) << t;
    }
    for (double t : live.layout.x.ticks)
      EXPECT_TRUE(contains(live.texts, bs::fig::format_tick(t))) << t;
    EXPECT_EQ(live.hits.size(), file.hits.size());
  }
}

INSTANTIATE_TEST_SUITE_P(Axes, PlotLive,
                         ::testing::Values(std::pair{false, false}, std::pair{true, false},
                                           std::pair{false, true}, std::pair{true, true}));

// Hovering anywhere over the plot area reads out the nearest point (the painter's hit text); the figure
// widget of the sweeps keeps its "near a point only" read-out.
TEST_F(PlotOnAFrame, LiveReadOutIsTheNearestPointsHit) {
  const Data d;
  const auto series = d.series();
  const PlotAxes a = axes(true, true);
  bs::ui::FigureDrawn drawn;
  frame(ImVec2(-100, -100), [&] { bs::ui::plot_lines("p", ImVec2(640, 300), a, series, &drawn); });
  ASSERT_EQ(drawn.hits.size(), 10u);
  // The last GPU point, hovered from a little to its left and below: nearer to it than to any other point.
  const bs::fig::Hit target = drawn.hits[4];
  frame(ImVec2(target.x0 - 6, target.y0 + 4),
        [&] { EXPECT_TRUE(bs::ui::plot_lines("p", ImVec2(640, 300), a, series, &drawn)); });
  ASSERT_EQ(drawn.hovered_hit, 4);
  EXPECT_EQ(drawn.hits[4].series, 0);
  EXPECT_NE(drawn.hits[4].text.find("GPU, median"), std::string::npos) << drawn.hits[4].text;
  EXPECT_NE(drawn.hits[4].text.find("ms per run: 0.39"), std::string::npos) << drawn.hits[4].text;
  EXPECT_NE(drawn.hits[4].text.find("p10-p90: 0.36 - 0.43"), std::string::npos) << drawn.hits[4].text;

  // Far from every point but over the plot area: the live plot still reads out the nearest point...
  const bs::fig::Layout& l = drawn.layout;
  const ImVec2 corner(l.x0 + 3, l.y0 + 3);
  frame(corner, [&] { bs::ui::plot_lines("p", ImVec2(640, 300), a, series, &drawn); });
  EXPECT_GE(drawn.hovered_hit, 0);
  // ... and pick_hit says which: the nearest of all.
  float best = std::numeric_limits<float>::infinity();
  int nearest = -1;
  for (size_t i = 0; i < drawn.hits.size(); ++i) {
    const float dx = drawn.hits[i].x0 - corner.x, dy = drawn.hits[i].y0 - corner.y;
    if (dx * dx + dy * dy < best) best = dx * dx + dy * dy, nearest = static_cast<int>(i);
  }
  EXPECT_EQ(drawn.hovered_hit, nearest);
  EXPECT_EQ(bs::ui::pick_hit(drawn.hits, l, corner, bs::ui::HoverPick::Near, 13.0f * 2), -1);
  // Outside the plot area (on the tick labels) the live plot reads out nothing.
  EXPECT_EQ(bs::ui::pick_hit(drawn.hits, l, ImVec2(l.x0 - 30, l.y1 + 10), bs::ui::HoverPick::Nearest, 26.0f),
            -1);
}

// No data, a series without points, a single point: drawn without harm, on linear and log axes.
TEST_F(PlotOnAFrame, EmptyAndSinglePointSeries) {
  const std::vector<double> one_x = {4096}, one_y = {0.25}, none;
  for (bool log : {false, true}) {
    const PlotAxes a = axes(log, log);
    bs::ui::FigureDrawn no_series, empty, single;
    const std::vector<PlotSeries> empty_series = {{"nothing yet", none, none}};
    const std::vector<PlotSeries> single_series = {{"one", one_x, one_y}};
    frame(ImVec2(200, 100), [&] {
      bs::ui::plot_lines("none", ImVec2(400, 150), a, {}, &no_series);
      bs::ui::plot_lines("empty", ImVec2(400, 150), a, empty_series, &empty);
      bs::ui::plot_lines("single", ImVec2(400, 150), a, single_series, &single);
      bs::ui::plot_lines("tiny", ImVec2(3, 3), a, single_series);
    });
    EXPECT_FALSE(no_series.layout.has_axes);
    EXPECT_TRUE(no_series.hits.empty());
    EXPECT_FALSE(empty.layout.has_axes);
    EXPECT_TRUE(empty.hits.empty());
    ASSERT_TRUE(single.layout.has_axes) << log;
    ASSERT_EQ(single.hits.size(), 1u);
    EXPECT_LT(single.layout.x.lo, 4096);
    EXPECT_GT(single.layout.x.hi, 4096);
    EXPECT_LT(single.layout.y.lo, 0.25);
    EXPECT_GT(single.layout.y.hi, 0.25);
    EXPECT_FALSE(single.layout.y.ticks.empty());
    // The single point sits inside the plot area.
    EXPECT_GT(single.hits[0].x0, single.layout.x0);
    EXPECT_LT(single.hits[0].x0, single.layout.x1);
  }
}

// NaN and inf (and values <= 0 on log axes) are not drawn, not hover targets, and do not stretch the axes.
TEST(PlotFigure, NonFiniteValuesAreSkipped) {
  const std::vector<double> x = {1, 2, k_nan, 4, 5, k_inf, 7};
  const std::vector<double> y = {1.0, k_nan, 3.0, k_inf, -k_inf, 6.0, 2.0};
  const std::vector<double> lo = {0.9, k_nan, 2.9, 3.0, 4.0, 5.5, 1.8};
  const std::vector<double> hi = {1.1, 2.0, 3.1, k_inf, 6.0, 6.5, 2.2};
  const std::vector<PlotSeries> series = {{"noisy", x, y, IM_COL32(255, 170, 60, 255), lo, hi}};
  const Painted lin = paint(bs::ui::live_figure(axes(false, false), series), 640, 300);
  ASSERT_TRUE(lin.layout.has_axes);
  EXPECT_EQ(lin.hits.size(), 2u);  // (1, 1) and (7, 2): the only points finite in x and y
  for (const auto& h : lin.hits) {
    EXPECT_TRUE(std::isfinite(h.x0) && std::isfinite(h.y0));
    EXPECT_EQ(h.text.find("n/a"), std::string::npos) << h.text;
  }
  EXPECT_TRUE(std::isfinite(lin.layout.y.hi));
  EXPECT_LT(lin.layout.y.hi, 3.0);  // the bands of skipped points do not count either
  EXPECT_LT(lin.layout.x.hi, 8.0);

  // On log axes, zero and negative values go too.
  const std::vector<double> lx = {0, 10, 100, -5, 1000}, ly = {1, 0, 2, 3, 4};
  const std::vector<PlotSeries> log_series = {{"log", lx, ly}};
  const Painted log = paint(bs::ui::live_figure(axes(true, true), log_series), 640, 300);
  ASSERT_TRUE(log.layout.has_axes);
  EXPECT_EQ(log.hits.size(), 2u);  // (100, 2) and (1000, 4)
  EXPECT_GT(log.layout.x.lo, 10);
  EXPECT_GT(log.layout.y.lo, 1);

  // All of it non-finite: no data, no crash.
  const std::vector<double> bad = {k_nan, k_inf};
  const std::vector<PlotSeries> none = {{"bad", bad, bad}};
  EXPECT_FALSE(paint(bs::ui::live_figure(axes(false, false), none), 640, 300).layout.has_axes);
}

// A legend entry wider than the panel (a long label, or the wider built-in font where DejaVu is missing) is
// shortened with "..." to the panel's width instead of running past its edge.
TEST(PlotFigure, ALongLegendLabelIsShortenedToThePanel) {
  const Data d;
  const std::string label = "ms/step (median of 15 batches, p10-p90 band), the GPU stencil at 1024x1024";
  const std::vector<PlotSeries> s = {{label, d.x, d.gpu}, {"CPU", d.x, d.cpu}};
  for (float w : {260.0f, 420.0f, 900.0f}) {
    SCOPED_TRACE(w);
    bs::test::NullCanvas c;
    bs::fig::paint(bs::ui::live_figure(axes(false, false), s), c, 0, 0, w, 200, bs::fig::dark_theme());
    bool shortened = false;
    for (size_t i = 0; i < c.texts.size(); ++i) {
      EXPECT_LE(c.text_right[i], w + 0.5f) << '"' << c.texts[i] << "\" ends at " << c.text_right[i];
      const std::string& t = c.texts[i];
      if (t.size() > 3 && t.ends_with("...") && label.starts_with(t.substr(0, t.size() - 3)))
        shortened = true;
    }
    if (w < 600) {
      EXPECT_TRUE(shortened);  // 76 characters of 9 units do not fit a row of these widths
    }
  }
}

// y_from_zero (the PlotAxes default) keeps zero on a linear axis of times; off, the axis fits the data.
TEST(PlotFigure, YFromZeroIsHonoured) {
  const std::vector<double> x = {1, 2, 3}, y = {10, 11, 12};
  const std::vector<PlotSeries> s = {{"t", x, y}};
  PlotAxes a = axes(false, false);
  EXPECT_EQ(paint(bs::ui::live_figure(a, s), 640, 300).layout.y.lo, 0.0);
  a.y_from_zero = false;
  const Painted fit = paint(bs::ui::live_figure(a, s), 640, 300);
  EXPECT_GT(fit.layout.y.lo, 9.0);
  EXPECT_LT(fit.layout.y.lo, 10.0);
}

// The panel's colours go to screen and file alike; a colour that would vanish on the light paper (white) is
// darkened there, and palette colours are drawn exactly as given on both themes.
TEST(PlotFigure, ColoursAreThePanelsAndStayReadable) {
  const Data d;
  const auto series = d.series();
  const bs::fig::Figure f = bs::ui::figure_from_plot(axes(false, false), series);
  ASSERT_EQ(f.series.size(), 2u);
  EXPECT_EQ(f.series[0].rgba, 0x5ac86effu);  // IM_COL32(90, 200, 110, 255)
  EXPECT_EQ(f.series[1].rgba, 0xffffffffu);
  // A series without a colour gets the palette's for its position: two of them never look alike.
  const std::vector<PlotSeries> plain = {{"a", d.x, d.gpu}, {"b", d.x, d.cpu}};
  const bs::fig::Figure g = bs::ui::figure_from_plot(axes(false, false), plain);
  EXPECT_EQ(g.series[0].rgba, bs::fig::palette(0));
  EXPECT_EQ(g.series[1].rgba, bs::fig::palette(1));
  const uint32_t paper = bs::fig::light_theme().background, screen = bs::fig::dark_theme().background;
  EXPECT_EQ(bs::fig::readable_on(0xffffffffu, screen), 0xffffffffu);
  const uint32_t on_paper = bs::fig::readable_on(0xffffffffu, paper);
  EXPECT_LT(on_paper >> 8, 0xc0c0c0u);  // visibly grey, not white
  EXPECT_EQ(on_paper & 0xffu, 0xffu);   // alpha kept
  for (size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(bs::fig::readable_on(bs::fig::palette(i), paper), bs::fig::palette(i)) << i;
    EXPECT_EQ(bs::fig::readable_on(bs::fig::palette(i), screen), bs::fig::palette(i)) << i;
  }
  const std::string svg = bs::fig::to_svg(f, 800, 450);
  EXPECT_EQ(svg.find("class=\"series\" fill=\"none\" stroke=\"#ffffff\""), std::string::npos);
  EXPECT_NE(svg.find("class=\"series\" fill=\"none\" stroke=\"#5ac86e\""), std::string::npos);
}

// One tick function and one label function for everything: the names the lab panels call are the figure's.
TEST(PlotTicks, OneTickCode) {
  using TicksFn = std::vector<double> (*)(double, double, int, bool);
  using LabelFn = std::string (*)(double);
  EXPECT_EQ(static_cast<TicksFn>(&bs::ui::nice_ticks), static_cast<TicksFn>(&bs::fig::nice_ticks));
  EXPECT_EQ(static_cast<LabelFn>(&bs::ui::format_tick), static_cast<LabelFn>(&bs::fig::format_tick));
  EXPECT_EQ(bs::fig::nice_ticks(3, 20000, 5, true), (std::vector<double>{10, 100, 1000, 10000}));
  EXPECT_EQ(bs::fig::nice_ticks(0, 1, 5, false).size(), 6u);  // 0, 0.2, ..., 1
  // Same unit along an axis: 500, 1k, 1.5k, 2k.
  EXPECT_EQ(bs::fig::format_tick(500), "500");
  EXPECT_EQ(bs::fig::format_tick(1000), "1k");
  EXPECT_EQ(bs::fig::format_tick(1500), "1.5k");
  EXPECT_EQ(bs::fig::format_tick(2.5e6), "2.5M");
  EXPECT_EQ(bs::fig::format_tick(0.25), "0.25");
  EXPECT_EQ(bs::fig::format_tick(0.0001), "1.0e-04");
  // A log axis within a decade still gets several ticks.
  bs::fig::Range r;
  r.add(1024, true);
  r.add(4096, true);
  EXPECT_GE(bs::fig::make_axis(r, true, 4, false, 0.03).ticks.size(), 3u);
  // Degenerate ranges return (at most a few ticks), never loop.
  EXPECT_TRUE(bs::fig::nice_ticks(0, 100, 5, true).empty());  // log axis from 0
  EXPECT_TRUE(bs::fig::nice_ticks(-5, 100, 5, true).empty());
  EXPECT_TRUE(bs::fig::nice_ticks(1, 1, 5, false).empty());
  EXPECT_TRUE(bs::fig::nice_ticks(k_nan, 1, 5, false).empty());
  EXPECT_LE(bs::fig::nice_ticks(1e15, 1e15 + 1, 5, false).size(), 8u);
}
