// figure_view.cpp: see figure_view.h. An ImGui draw-list implementation of fig::Canvas; the layout itself is
// fig::paint (figure.cpp), shared with the SVG writer.
#include "ui/figure_view.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/widgets.h"

namespace bs::ui {

namespace {

ImU32 im(uint32_t rgba) {
  return IM_COL32((rgba >> 24) & 0xff, (rgba >> 16) & 0xff, (rgba >> 8) & 0xff, rgba & 0xff);
}
ImVec2 iv(fig::Pt p) {
  return ImVec2(p.x, p.y);
}

// ImGui draws an anti-aliased line as a solid core of (width - fringe) with a one-pixel fringe fading out on
// each side. Thinner than two pixels (a PNG at scale 0.5), the core all but vanishes: along a steep segment
// the line's centre then drifts between pixel centres and the peak alpha swings between 1 and 1/2, so the
// line reads as dashes. At least two pixels (the fringe scale is one pixel in layout units) keeps a 1-px
// core.
float stroke_width(const ImDrawList* dl, float w) {
  return std::max(w, 2.0f * dl->_FringeScale);
}

class DrawListCanvas final : public fig::Canvas {
 public:
  DrawListCanvas(ImDrawList* dl, const FigureFonts& fonts) : m_dl(dl), m_fonts(fonts) {
    if (!m_fonts.body) m_fonts.body = ImGui::GetFont();
    if (!m_fonts.small) m_fonts.small = m_fonts.body;
    if (!m_fonts.title) m_fonts.title = m_fonts.body;
    if (m_fonts.body_size <= 0) m_fonts.body_size = ImGui::GetFontSize();
  }

