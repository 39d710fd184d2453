// figure_svg_test.cpp: every kind of figure becomes a well-formed SVG (parsed by expat) of the asked size,
// with escaped text, one polyline per series, and the heat map's "best" label on the right cell.
#include <expat.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "figure_samples.h"
#include "ui/figure.h"
#include "ui/figure_export.h"

namespace {

struct Element {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::string text;  // character data directly inside (entities decoded by expat)
};

struct Parsed {
  bool ok = false;
  std::string error;
  std::vector<Element> elements;  // document order; [0] is the root
};

Parsed parse(const std::string& xml) {
  Parsed p;
  std::vector<size_t> stack;
  XML_Parser parser = XML_ParserCreate("UTF-8");
  struct Ctx {
    Parsed* p;
    std::vector<size_t>* stack;
  } ctx{&p, &stack};
  XML_SetUserData(parser, &ctx);
  XML_SetElementHandler(
      parser,
      [](void* ud, const XML_Char* name, const XML_Char** atts) {
        auto* c = static_cast<Ctx*>(ud);
        Element e;
        e.name = name;
        for (int i = 0; atts[i]; i += 2)
          e.attrs[atts[i]] = atts[i + 1];
        c->stack->push_back(c->p->elements.size());
        c->p->elements.push_back(std::move(e));
      },
      [](void* ud, const XML_Char*) { static_cast<Ctx*>(ud)->stack->pop_back(); });
  XML_SetCharacterDataHandler(parser, [](void* ud, const XML_Char* s, int len) {
    auto* c = static_cast<Ctx*>(ud);
    if (!c->stack->empty()) c->p->elements[c->stack->back()].text.append(s, static_cast<size_t>(len));
  });
  p.ok = XML_Parse(parser, xml.data(), static_cast<int>(xml.size()), 1) == XML_STATUS_OK;
  if (!p.ok)
    p.error = std::string(XML_ErrorString(XML_GetErrorCode(parser))) + " at line " +
              std::to_string(XML_GetCurrentLineNumber(parser));
  XML_ParserFree(parser);
  return p;
}

size_t count(const Parsed& p, const std::string& name, const std::string& cls = "") {
  size_t n = 0;
  for (const auto& e : p.elements)
    if (e.name == name && (cls.empty() || (e.attrs.count("class") && e.attrs.at("class") == cls))) ++n;
  return n;
}

bool has_text(const Parsed& p, const std::string& s) {
  for (const auto& e : p.elements)
    if (e.name == "text" && e.text == s) return true;
  return false;
}

const Element* by_id(const Parsed& p, const std::string& id) {
  for (const auto& e : p.elements)
    if (e.attrs.count("id") && e.attrs.at("id") == id) return &e;
  return nullptr;
}

Parsed parse_checked(const bs::fig::Figure& f, int w, int h) {
  const std::string svg = bs::fig::to_svg(f, w, h);
  Parsed p = parse(svg);
  EXPECT_TRUE(p.ok) << p.error << "\n" << svg.substr(0, 2000);
  if (!p.ok) return p;
  const Element& root = p.elements.front();
  EXPECT_EQ(root.name, "svg");
  EXPECT_EQ(root.attrs.at("xmlns"), "http://www.w3.org/2000/svg");
  EXPECT_EQ(root.attrs.at("width"), std::to_string(w));
  EXPECT_EQ(root.attrs.at("height"), std::to_string(h));
  EXPECT_EQ(root.attrs.at("viewBox"), "0 0 " + std::to_string(w) + " " + std::to_string(h));
  return p;
}

}  // namespace

