// help.cpp: see help.h.
#include "app/shell/help.h"

#include <imgui.h>

#include <filesystem>
#include <system_error>

#include "app/info.h"
#include "assets/embedded.h"

namespace bs {

namespace {

// "**Heat lab.** Explicit `float32`" -> "Heat lab. Explicit float32".
std::string plain(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '`') continue;
    if (s[i] == '*' && i + 1 < s.size() && s[i + 1] == '*') {
      ++i;
      continue;
    }
    out += s[i];
  }
  return out;
}

std::string trimmed(std::string_view s) {
  const size_t a = s.find_first_not_of(" \t");
  if (a == std::string_view::npos) return {};
  return std::string(s.substr(a, s.find_last_not_of(" \t") - a + 1));
}

}  // namespace

std::vector<HelpTopic> lab_overview(std::string_view readme) {
  std::vector<HelpTopic> out;
  const size_t start = readme.find("\n## What is in it");
  if (start == std::string_view::npos) return out;
  size_t pos = readme.find('\n', start + 1);
  while (pos != std::string_view::npos && pos + 1 < readme.size()) {
    const size_t end = readme.find('\n', pos + 1);
    const std::string_view line = readme.substr(pos + 1, end == std::string_view::npos ? end : end - pos - 1);
    pos = end;
    if (line.starts_with("## ")) break;  // the next section
    if (line.starts_with("- **")) {
      const size_t close = line.find("**", 4);
      if (close == std::string_view::npos) continue;
      std::string title = std::string(line.substr(4, close - 4));
      if (!title.empty() && title.back() == '.') title.pop_back();
      out.push_back({title, trimmed(plain(line.substr(close + 2)))});
    } else if (!out.empty() && line.starts_with("  ")) {
      out.back().text += ' ';  // (two appends: GCC 12 warns wrongly about " " + std::string here)
      out.back().text += trimmed(plain(line));
    }
  }
  return out;
}

std::vector<DocPlace> doc_places() {
  std::vector<DocPlace> out;
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path installed = exe.parent_path().parent_path() / "share" / "doc" / "blockscope";
    out.push_back({installed.string(), "installed with the package (README.md, docs/)",
                   std::filesystem::exists(installed / "README.md", ec)});
  }
  const std::filesystem::path source = BS_SOURCE_DIR;
  out.push_back({source.string(), "the source tree this binary was built from (README.md, docs/)",
                 std::filesystem::exists(source / "README.md", ec)});
  return out;
}

namespace {
ImVec2 item_centre() {
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  return ImVec2((a.x + b.x) * 0.5f, (a.y + b.y) * 0.5f);
}
}  // namespace

void HelpMenu::draw_menu(bool* shortcuts) {
  m_labs_item_at = ImVec2(-1, -1);
  if (!ImGui::BeginMenu("Help")) {
    m_menu_at = item_centre();  // (once open, the last item is the menu's window)
    return;
  }
  ImGui::MenuItem("Keyboard shortcuts", "F1", shortcuts);
  ImGui::MenuItem("The labs", nullptr, &m_overview);
  m_labs_item_at = item_centre();
  ImGui::MenuItem("Documentation and version", nullptr, &m_about);
  ImGui::EndMenu();
}

void HelpMenu::draw_windows(Layout& layout) {
  const float wrap = ImGui::GetFontSize() * 36;
  if (m_overview) {
    ImGui::SetNextWindowSize(ImVec2(wrap + ImGui::GetFontSize() * 2, ImGui::GetFontSize() * 30),
                             ImGuiCond_FirstUseEver);
    if (layout.begin_free("The labs (Help)", &m_overview)) {
      if (m_topics.empty()) m_topics = lab_overview(embedded::find("README.md"));
      if (m_topics.empty()) ImGui::TextWrapped("The README's lab overview is not in this build.");
      for (const HelpTopic& t : m_topics) {
        if (ImGui::CollapsingHeader(t.title.c_str())) ImGui::TextWrapped("%s", t.text.c_str());
      }
    }
    ImGui::End();
  }
  if (m_about) {
    if (layout.begin_free("Documentation and version (Help)", &m_about, ImGuiWindowFlags_AlwaysAutoResize)) {
      ImGui::TextUnformatted(version_text().c_str());
      ImGui::Separator();
      ImGui::TextUnformatted("README.md (every lab), docs/ARCHITECTURE.md and docs/PERFORMANCE.md are in:");
      for (const DocPlace& d : doc_places()) {
        ImGui::BulletText("%s", d.path.c_str());
        ImGui::Indent();
        ImGui::TextDisabled("%s%s", d.what.c_str(), d.present ? "" : " - not on this machine");
        ImGui::Unindent();
      }
      ImGui::TextDisabled("blockscope --help lists the command line; blockscope info the device and the path.");
    }
    ImGui::End();
  }
}

}  // namespace bs
