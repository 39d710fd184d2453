// toasts.cpp: see toasts.h.
#include "app/shell/toasts.h"

#include <imgui.h>

#include <cstdio>

#include "ui/presenter.h"

namespace bs {

void Toasts::show(std::string text, bool error, double seconds) {
  std::fprintf(stderr, "blockscope: %s\n", text.c_str());
  m_text = std::move(text);
  m_error = error;
  m_until = ImGui::GetTime() + (seconds > 0 ? seconds : error ? 8.0 : 4.0);
}

void Toasts::draw(const Rect& view) const {
  if (m_text.empty() || ImGui::GetTime() >= m_until) return;
  const float gap = ImGui::GetFrameHeight() * 0.5f;
  ui::Presenter::draw_toast(m_text, m_error, ImVec2(view.x + view.w * 0.5f, view.y + view.h - gap),
                            view.w * 0.9f);
}

}  // namespace bs