  float font_size(fig::TextStyle s) const override {
    const float b = m_fonts.body_size;
    return s == fig::TextStyle::Title ? b * 1.3f : s == fig::TextStyle::Small ? b * 0.87f : b;
  }
  float text_width(const std::string& s, fig::TextStyle st) override {
    return font(st)->CalcTextSizeA(font_size(st), 1e30f, 0.0f, s.c_str(), s.c_str() + s.size()).x;
  }
  void rect(fig::Pt a, fig::Pt b, uint32_t fill, uint32_t stroke, float stroke_w, const char*) override {
    const ImVec2 p0(std::min(a.x, b.x), std::min(a.y, b.y)), p1(std::max(a.x, b.x), std::max(a.y, b.y));
    if (fill & 0xffu) m_dl->AddRectFilled(p0, p1, im(fill));
    if ((stroke & 0xffu) && stroke_w > 0) m_dl->AddRect(p0, p1, im(stroke), 0.0f, 0, stroke_w);
  }
  void line(fig::Pt a, fig::Pt b, uint32_t c, float w, bool dashed) override {
    if (!dashed) {
      m_dl->AddLine(iv(a), iv(b), im(c), w);
      return;
    }
    const float dx = b.x - a.x, dy = b.y - a.y, len = std::sqrt(dx * dx + dy * dy);
    if (len <= 0) return;
    const float on = 6.0f, period = 10.0f;
    for (float s = 0; s < len; s += period) {
      const float e = std::min(s + on, len);
      m_dl->AddLine(ImVec2(a.x + dx * s / len, a.y + dy * s / len),
                    ImVec2(a.x + dx * e / len, a.y + dy * e / len), im(c), w);
    }
  }
  void polyline(const std::vector<fig::Pt>& pts, uint32_t c, float w) override {
    if (pts.size() < 2) return;
    std::vector<ImVec2> v;
    v.reserve(pts.size());
    for (const auto& p : pts)
      v.push_back(iv(p));
    m_dl->AddPolyline(v.data(), static_cast<int>(v.size()), im(c), 0, stroke_width(m_dl, w));
  }
  void band(const std::vector<fig::Pt>& up, const std::vector<fig::Pt>& lo, uint32_t fill) override {
    // One quad per segment; anti-aliased fringes would leave visible seams where translucent quads meet.
    const ImDrawListFlags saved = m_dl->Flags;
    m_dl->Flags &= ~ImDrawListFlags_AntiAliasedFill;
    for (size_t i = 0; i + 1 < std::min(up.size(), lo.size()); ++i)
      m_dl->AddQuadFilled(iv(up[i]), iv(up[i + 1]), iv(lo[i + 1]), iv(lo[i]), im(fill));
    m_dl->Flags = saved;
  }
  void marker(fig::Pt p, int shape, float r, uint32_t fill, uint32_t stroke) override {
    const ImVec2 c = iv(p);
    if (shape == 1) {
      const ImVec2 a(c.x - r * 0.9f, c.y - r * 0.9f), b(c.x + r * 0.9f, c.y + r * 0.9f);
      m_dl->AddRectFilled(a, b, im(fill));
      m_dl->AddRect(a, b, im(stroke));
    } else if (shape == 2) {
      const float d = r * 1.25f;
      const ImVec2 q[4] = {{c.x, c.y - d}, {c.x + d, c.y}, {c.x, c.y + d}, {c.x - d, c.y}};
      m_dl->AddQuadFilled(q[0], q[1], q[2], q[3], im(fill));
      m_dl->AddQuad(q[0], q[1], q[2], q[3], im(stroke));
    } else if (shape == 3) {
      const float d = r * 1.3f;
      const ImVec2 a(c.x, c.y - d), b(c.x + d * 0.9f, c.y + d * 0.6f), e(c.x - d * 0.9f, c.y + d * 0.6f);
      m_dl->AddTriangleFilled(a, b, e, im(fill));
      m_dl->AddTriangle(a, b, e, im(stroke));
    } else {
      m_dl->AddCircleFilled(c, r, im(fill), 16);
      m_dl->AddCircle(c, r, im(stroke), 16);
    }
  }
  void text(fig::Pt p, const std::string& s, fig::TextStyle st, uint32_t c, fig::Anchor a, float angle,
            const char*) override {
    if (s.empty()) return;
    const float size = font_size(st), w = text_width(s, st);
    ImVec2 pos(p.x, p.y - size * 0.5f);
    if (a == fig::Anchor::Middle) pos.x -= w * 0.5f;
    if (a == fig::Anchor::End) pos.x -= w;
    if (angle == 0) {
      m_dl->AddText(font(st), size, pos, im(c), s.c_str(), s.c_str() + s.size());
      return;
    }
    // ImGui culls glyphs against the clip rectangle before we rotate them: lay the text out unclipped.
    const ImVec2 c0 = m_dl->GetClipRectMin(), c1 = m_dl->GetClipRectMax(), grow(w + size, w + size);
    m_dl->PushClipRect(ImVec2(c0.x - grow.x, c0.y - grow.y), ImVec2(c1.x + grow.x, c1.y + grow.y), false);
    const int v0 = m_dl->VtxBuffer.Size;
    m_dl->AddText(font(st), size, pos, im(c), s.c_str(), s.c_str() + s.size());
    m_dl->PopClipRect();
    // Rotate the glyph quads just emitted about the anchor (counter-clockwise on screen, y pointing down).
    const float rad = angle * 3.14159265f / 180.0f, cs = std::cos(rad), sn = std::sin(rad);
    for (int i = v0; i < m_dl->VtxBuffer.Size; ++i) {
      ImVec2& v = m_dl->VtxBuffer[i].pos;
      const float dx = v.x - p.x, dy = v.y - p.y;
      v = ImVec2(p.x + dx * cs + dy * sn, p.y - dx * sn + dy * cs);
    }
  }

