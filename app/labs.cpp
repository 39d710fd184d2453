// labs.cpp: see labs.h.
#include "app/labs.h"

#include <imgui.h>

#include <algorithm>
#include <vector>

#include "app/app.h"
#include "app/heat/heat_lab.h"
#include "app/layout.h"

namespace bs {

namespace {
const std::vector<LabEntry>& entries() {
  static const std::vector<LabEntry> list = {
      {"heat", "Heat diffusion", "Heat"},
      {"matmul", "Matmul", "Matmul"},
      {"montecarlo", "Monte Carlo", "M. Carlo"},
      {"vector", "Vector", "Vector"},
  };
  return list;
}
}  // namespace

std::span<const LabEntry> lab_entries() {
  return entries();
}

bool is_lab(std::string_view id) {
  return std::any_of(entries().begin(), entries().end(), [&](const LabEntry& e) { return e.id == id; });
}

std::unique_ptr<Lab> make_lab(std::string_view id, LabEnv& env, const AppOptions& opt) {
  if (id == "heat") return std::make_unique<HeatLab>(env, opt.heat);
  if (id == "matmul") return make_matmul_lab(env);
  if (id == "montecarlo") return make_montecarlo_lab(env);
  if (id == "vector") return make_vector_lab(env);
  return nullptr;
}

namespace {
// The layout's slot, or (no layout: a lab drawn alone in a test) the slot computed from the viewport.
LabArea area(Slot slot) {
  Rect r;
  if (const Layout* l = current_layout()) {
    r = l->slot(slot);
  } else {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    LayoutMetrics m;
    m.work = {vp->WorkPos.x, vp->WorkPos.y, vp->WorkSize.x, vp->WorkSize.y};
    m.font = ImGui::GetFontSize();
    m.frame_h = ImGui::GetFrameHeight();
    r = slot_rect(slot, m);
  }
  return {r.x, r.y, r.w, r.h};
}
}  // namespace

LabArea lab_view_area() {
  return area(Slot::View);
}

LabArea lab_panel_area() {
  return area(Slot::Panel);
}

}  // namespace bs
