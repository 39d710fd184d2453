// access_map_export.cpp: see access_map_export.h.
#include "ui/kernel/access_map_export.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "core/readout.h"
#include "core/text.h"
#include "ui/gl/context.h"

namespace bs::ui {

namespace {

constexpr uint32_t k_read = 0x3d85c6ffu, k_write = 0xe69138ffu, k_both = 0x9b59b6ffu;
constexpr uint32_t k_problem = 0xd0202affu;

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

}  // namespace

uint32_t cell_fill(uint8_t bits, bool light) {
  const bool r = bits & k_cell_read, w = bits & k_cell_write;
  if (r && w) return k_both;
  if (r) return k_read;
  if (w) return k_write;
  if (bits & k_cell_unwritten) return light ? 0xf4c7c3ffu : 0x6a2a2affu;
  return light ? 0xe6e6e6ffu : 0x34343cffu;
}

uint32_t cell_outline(uint8_t bits) {
  return bits & (k_cell_flagged | k_cell_multi) ? k_problem : 0;
}

std::vector<LegendEntry> map_legend(bool light) {
  return {{cell_fill(0, light), 0, "untouched"},
          {k_read, 0, "read"},
          {k_write, 0, "wrote"},
          {k_both, 0, "read and wrote"},
          {cell_fill(k_cell_unwritten, light), 0, "output no thread wrote"},
          {cell_fill(0, light), k_problem, "a diagnostic / several writers"}};
}

int png_cell_px(const BufferMap& m) {
  const uint32_t longer = std::max<uint32_t>({m.cols, m.rows, 1});
  return std::clamp(static_cast<int>(1024 / longer), 1, 24);
}

std::vector<unsigned char> rasterize(const BufferMap& m, int cell, int* width, int* height) {
  cell = std::max(cell, 1);
  const int w = static_cast<int>(m.cols) * cell, h = static_cast<int>(std::max<uint32_t>(m.rows, 1)) * cell;
  std::vector<unsigned char> px(static_cast<size_t>(w) * static_cast<size_t>(h) * 4, 255);
  const bool gap = cell >= 6;      // a one-pixel grid between cells
  const bool border = cell >= 4;   // problems drawn as an outline (else the whole cell)
  auto put = [&](int x, int y, uint32_t c) {
    unsigned char* p = &px[(static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x)) * 4];
    p[0] = static_cast<unsigned char>(c >> 24);
    p[1] = static_cast<unsigned char>(c >> 16);
    p[2] = static_cast<unsigned char>(c >> 8);
    p[3] = 255;
  };
  for (uint64_t e = 0; e < m.elements; ++e) {
    const uint8_t bits = m.cells[e];
    const int cx = static_cast<int>(e % m.cols) * cell, cy = static_cast<int>(e / m.cols) * cell;
    const uint32_t fill = cell_fill(bits, true), line = cell_outline(bits);
    for (int y = 0; y < cell; ++y)
      for (int x = 0; x < cell; ++x) {
        const bool edge = x == 0 || y == 0 || x == cell - 1 || y == cell - 1;
        uint32_t c = fill;
        if (line && (!border || edge || (cell >= 8 && (x == 1 || y == 1 || x == cell - 2 || y == cell - 2))))
          c = line;
        else if (gap && (x == cell - 1 || y == cell - 1))
          c = 0xffffffffu;
        put(cx + x, cy + y, c);
      }
  }
  *width = w;
  *height = h;
  return px;
}

