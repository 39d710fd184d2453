// layout.cpp: see layout.h.
#include "app/layout.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app/json_file.h"
#include "ui/widgets.h"

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
    case Slot::Editor:
      return view;
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

bool near(const Rect& a, const Rect& b, float tol = 2.0f) {
  return std::fabs(a.x - b.x) <= tol && std::fabs(a.y - b.y) <= tol && std::fabs(a.w - b.w) <= tol &&
         std::fabs(a.h - b.h) <= tol;
}

constexpr int k_layout_format = 1;
}  // namespace

void Layout::install() {
  ImGui::GetIO().UserData = this;
}

std::optional<std::string> Layout::load(const std::string& text, const std::string& source) {
  const JsonRead r = parse_json_text(text, source);
  if (!r.value) return r.error;
  const nlohmann::json& j = *r.value;
  if (!j.is_object() || j.value("blockscope_layout", 0) != k_layout_format)
    return source + ": not a blockscope layout (no \"blockscope_layout\": 1)";
  if (!j.contains("windows") || !j["windows"].is_object()) return source + ": \"windows\" is not an object";
  std::map<std::string, Rect> places;
  for (const auto& [name, v] : j["windows"].items()) {
    if (!v.is_array() || v.size() != 4 ||
        !std::all_of(v.begin(), v.end(), [](const auto& x) { return x.is_number(); }))
      return source + ": windows." + name + " is not four numbers [x, y, w, h]";
    // A hand-edited entry is made sane: no negative or huge fractions.
    const auto sane = [](double d, float lo, float hi) {
      const float f = static_cast<float>(d);
      return std::isfinite(f) ? std::clamp(f, lo, hi) : lo;
    };
    places[name] = {sane(v[0], 0, 1), sane(v[1], 0, 1), sane(v[2], 0.02f, 1), sane(v[3], 0.02f, 1)};
  }
  for (auto& [name, w] : m_windows)
    w.moved = false;
  for (const auto& [name, f] : places) {
    Window& w = m_windows[name];
    w.moved = true;
    w.frac = f;
  }
  return std::nullopt;
}

nlohmann::json Layout::to_json() const {
  nlohmann::json windows = nlohmann::json::object();
  for (const auto& [name, w] : m_windows)
    if (w.moved) windows[name] = {w.frac.x, w.frac.y, w.frac.w, w.frac.h};
  return {{"blockscope_layout", k_layout_format}, {"windows", std::move(windows)}};
}

bool Layout::take_dirty() {
  const bool d = m_dirty;
  m_dirty = false;
  return d;
}

void Layout::begin_frame(float readouts_h) {
  ++m_frame;
  m_metrics.work = work_area();
  m_metrics.font = ImGui::GetFontSize();
  m_metrics.frame_h = ImGui::GetFrameHeight();
  m_metrics.readouts_h = std::min(readouts_h, m_metrics.work.h * 0.45f);
}

Layout::Window& Layout::prepare(const char* name, Kind kind, Slot slot, ImGuiWindowFlags flags) {
  Window& w = m_windows[name];
  w.kind = kind;
  w.hscroll = (flags & ImGuiWindowFlags_HorizontalScrollbar) != 0;
  const bool seen_last_frame = w.frame == m_frame - 1;
  // The user is dragging or resizing it (or holding the mouse in it, painting, dragging a slider): leave it
  // where ImGui puts it this frame; observe() then sees whether it moved.
  w.held = seen_last_frame && w.press_began_here && ImGui::IsMouseDown(ImGuiMouseButton_Left);
  const Rect& work = m_metrics.work;
  if (kind == Kind::Slotted) {
    w.slot = slot;
    if (w.held) {
      w.expected = w.full;
      return w;
    }
    const Rect target = w.moved ? clamp_into(from_fraction(w.frac, work), work) : slot_rect(slot, m_metrics);
    if (slot == Slot::Device && !w.moved) {
      // Anchored by its bottom edge: collapsed or expanded, it ends at the bottom of the work area.
      ImGui::SetNextWindowPos(ImVec2(target.x, target.y + target.h), ImGuiCond_Always, ImVec2(0, 1));
    } else {
      ImGui::SetNextWindowPos(ImVec2(target.x, target.y), ImGuiCond_Always);
    }
    ImGui::SetNextWindowSize(ImVec2(target.w, target.h), ImGuiCond_Always);
    if (w.collapse) {
      ImGui::SetNextWindowCollapsed(true, ImGuiCond_Always);
      w.collapse = false;
    } else {
      ImGui::SetNextWindowCollapsed(slot == Slot::Device, ImGuiCond_FirstUseEver);
    }
    w.expected = target;
  } else if (kind == Kind::Free && seen_last_frame && !w.held) {
    // On screen last frame: it comes back fully inside this frame's work area (a display that shrank).
    const Rect fit = clamp_into(w.full, work);
    if (!near(w.full, fit, 0.5f)) {
      ImGui::SetNextWindowPos(ImVec2(fit.x, fit.y), ImGuiCond_Always);
      if (!(flags & ImGuiWindowFlags_AlwaysAutoResize) && (fit.w < w.full.w || fit.h < w.full.h))
        ImGui::SetNextWindowSize(ImVec2(fit.w, fit.h), ImGuiCond_Always);
    }
  }
  return w;
}

