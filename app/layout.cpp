// layout.cpp: see layout.h.
#include "app/layout.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace bs {

Rect slot_rect(Slot slot, const LayoutMetrics& m) {
  const Rect& w = m.work;
  const float bottom = w.y + std::max(w.h - m.readouts_h, m.frame_h * 4);
  const float usable_h = bottom - w.y;
  // The panel is about 36 characters wide (what the lab panels are laid out for), but never less than 30% nor
  // more than 55% of the window: at a large UI scale on a small screen the view keeps almost half the width
  // (fields are square, and the height is what limits them there).
  const float panel_w = std::clamp(m.font * 36.0f, w.w * 0.30f, w.w * 0.55f);
  const Rect view{w.x, w.y, w.w - panel_w, usable_h};
  switch (slot) {
    case Slot::View:
      return view;
    case Slot::Panel:
      // The bottom row under the panel is the collapsed Device window's.
      return {w.x + w.w - panel_w, w.y, panel_w, usable_h - m.frame_h};
    case Slot::Device: {
      // Its expanded size; it is anchored by its bottom edge, so collapsed it is one title bar at the bottom.
      const float h = std::min(usable_h * 0.4f, m.font * 16.0f);
      return {w.x + w.w - panel_w, bottom - h, panel_w, h};
    }
    case Slot::Anatomy:
      // The lower part of the view: the field's top rows stay visible.
      return {view.x + view.w * 0.03f, view.y + view.h * 0.3f, view.w * 0.94f, view.h * 0.68f};
    case Slot::Sweep:
      return {w.x + w.w * 0.05f, w.y + usable_h * 0.04f, w.w * 0.9f, usable_h * 0.92f};
    case Slot::Readouts:
      return {w.x, bottom, w.w, w.y + w.h - bottom};
  }
  return view;
}

Rect clamp_into(Rect r, const Rect& area) {
  r.w = std::min(r.w, area.w);
  r.h = std::min(r.h, area.h);
  r.x = std::clamp(r.x, area.x, area.x + area.w - r.w);
  r.y = std::clamp(r.y, area.y, area.y + area.h - r.h);
  return r;
}

Rect to_fraction(const Rect& r, const Rect& area) {
  const float aw = std::max(area.w, 1.0f), ah = std::max(area.h, 1.0f);
  return {(r.x - area.x) / aw, (r.y - area.y) / ah, r.w / aw, r.h / ah};
}

Rect from_fraction(const Rect& f, const Rect& area) {
  return {area.x + f.x * area.w, area.y + f.y * area.h, f.w * area.w, f.h * area.h};
}

bool inside(const Rect& r, const Rect& area, float tol) {
  return r.x >= area.x - tol && r.y >= area.y - tol && r.x + r.w <= area.x + area.w + tol &&
         r.y + r.h <= area.y + area.h + tol;
}

namespace {
Rect work_area() {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  return {vp->WorkPos.x, vp->WorkPos.y, vp->WorkSize.x, vp->WorkSize.y};
}

// The window's rectangle as the user sees it when expanded (a collapsed window keeps its full size).
Rect full_rect(const ImGuiWindow* w) {
  return {w->Pos.x, w->Pos.y, w->SizeFull.x, w->SizeFull.y};
}

bool near(const Rect& a, const Rect& b, float tol = 2.0f) {
  return std::fabs(a.x - b.x) <= tol && std::fabs(a.y - b.y) <= tol && std::fabs(a.w - b.w) <= tol &&
         std::fabs(a.h - b.h) <= tol;
}

// Windows the layout keeps inside the work area: top-level windows (the menu bar, tooltips, menus and combo
// lists are placed by ImGui itself).
bool is_layout_window(const ImGuiWindow* w) {
  if (w->Flags & (ImGuiWindowFlags_ChildWindow | ImGuiWindowFlags_Tooltip)) return false;
  if ((w->Flags & ImGuiWindowFlags_Popup) && !(w->Flags & ImGuiWindowFlags_Modal)) return false;
  return std::strncmp(w->Name, "##MainMenuBar", 13) != 0;
}
}  // namespace

void Layout::install(ImGuiContext* ctx) {
  ImGuiSettingsHandler h;
  h.TypeName = "BlockscopeLayout";
  h.TypeHash = ImHashStr("BlockscopeLayout");
  h.ReadOpenFn = &Layout::ini_open;
  h.ReadLineFn = &Layout::ini_line;
  h.WriteAllFn = &Layout::ini_write;
  h.UserData = this;
  ctx->SettingsHandlers.push_back(h);
  ImGui::GetIO().UserData = this;
}

void* Layout::ini_open(ImGuiContext*, ImGuiSettingsHandler* h, const char* name) {
  return &static_cast<Layout*>(h->UserData)->m_windows[name];
}

void Layout::ini_line(ImGuiContext*, ImGuiSettingsHandler*, void* entry, const char* line) {
  Placed& p = *static_cast<Placed*>(entry);
  Rect f;
  if (std::sscanf(line, "Frac=%f,%f,%f,%f", &f.x, &f.y, &f.w, &f.h) != 4) return;
  // A hand-edited or corrupt entry is made sane: no negative or huge fractions.
  const auto sane = [](float v, float lo, float hi) { return std::isfinite(v) ? std::clamp(v, lo, hi) : lo; };
  f = {sane(f.x, 0, 1), sane(f.y, 0, 1), sane(f.w, 0.02f, 1), sane(f.h, 0.02f, 1)};
  p.frac = f;
  p.moved = true;
}

