// figure_png_test.cpp: figures rendered to PNG through a private ImGui context on a headless EGL context:
// the file has exactly the asked pixel size (IHDR), shows content, and the caller's state is left alone.
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>

#include <glad/gl.h>
#include <gtest/gtest.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "figure_samples.h"
#include "ui/figure_export.h"
#include "ui/figure_view.h"
#include "ui/gl/context.h"

namespace {

std::string out_path(const std::string& name) {
  const std::string dir = std::string(BS_TEST_OUT) + "/figures";
  std::filesystem::create_directories(dir);
  const std::string p = dir + "/" + name;
  std::filesystem::remove(p);
  return p;
}

// Width and height from the PNG's IHDR chunk (big-endian at bytes 16..23); -1 if not a PNG.
std::pair<int, int> png_size(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char b[24] = {};
  if (!in.read(reinterpret_cast<char*>(b), 24)) return {-1, -1};
  const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (!std::equal(sig, sig + 8, b) || std::string(reinterpret_cast<char*>(b + 12), 4) != "IHDR")
    return {-1, -1};
  auto be = [&](int o) { return (b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]; };
  return {be(16), be(20)};
}

struct Content {
  size_t distinct = 0;
  double non_white = 0;  // fraction of pixels that are not the white background
};

Content content(const std::string& path) {
  Content c;
  int w = 0, h = 0, n = 0;
  unsigned char* px = stbi_load(path.c_str(), &w, &h, &n, 3);
  if (!px) return c;
  std::set<uint32_t> colours;
  size_t non_white = 0;
  for (size_t i = 0; i < static_cast<size_t>(w) * h; ++i) {
    const unsigned char* p = px + 3 * i;
    colours.insert(p[0] | (p[1] << 8) | (p[2] << 16));
    if (p[0] < 250 || p[1] < 250 || p[2] < 250) ++non_white;
  }
  stbi_image_free(px);
  c.distinct = colours.size();
  c.non_white = static_cast<double>(non_white) / (static_cast<double>(w) * h);
  return c;
}

class FigurePng : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { s_ctx = bs::gl::create_headless(64, 64, &s_error); }
  static void TearDownTestSuite() { s_ctx.reset(); }
  void SetUp() override {
    if (!s_ctx) GTEST_SKIP() << "no headless GL context: " << s_error;
  }
  static std::unique_ptr<bs::gl::Context> s_ctx;
  static std::string s_error;
};
std::unique_ptr<bs::gl::Context> FigurePng::s_ctx;
std::string FigurePng::s_error;

void expect_png(const bs::fig::Figure& f, int w, int h, float scale, const std::string& name) {
  const std::string path = out_path(name);
  std::string err;
  ASSERT_TRUE(bs::ui::export_png(f, {w, h, scale}, path, &err)) << err;
  const auto [pw, ph] = png_size(path);
  EXPECT_EQ(pw, w) << name;
  EXPECT_EQ(ph, h) << name;
  const Content c = content(path);
  // Anti-aliased text and lines on white give hundreds of colours; a blank or failed render gives one or two.
  EXPECT_GT(c.distinct, 100u) << name;
  EXPECT_GT(c.non_white, 0.02) << name;
  EXPECT_LT(c.non_white, 0.9) << name << ": the background should be white";
}

}  // namespace

TEST_F(FigurePng, EveryKindAtScale1And2HasTheExactSize) {
  expect_png(bs::test::sample_lines(), 1600, 900, 1.0f, "lines_1600x900.png");
  expect_png(bs::test::sample_lines(), 800, 450, 2.0f, "lines_800x450@2.png");
  expect_png(bs::test::sample_heatmap(), 1600, 900, 1.0f, "heatmap_1600x900.png");
  expect_png(bs::test::sample_heatmap(true), 800, 450, 2.0f, "heatmap_800x450@2.png");
  expect_png(bs::test::sample_bars(), 1600, 900, 1.0f, "bars_1600x900.png");
  expect_png(bs::test::sample_bars(true), 800, 450, 2.0f, "bars_long_800x450@2.png");
  expect_png(bs::test::sample_bars(), 1023, 517, 1.5f, "bars_odd_1023x517@1.5.png");
  expect_png(bs::test::sample_lines_awkward(), 1600, 900, 1.0f, "lines_awkward_1600x900.png");
  expect_png(bs::test::sample_heatmap_big(), 1600, 900, 1.0f, "heatmap_big_1600x900.png");
  expect_png(bs::test::sample_bars_log(), 800, 450, 2.0f, "bars_log_800x450@2.png");
}

