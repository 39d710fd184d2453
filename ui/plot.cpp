// plot.cpp: see plot.h.
#include "ui/plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "ui/plot_export.h"

namespace bs::ui {

std::vector<double> nice_ticks(double lo, double hi, int target, bool log_scale) {
  std::vector<double> ticks;
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) return ticks;
  if (log_scale) {
    for (double e = std::floor(std::log10(lo)); e <= std::ceil(std::log10(hi)); e += 1.0) {
      const double v = std::pow(10.0, e);
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) ticks.push_back(v);
    }
    return ticks;
  }
  const double raw = (hi - lo) / std::max(target, 1);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / mag;
  const double step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step)
    ticks.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
  return ticks;
}

std::string format_tick(double v) {
  char buf[32];
  const double a = std::abs(v);
  if (a == 0) return "0";
  if (a >= 1e9)
    std::snprintf(buf, sizeof buf, "%gG", v / 1e9);
  else if (a >= 1e6)
    std::snprintf(buf, sizeof buf, "%gM", v / 1e6);
  else if (a >= 1e4)
    std::snprintf(buf, sizeof buf, "%gk", v / 1e3);
  else if (a >= 1e-3)
    std::snprintf(buf, sizeof buf, "%.4g", v);
  else
    std::snprintf(buf, sizeof buf, "%.1e", v);
  return buf;
}

namespace {
struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void add(double v, bool log_scale) {
    if (!std::isfinite(v) || (log_scale && v <= 0)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool valid() const { return lo <= hi; }
};

double to_axis(double v, bool log_scale) {
  return log_scale ? std::log10(v) : v;
}
}  // namespace

bool plot_lines(const char* id, ImVec2 size, const PlotAxes& axes, std::span<const PlotSeries> series) {
  ImGui::PushID(id);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  if (size.x <= 0) size.x = avail.x;
  if (size.y <= 0) size.y = std::max(avail.y, 120.0f);
  ImGui::InvisibleButton("##plot", size);
  const bool hovered = ImGui::IsItemHovered();
  plot_export_menu(id, axes, series);  // right-click: save as PNG / SVG / CSV / JSON
  const ImVec2 p0 = ImGui::GetItemRectMin(), p1 = ImGui::GetItemRectMax();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImGuiStyle& st = ImGui::GetStyle();
  const float fh = ImGui::GetFontSize();
  dl->AddRectFilled(p0, p1, ImGui::GetColorU32(ImGuiCol_FrameBg), st.FrameRounding);

  Range rx, ry;
  for (const auto& s : series) {
    for (size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
      rx.add(s.x[i], axes.log_x);
      ry.add(s.y[i], axes.log_y);
      if (i < s.y_lo.size()) ry.add(s.y_lo[i], axes.log_y);
      if (i < s.y_hi.size()) ry.add(s.y_hi[i], axes.log_y);
    }
  }
  const ImVec2 plot_min(p0.x + fh * 3.2f, p0.y + fh * 0.6f);
  const ImVec2 plot_max(p1.x - fh * 0.6f, p1.y - fh * (axes.x_label.empty() ? 1.6f : 2.6f));
  if (!rx.valid() || !ry.valid() || plot_max.x <= plot_min.x || plot_max.y <= plot_min.y) {
    dl->AddText(ImVec2(p0.x + fh, p0.y + fh), ImGui::GetColorU32(ImGuiCol_TextDisabled), "no data yet");
    ImGui::PopID();
    return hovered;
  }
  if (!axes.log_y && axes.y_from_zero) ry.lo = std::min(ry.lo, 0.0);
  if (rx.hi == rx.lo) rx.hi = rx.lo + (axes.log_x ? rx.lo : 1.0);
  if (ry.hi == ry.lo) ry.hi = ry.lo + (axes.log_y ? ry.lo : 1.0);
  if (!axes.log_y) ry.hi += (ry.hi - ry.lo) * 0.05;
  const double ax0 = to_axis(rx.lo, axes.log_x), ax1 = to_axis(rx.hi, axes.log_x);
  const double ay0 = to_axis(ry.lo, axes.log_y), ay1 = to_axis(ry.hi, axes.log_y);
  auto map = [&](double x, double y) {
    const double fx = (to_axis(x, axes.log_x) - ax0) / (ax1 - ax0);
    const double fy = (to_axis(y, axes.log_y) - ay0) / (ay1 - ay0);
    return ImVec2(plot_min.x + static_cast<float>(fx) * (plot_max.x - plot_min.x),
                  plot_max.y - static_cast<float>(fy) * (plot_max.y - plot_min.y));
  };

  const ImU32 grid = ImGui::GetColorU32(ImGuiCol_Border);
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  for (double t : nice_ticks(ry.lo, ry.hi, 4, axes.log_y)) {
    const float y = map(rx.lo, t).y;
    dl->AddLine(ImVec2(plot_min.x, y), ImVec2(plot_max.x, y), grid);
    const std::string s = format_tick(t);
    dl->AddText(ImVec2(p0.x + 2, y - fh * 0.5f), text, s.c_str());
  }
  for (double t : nice_ticks(rx.lo, rx.hi, 5, axes.log_x)) {
    const float x = map(t, ry.lo).x;
    dl->AddLine(ImVec2(x, plot_min.y), ImVec2(x, plot_max.y), grid);
    const std::string s = format_tick(t);
    dl->AddText(ImVec2(x - ImGui::CalcTextSize(s.c_str()).x * 0.5f, plot_max.y + 2), text, s.c_str());
  }
  if (!axes.x_label.empty())
    dl->AddText(ImVec2((plot_min.x + plot_max.x - ImGui::CalcTextSize(axes.x_label.c_str()).x) * 0.5f,
                       plot_max.y + fh + 2),
                text, axes.x_label.c_str());
  dl->AddRect(plot_min, plot_max, grid);

  dl->PushClipRect(plot_min, plot_max, true);
  for (const auto& s : series) {
    const size_t n = std::min(s.x.size(), s.y.size());
    if (s.y_lo.size() >= n && s.y_hi.size() >= n && n >= 2) {
      const ImU32 band = (s.color & 0x00FFFFFFu) | 0x40000000u;
      for (size_t i = 0; i + 1 < n; ++i) {
        const ImVec2 a = map(s.x[i], s.y_hi[i]), b = map(s.x[i + 1], s.y_hi[i + 1]);
        const ImVec2 c = map(s.x[i + 1], s.y_lo[i + 1]), d = map(s.x[i], s.y_lo[i]);
        dl->AddQuadFilled(a, b, c, d, band);
      }
    }
    std::vector<ImVec2> pts;
    pts.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      if (!std::isfinite(s.y[i]) || (axes.log_y && s.y[i] <= 0) || (axes.log_x && s.x[i] <= 0)) continue;
      pts.push_back(map(s.x[i], s.y[i]));
    }
    if (pts.size() >= 2) dl->AddPolyline(pts.data(), static_cast<int>(pts.size()), s.color, 0, 2.0f);
    for (const ImVec2& p : pts)
      if (pts.size() < 40) dl->AddCircleFilled(p, 2.5f, s.color);
  }
  dl->PopClipRect();