void Layout::ini_write(ImGuiContext*, ImGuiSettingsHandler* h, ImGuiTextBuffer* out) {
  for (const auto& [name, p] : static_cast<Layout*>(h->UserData)->m_windows) {
    if (!p.moved) continue;
    out->appendf("[BlockscopeLayout][%s]\nFrac=%.4f,%.4f,%.4f,%.4f\n\n", name.c_str(), p.frac.x, p.frac.y,
                 p.frac.w, p.frac.h);
  }
}

void Layout::begin_frame(float readouts_h) {
  m_metrics.work = work_area();
  m_metrics.font = ImGui::GetFontSize();
  m_metrics.frame_h = ImGui::GetFrameHeight();
  m_metrics.readouts_h = std::min(readouts_h, m_metrics.work.h * 0.45f);
  for (auto& [name, p] : m_windows)
    p.placed_this_frame = false;
  // Every window that was on screen, slot or not, comes back fully inside (a window restored from an ini
  // file written on a bigger screen, a dialog opened before the window shrank).
  ImGuiContext& g = *ImGui::GetCurrentContext();
  for (ImGuiWindow* w : g.Windows) {
    if (!w->WasActive || !is_layout_window(w)) continue;
    if (g.MovingWindow && g.MovingWindow->RootWindow == w) continue;
    const Rect full = full_rect(w);
    const Rect fit = clamp_into(full, m_metrics.work);
    if (near(full, fit, 0.5f)) continue;
    ImGui::SetWindowPos(w, ImVec2(fit.x, fit.y));
    if (!(w->Flags & ImGuiWindowFlags_AlwaysAutoResize) && (fit.w < full.w || fit.h < full.h))
      ImGui::SetWindowSize(w, ImVec2(fit.w, fit.h));
  }
}

void Layout::place(const char* name, Slot slot) {
  ImGuiContext& g = *ImGui::GetCurrentContext();
  ImGuiWindow* w = ImGui::FindWindowByName(name);
  Placed& p = m_windows[name];
  p.slot = slot;
  p.placed_this_frame = true;
  if (w && g.MovingWindow && g.MovingWindow->RootWindow == w) {
    // The user is dragging it: leave it where the mouse puts it (end_frame sees it away from `placed`).
    return;
  }
  const Rect& work = m_metrics.work;
  const Rect target = p.moved ? clamp_into(from_fraction(p.frac, work), work) : slot_rect(slot, m_metrics);
  if (slot == Slot::Device && !p.moved) {
    // Anchored by its bottom edge: collapsed or expanded, it ends at the bottom of the work area.
    ImGui::SetNextWindowPos(ImVec2(target.x, target.y + target.h), ImGuiCond_Always, ImVec2(0, 1));
  } else {
    ImGui::SetNextWindowPos(ImVec2(target.x, target.y), ImGuiCond_Always);
  }
  ImGui::SetNextWindowSize(ImVec2(target.w, target.h), ImGuiCond_Always);
  if (p.collapse) {
    ImGui::SetNextWindowCollapsed(true, ImGuiCond_Always);
    p.collapse = false;
  } else {
    ImGui::SetNextWindowCollapsed(slot == Slot::Device, ImGuiCond_FirstUseEver);
  }
  p.placed = target;
}

void Layout::end_frame() {
  bool changed = false;
  for (auto& [name, p] : m_windows) {
    if (!p.placed_this_frame) continue;
    const ImGuiWindow* w = ImGui::FindWindowByName(name.c_str());
    if (!w || !w->Active) continue;
    Rect now = full_rect(w);
    Rect expected = p.placed;
    if (p.slot == Slot::Device && !p.moved) {
      // Bottom-anchored: compare the bottom edge (the top depends on whether it is collapsed).
      now.y += w->Size.y;
      expected.y += expected.h;
    }
    if (near(now, expected)) continue;
    // The user moved or resized it: it keeps that place, relative to the window from now on.
    p.moved = true;
    p.frac = to_fraction(full_rect(w), m_metrics.work);
    changed = true;
  }
  if (changed) ImGui::MarkIniSettingsDirty();
}

void Layout::reset() {
  for (auto& [name, p] : m_windows) {
    p.moved = false;
    p.collapse = p.slot == Slot::Device;
  }
  ImGui::MarkIniSettingsDirty();
}

bool Layout::moved(const std::string& name) const {
  const auto it = m_windows.find(name);
  return it != m_windows.end() && it->second.moved;
}

nlohmann::json Layout::snapshot() const {
  const ImGuiIO& io = ImGui::GetIO();
  nlohmann::json j;
  j["display"] = {io.DisplaySize.x, io.DisplaySize.y};
  const Rect& wk = m_metrics.work;
  j["work"] = {wk.x, wk.y, wk.w, wk.h};
  j["font"] = m_metrics.font;
  j["readouts_h"] = m_metrics.readouts_h;
  nlohmann::json windows = nlohmann::json::array();
  for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) {
    if (!w->Active || w->Hidden || (w->Flags & ImGuiWindowFlags_ChildWindow)) continue;
    if (!w->WriteAccessed && std::strcmp(w->Name, "Debug##Default") == 0) continue;  // ImGui's implicit one
    windows.push_back({{"name", w->Name},
                       {"rect", {w->Pos.x, w->Pos.y, w->Size.x, w->Size.y}},
                       {"collapsed", w->Collapsed},
                       {"moved", moved(w->Name)}});
  }
  j["windows"] = std::move(windows);
  return j;
}

void place_window(const char* name, Slot slot) {
  if (Layout* l = current_layout()) l->place(name, slot);
}

Layout* current_layout() {
  if (!ImGui::GetCurrentContext()) return nullptr;
  return static_cast<Layout*>(ImGui::GetIO().UserData);
}

}  // namespace bs