TEST_F(FigurePng, EmptyFigureStillRenders) {
  bs::fig::Figure f;
  f.title = "nothing measured yet";
  f.x_label = "size";
  f.y_label = "time (ms)";
  const std::string path = out_path("empty.png");
  std::string err;
  ASSERT_TRUE(bs::ui::export_png(f, {640, 360, 1.0f}, path, &err)) << err;
  EXPECT_EQ(png_size(path), std::make_pair(640, 360));
}

TEST_F(FigurePng, BadSizesAndPathsFailWithAMessage) {
  const auto f = bs::test::sample_lines();
  std::string err;
  EXPECT_FALSE(bs::ui::export_png(f, {8, 450, 1.0f}, out_path("tiny.png"), &err));
  EXPECT_NE(err.find("outside"), std::string::npos) << err;
  err.clear();
  EXPECT_FALSE(bs::ui::export_png(f, {800, 20000, 1.0f}, out_path("huge.png"), &err));
  EXPECT_FALSE(err.empty());
  err.clear();
  EXPECT_FALSE(bs::ui::export_png(f, {800, 450, 0.1f}, out_path("scale.png"), &err));
  EXPECT_NE(err.find("scale"), std::string::npos) << err;
  err.clear();
  EXPECT_FALSE(bs::ui::export_png(f, {800, 450, NAN}, out_path("nan.png"), &err));
  EXPECT_FALSE(err.empty());
  err.clear();
  EXPECT_FALSE(bs::ui::export_png(f, {800, 450, 1.0f}, "/nonexistent-dir/x.png", &err));
  EXPECT_NE(err.find("cannot write /nonexistent-dir/x.png"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(out_path("tiny.png")));
}

TEST_F(FigurePng, LeavesTheCallersImGuiContextFramebufferAndViewportAlone) {
  ImGuiContext* mine = ImGui::CreateContext();
  ImGui::SetCurrentContext(mine);
  GLuint fbo = 0;
  glGenFramebuffers(1, &fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glViewport(3, 4, 50, 60);
  std::string err;
  EXPECT_TRUE(bs::ui::export_png(bs::test::sample_bars(), {320, 200, 1.0f}, out_path("state.png"), &err))
      << err;
  EXPECT_EQ(ImGui::GetCurrentContext(), mine);
  GLint bound = -1, vp[4] = {};
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &bound);
  glGetIntegerv(GL_VIEWPORT, vp);
  EXPECT_EQ(bound, static_cast<GLint>(fbo));
  EXPECT_EQ(vp[0], 3);
  EXPECT_EQ(vp[1], 4);
  EXPECT_EQ(vp[2], 50);
  EXPECT_EQ(vp[3], 60);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glDeleteFramebuffers(1, &fbo);
  ImGui::DestroyContext(mine);
  EXPECT_EQ(ImGui::GetCurrentContext(), nullptr);
}

TEST_F(FigurePng, RenderPngDrawsThroughTheDefaultFont) {
  const std::string path = out_path("custom.png");
  std::string err;
  const bool ok = bs::ui::render_png(
      [](ImDrawList* dl, ImVec2 origin, ImVec2 size) {
        EXPECT_NEAR(size.x, 200.0f, 1e-3);  // 400 px at scale 2
        EXPECT_GT(ImGui::GetFontSize(), 10.0f);
        EXPECT_LT(ImGui::GetFontSize(), 20.0f);
        dl->AddRectFilled(ImVec2(origin.x + 10, origin.y + 10), ImVec2(origin.x + 100, origin.y + 60),
                          IM_COL32(30, 90, 200, 255));
        dl->AddText(ImVec2(origin.x + 10, origin.y + 70), IM_COL32(0, 0, 0, 255), "render_png text");
      },
      {400, 240, 2.0f}, path, &err);
  ASSERT_TRUE(ok) << err;
  EXPECT_EQ(png_size(path), std::make_pair(400, 240));
  // Background, the rectangle and the text: at least three colours (ImGui's built-in bitmap font, used where
  // DejaVu is not installed, has no anti-aliasing: exactly three then).
  EXPECT_GE(content(path).distinct, 3u);
}

// The on-screen widget (dark theme) drawn inside render_png's window: what the app shows, hover aside.
TEST_F(FigurePng, ScreenWidgetDrawsEveryKind) {
  const bs::fig::Figure figs[3] = {bs::test::sample_lines(), bs::test::sample_heatmap(),
                                   bs::test::sample_bars()};
  const char* names[3] = {"screen_lines.png", "screen_heatmap.png", "screen_bars.png"};
  for (int i = 0; i < 3; ++i) {
    const std::string path = out_path(names[i]);
    std::string err;
    bool hovered = true;
    ASSERT_TRUE(bs::ui::render_png(
        [&](ImDrawList*, ImVec2, ImVec2 size) { hovered = bs::ui::draw_figure(names[i], size, figs[i]); },
        {1200, 700, 1.0f}, path, &err))
        << err;
    EXPECT_FALSE(hovered);  // no mouse in the export context
    const Content c = content(path);
    EXPECT_GT(c.distinct, 100u) << names[i];
    EXPECT_GT(c.non_white, 0.9) << names[i] << ": the widget is dark";
  }
}

// Slide-ready by default: a figure is never drawn with tick labels smaller than 1/50 of its height, so a
// 1600x900 export at scale 1 is the export at the slide-ready scale, byte for byte; a larger scale stays.
TEST_F(FigurePng, ExportsAreSlideReadyByDefault) {
  EXPECT_NEAR(bs::ui::slide_ready_scale(900), 900.0 / (50 * 15 * 0.87), 1e-4);
  EXPECT_LT(bs::ui::slide_ready_scale(400), 1.0f);
  const auto bytes = [](const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
  };
  std::string err;
  const std::string one = out_path("slide_default.png"), ready = out_path("slide_ready.png"),
                    big = out_path("slide_2x.png");
  ASSERT_TRUE(bs::ui::export_png(bs::test::sample_lines(), {1600, 900, 1.0f}, one, &err)) << err;
  ASSERT_TRUE(bs::ui::export_png(bs::test::sample_lines(), {1600, 900, bs::ui::slide_ready_scale(900)}, ready,
                                 &err))
      << err;
  ASSERT_TRUE(bs::ui::export_png(bs::test::sample_lines(), {1600, 900, 2.0f}, big, &err)) << err;
  EXPECT_EQ(bytes(one), bytes(ready)) << "scale 1 was not raised to the slide-ready scale";
  EXPECT_NE(bytes(one), bytes(big)) << "a scale above the slide-ready one was lowered";
}

// On a log axis the first and last data values are labelled where no tick is near them: a sweep from 1000 to
// 3e7 reads "1k" and "30M" off the axis.
TEST(FigureAxes, LogAxesLabelTheFirstAndLastDataValues) {
  bs::fig::Range r;
  r.add(1000, true);
  r.add(3e7, true);
  const bs::fig::Axis a = bs::fig::make_axis(r, true, 6, false, 0.05);
  EXPECT_NE(std::find(a.ticks.begin(), a.ticks.end(), 3e7), a.ticks.end());
  EXPECT_TRUE(std::is_sorted(a.ticks.begin(), a.ticks.end()));
  // 1000 is a decade tick already: not doubled.
  EXPECT_EQ(std::count_if(a.ticks.begin(), a.ticks.end(), [](double t) { return std::abs(t - 1000) < 300; }), 1);
}

TEST_F(FigurePng, ExtremeScalesStillRender) {
  std::string err;
  const std::string big = out_path("scale8.png"), small = out_path("scale05.png");
  ASSERT_TRUE(bs::ui::export_png(bs::test::sample_heatmap(), {2400, 1350, 8.0f}, big, &err)) << err;
  EXPECT_EQ(png_size(big), std::make_pair(2400, 1350));
  ASSERT_TRUE(bs::ui::export_png(bs::test::sample_lines(), {1600, 900, 0.5f}, small, &err)) << err;
  EXPECT_GT(content(small).distinct, 100u);
}