  // Legend, top-left inside the plot.
  float ly = plot_min.y + 4;
  for (const auto& s : series) {
    if (s.label.empty()) continue;
    dl->AddRectFilled(ImVec2(plot_min.x + 6, ly + fh * 0.3f), ImVec2(plot_min.x + 16, ly + fh * 0.7f),
                      s.color);
    dl->AddText(ImVec2(plot_min.x + 20, ly), text, s.label.c_str());
    ly += fh + 2;
  }

  // Hover read-out: the nearest point of each series at the mouse's x.
  if (hovered) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    if (m.x >= plot_min.x && m.x <= plot_max.x) {
      dl->AddLine(ImVec2(m.x, plot_min.y), ImVec2(m.x, plot_max.y),
                  ImGui::GetColorU32(ImGuiCol_TextDisabled));
      std::string tip;
      for (const auto& s : series) {
        const size_t n = std::min(s.x.size(), s.y.size());
        size_t best = n;
        float best_d = 1e30f;
        for (size_t i = 0; i < n; ++i) {
          if (!std::isfinite(s.y[i])) continue;
          const float d = std::abs(map(s.x[i], s.y[i]).x - m.x);
          if (d < best_d) best_d = d, best = i;
        }
        if (best < n) {
          char buf[160];
          std::snprintf(buf, sizeof buf, "%s: x=%s  y=%.4g\n", s.label.empty() ? "value" : s.label.c_str(),
                        format_tick(s.x[best]).c_str(), s.y[best]);
          tip += buf;
        }
      }
      if (!tip.empty()) {
        tip.pop_back();
        ImGui::SetTooltip("%s%s%s", axes.y_label.empty() ? "" : axes.y_label.c_str(),
                          axes.y_label.empty() ? "" : "\n", tip.c_str());
      }
    }
  }
  ImGui::PopID();
  return hovered;
}

}  // namespace bs::ui
