// figure_svg.cpp: see figure.h. The SVG canvas: the painter in figure.cpp draws onto it as onto the screen
// and PNG canvases (figure_view.cpp), so the file shows the same layout.
#include "ui/figure.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/readout.h"
#include "core/text.h"

namespace bs::fig {

namespace {

std::string num(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(v));
  std::string s = buf;
  while (!s.empty() && s.back() == '0')
    s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

// fill="..." plus fill-opacity where the colour is translucent (SVG 1.1 has no #rrggbbaa).
std::string paint_attr(const char* what, uint32_t rgba) {
  if ((rgba & 0xffu) == 0) return std::string(what) + "=\"none\"";
  std::string s = std::string(what) + "=\"" + rgb_hex(rgba) + "\"";
  if ((rgba & 0xffu) != 0xffu)
    s.append(" ").append(what).append("-opacity=\"").append(num((rgba & 0xffu) / 255.0f)).append("\"");
  return s;
}

class SvgCanvas final : public Canvas {
 public:
  explicit SvgCanvas(float body) : m_body(body) {}
  std::string out;

  float font_size(TextStyle s) const override {
    return s == TextStyle::Title ? m_body * 1.3f : s == TextStyle::Small ? m_body * 0.87f : m_body;
  }
  // DejaVu Sans advance widths, roughly (em fractions); the file names the font, so viewers match closely.
  float text_width(const std::string& s, TextStyle st) override {
    float w = 0;
    for (unsigned char ch : s) {
      if ((ch & 0xc0) == 0x80) continue;  // UTF-8 continuation byte
      if (ch >= '0' && ch <= '9')
        w += 0.636f;
      else if (ch >= 'A' && ch <= 'Z')
        w += 0.70f;
      else if (ch >= 'a' && ch <= 'z')
        w += (ch == 'i' || ch == 'l' || ch == 'j') ? 0.28f : (ch == 'm' || ch == 'w') ? 0.9f : 0.58f;
      else if (ch == ' ')
        w += 0.318f;
      else if (ch >= 0x80)
        w += 0.62f;
      else
        w += 0.42f;
    }
    return w * font_size(st) * (st == TextStyle::Title ? 1.08f : 1.0f);
  }
  void rect(Pt a, Pt b, uint32_t fill, uint32_t stroke, float stroke_w, const char* id) override {
    out += "<rect";
    if (id) out += " id=\"" + xml_escape(id) + "\"";
    out += " x=\"" + num(std::min(a.x, b.x)) + "\" y=\"" + num(std::min(a.y, b.y)) + "\" width=\"" +
           num(std::abs(b.x - a.x)) + "\" height=\"" + num(std::abs(b.y - a.y)) + "\" " +
           paint_attr("fill", fill);
    if (stroke && stroke_w > 0)
      out += " " + paint_attr("stroke", stroke) + " stroke-width=\"" + num(stroke_w) + "\"";
    out += "/>\n";
  }
  void line(Pt a, Pt b, uint32_t c, float w, bool dashed) override {
    out += "<line x1=\"" + num(a.x) + "\" y1=\"" + num(a.y) + "\" x2=\"" + num(b.x) + "\" y2=\"" + num(b.y) +
           "\" " + paint_attr("stroke", c) + " stroke-width=\"" + num(w) + "\"" +
           (dashed ? " stroke-dasharray=\"6,4\"" : "") + "/>\n";
  }
  void polyline(const std::vector<Pt>& pts, uint32_t c, float w) override {
    out += "<polyline class=\"series\" fill=\"none\" " + paint_attr("stroke", c) + " stroke-width=\"" +
           num(w) + "\" stroke-linejoin=\"round\" stroke-linecap=\"round\" points=\"" + points(pts) +
           "\"/>\n";
  }
  void band(const std::vector<Pt>& upper, const std::vector<Pt>& lower, uint32_t fill) override {
    std::vector<Pt> ring(upper);
    ring.insert(ring.end(), lower.rbegin(), lower.rend());
    out += "<polygon class=\"band\" " + paint_attr("fill", fill) + " points=\"" + points(ring) + "\"/>\n";
  }
  void marker(Pt p, int shape, float r, uint32_t fill, uint32_t stroke) override {
    const std::string style =
        paint_attr("fill", fill) + " " + paint_attr("stroke", stroke) + " stroke-width=\"1\"";
    if (shape == 1) {
      rect(Pt{p.x - r * 0.9f, p.y - r * 0.9f}, Pt{p.x + r * 0.9f, p.y + r * 0.9f}, fill, stroke, 1.0f,
           nullptr);
    } else if (shape == 2) {
      const float d = r * 1.25f;
      out += "<polygon " + style + " points=\"" +
             points({{p.x, p.y - d}, {p.x + d, p.y}, {p.x, p.y + d}, {p.x - d, p.y}}) + "\"/>\n";
    } else if (shape == 3) {
      const float d = r * 1.3f;
      out += "<polygon " + style + " points=\"" +
             points({{p.x, p.y - d}, {p.x + d * 0.9f, p.y + d * 0.6f}, {p.x - d * 0.9f, p.y + d * 0.6f}}) +
             "\"/>\n";
    } else {
      out += "<circle cx=\"" + num(p.x) + "\" cy=\"" + num(p.y) + "\" r=\"" + num(r) + "\" " + style + "/>\n";
    }
  }
  void text(Pt p, const std::string& s, TextStyle st, uint32_t c, Anchor a, float angle,
            const char* id) override {
    const float size = font_size(st);
    out += "<text";
    if (id) out += " id=\"" + xml_escape(id) + "\"";
    // y is the baseline: the middle of lower-case and digit glyphs sits about 0.35 em above it.
    out += " x=\"" + num(p.x) + "\" y=\"" + num(p.y + size * 0.35f) + "\" font-size=\"" + num(size) + "\" " +
           paint_attr("fill", c);
    if (a != Anchor::Start) out += a == Anchor::Middle ? " text-anchor=\"middle\"" : " text-anchor=\"end\"";
    if (st == TextStyle::Title) out += " font-weight=\"bold\"";
    // append, not "..." + num(...): GCC 12 at -O3 warns (-Wrestrict, a false positive) on that form here.
    if (angle != 0)
      out.append(" transform=\"rotate(")
          .append(num(-angle))
          .append(" ")
          .append(num(p.x))
          .append(" ")
          .append(num(p.y))
          .append(")\"");
    out.append(">").append(xml_escape(s)).append("</text>\n");
  }

