// session_menu.cpp: see session_menu.h.
#include "app/shell/session_menu.h"

#include <imgui.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "ui/widgets.h"

namespace bs {

std::optional<Session> SessionMenu::take_pending() {
  std::optional<Session> s = std::move(m_pending);
  m_pending.reset();
  return s;
}

void SessionMenu::draw_menu(Toasts& toasts) {
  if (!ImGui::BeginMenu("Session")) return;
  if (ImGui::MenuItem("Save...", "Ctrl+S")) request_save();
  if (ImGui::MenuItem("Load...", "Ctrl+O")) request_load();
  if (ImGui::BeginMenu("Presets")) {
    for (const Preset& p : presets()) {
      if (ImGui::MenuItem(p.name.c_str())) {
        SessionResult r = load_preset(p.name);
        if (r.session)
          m_pending = std::move(r.session);
        else
          toasts.show(r.error, true);
      }
      if (!p.description.empty() && ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
        ImGui::TextUnformatted(p.description.c_str());
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
      }
    }
    ImGui::EndMenu();
  }
  ImGui::EndMenu();
}

namespace {
// The session files in session_dir(), newest first, as a list box; the path picked this frame (or empty).
std::string session_file_list(const char* current) {
  const std::string dir = session_dir();
  std::error_code ec;
  if (dir.empty() || !std::filesystem::is_directory(dir, ec)) return {};
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  std::sort(files.rbegin(), files.rend());  // newest (timestamped) first
  if (files.empty()) return {};
  std::string picked;
  const float rows = static_cast<float>(std::min<size_t>(files.size(), 8));
  if (ImGui::BeginListBox("##saved", ImVec2(-1, ImGui::GetTextLineHeightWithSpacing() * rows +
                                                    ImGui::GetStyle().FramePadding.y * 2))) {
    for (const std::string& f : files) {
      const std::string name = std::filesystem::path(f).filename().string();
      if (ImGui::Selectable(name.c_str(), f == current)) picked = f;
    }
    ImGui::EndListBox();
  }
  return picked;
}

// Centred when it opens, as wide as a path, as tall as its content (a question or an error appears below the
// path: the buttons never scroll away).
void next_dialog_placement() {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const ImVec2 centre(vp->Pos.x + vp->Size.x * 0.5f, vp->Pos.y + vp->Size.y * 0.5f);
  const float width = std::min(ImGui::GetFontSize() * 36, vp->WorkSize.x * 0.9f);
  ImGui::SetNextWindowPos(centre, ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSizeConstraints(ImVec2(width, 0), ImVec2(width, vp->WorkSize.y * 0.9f));
}
}  // namespace

void SessionMenu::draw_popups(Layout& layout, const std::function<Session()>& current, Toasts& toasts) {
  if (m_open != Popup::None) {
    const std::string dir = session_dir();
    const std::string file = m_open == Popup::Save ? timestamped_name("session", ".json") : "";
    const std::string path = dir.empty() ? file : dir + "/" + file;
    std::snprintf(m_path, sizeof m_path, "%s", path.c_str());
    m_error.clear();
    m_overwrite.clear();
    ImGui::OpenPopup(m_open == Popup::Save ? "Save session" : "Load session");
    m_open = Popup::None;
  }
  next_dialog_placement();
  if (layout.begin_modal("Save session", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
    draw_save(current, toasts);
    ImGui::EndPopup();
  }
  next_dialog_placement();
  if (layout.begin_modal("Load session", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
    draw_load();
    ImGui::EndPopup();
  }
}

void SessionMenu::draw_save(const std::function<Session()>& current, Toasts& toasts) {
  ImGui::TextWrapped("Saves the open labs, every lab's parameters, the UI scale and theme as JSON.");
  ImGui::SetNextItemWidth(-1);
  if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
  const bool enter = ImGui::InputText("##path", m_path, sizeof m_path, ImGuiInputTextFlags_EnterReturnsTrue);
  if (ImGui::IsItemEdited()) m_overwrite.clear();
  // The sessions saved before: picking one overwrites it (after asking).
  if (const std::string picked = session_file_list(m_path); !picked.empty()) {
    std::snprintf(m_path, sizeof m_path, "%s", picked.c_str());
    m_overwrite.clear();
  }
  if (!m_error.empty()) ui::error_text(m_error);
  std::error_code ec;
  const bool exists = m_path[0] && std::filesystem::exists(m_path, ec);
  const bool asking = exists && m_overwrite == m_path;
  if (asking) ui::advice_text(std::string(m_path) + " exists. Replace it? (Enter: replace)");
  // While asking, Enter answers (the path field has let go of the keyboard after the first Enter).
  const bool confirm = asking && !ImGui::IsAnyItemActive() && ImGui::IsKeyPressed(GLFW_KEY_ENTER, false);
  if (ImGui::Button(asking ? "Replace" : "Save") || enter || confirm) {
    if (exists && !asking) {
      m_overwrite = m_path;  // ask first; a second Save / Enter replaces it
    } else {
      std::string err;
      if (save_session(current(), m_path, &err)) {
        toasts.show(std::string("saved ") + m_path);
        m_overwrite.clear();
        ImGui::CloseCurrentPopup();
      } else {
        m_error = err;
      }
    }
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false)) {
    m_overwrite.clear();
    ImGui::CloseCurrentPopup();
  }
}

void SessionMenu::draw_load() {
  ImGui::TextWrapped(
      "A session file (or pick one saved before). Nothing changes unless the whole file is valid.");
  ImGui::SetNextItemWidth(-1);
  if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
  const bool enter = ImGui::InputText("##path", m_path, sizeof m_path, ImGuiInputTextFlags_EnterReturnsTrue);
  if (const std::string picked = session_file_list(m_path); !picked.empty())
    std::snprintf(m_path, sizeof m_path, "%s", picked.c_str());
  if (!m_error.empty()) ui::error_text(m_error);
  if (ImGui::Button("Load") || enter) {
    SessionResult r = load_session_file(m_path);
    if (r.session) {
      m_pending = std::move(r.session);
      ImGui::CloseCurrentPopup();
    } else {
      m_error = r.error;
    }
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false)) ImGui::CloseCurrentPopup();
}

}  // namespace bs
