// labs.cpp: see labs.h.
#include "app/labs.h"

#include <imgui.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "app/layout.h"
#include "core/error.h"

namespace bs {

#define BS_LAB(id) const LabDescriptor& id##_lab_descriptor();
#include "app/lab_list.inc"
#undef BS_LAB

namespace {

std::vector<LabDescriptor>& registry() {
  static std::vector<LabDescriptor> labs = [] {
    std::vector<LabDescriptor> v;
#define BS_LAB(id) v.push_back(id##_lab_descriptor());
#include "app/lab_list.inc"
#undef BS_LAB
    return v;
  }();
  return labs;
}

}  // namespace

const std::vector<LabDescriptor>& lab_entries() {
  return registry();
}

const LabDescriptor* find_lab(std::string_view id) {
  for (const LabDescriptor& d : registry())
    if (std::string_view(d.id) == id) return &d;
  return nullptr;
}

bool is_lab(std::string_view id) {
  return find_lab(id) != nullptr;
}

std::string lab_ids_text() {
  std::string known;
  for (const LabDescriptor& d : registry())
    known += (known.empty() ? "" : ", ") + std::string(d.id);
  return known;
}

std::optional<std::string> check_lab_state(std::string_view id, const nlohmann::json& state) {
  const LabDescriptor* d = find_lab(id);
  if (!d) return "labs." + std::string(id) + ": unknown lab";
  const std::string where = "labs." + std::string(d->id);
  if (d->schema)
    if (auto err = params::check_state(*d->schema, state, where, d->state_extras)) return err;
  if (d->check_state) return d->check_state(state);
  return std::nullopt;
}

std::unique_ptr<Lab> make_lab(std::string_view id, LabEnv& env, const nlohmann::json& start) {
  const LabDescriptor* d = find_lab(id);
  if (!d || !d->make) return nullptr;
  std::unique_ptr<Lab> lab = d->make(env);
  if (lab && start.is_object() && !start.empty())
    if (auto err = lab->load_state(start)) throw InvalidRequest(*err);
  return lab;
}

LabRegistration::LabRegistration(LabDescriptor d) : m_id(d.id ? d.id : "") {
  if (!d.id || !*d.id) throw std::invalid_argument("a lab needs an id");
  if (find_lab(d.id)) throw std::invalid_argument("lab " + m_id + " is already registered");
  if (!d.short_title || !*d.short_title) d.short_title = d.title;
  registry().push_back(std::move(d));
}

LabRegistration::~LabRegistration() {
  auto& labs = registry();
  labs.erase(std::remove_if(labs.begin(), labs.end(), [&](const LabDescriptor& d) { return d.id == m_id; }),
             labs.end());
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