 private:
  static std::string points(const std::vector<Pt>& pts) {
    std::string s;
    for (const Pt& p : pts) {
      if (!s.empty()) s += ' ';
      s += num(p.x) + "," + num(p.y);
    }
    return s;
  }
  float m_body;
};

}  // namespace

std::string to_svg(const Figure& f, int width, int height) {
  width = std::max(width, 1);
  height = std::max(height, 1);
  // Body text of 15 user units at 1600 wide, as the PNG at scale 1: the two look alike.
  SvgCanvas c(15.0f);
  const std::string w = std::to_string(width), h = std::to_string(height);
  c.out = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n";
  c.out += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" + w + "\" height=\"" + h +
           "\" viewBox=\"0 0 " + w + " " + h +
           "\" font-family=\"DejaVu Sans, Verdana, Helvetica, Arial, sans-serif\">\n";
  c.out +=
      "<title>" + xml_escape(f.title.empty() ? std::string("blockscope figure") : f.title) + "</title>\n";
  if (!f.subtitle.empty()) c.out += "<desc>" + xml_escape(f.subtitle) + "</desc>\n";
  paint(f, c, 0, 0, static_cast<float>(width), static_cast<float>(height), light_theme(), nullptr);
  c.out += "</svg>\n";
  return c.out;
}

}  // namespace bs::fig
