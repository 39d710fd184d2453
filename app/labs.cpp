// labs.cpp: see labs.h.
#include "app/labs.h"

#include <imgui.h>

#include <algorithm>
#include <vector>

#include "app/app.h"
#include "app/heat_lab.h"

namespace bs {

namespace {
const std::vector<LabEntry>& entries() {
  static const std::vector<LabEntry> list = {
      {"heat", "Heat diffusion"},
#ifdef BS_HAVE_MATMUL_LAB
      {"matmul", "Matmul"},
#endif
#ifdef BS_HAVE_MONTECARLO_LAB
      {"montecarlo", "Monte Carlo"},
#endif
#ifdef BS_HAVE_VECTOR_LAB
      {"vector", "Vector"},
#endif
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
#ifdef BS_HAVE_MATMUL_LAB
  if (id == "matmul") return make_matmul_lab(env);
#endif
#ifdef BS_HAVE_MONTECARLO_LAB
  if (id == "montecarlo") return make_montecarlo_lab(env);
#endif
#ifdef BS_HAVE_VECTOR_LAB
  if (id == "vector") return make_vector_lab(env);
#endif
  return nullptr;
}

LabArea lab_view_area() {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float top = ImGui::GetFrameHeight();  // the lab bar
  const float panel_w = std::min(vp->Size.x * 0.42f, ImGui::GetFontSize() * 36);
  return {vp->Pos.x, vp->Pos.y + top, vp->Size.x - panel_w, vp->Size.y - top};
}

LabArea lab_panel_area() {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float top = ImGui::GetFrameHeight();
  const float panel_w = std::min(vp->Size.x * 0.42f, ImGui::GetFontSize() * 36);
  // The bottom row is left to the collapsed Device window.
  return {vp->Pos.x + vp->Size.x - panel_w, vp->Pos.y + top, panel_w,
          vp->Size.y - top - ImGui::GetFrameHeight() * 1.5f};
}

}  // namespace bs