std::string access_maps_svg(const AccessMaps& maps, const std::string& subtitle) {
  // Each buffer at most ~640 units on its longer side, placed left to right, wrapping at 1400.
  constexpr double k_max_side = 640, k_wrap = 1400, k_margin = 20, k_caption = 22;
  struct Placed {
    const BufferMap* m;
    double x, y, cell;
  };
  std::vector<Placed> placed;
  double x = k_margin, y = 70, row_h = 0, width = 0;
  for (const BufferMap& m : maps.maps) {
    const double cell = std::clamp(k_max_side / std::max<uint32_t>({m.cols, m.rows, 1}), 0.5, 18.0);
    const double w = m.cols * cell, h = std::max<uint32_t>(m.rows, 1) * cell;
    if (x > k_margin && x + w > k_wrap) {
      x = k_margin;
      y += row_h + k_caption + 20;
      row_h = 0;
    }
    placed.push_back({&m, x, y + k_caption, cell});
    x += std::max(w, 260.0) + 30;
    width = std::max(width, x);
    row_h = std::max(row_h, h);
  }
  const double legend_y = y + row_h + k_caption + 30;
  const double height = legend_y + 50;
  width = std::max(width, 900.0);
  std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n";
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" + num(width) + "\" height=\"" +
       num(height) + "\" viewBox=\"0 0 " + num(width) + " " + num(height) +
       "\" font-family=\"DejaVu Sans, Verdana, Helvetica, Arial, sans-serif\">\n";
  s += "<title>" + xml_escape("access map: " + maps.title) + "</title>\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  s += "<text x=\"20\" y=\"28\" font-size=\"19\" font-weight=\"bold\">" +
       xml_escape("What " + maps.title + " read and wrote") + "</text>\n";
  std::string sub = subtitle;
  if (!maps.note.empty()) sub += (sub.empty() ? "" : "; ") + maps.note;
  s += "<text x=\"20\" y=\"50\" font-size=\"13\" fill=\"#555555\">" + xml_escape(sub) + "</text>\n";
  for (const Placed& p : placed) {
    const BufferMap& m = *p.m;
    s += "<text x=\"" + num(p.x) + "\" y=\"" + num(p.y - 8) + "\" font-size=\"13\">" + xml_escape(m.caption()) +
         "</text>\n";
    // Runs of equal cells along a row as one rectangle (a 1024-wide buffer stays a small file).
    for (uint32_t r = 0; r < m.rows; ++r) {
      uint32_t c = 0;
      while (c < m.cols) {
        const uint64_t e = uint64_t{r} * m.cols + c;
        if (e >= m.elements) break;
        const uint32_t fill = cell_fill(m.cells[e], true);
        uint32_t end = c + 1;
        while (end < m.cols && uint64_t{r} * m.cols + end < m.elements &&
               cell_fill(m.cells[uint64_t{r} * m.cols + end], true) == fill)
          ++end;
        s += "<rect x=\"" + num(p.x + c * p.cell) + "\" y=\"" + num(p.y + r * p.cell) + "\" width=\"" +
             num((end - c) * p.cell) + "\" height=\"" + num(p.cell) + "\" fill=\"" + rgb_hex(fill) + "\"/>\n";
        c = end;
      }
    }
    for (uint64_t e = 0; e < m.elements; ++e)
      if (const uint32_t o = cell_outline(m.cells[e]))
        s += "<rect x=\"" + num(p.x + double(e % m.cols) * p.cell) + "\" y=\"" +
             num(p.y + double(e / m.cols) * p.cell) + "\" width=\"" + num(p.cell) + "\" height=\"" +
             num(p.cell) + "\" fill=\"none\" stroke=\"" + rgb_hex(o) + "\" stroke-width=\"" +
             num(std::max(0.5, p.cell / 6)) + "\"/>\n";
    if (m.cols * p.cell >= 40 && p.cell >= 4) {  // grid lines only where cells are big enough to count
      s += "<g stroke=\"#ffffff\" stroke-width=\"" + num(std::min(1.0, p.cell / 8)) + "\">\n";
      for (uint32_t c = 1; c < m.cols; ++c)
        s += "<line x1=\"" + num(p.x + c * p.cell) + "\" y1=\"" + num(p.y) + "\" x2=\"" + num(p.x + c * p.cell) +
             "\" y2=\"" + num(p.y + m.rows * p.cell) + "\"/>\n";
      for (uint32_t r = 1; r < m.rows; ++r)
        s += "<line x1=\"" + num(p.x) + "\" y1=\"" + num(p.y + r * p.cell) + "\" x2=\"" + num(p.x + m.cols * p.cell) +
             "\" y2=\"" + num(p.y + r * p.cell) + "\"/>\n";
      s += "</g>\n";
    }
  }
  double lx = 20;
  for (const LegendEntry& l : map_legend(true)) {
    s += "<rect x=\"" + num(lx) + "\" y=\"" + num(legend_y) + "\" width=\"14\" height=\"14\" fill=\"" + rgb_hex(l.fill) +
         "\"" + (l.outline ? " stroke=\"" + rgb_hex(l.outline) + "\" stroke-width=\"2\"" : std::string()) + "/>\n";
    s += "<text x=\"" + num(lx + 20) + "\" y=\"" + num(legend_y + 12) + "\" font-size=\"13\">" +
         xml_escape(l.text) + "</text>\n";
    lx += 40 + 7.5 * std::string(l.text).size();
  }
  s += "</svg>\n";
  return s;
}

bool write_access_maps(const std::string& dir, const SimTrace& t, std::vector<Selection> selections,
                       std::vector<std::string>* written, std::string* error) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    if (error) *error = "cannot create " + dir + ": " + ec.message();
    return false;
  }
  if (selections.empty()) {
    selections.push_back({Scope::Launch, 0, 0});
    selections.push_back({Scope::Thread, 0, 0});
    if (t.grid.count() > 1) selections.push_back({Scope::Block, t.grid.count() - 1, 0});
  }
  const std::string subtitle = t.kernel + ", grid " + sim::dim_text(t.grid) + ", block " + sim::dim_text(t.block) +
                               ", simulated (" + t.sampled + ")";
  for (const Selection& sel : selections) {
    const AccessMaps maps = access_maps(t, sel);
    const std::string slug = selection_slug(t, clamp_selection(t, sel));
    const std::string svg_path = (std::filesystem::path(dir) / ("access-" + slug + ".svg")).string();
    if (!write_text_file(svg_path, access_maps_svg(maps, subtitle), error)) return false;
    if (written) written->push_back(svg_path);
    for (const BufferMap& m : maps.maps) {
      if (m.elements == 0) continue;
      int w = 0, h = 0;
      const std::vector<unsigned char> px = rasterize(m, png_cell_px(m), &w, &h);
      std::string name = m.name;
      for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
      const std::string png_path = (std::filesystem::path(dir) / ("access-" + slug + "-" + name + ".png")).string();
      if (!gl::write_png(png_path, w, h, px, error)) return false;
      if (written) written->push_back(png_path);
    }
  }
  return true;
}

}  // namespace bs::ui
