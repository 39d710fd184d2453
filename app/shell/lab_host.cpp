// lab_host.cpp: see lab_host.h.
#include "app/shell/lab_host.h"

#include <stdexcept>

#include "app/app.h"
#include "app/labs.h"
#include "app/shell/gpu_recovery.h"
#include "core/error.h"

namespace bs {

void LabHost::open(const std::string& id) {
  if (activate(id)) return;
  std::unique_ptr<Lab> lab;
  const auto start = m_opt.start_states.find(id);
  const nlohmann::json& state = start == m_opt.start_states.end() ? nlohmann::json() : start->second;
  try {
    lab = make_lab(id, m_env, state);
  } catch (const GpuError& e) {
    // The GPU cannot even build the lab (out of memory, broken device): run everything on the CPU instead.
    abandon_gpu();
    m_gpu.fall_back_to_cpu(e.what());
    rebuild();
    lab = make_lab(id, m_env, state);
  }
  if (!lab) throw std::runtime_error("unknown lab '" + id + "'");
  m_labs.emplace_back(id, std::move(lab));
  m_active = m_labs.size() - 1;
}

Lab* LabHost::find_or_make(const std::string& id, bool* made) {
  *made = false;
  for (auto& l : m_labs)
    if (l.first == id) return l.second.get();
  const size_t active = m_active;
  open(id);
  m_active = m_labs.size() > 1 ? active : 0;
  *made = true;
  return m_labs.back().second.get();
}

void LabHost::truncate(size_t count) {
  while (m_labs.size() > count)
    m_labs.pop_back();
  if (m_active >= m_labs.size()) m_active = 0;
}

bool LabHost::activate(const std::string& id) {
  for (size_t i = 0; i < m_labs.size(); ++i)
    if (m_labs[i].first == id) {
      m_active = i;
      return true;
    }
  return false;
}

void LabHost::draw_ui(const Layout& layout) {
  active().draw_ui();
  m_view_rect.reset();
  if (const char* name = active().view_window()) m_view_rect = layout.visible(name);
}

void LabHost::abandon_gpu() noexcept {
  for (auto& l : m_labs)
    l.second->abandon_gpu();
}

void LabHost::rebuild() {
  for (auto& l : m_labs)
    l.second->rebuild();
}

}  // namespace bs
