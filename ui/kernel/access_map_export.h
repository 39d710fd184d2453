// access_map_export.h: access maps (access_map.h) as files and as colours: one PNG per buffer (a raster of
// cells, written with the project's PNG writer, no GL context needed) and one SVG per selection with every
// buffer, its caption and the legend. The CLI's `kernel check --trace DIR` and the editor's export call
// write_access_maps; the editor draws cells with the same colours (cell_fill / cell_outline).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ui/kernel/access_map.h"

namespace bs::ui {

// 0xRRGGBBAA. Fill: untouched (paper grey / dark grey), read (blue), wrote (orange), read and wrote (purple),
// an untouched output element no thread wrote (pale red). Outline: red for an element a diagnostic names or
// several threads wrote; 0 for none.
uint32_t cell_fill(uint8_t bits, bool light);
uint32_t cell_outline(uint8_t bits);
// The legend's entries: {colour, words}.
struct LegendEntry {
  uint32_t fill = 0, outline = 0;
  const char* text = "";
};
std::vector<LegendEntry> map_legend(bool light);

// The cell size in pixels a map is drawn with in a PNG (the longer side near 1024 px, 1..24 px a cell).
int png_cell_px(const BufferMap& m);
// The map as RGBA pixels (width = cols * cell, height = rows * cell), light theme.
std::vector<unsigned char> rasterize(const BufferMap& m, int cell_px, int* width, int* height);
// Every buffer's map of one selection as one SVG document (title, captions, legend, note).
std::string access_maps_svg(const AccessMaps& maps, const std::string& subtitle);

// Writes, for each selection, `access-<slug>.svg` and `access-<slug>-<buffer>.png` into `dir` (created when
// missing). Default selections (empty): the whole launch, thread (0,0,0) of the first block, and the last
// block. `written` receives the paths. False with *error naming the file that failed.
bool write_access_maps(const std::string& dir, const SimTrace& t, std::vector<Selection> selections,
                       std::vector<std::string>* written, std::string* error);

}  // namespace bs::ui