 private:
  ImFont* font(fig::TextStyle st) const {
    return st == fig::TextStyle::Title   ? m_fonts.title
           : st == fig::TextStyle::Small ? m_fonts.small
                                         : m_fonts.body;
  }
  ImDrawList* m_dl;
  FigureFonts m_fonts;
};

}  // namespace

void paint_figure(ImDrawList* dl, ImVec2 origin, ImVec2 size, const fig::Figure& f, const fig::Theme& theme,
                  const FigureFonts& fonts, std::vector<fig::Hit>* hits, fig::Layout* layout) {
  DrawListCanvas c(dl, fonts);
  fig::paint(f, c, origin.x, origin.y, size.x, size.y, theme, hits, layout);
}

int pick_hit(const std::vector<fig::Hit>& hits, const fig::Layout& layout, ImVec2 m, HoverPick pick,
             float near) {
  const bool over_plot = m.x >= layout.x0 && m.x <= layout.x1 && m.y >= layout.y0 && m.y <= layout.y1;
  int found = -1;
  bool found_point = false;
  float best_d2 =
      pick == HoverPick::Nearest && over_plot ? std::numeric_limits<float>::infinity() : near * near;
  for (size_t i = 0; i < hits.size(); ++i) {
    const fig::Hit& h = hits[i];
    if (h.point) {
      const float dx = h.x0 - m.x, dy = h.y0 - m.y, d2 = dx * dx + dy * dy;
      if (d2 < best_d2) best_d2 = d2, found = static_cast<int>(i), found_point = true;
    } else if (!found_point && m.x >= h.x0 && m.x <= h.x1 && m.y >= h.y0 && m.y <= h.y1) {
      found = static_cast<int>(i);
    }
  }
  return found;
}

bool draw_figure(const char* id, ImVec2 size, const fig::Figure& f, bool light, HoverPick pick,
                 FigureDrawn* drawn) {
  ImGui::PushID(id);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  if (size.x <= 0) size.x = std::max(avail.x, 120.0f);
  if (size.y <= 0) size.y = std::max(avail.y, 120.0f);
  ImGui::InvisibleButton("##figure", size);
  const bool hovered = ImGui::IsItemHovered();
  const ImVec2 p0 = ImGui::GetItemRectMin(), p1 = ImGui::GetItemRectMax();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  std::vector<fig::Hit> hits;
  fig::Layout layout;
  // The figure follows the UI's theme (View > Theme): a light UI on a projector gets light figures too.
  const fig::Theme theme = light || light_theme() ? fig::light_theme() : fig::dark_theme();
  dl->PushClipRect(p0, p1, true);
  // Hover targets cost a string per point: made only when they are read.
  paint_figure(dl, p0, size, f, theme, {}, hovered || drawn ? &hits : nullptr, &layout);
  int found = -1;
  if (hovered) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    const float fh = ImGui::GetFontSize();
    found = pick_hit(hits, layout, m, pick, fh * 2.0f);
    if (found >= 0) {
      const fig::Hit& h = hits[static_cast<size_t>(found)];
      const ImU32 hl = light ? IM_COL32(0, 0, 0, 200) : IM_COL32(255, 255, 255, 200);
      if (h.point) {
        // A guide down the plot at the point's x: which tick it sits on reads off the axis.
        if (pick == HoverPick::Nearest)
          dl->AddLine(ImVec2(h.x0, layout.y0), ImVec2(h.x0, layout.y1),
                      light ? IM_COL32(0, 0, 0, 70) : IM_COL32(255, 255, 255, 70));
        dl->AddCircle(ImVec2(h.x0, h.y0), fh * 0.55f, hl, 20, 2.0f);
      } else {
        dl->AddRect(ImVec2(h.x0, h.y0), ImVec2(h.x1, h.y1), light ? IM_COL32(0, 0, 0, 160) : hl, 0.0f, 0,
                    2.0f);
      }
      ImGui::SetTooltip("%s", h.text.c_str());
    }
  }
  dl->PopClipRect();
  if (drawn) {
    drawn->origin = p0;
    drawn->size = size;
    drawn->layout = std::move(layout);
    drawn->hits = std::move(hits);
    drawn->hovered_hit = found;
  }
  ImGui::PopID();
  return hovered;
}

}  // namespace bs::ui
