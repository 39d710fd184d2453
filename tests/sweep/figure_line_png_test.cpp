// figure_line_png_test.cpp: a steep line in a PNG figure is drawn continuous, not as dashes, at every export
// scale: a nearly vertical segment is rendered through the offscreen PNG path and every pixel row it spans
// must hold the series' colour.
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "ui/figure.h"
#include "ui/figure_export.h"
#include "ui/gl/context.h"

namespace {

// A line from the bottom-left up a near-vertical segment, then flat: the steep part spans most of the plot's
// height within a few per cent of its width.
bs::fig::Figure steep_figure(double dx) {
  bs::fig::Figure f;
  f.kind = bs::fig::Kind::Lines;
  f.title = "steep";
  f.x_label = "x";
  f.y_label = "y";
  bs::fig::Series s;
  s.label = "";  // no legend entry: only the line is red
  s.x = {0.0, dx, 1.0};
  s.y = {0.0, 1.0, 1.0};
  s.rgba = 0xff0000ffu;
  f.series.push_back(s);
  return f;
}

bool red(const unsigned char* p) {
  return p[0] > 170 && p[1] < 110 && p[2] < 110;
}

struct Gaps {
  int rows = 0;     // rows the steep segment spans
  int missing = 0;  // of those, rows with no red pixel
  int first_missing = -1;
};

// Rows between the top and bottom of the red pixels in the image's left half (where the steep segment is),
// away from its ends (the point markers): each must hold red.
Gaps row_gaps(const std::string& path) {
  Gaps g;
  int w = 0, h = 0, n = 0;
  unsigned char* px = stbi_load(path.c_str(), &w, &h, &n, 3);
  if (!px) return g;
  int top = h, bottom = -1;
  std::vector<bool> has(static_cast<size_t>(h), false);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w / 2; ++x)
      if (red(px + 3 * (static_cast<size_t>(y) * w + x))) {
        has[static_cast<size_t>(y)] = true;
        top = std::min(top, y);
        bottom = std::max(bottom, y);
      }
  stbi_image_free(px);
  const int margin = h / 20;  // the markers at both ends
  for (int y = top + margin; y <= bottom - margin; ++y) {
    ++g.rows;
    if (!has[static_cast<size_t>(y)]) {
      ++g.missing;
      if (g.first_missing < 0) g.first_missing = y;
    }
  }
  return g;
}

TEST(FigureLinePng, SteepSegmentsAreContinuous) {
  std::string err;
  auto gl = bs::gl::create_headless(64, 64, &err);
  if (!gl) GTEST_SKIP() << "no headless GL context: " << err;
  const std::string dir = std::string(BS_TEST_OUT) + "/sweep-guard";
  std::filesystem::create_directories(dir);
  struct Case {
    int w, h;
    float scale;
    double dx;
  };
  const Case cases[] = {{1600, 900, 1.0f, 0.01},  {1600, 900, 2.0f, 0.01},  {800, 600, 0.5f, 0.02},
                        {1200, 900, 1.5f, 0.003}, {1600, 900, 3.0f, 0.005}, {640, 480, 1.0f, 0.0}};
  for (const Case& c : cases) {
    const std::string path = dir + "/steep_" + std::to_string(c.w) + "x" + std::to_string(c.h) + "_s" +
                             std::to_string(static_cast<int>(c.scale * 10)) + ".png";
    bs::ui::PngOptions o;
    o.width = c.w;
    o.height = c.h;
    o.scale = c.scale;
    ASSERT_TRUE(bs::ui::export_png(steep_figure(c.dx), o, path, &err)) << err;
    const Gaps g = row_gaps(path);
    EXPECT_GT(g.rows, c.h / 3) << path << ": the steep segment was not found";
    EXPECT_EQ(g.missing, 0) << path << ": " << g.missing << " of " << g.rows
                            << " rows along the steep segment have no line pixel (first at y = "
                            << g.first_missing << ")";
  }
}

}  // namespace