TEST(FigureSvg, LinesParseWithOnePolylinePerSeriesBandsAndMarker) {
  bs::fig::Figure f = bs::test::sample_lines();
  const Parsed p = parse_checked(f, 1600, 900);
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(count(p, "polyline", "series"), f.series.size());
  EXPECT_EQ(count(p, "polygon", "band"), f.series.size());
  EXPECT_TRUE(has_text(p, "GPU faster from 2^20"));
  EXPECT_TRUE(has_text(p, f.title));
  EXPECT_TRUE(has_text(p, "time (ms)"));
  for (const auto& s : f.series)
    EXPECT_TRUE(has_text(p, s.label)) << s.label;
}

TEST(FigureSvg, TextIsEscaped) {
  bs::fig::Figure f = bs::test::sample_lines();
  const std::string nasty = "a<b & \"c\" > 'd'";
  f.title = nasty;
  f.x_label = nasty + " x";
  f.series[0].label = nasty + " s";
  f.markers[0].label = "<marker> & \"m\"";
  const std::string svg = bs::fig::to_svg(f, 800, 450);
  EXPECT_EQ(svg.find("a<b"), std::string::npos) << "raw '<' in text";
  EXPECT_EQ(svg.find(" & "), std::string::npos) << "raw '&' in text";
  const Parsed p = parse_checked(f, 800, 450);
  ASSERT_TRUE(p.ok);
  EXPECT_TRUE(has_text(p, nasty));  // expat decodes the entities back to the original
  EXPECT_TRUE(has_text(p, nasty + " x"));
  EXPECT_TRUE(has_text(p, nasty + " s"));
  EXPECT_TRUE(has_text(p, "<marker> & \"m\""));
}

TEST(FigureSvg, HeatmapHasEveryCellAndBestOnTheLowestCell) {
  for (bool higher : {false, true}) {
    const bs::fig::Figure f = bs::test::sample_heatmap(higher);
    const Parsed p = parse_checked(f, 1200, 800);
    ASSERT_TRUE(p.ok);
    const size_t rows = f.heatmap.y_values.size(), cols = f.heatmap.x_values.size();
    size_t cells = 0;
    for (const auto& e : p.elements)
      if (e.name == "rect" && e.attrs.count("id") && e.attrs.at("id").rfind("cell-r", 0) == 0) ++cells;
    EXPECT_EQ(cells, rows * cols);
    // Lowest time: 0.48 at row 1, col 1; highest: 0.91 at row 0, col 0 (NaN ignored).
    const size_t best_row = higher ? 0 : 1, best_col = higher ? 0 : 1;
    EXPECT_EQ(bs::fig::best_cell(f.heatmap), static_cast<int>(best_row * cols + best_col));
    const Element* cell = by_id(p, "cell-r" + std::to_string(best_row) + "-c" + std::to_string(best_col));
    const Element* label = by_id(p, "best-label");
    ASSERT_NE(cell, nullptr);
    ASSERT_NE(label, nullptr);
    EXPECT_NE(label->text.find("best"), std::string::npos);
    const double x = std::stod(label->attrs.at("x")), y = std::stod(label->attrs.at("y"));
    const double cx = std::stod(cell->attrs.at("x")), cy = std::stod(cell->attrs.at("y"));
    const double cw = std::stod(cell->attrs.at("width")), chh = std::stod(cell->attrs.at("height"));
    EXPECT_TRUE(x > cx && x < cx + cw && y > cy && y < cy + chh)
        << "best label at " << x << "," << y << " outside cell " << cx << "," << cy << " " << cw << "x"
        << chh;
    EXPECT_NE(by_id(p, "best-cell"), nullptr);
    EXPECT_TRUE(has_text(p, "n/a"));
    EXPECT_TRUE(has_text(p, f.heatmap.value_label));
  }
}

