// presenter.cpp: see presenter.h.
#include "ui/presenter.h"

#include <imgui_impl_opengl3.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace bs::ui {

namespace {
constexpr const char* k_font_file = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
// The big font only needs digits, signs, units and short labels.
constexpr ImWchar k_big_ranges[] = {0x0020, 0x00FF, 0x2212, 0x2212, 0};
}  // namespace

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
  const bool have_ttf = std::filesystem::exists(k_font_file);
  if (have_ttf) {
    io.Fonts->AddFontFromFileTTF(k_font_file, px);
    m_big = io.Fonts->AddFontFromFileTTF(k_font_file, big, nullptr, k_big_ranges);
  } else {
    // ImGui's built-in bitmap font is 13 px; it is rasterized at the requested size all the same.
    ImFontConfig cfg;
    cfg.SizePixels = px;
    io.Fonts->AddFontDefault(&cfg);
    ImFontConfig big_cfg;
    big_cfg.SizePixels = big;
    m_big = io.Fonts->AddFontDefault(&big_cfg);
  }
  io.Fonts->Build();
}

bool Presenter::apply_pending() {
  if (m_scale == m_built_scale) return false;
  ImGuiIO& io = ImGui::GetIO();
  // The backend made a texture for the old atlas (its first NewFrame): replace it. Before that, the first
  // NewFrame makes it from the atlas built here.
  const bool had_texture = io.Fonts->TexID != nullptr;
  if (had_texture) ImGui_ImplOpenGL3_DestroyFontsTexture();
  build_fonts();
  if (had_texture) ImGui_ImplOpenGL3_CreateFontsTexture();
  ImGuiStyle& style = ImGui::GetStyle();
  style = m_base;
  style.ScaleAllSizes(m_scale * m_content);
  m_built_scale = m_scale;
  return true;
}

void Presenter::draw_readouts(const char* lab_title, std::span<const Readout> readouts, bool* open) const {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  // Kept at the bottom left, over the lab's view (the field stays visible above it): the window grows and
  // shrinks with its numbers, so it is anchored by its bottom edge every frame.
  ImGui::SetNextWindowPos(
      ImVec2(vp->Pos.x + vp->Size.x * 0.01f, vp->Pos.y + vp->Size.y - ImGui::GetFrameHeight() * 2),
      ImGuiCond_Always, ImVec2(0.0f, 1.0f));
  ImGui::SetNextWindowBgAlpha(0.92f);
  const std::string title = std::string("Readouts: ") + lab_title + "###readouts";
  if (ImGui::Begin(title.c_str(), open,
                   ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoFocusOnAppearing |
                       ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings)) {
    // In front of the lab's panel it overlaps: read from the back of the room, it must not be drawn over.
    ImGui::BringWindowToDisplayFront(ImGui::GetCurrentWindow());
    if (readouts.empty())
      ImGui::TextDisabled("run something: the numbers appear here when they are measured");
    for (size_t i = 0; i < readouts.size(); ++i) {
      const Readout& r = readouts[i];
      if (i > 0) ImGui::SameLine(0, ImGui::GetFontSize() * 2.5f);
      ImGui::BeginGroup();
      const float x0 = ImGui::GetCursorPosX(), sx0 = ImGui::GetCursorScreenPos().x;
      ImGui::TextUnformatted(r.label.c_str());
      if (m_big) ImGui::PushFont(m_big);
      ImGui::TextColored(ImVec4(1.0f, 0.85f, 0.35f, 1.0f), "%s", r.value.c_str());
      if (m_big) ImGui::PopFont();
      const float below_number = ImGui::GetCursorPosY();
      if (!r.unit.empty()) {
        ImGui::SameLine();
        // The unit sits on the big number's baseline.
        if (m_big)
          ImGui::SetCursorPosY(ImGui::GetCursorPosY() + m_big->FontSize - ImGui::GetFontSize() * 1.4f);
        ImGui::TextUnformatted(r.unit.c_str());
      }
      if (!r.hint.empty()) {
        // The hint wraps under its number instead of widening the column.
        const float w = std::max(ImGui::GetItemRectMax().x - sx0, ImGui::GetFontSize() * 10);
        ImGui::SetCursorPosY(below_number);  // level with the hints of readouts without a unit
        ImGui::PushTextWrapPos(x0 + w);
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        ImGui::TextWrapped("%s", r.hint.c_str());
        ImGui::PopStyleColor();
        ImGui::PopTextWrapPos();
      }
      ImGui::EndGroup();
    }
  }
  ImGui::End();
}

void Presenter::draw_shortcuts(std::span<const Shortcut> shortcuts, bool* open) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(ImVec2(vp->Pos.x + vp->Size.x * 0.5f, vp->Pos.y + vp->Size.y * 0.5f),
                          ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowBgAlpha(0.95f);
  if (ImGui::Begin("Keyboard shortcuts (F1)", open,
                   ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse)) {
    if (ImGui::BeginTable("shortcuts", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
      for (const Shortcut& s : shortcuts) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextColored(ImVec4(1.0f, 0.85f, 0.35f, 1.0f), "%s", s.keys.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(s.what.c_str());
      }
      ImGui::EndTable();
    }
  }
  ImGui::End();
}

void Presenter::draw_toast(const std::string& text, bool error) {
  if (text.empty()) return;
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(
      ImVec2(vp->Pos.x + vp->Size.x * 0.5f, vp->Pos.y + vp->Size.y - ImGui::GetFrameHeight() * 3),
      ImGuiCond_Always, ImVec2(0.5f, 1.0f));
  ImGui::SetNextWindowBgAlpha(0.9f);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                 ImGuiWindowFlags_NoInputs | ImGuiWindowFlags_NoFocusOnAppearing |
                                 ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoSavedSettings;
  if (ImGui::Begin("##toast", nullptr, flags)) {
    if (error)
      ImGui::TextColored(ImVec4(1, 0.5f, 0.4f, 1), "%s", text.c_str());
    else
      ImGui::TextUnformatted(text.c_str());
  }
  ImGui::End();
}

}  // namespace bs::ui