void Layout::observe(Window& w) {
  const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
  w.collapsed = ImGui::IsWindowCollapsed();
  w.shown = {pos.x, pos.y, size.x, size.y};
  // A collapsed window keeps its expanded size (what it gets back when expanded): the one it was given.
  const float full_h = !w.collapsed                   ? size.y
                       : w.kind == Kind::Slotted      ? w.expected.h
                       : w.frame >= 0 && w.full.h > 0 ? w.full.h
                                                      : size.y;
  w.full = {pos.x, pos.y, size.x, full_h};
  w.frame = m_frame;
  // Begin sized the window from its contents of the frame before: the horizontal scroll range is how far they
  // reached past the width items get (a text line, a row of buttons), whether or not a scrollbar shows it.
  w.over_px = w.collapsed ? 0.0f : ImGui::GetScrollMaxX();
  if (ImGui::IsMouseClicked(ImGuiMouseButton_Left))
    w.press_began_here = ImGui::IsWindowHovered(ImGuiHoveredFlags_RootAndChildWindows |
                                                ImGuiHoveredFlags_AllowWhenBlockedByActiveItem);
  else if (!ImGui::IsMouseDown(ImGuiMouseButton_Left))
    w.press_began_here = false;
  if (w.kind != Kind::Slotted) return;
  Rect now = w.full, expected = w.expected;
  if (!w.held && w.slot == Slot::Device && !w.moved) {
    // Bottom-anchored: compare the bottom edge (the top depends on whether it is collapsed).
    now.y += size.y;
    expected.y += expected.h;
  }
  if (near(now, expected)) return;
  // The user moved or resized it: it keeps that place, relative to the window from now on.
  w.moved = true;
  w.frac = to_fraction(w.full, m_metrics.work);
  m_dirty = true;
}

namespace {

// Text wraps at the window's edge rather than running off it (ImGui::Text, TextDisabled, TextColored and
// TextUnformatted all follow the wrap position; lines break at spaces). The window's edge, not the column's:
// a table's column sized to its contents keeps its numbers whole. Begin clears the window's wrap stack every
// frame, so there is nothing to pop before End. A window that sizes itself to its text (AlwaysAutoResize)
// keeps its lines whole.
void wrap_text_at_edge(ImGuiWindowFlags flags) {
  if (!(flags & ImGuiWindowFlags_AlwaysAutoResize)) ui::wrap_at_window_edge();
}

}  // namespace

bool Layout::begin(const char* name, Slot slot, bool* open, ImGuiWindowFlags flags) {
  Window& w = prepare(name, Kind::Slotted, slot, flags);
  const bool shown = ImGui::Begin(name, open, flags);
  observe(w);
  wrap_text_at_edge(flags);
  return shown;
}

bool Layout::begin_free(const char* name, bool* open, ImGuiWindowFlags flags) {
  Window& w = prepare(name, Kind::Free, Slot::View, flags);
  const bool shown = ImGui::Begin(name, open, flags);
  observe(w);
  wrap_text_at_edge(flags);
  return shown;
}

bool Layout::begin_modal(const char* name, bool* open, ImGuiWindowFlags flags) {
  Window& w = prepare(name, Kind::Free, Slot::View, flags);
  // Not open: BeginPopupModal drops the placement above and builds nothing.
  if (!ImGui::BeginPopupModal(name, open, flags)) return false;
  observe(w);
  return true;
}

bool Layout::begin_observed(const char* name, bool* open, ImGuiWindowFlags flags) {
  Window& w = prepare(name, Kind::Observed, Slot::View, flags);
  const bool shown = ImGui::Begin(name, open, flags);
  observe(w);
  return shown;
}

void Layout::reset() {
  for (auto& [name, w] : m_windows) {
    w.moved = false;
    w.collapse = w.kind == Kind::Slotted && w.slot == Slot::Device;
  }
  m_dirty = true;
}

bool Layout::moved(const std::string& name) const {
  const auto it = m_windows.find(name);
  return it != m_windows.end() && it->second.moved;
}

std::optional<Rect> Layout::visible(const std::string& name) const {
  const auto it = m_windows.find(name);
  if (it == m_windows.end() || it->second.frame != m_frame || it->second.collapsed) return std::nullopt;
  return it->second.shown;
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
  for (const auto& [name, w] : m_windows) {
    if (w.frame != m_frame) continue;
    windows.push_back({{"name", name},
                       {"rect", {w.shown.x, w.shown.y, w.shown.w, w.shown.h}},
                       {"collapsed", w.collapsed},
                       {"moved", w.moved}});
  }
  j["windows"] = std::move(windows);
  j["overflow"] = overflow();
  return j;
}

nlohmann::json Layout::overflow() const {
  // Every layout window shown this frame whose contents reach past its width: something is clipped or needs
  // a horizontal scrollbar. Public API only (ImGui::GetScrollMaxX in observe()), so child windows are not
  // looked into: a text-holding child wraps at its own edge (ui::wrap_at_window_edge).
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [name, w] : m_windows) {
    if (w.frame != m_frame || w.collapsed) continue;
    if (w.over_px <= 1.0f) continue;  // a pixel of rounding (a table's stretched columns) cuts nothing
    out.push_back({{"window", name}, {"px", w.over_px}, {"scrolls", w.hscroll}});
  }
  return out;
}

Layout* current_layout() {
  if (!ImGui::GetCurrentContext()) return nullptr;
  return static_cast<Layout*>(ImGui::GetIO().UserData);
}

bool begin_window(const char* name, Slot slot, bool* open, ImGuiWindowFlags flags) {
  if (Layout* l = current_layout()) return l->begin(name, slot, open, flags);
  return ImGui::Begin(name, open, flags);
}

}  // namespace bs