TEST(FigureSvg, BarsShowValuesAndRotateLongLabels) {
  const bs::fig::Figure f = bs::test::sample_bars();
  const Parsed p = parse_checked(f, 1600, 900);
  ASSERT_TRUE(p.ok);
  EXPECT_TRUE(has_text(p, "42.1k"));  // value label above the cuBLAS bar
  for (const auto& b : f.bars)
    EXPECT_TRUE(has_text(p, b.label)) << b.label;

  const bs::fig::Figure g = bs::test::sample_bars(true);
  const Parsed q = parse_checked(g, 800, 450);
  ASSERT_TRUE(q.ok);
  size_t rotated = 0;
  for (const auto& e : q.elements)
    if (e.name == "text" && e.attrs.count("transform") && e.text.find("GPU, float32") != std::string::npos)
      ++rotated;
  EXPECT_EQ(rotated, g.bars.size());
}

TEST(FigureSvg, EmptyFiguresSayNoData) {
  for (auto kind : {bs::fig::Kind::Lines, bs::fig::Kind::Heatmap, bs::fig::Kind::Bars}) {
    bs::fig::Figure f;
    f.kind = kind;
    f.title = "empty";
    f.x_label = "x";
    f.y_label = "y";
    const Parsed p = parse_checked(f, 640, 360);
    ASSERT_TRUE(p.ok);
    EXPECT_TRUE(has_text(p, "no data"));
  }
  // Series with only non-positive values on a log axis are no data either.
  bs::fig::Figure f;
  f.log_y = true;
  f.series.push_back({"zeros", {1, 2}, {0, 0}, {}, {}, bs::fig::palette(0)});
  const Parsed p = parse_checked(f, 640, 360);
  ASSERT_TRUE(p.ok);
  EXPECT_TRUE(has_text(p, "no data"));
}

TEST(FigureSvg, ExportWritesFileAndReportsBadPaths) {
  const std::string dir = std::string(BS_TEST_OUT) + "/figures";
  std::filesystem::create_directories(dir);
  std::string err;
  EXPECT_TRUE(bs::ui::export_svg(bs::test::sample_heatmap(), 1200, 800, dir + "/heatmap.svg", &err)) << err;
  EXPECT_GT(std::filesystem::file_size(dir + "/heatmap.svg"), 1000u);
  EXPECT_TRUE(bs::ui::export_svg(bs::test::sample_lines(), 1600, 900, dir + "/lines.svg", &err)) << err;
  EXPECT_TRUE(bs::ui::export_svg(bs::test::sample_bars(), 1600, 900, dir + "/bars.svg", &err)) << err;

  err.clear();
  EXPECT_FALSE(bs::ui::export_svg(bs::test::sample_lines(), 800, 450, "/nonexistent-dir/x.svg", &err));
  EXPECT_NE(err.find("/nonexistent-dir/x.svg"), std::string::npos) << err;
  err.clear();
  EXPECT_FALSE(bs::ui::export_svg(bs::test::sample_lines(), 0, 450, dir + "/zero.svg", &err));
  EXPECT_FALSE(err.empty());
}

TEST(FigureSvg, PaletteColoursAreDistinct) {
  for (size_t i = 0; i < 10; ++i)
    for (size_t j = i + 1; j < 10; ++j)
      EXPECT_NE(bs::fig::palette(i), bs::fig::palette(j));
  EXPECT_EQ(bs::fig::palette(0), bs::fig::palette(10));
}

TEST(FigureSvg, AwkwardInputsStillParse) {
  for (const auto& f :
       {bs::test::sample_lines_awkward(), bs::test::sample_heatmap_big(), bs::test::sample_bars_log()}) {
    for (auto [w, h] : {std::pair{1600, 900}, std::pair{320, 180}, std::pair{16, 16}}) {
      const Parsed p = parse_checked(f, w, h);
      EXPECT_TRUE(p.ok) << f.title << " at " << w << "x" << h;
    }
  }
  const Parsed p = parse_checked(bs::test::sample_lines_awkward(), 1600, 900);
  EXPECT_EQ(count(p, "polyline", "series"), bs::test::sample_lines_awkward().series.size());
  const Parsed q = parse_checked(bs::test::sample_heatmap_big(), 1600, 900);
  EXPECT_NE(by_id(q, "best-label"), nullptr);
}
