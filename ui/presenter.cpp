// presenter.cpp: see presenter.h.
#include "ui/presenter.h"

#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "ui/widgets.h"

namespace bs::ui {

namespace {
constexpr const char* k_font_file = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
// The big font only needs digits, signs, units and short labels.
constexpr ImWchar k_big_ranges[] = {0x0020, 0x00FF, 0x2212, 0x2212, 0};
}  // namespace

const char* to_string(Theme t) {
  return k_theme_names.c_name(t);
}

bool looks_like_font_file(const std::string& path, std::string* why) {
  const auto fail = [&](const std::string& reason) {
    if (why) *why = reason;
    return false;
  };
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return fail("not a regular file");
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return fail("cannot be read (" + ec.message() + ")");
  if (size < 1024 || size > (uintmax_t{64} << 20)) return fail("not a font file's size (1 KB to 64 MB)");
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  if (!in.read(magic, 4)) return fail("cannot be read");
  const std::string_view m(magic, 4);
  if (m != std::string_view("\0\1\0\0", 4) && m != "true" && m != "OTTO" && m != "ttcf")
    return fail("not a TrueType or OpenType font");
  return true;
}

std::string ui_font_file(const char* env, std::string* note) {
  if (note) note->clear();
  if (env && *env) {
    if (std::string_view(env) == "builtin") return "";
    std::string why;
    if (looks_like_font_file(env, &why)) return env;
    if (note) *note = std::string("BLOCKSCOPE_FONT=") + env + ": " + why + "; using the default font";
  }
  return looks_like_font_file(k_font_file, nullptr) ? k_font_file : "";
}

float clamp_ui_scale(float s) {
  if (!std::isfinite(s)) return 1.0f;
  return std::clamp(s, k_min_ui_scale, k_max_ui_scale);
}

float font_px(float ui_scale, float content_scale) {
  return std::round(k_base_font_px * clamp_ui_scale(ui_scale) * std::max(content_scale, 0.5f));
}

float big_font_px(float ui_scale, float content_scale) {
  return std::min(std::round(font_px(ui_scale, content_scale) * k_big_font_factor), k_max_big_font_px);
}

void Presenter::init(float content_scale, float ui_scale) {
  m_content = content_scale > 0 && std::isfinite(content_scale) ? content_scale : 1.0f;
  m_base = ImGui::GetStyle();
  m_scale = clamp_ui_scale(ui_scale);
  m_scale_before_presenter = m_scale;
  apply_pending();
}

void Presenter::set_scale(float s) {
  m_scale = clamp_ui_scale(s);
  if (!m_presenter) m_scale_before_presenter = m_scale;
}

void Presenter::set_theme(Theme t) {
  if (t == m_theme) return;
  m_theme = t;
  m_style_dirty = true;
}

void Presenter::set_presenter(bool on) {
  if (on == m_presenter) return;
  if (on) {
    m_scale_before_presenter = m_scale;
    m_scale = std::max(m_scale, k_presenter_scale);
  } else {
    m_scale = m_scale_before_presenter;
  }
  m_presenter = on;
}

void Presenter::build_fonts() {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  const float px = font_px(m_scale, m_content);
  const float big = big_font_px(m_scale, m_content);
  // $BLOCKSCOPE_FONT: another TrueType file, or "builtin" for ImGui's own font (what a machine without DejaVu
  // gets; the layout tests run with it too). A file that is not a font is refused with the reason, said once
  // (not again at each rebuild).
  std::string note;
  const std::string file = ui_font_file(std::getenv("BLOCKSCOPE_FONT"), &note);
  const auto builtin = [&] {
    // ImGui's built-in bitmap font is 13 px; it is rasterized at the requested size all the same.
    io.Fonts->Clear();
    ImFontConfig cfg;
    cfg.SizePixels = px;
    io.Fonts->AddFontDefault(&cfg);
    ImFontConfig big_cfg;
    big_cfg.SizePixels = big;
    m_big = io.Fonts->AddFontDefault(&big_cfg);
  };
  if (file.empty()) {
    builtin();
  } else {
    io.Fonts->AddFontFromFileTTF(file.c_str(), px);
    m_big = io.Fonts->AddFontFromFileTTF(file.c_str(), big, nullptr, k_big_ranges);
    if (!m_big) builtin();
  }
  // A file with a font's header but tables stb_truetype cannot read fails here: the built-in font instead.
  if (!io.Fonts->Build()) {
    note = file + ": not a font this build can read; using the built-in font";
    builtin();
    io.Fonts->Build();
  }
  if (!note.empty() && note != m_font_note) std::fprintf(stderr, "blockscope: %s\n", note.c_str());
  m_font_note = note;
}

bool Presenter::apply_pending() {
  if (m_scale == m_built_scale && !m_style_dirty) return false;
  if (m_scale == m_built_scale) {
    apply_style();
    return true;
  }
  ImGuiIO& io = ImGui::GetIO();
  // The backend made a texture for the old atlas (its first NewFrame): replace it. Before that, the first
  // NewFrame makes it from the atlas built here.
  const bool had_texture = io.Fonts->TexID != nullptr;
  if (had_texture) ImGui_ImplOpenGL3_DestroyFontsTexture();
  build_fonts();
  if (had_texture) ImGui_ImplOpenGL3_CreateFontsTexture();
  apply_style();
  m_built_scale = m_scale;
  return true;
}

void Presenter::apply_style() {
  ImGuiStyle& style = ImGui::GetStyle();
  style = m_base;
  if (m_theme == Theme::Light) {
    // ImGui's light colours, a little more contrast for a washed-out projector: darker borders and frames.
    ImGui::StyleColorsLight(&style);
    style.Colors[ImGuiCol_Border] = ImVec4(0.0f, 0.0f, 0.0f, 0.45f);
    style.Colors[ImGuiCol_FrameBg] = ImVec4(0.86f, 0.86f, 0.88f, 1.0f);
    style.Colors[ImGuiCol_TextDisabled] = ImVec4(0.35f, 0.35f, 0.38f, 1.0f);
    style.FrameBorderSize = 1.0f;
  }
  style.ScaleAllSizes(m_scale * m_content);
  m_style_dirty = false;
}

namespace {
constexpr const char* k_wide_value = "000.0";
constexpr int k_hint_lines = 2;  // a read-out's hint: whole lines, at most this many (more: "..." and a tooltip)

float text_width(std::string_view t) {
  return ImGui::CalcTextSize(t.data(), t.data() + t.size()).x;
}
}  // namespace

std::vector<std::string> wrap_at_spaces(std::string_view text, float width,
                                        const std::function<float(std::string_view)>& measure) {
  std::vector<std::string> lines;
  std::string line;
  size_t i = 0;
  while (i < text.size()) {
    const size_t end = std::min(text.find(' ', i), text.size());
    const std::string_view word = text.substr(i, end - i);
    i = end + 1;
    if (word.empty()) continue;
    const std::string candidate = line.empty() ? std::string(word) : line + " " + std::string(word);
    if (line.empty() || measure(candidate) <= width) {
      line = candidate;
    } else {
      lines.push_back(line);
      line = std::string(word);
    }
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

std::vector<float> Presenter::readout_widths(std::span<const Readout> readouts, float px) const {
  const ImGuiStyle& st = ImGui::GetStyle();
  ImFont* font = m_big ? m_big : ImGui::GetFont();
  // A typical wide number sets the minimum, so columns do not jump as the numbers change.
  const float typical = font->CalcTextSizeA(px, FLT_MAX, 0, k_wide_value).x;
  std::vector<float> w;
  for (const Readout& r : readouts) {
    const float number = std::max(typical, font->CalcTextSizeA(px, FLT_MAX, 0, r.value.c_str()).x);
    w.push_back(
        std::max({ImGui::GetFontSize() * 6, number + ImGui::CalcTextSize(r.unit.c_str()).x + st.ItemSpacing.x,
                  ImGui::CalcTextSize(r.label.c_str()).x}) +
        ImGui::GetFontSize() * 1.5f);  // the gap between columns
  }
  return w;
}

Presenter::ReadoutGrid Presenter::readout_grid(std::span<const Readout> readouts, float width,
                                               float px) const {
  ReadoutGrid g;
  g.px = px;
  if (readouts.empty()) return g;
  const ImGuiStyle& st = ImGui::GetStyle();
  const float inner = width - st.WindowPadding.x * 2;
  g.widths = readout_widths(readouts, px);
  float sum = 0, widest = 0;
  for (float w : g.widths) {
    sum += w;
    widest = std::max(widest, w);
  }
  // One row with columns as wide as each readout needs; else equal columns, wrapped to more rows.
  if (sum <= inner) {
    g.cols = static_cast<int>(readouts.size());
  } else {
    g.cols = std::clamp(static_cast<int>(inner / widest), 1, static_cast<int>(readouts.size()));
    g.widths.assign(readouts.size(), inner / static_cast<float>(g.cols));
  }
  const float scale = sum <= inner ? inner / sum : 1.0f;  // stretched to the full width
  // Hint lines: as many as the longest hint takes in its column (wrapped at spaces, as drawn; the column is
  // taken a text height narrower than drawn, so the count is never short), at most k_hint_lines.
  int hint_lines = 1;
  for (size_t i = 0; i < readouts.size(); ++i)
    hint_lines = std::max(hint_lines, static_cast<int>(wrap_at_spaces(readouts[i].hint,
                                                                      g.widths[i] * scale - ImGui::GetFontSize(),
                                                                      text_width)
                                                           .size()));
  hint_lines = std::min(hint_lines, k_hint_lines);
  const int rows = (static_cast<int>(readouts.size()) + g.cols - 1) / g.cols;
  const float line = ImGui::GetTextLineHeightWithSpacing();
  // Table cells add their padding; one more item spacing keeps the last hint line off the edge.
  const float row =
      line + px + st.ItemSpacing.y * 2 + line * static_cast<float>(hint_lines) + st.CellPadding.y * 2;
  // Half a line to spare: the strip never needs a scroll bar for a hint that wraps one line more.
  g.height = std::ceil(st.WindowPadding.y * 2 + row * static_cast<float>(rows) +
                       st.ItemSpacing.y * static_cast<float>(rows - 1) + line * 0.5f);
  return g;
}

float Presenter::fit_readouts(std::span<const Readout> readouts, float width, float max_height) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float full = m_big ? m_big->FontSize : ImGui::GetFontSize() * k_big_font_factor;
  if (readouts.empty()) {
    m_grid = ReadoutGrid{};
    m_grid.px = full;
    return std::ceil(st.WindowPadding.y * 2 + ImGui::GetTextLineHeightWithSpacing());
  }
  // The numbers shrink (down to twice the text size) until the strip fits in max_height: on a short screen
  // the view keeps most of the height.
  const float smallest = ImGui::GetFontSize() * 2;
  for (float px = full;; px = std::max(px * 0.9f, smallest)) {
    m_grid = readout_grid(readouts, width, px);
    if (m_grid.height <= max_height || px <= smallest) break;
  }
  return m_grid.height;
}

namespace {
bool begin_with(const BeginWindow& begin, const char* name, bool* open, ImGuiWindowFlags flags) {
  return begin ? begin(name, open, flags) : ImGui::Begin(name, open, flags);
}
}  // namespace

void Presenter::draw_readouts(std::span<const Readout> readouts, const ImVec4& strip,
                              const BeginWindow& begin) const {
  // A strip the layout keeps free along the bottom: it covers neither the view nor the panel's controls.
  ImGui::SetNextWindowPos(ImVec2(strip.x, strip.y), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(strip.z, strip.w), ImGuiCond_Always);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoResize |
                                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoCollapse |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                 ImGuiWindowFlags_NoScrollbar;
  if (begin_with(begin, "###readouts", nullptr, flags)) {
    if (readouts.empty())
      ImGui::TextDisabled("run something: the numbers appear here when they are measured");
    // The grid fit_readouts chose this frame (or one for this width, if it was not called).
    const ReadoutGrid g =
        m_grid.widths.size() == readouts.size() && m_grid.px > 0
            ? m_grid
            : readout_grid(readouts, strip.z,
                           m_big ? m_big->FontSize : ImGui::GetFontSize() * k_big_font_factor);
    const float px = g.px;
    const int cols = std::max(g.cols, 1);
    const ImVec4 number_colour =
        m_theme == Theme::Light ? ImVec4(0.62f, 0.33f, 0.0f, 1.0f) : ImVec4(1.0f, 0.85f, 0.35f, 1.0f);
    if (!readouts.empty() && ImGui::BeginTable("readouts", cols, ImGuiTableFlags_SizingStretchProp)) {
      for (int c = 0; c < cols; ++c)
        ImGui::TableSetupColumn(nullptr, ImGuiTableColumnFlags_WidthStretch,
                                g.widths[static_cast<size_t>(c)]);
      for (const Readout& r : readouts) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(r.label.c_str());
        // The number at the fitted size (the big font, scaled down when the strip had to shrink).
        const ImVec2 at = ImGui::GetCursorScreenPos();
        ImFont* font = m_big ? m_big : ImGui::GetFont();
        const ImVec2 size = font->CalcTextSizeA(px, FLT_MAX, 0, r.value.c_str());
        ImGui::GetWindowDrawList()->AddText(font, px, at, ImGui::GetColorU32(number_colour), r.value.c_str());
        ImGui::Dummy(size);
        const float below_number = ImGui::GetCursorPosY();
        if (!r.unit.empty()) {
          ImGui::SameLine();
          // The unit sits on the number's baseline.
          ImGui::SetCursorPosY(ImGui::GetCursorPosY() + px * 0.95f - ImGui::GetFontSize() * 1.2f);
          ImGui::TextUnformatted(r.unit.c_str());
        }
        if (!r.hint.empty()) {
          // The hint wraps inside its column.
          ImGui::SetCursorPosY(below_number);
          ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
          // At most k_hint_lines whole lines (the strip keeps to its height); a longer hint ends in "..." and
          // shows whole on hover.
          const float avail = ImGui::GetContentRegionAvail().x;
          std::vector<std::string> lines = wrap_at_spaces(r.hint, avail, text_width);
          const bool cut = lines.size() > static_cast<size_t>(k_hint_lines);
          if (cut) lines = wrap_at_spaces(r.hint, avail - text_width(" ..."), text_width);  // room for "..."
          const size_t shown = std::min(lines.size(), static_cast<size_t>(k_hint_lines));
          ImGui::BeginGroup();
          for (size_t l = 0; l < shown; ++l)
            ImGui::TextUnformatted(cut && l + 1 == shown ? (lines[l] + " ...").c_str() : lines[l].c_str());
          ImGui::EndGroup();
          if (cut && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.hint.c_str());
          ImGui::PopStyleColor();
        }
      }
      ImGui::EndTable();
    }
  }
  ImGui::End();
}

void Presenter::draw_shortcuts(std::span<const Shortcut> shortcuts, bool* open, const BeginWindow& begin) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(ImVec2(vp->Pos.x + vp->Size.x * 0.5f, vp->Pos.y + vp->Size.y * 0.5f),
                          ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowBgAlpha(0.95f);
  if (begin_with(begin, "Keyboard shortcuts (F1)", open,
                 ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse)) {
    if (ImGui::BeginTable("shortcuts", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
      for (const Shortcut& s : shortcuts) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextColored(tone_colour(Tone::Warning), "%s", s.keys.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(s.what.c_str());
      }
      ImGui::EndTable();
    }
  }
  ImGui::End();
}

void Presenter::draw_toast(const std::string& text, bool error, ImVec2 anchor, float max_width) {
  if (text.empty()) return;
  // On the foreground draw list: above every window, never hidden behind the readouts or a panel, and it
  // takes no input (the controls under it stay usable).
  ImDrawList* dl = ImGui::GetForegroundDrawList();
  const ImGuiStyle& st = ImGui::GetStyle();
  const ImVec2 pad = st.WindowPadding;
  const float wrap = std::max(max_width - pad.x * 2, ImGui::GetFontSize() * 8);
  const ImVec2 size = ImGui::CalcTextSize(text.c_str(), nullptr, false, wrap);
  const ImVec2 p0(std::round(anchor.x - size.x * 0.5f - pad.x), std::round(anchor.y - size.y - pad.y * 2));
  const ImVec2 p1(p0.x + size.x + pad.x * 2, anchor.y);
  ImVec4 bg = st.Colors[ImGuiCol_PopupBg];
  bg.w = 0.95f;
  dl->AddRectFilled(p0, p1, ImGui::GetColorU32(bg), st.WindowRounding + 4);
  dl->AddRect(p0, p1, ImGui::GetColorU32(error ? tone_colour(Tone::Error) : st.Colors[ImGuiCol_Border]),
              st.WindowRounding + 4);
  const ImVec4 fg = error ? tone_colour(Tone::Error) : st.Colors[ImGuiCol_Text];
  dl->AddText(ImGui::GetFont(), ImGui::GetFontSize(), ImVec2(p0.x + pad.x, p0.y + pad.y),
              ImGui::GetColorU32(fg), text.c_str(), nullptr, wrap);
}

}  // namespace bs::ui
