// memory_picture.cpp: see memory_picture.h.
#include "ui/memory/memory_picture.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "ui/widgets.h"

namespace bs::ui {

namespace mem = bs::memory;

namespace {

// Colours that follow the theme (dark UI, or the light projector theme): text, outlines, empty cells.
uint32_t inactive_colour() {
  return light_theme() ? IM_COL32(185, 185, 192, 255) : IM_COL32(70, 70, 78, 255);
}
uint32_t untouched_colour() {
  return light_theme() ? IM_COL32(222, 222, 228, 255) : IM_COL32(45, 45, 52, 255);
}
uint32_t label_colour() {
  return ImGui::GetColorU32(ImGuiCol_Text);
}
uint32_t line_outline() {
  return light_theme() ? IM_COL32(40, 40, 48, 255) : IM_COL32(230, 230, 230, 255);
}
constexpr uint32_t k_outline = IM_COL32(15, 15, 20, 255);
constexpr uint32_t k_ok = IM_COL32(80, 190, 110, 255);
constexpr uint32_t k_conflict = IM_COL32(235, 70, 60, 255);

uint32_t with_alpha(uint32_t c, int a) {
  return (c & ~IM_COL32_A_MASK) | (static_cast<uint32_t>(a) << IM_COL32_A_SHIFT);
}

// Text centred in [x0, x1] at y, only when it fits.
void centred(ImDrawList* dl, float x0, float x1, float y, const std::string& s, uint32_t colour) {
  const ImVec2 sz = ImGui::CalcTextSize(s.c_str());
  if (sz.x > x1 - x0 - 1) return;
  dl->AddText(ImVec2(0.5f * (x0 + x1 - sz.x), y), colour, s.c_str());
}

std::string hex(int64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

// "[12][5]" in a matrix of `row_width` columns; "[1234]" in a 1-D buffer (row_width 0).
std::string element_text(const mem::LaneAccess& l, int64_t row_width) {
  if (row_width > 0) return index_text(l.element / row_width, l.element % row_width);
  return index_text(-1, l.element);
}

// The lowest address of the active lanes (addresses are drawn relative to it).
int64_t base_address(const mem::WarpAccess& op) {
  int64_t lo = INT64_MAX;
  for (const mem::LaneAccess& l : op.lanes)
    if (l.active) lo = std::min(lo, l.byte());
  return lo == INT64_MAX ? 0 : lo;
}

}  // namespace

namespace {
std::string plural_words(size_t n) {
  char b[48];
  std::snprintf(b, sizeof b, "%zu different words", n);
  return b;
}
}  // namespace

std::string index_text(int64_t row, int64_t col) {
  // snprintf rather than "[" + std::to_string(...): GCC 12 at -O3 warns (-Wrestrict, a known false positive)
  // on a one-character literal prepended to a temporary string.
  char b[48];
  if (row >= 0)
    std::snprintf(b, sizeof b, "[%lld][%lld]", static_cast<long long>(row), static_cast<long long>(col));
  else
    std::snprintf(b, sizeof b, "[%lld]", static_cast<long long>(col));
  return b;
}

uint32_t group_colour(int i) {
  static const uint32_t k[12] = {
      IM_COL32(90, 160, 255, 255),  IM_COL32(255, 180, 60, 255),  IM_COL32(120, 210, 120, 255),
      IM_COL32(230, 110, 200, 255), IM_COL32(100, 220, 220, 255), IM_COL32(240, 230, 100, 255),
      IM_COL32(180, 140, 255, 255), IM_COL32(255, 140, 120, 255), IM_COL32(150, 200, 60, 255),
      IM_COL32(80, 130, 200, 255),  IM_COL32(220, 160, 120, 255), IM_COL32(200, 200, 200, 255)};
  return k[static_cast<size_t>(((i % 12) + 12) % 12)];
}

bool WarpPictureLayout::sector_x(int64_t sector, float* x0, float* x1) const {
  const int64_t line = sector * mem::k_sector_bytes / mem::k_line_bytes;
  for (const Line& l : lines) {
    if (l.line != line) continue;
    const int k = static_cast<int>(sector % (mem::k_line_bytes / mem::k_sector_bytes));
    const float w = (l.x1 - l.x0) / 4.0f;
    *x0 = l.x0 + static_cast<float>(k) * w;
    *x1 = *x0 + w;
    return true;
  }
  return false;
}

WarpPictureLayout global_layout(const mem::GlobalDetail& c, float width, float text_h) {
  WarpPictureLayout L;
  L.lane_w = width / mem::k_warp;
  L.lane_h = text_h * 1.5f;
  L.target_y = L.lane_h + text_h * 4.0f;
  L.sector_h = text_h * 1.5f;
  L.height = L.target_y + L.sector_h + text_h * 1.6f;
  const size_t n = c.lines.size();
  if (n == 0) return L;
  size_t gaps = 0;
  for (size_t i = 1; i < n; ++i)
    gaps += c.lines[i] != c.lines[i - 1] + 1 ? 1 : 0;
  // A gap is 40% of a line; one line alone is at most half the width (its sectors stay readable, not huge).
  const float units = static_cast<float>(n) + 0.4f * static_cast<float>(gaps);
  const float line_w = std::min(width / units, width * 0.5f);
  const float used = line_w * units;
  float x = 0.5f * (width - used);
  for (size_t i = 0; i < n; ++i) {
    WarpPictureLayout::Line l;
    l.line = c.lines[i];
    l.gap_before = i > 0 && c.lines[i] != c.lines[i - 1] + 1;
    if (l.gap_before) x += 0.4f * line_w;
    l.x0 = x;
    l.x1 = x + line_w;
    x += line_w;
    L.lines.push_back(l);
  }
  return L;
}

WarpPictureLayout shared_layout(const mem::SharedDetail& c, float width, float max_h, float text_h) {
  WarpPictureLayout L;
  L.lane_w = width / mem::k_warp;
  L.lane_h = text_h * 1.5f;
  L.target_y = L.lane_h + text_h * 3.0f;
  L.bank_w = width / mem::k_banks;
  int most = 1;
  for (int w : c.words_in_bank)
    most = std::max(most, w);
  const float room = max_h - L.target_y - text_h * 1.6f;
  L.word_h = std::clamp(room / static_cast<float>(most), 2.0f, text_h * 1.2f);
  L.height = L.target_y + L.word_h * static_cast<float>(most) + text_h * 1.6f;
  return L;
}

namespace {

int draw_global(const mem::WarpAccess& op, ImVec2 o, float width, int64_t row_width) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float th = ImGui::GetTextLineHeight();
  const mem::GlobalDetail c = mem::global_detail(op);
  const WarpPictureLayout L = global_layout(c, width, th);
  const int64_t base = base_address(op);
  int hovered = -1;
  // Links first, under the boxes.
  for (int i = 0; i < mem::k_warp; ++i) {
    const mem::LaneAccess& l = op.lanes[static_cast<size_t>(i)];
    if (!l.active) continue;
    float sx0 = 0, sx1 = 0;
    if (!L.sector_x(mem::sector_of(l), &sx0, &sx1)) continue;
    const uint32_t col = group_colour(c.lane_sector[static_cast<size_t>(i)]);
    dl->AddLine(ImVec2(o.x + L.lane_centre(i), o.y + L.lane_h),
                ImVec2(o.x + 0.5f * (sx0 + sx1), o.y + L.target_y), with_alpha(col, 170), 1.5f);
  }
  // Lanes.
  for (int i = 0; i < mem::k_warp; ++i) {
    const mem::LaneAccess& l = op.lanes[static_cast<size_t>(i)];
    const ImVec2 a(o.x + L.lane_w * static_cast<float>(i), o.y), b(a.x + L.lane_w, o.y + L.lane_h);
    const uint32_t fill = l.active ? group_colour(c.lane_sector[static_cast<size_t>(i)]) : inactive_colour();
    dl->AddRectFilled(a, b, fill);
    dl->AddRect(a, b, k_outline);
    if (!l.active)
      dl->AddLine(ImVec2(a.x + 2, a.y + 2), ImVec2(b.x - 2, b.y - 2), IM_COL32(30, 30, 35, 255), 1.5f);
    centred(dl, a.x, b.x, a.y + 0.25f * th, std::to_string(i), IM_COL32(15, 15, 20, 255));
    if (ImGui::IsMouseHoveringRect(a, b)) {
      hovered = i;
      if (l.active)
        ImGui::SetTooltip("lane %d: %s%s, byte %s (+%lld from the warp's lowest), sector %lld, line %lld", i,
                          mem::buffer_name(op.buffer), element_text(l, row_width).c_str(),
                          hex(l.byte()).c_str(), static_cast<long long>(l.byte() - base),
                          static_cast<long long>(mem::sector_of(l)), static_cast<long long>(mem::line_of(l)));
      else
        ImGui::SetTooltip("lane %d: inactive (its index is past the end of the data)", i);
    }
  }
  // Lines and their sectors.
  const std::set<int64_t> touched(c.sectors.begin(), c.sectors.end());
  for (const WarpPictureLayout::Line& ln : L.lines) {
    const float y0 = o.y + L.target_y, y1 = y0 + L.sector_h;
    if (ln.gap_before)
      centred(dl, o.x + ln.x0 - 0.4f * (ln.x1 - ln.x0), o.x + ln.x0, y0 + 0.25f * th, "...", label_colour());
    for (int k = 0; k < 4; ++k) {
      const int64_t s = ln.line * 4 + k;
      float sx0 = 0, sx1 = 0;
      L.sector_x(s, &sx0, &sx1);
      const ImVec2 a(o.x + sx0, y0), b(o.x + sx1, y1);
      const auto it = std::lower_bound(c.sectors.begin(), c.sectors.end(), s);
      const bool hit = touched.count(s) > 0;
      dl->AddRectFilled(a, b,
                        hit ? group_colour(static_cast<int>(it - c.sectors.begin())) : untouched_colour());
      dl->AddRect(a, b, k_outline);
      if (ImGui::IsMouseHoveringRect(a, b)) {
        std::string lanes;
        int count = 0;
        for (int i = 0; i < mem::k_warp; ++i) {
          const mem::LaneAccess& l = op.lanes[static_cast<size_t>(i)];
          if (l.active && mem::sector_of(l) == s) {
            lanes += (count++ ? ", " : "") + std::to_string(i);
          }
        }
        ImGui::SetTooltip("sector %lld (bytes %s..%s): %s", static_cast<long long>(s),
                          hex(s * mem::k_sector_bytes).c_str(), hex(s * mem::k_sector_bytes + 31).c_str(),
                          count ? ("moved for lanes " + lanes).c_str() : "not touched: not moved");
      }
    }
    // The 128-byte line around its sectors.
    dl->AddRect(ImVec2(o.x + ln.x0, y0 - 2), ImVec2(o.x + ln.x1, y1 + 2), line_outline(), 0, 0, 2.0f);
    centred(dl, o.x + ln.x0, o.x + ln.x1, y1 + 4, "line " + std::to_string(ln.line), label_colour());
  }
  ImGui::Dummy(ImVec2(width, L.height));
  return hovered;
}

int draw_shared(const mem::WarpAccess& op, ImVec2 o, float width, float max_h) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float th = ImGui::GetTextLineHeight();
  const mem::SharedDetail c = mem::shared_detail(op);
  const WarpPictureLayout L = shared_layout(c, width, max_h, th);
  int hovered = -1;
  // The distinct words of each bank, in address order, and which lanes ask for each.
  std::array<std::map<int64_t, std::vector<int>>, mem::k_banks> words;
  for (int i = 0; i < mem::k_warp; ++i) {
    const mem::LaneAccess& l = op.lanes[static_cast<size_t>(i)];
    if (!l.active) continue;
    words[static_cast<size_t>(mem::bank_of_word(l.element))][l.element].push_back(i);
  }
  auto bank_colour = [&](int b) { return c.words_in_bank[static_cast<size_t>(b)] > 1 ? k_conflict : k_ok; };
  for (int i = 0; i < mem::k_warp; ++i) {
    const int b = c.lane_bank[static_cast<size_t>(i)];
    if (b < 0) continue;
    const bool bad = c.words_in_bank[static_cast<size_t>(b)] > 1;
    dl->AddLine(ImVec2(o.x + L.lane_centre(i), o.y + L.lane_h),
                ImVec2(o.x + (static_cast<float>(b) + 0.5f) * L.bank_w, o.y + L.target_y),
                with_alpha(bank_colour(b), bad ? 220 : 140), bad ? 2.0f : 1.2f);
  }
  for (int i = 0; i < mem::k_warp; ++i) {
    const mem::LaneAccess& l = op.lanes[static_cast<size_t>(i)];
    const int b = c.lane_bank[static_cast<size_t>(i)];
    const ImVec2 a(o.x + L.lane_w * static_cast<float>(i), o.y), e(a.x + L.lane_w, o.y + L.lane_h);
    dl->AddRectFilled(a, e, l.active ? bank_colour(b) : inactive_colour());
    dl->AddRect(a, e, k_outline);
    centred(dl, a.x, e.x, a.y + 0.25f * th, std::to_string(i), IM_COL32(15, 15, 20, 255));
    if (ImGui::IsMouseHoveringRect(a, e)) {
      hovered = i;
      if (l.active)
        ImGui::SetTooltip("lane %d: %s word %lld (byte %lld) -> bank %d", i, mem::buffer_name(op.buffer),
                          static_cast<long long>(l.element), static_cast<long long>(l.byte()), b);
      else
        ImGui::SetTooltip("lane %d: inactive (its index is past the end of the data)", i);
    }
  }
  for (int b = 0; b < mem::k_banks; ++b) {
    const float x0 = o.x + L.bank_w * static_cast<float>(b), x1 = x0 + L.bank_w;
    const auto& ws = words[static_cast<size_t>(b)];
    int k = 0;
    for (const auto& [word, lanes] : ws) {
      const float y0 = o.y + L.target_y + L.word_h * static_cast<float>(k++);
      dl->AddRectFilled(ImVec2(x0 + 1, y0), ImVec2(x1 - 1, y0 + L.word_h - 1),
                        ws.size() > 1 ? k_conflict : (lanes.size() > 1 ? IM_COL32(90, 200, 230, 255) : k_ok));
    }
    if (ws.empty())
      dl->AddRect(ImVec2(x0 + 1, o.y + L.target_y), ImVec2(x1 - 1, o.y + L.target_y + L.word_h),
                  untouched_colour());
    const float bottom = o.y + L.target_y + L.word_h * static_cast<float>(std::max<size_t>(ws.size(), 1));
    centred(dl, x0, x1, bottom + 3, std::to_string(b), label_colour());
    if (ImGui::IsMouseHoveringRect(ImVec2(x0, o.y + L.target_y), ImVec2(x1, bottom + th + 3))) {
      std::string text = "bank " + std::to_string(b) + ": ";
      if (ws.empty()) text += "not used";
      for (const auto& [word, lanes] : ws) {
        text += "\n  word " + std::to_string(word) + " for lane" + (lanes.size() > 1 ? "s " : " ");
        for (size_t j = 0; j < lanes.size(); ++j) {
          if (j) text += ',';
          text += std::to_string(lanes[j]);
        }
      }
      if (ws.size() > 1)
        text += '\n' + plural_words(ws.size()) + ": served one after another";
      else if (!ws.empty() && ws.begin()->second.size() > 1)
        text += "\none word for several lanes: a broadcast, one pass";
      ImGui::SetTooltip("%s", text.c_str());
    }
  }
  ImGui::Dummy(ImVec2(width, L.height));
  return hovered;
}

}  // namespace

int draw_warp_picture(const mem::WarpAccess& op, float width, float max_h, int64_t row_width) {
  const ImVec2 o = ImGui::GetCursorScreenPos();
  if (width < 64) width = 64;
  return op.space == mem::Space::Global ? draw_global(op, o, width, row_width)
                                        : draw_shared(op, o, width, max_h);
}

}  // namespace bs::ui
