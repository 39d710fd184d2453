// multigpu_panel.cpp: see multigpu_panel.h.
#include "ui/multigpu/multigpu_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "core/param_binding.h"
#include "core/text.h"
#include "gpu/multigpu/multi_mc.h"
#include "ui/field_view.h"
#include "ui/figure_view.h"
#include "ui/multigpu/multigpu_schema.h"
#include "ui/multigpu/scaling_figure.h"
#include "ui/plot_export.h"
#include "ui/widgets.h"

namespace bs::ui::mg {

PanelModel::PanelModel() {
  params::load_bound(multigpu_schema(), *this, multigpu_schema().defaults());  // the schema's bindings
}

std::vector<SlabBand> slab_bands(const std::vector<multigpu::Slab>& slabs, int64_t ny, float image_h) {
  std::vector<SlabBand> out;
  if (ny <= 0) return out;
  const auto y = [&](int64_t row) { return static_cast<float>(static_cast<double>(row) / ny * image_h); };
  for (const auto& s : slabs) {
    SlabBand b;
    b.slab = s.index;
    b.owned_y0 = y(s.row0);
    b.owned_y1 = y(s.row1());
    b.halo_top_y0 = y(s.row0 - s.halo_top);
    b.halo_bottom_y1 = y(s.row1() + s.halo_bottom);
    out.push_back(b);
  }
  return out;
}

std::vector<int> compute_devices(const std::vector<PickerDevice>& devices, Transport t, int gpus) {
  std::vector<int> ticked;
  for (const auto& d : devices)
    if (d.ticked) ticked.push_back(d.index);
  if (ticked.empty() || gpus < 1) return {};
  if (t == Transport::Virtual) return std::vector<int>(static_cast<size_t>(gpus), ticked.front());
  if (static_cast<int>(ticked.size()) > gpus) ticked.resize(static_cast<size_t>(gpus));
  return ticked;
}

double exchange_share(double exchange_ms, double step_ms, int halo) {
  const double round = exchange_ms + step_ms * std::max(halo, 1);
  return round > 0 ? exchange_ms / round : 0.0;
}

fig::Figure strong_figure(const PanelModel& m) {
  return scaling_figure(m.strong, ScalingKind::Strong, m.scaling_what, m.scaling_subtitle);
}
fig::Figure weak_figure(const PanelModel& m) {
  return scaling_figure(m.weak, ScalingKind::Weak, m.scaling_what + " per GPU", m.scaling_subtitle);
}

namespace {

// Horizontal bars: one row per slab, compute per step and exchange per exchange on one scale.
void draw_slab_bars(const PanelModel& m) {
  double top = 0;
  for (const auto& s : m.slabs)
    top = std::max({top, s.step_ms, s.exchange_ms});
  if (top <= 0) return;
  const float w =
      std::max(ImGui::GetContentRegionAvail().x - ImGui::GetFontSize() * 12, ImGui::GetFontSize() * 6);
  const float h = ImGui::GetFontSize() * 0.7f;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 compute = IM_COL32(90, 160, 255, 255), exchange = IM_COL32(255, 170, 60, 255);
  for (const auto& s : m.slabs) {
    ImGui::Text("slab %d, GPU %d", s.slab.index, s.device);
    for (int k = 0; k < 2; ++k) {
      const double v = k == 0 ? s.step_ms : s.exchange_ms;
      const ImVec2 p = ImGui::GetCursorScreenPos();
      dl->AddRectFilled(p, ImVec2(p.x + w * static_cast<float>(v / top), p.y + h),
                        k == 0 ? compute : exchange);
      dl->AddRect(p, ImVec2(p.x + w, p.y + h), ImGui::GetColorU32(ImGuiCol_Border));
      ImGui::Dummy(ImVec2(w, h));
      ImGui::SameLine();
      ImGui::Text("%s %s ms", k == 0 ? "step" : "exchange", fmt_fixed(v, 4).c_str());
    }
  }
  const SlabStat* slow = &m.slabs.front();
  for (const auto& s : m.slabs)
    if (s.step_ms > slow->step_ms) slow = &s;
  const double share = exchange_share(slow->exchange_ms, slow->step_ms, m.halo_used);
  ImGui::Text("exchanging: %s%% of a round (%d step%s per exchange)%s", fmt_fixed(100.0 * share, 1).c_str(),
              m.halo_used, m.halo_used == 1 ? "" : "s",
              m.overlap_used ? ", overlapped with the interior" : ", not overlapped");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "exchange time / (exchange time + %d x compute time per step), slowest slab; blue: compute "
        "stream per step, orange: halo exchange per round (communication stream)",
        m.halo_used);
}

void draw_picker(PanelModel& m, Actions& a) {
  section_title("GPUs");
  if (!m.no_gpu.empty()) {
    advice_text("no GPU: " + m.no_gpu +
                ". The CPU computes the field (all threads); the slabs show how k GPUs "
                "would split it.");
    return;
  }
  if (ImGui::BeginTable("gpus", 5, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) {
    for (const char* h : {"compute", "GPU", "memory", "SMs", "peer access"})
      ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    for (auto& d : m.devices) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushID(d.index);
      if (ImGui::Checkbox("##tick", &d.ticked)) a.params_changed = true;
      ImGui::PopID();
      ImGui::TableNextColumn();
      ImGui::Text("%d: %s", d.index, d.name.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%s GiB", fmt_fixed(d.memory_gib, 0).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%d", d.sm_count);
      ImGui::TableNextColumn();
      std::string peers;
      for (int p : d.peers)
        peers += (peers.empty() ? "" : ", ") + std::to_string(p);
      ImGui::TextUnformatted(peers.empty() ? "-" : peers.c_str());
    }
    ImGui::EndTable();
  }
  if (!m.draws_on.empty()) ImGui::TextWrapped("%s", m.draws_on.c_str());
  if (!m.field_path.empty()) ImGui::TextWrapped("field to GL: %s", m.field_path.c_str());
}

void draw_scaling(PanelModel& m, Actions& a) {
  section_title("Scaling");
  ImGui::TextWrapped(
      "Strong: the same %lldx%lld field on 1..k GPUs. Weak: %lldx%lld per GPU. Monte Carlo: %lld "
      "paths on 1..k GPUs.",
      static_cast<long long>(m.scaling_nx), static_cast<long long>(m.scaling_ny),
      static_cast<long long>(m.scaling_nx), static_cast<long long>(m.scaling_ny),
      static_cast<long long>(m.paths));
  if (!m.no_gpu.empty()) {
    ImGui::TextDisabled("scaling runs need a GPU");
  } else if (m.job_running) {
    ImGui::ProgressBar(static_cast<float>(m.job_progress), ImVec2(ImGui::GetFontSize() * 12, 0),
                       m.job_label.c_str());
    same_line_if_fits(button_width("Cancel"));
    if (ImGui::Button("Cancel")) a.cancel_job = true;
    ImGui::TextDisabled("(the live run is paused meanwhile, so it does not disturb the numbers)");
  } else {
    if (ImGui::Button("Strong scaling")) a.run_strong = true;
    ImGui::SameLine();
    if (m.workload == Workload::Heat && ImGui::Button("Weak scaling")) a.run_weak = true;
  }
  if (!m.job_status.empty()) wrapped_text(m.job_status, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  const float h = ImGui::GetFontSize() * 14;
  if (!m.strong.empty()) {
    draw_figure("##strong", ImVec2(0, h), strong_figure(m), false, HoverPick::Nearest);
    figure_export_menu("multigpu-strong", [&] { return strong_figure(m); });
  }
  if (!m.weak.empty()) {
    draw_figure("##weak", ImVec2(0, h), weak_figure(m), false, HoverPick::Nearest);
    figure_export_menu("multigpu-weak", [&] { return weak_figure(m); });
  }
  if (!m.strong.empty() || !m.weak.empty())
    ImGui::TextDisabled("right-click a plot to save it (PNG, SVG, CSV, JSON)");
}

}  // namespace

void draw_multigpu_panel(PanelModel& m, Actions& a) {
  // The fields end where the widest of their labels still fits on the right (ImGui's default width, 65% of
  // the window, leaves too little room for them in presenter mode or with the wider built-in font).
  float label_w = 0;
  for (const char* l : {"transport", "shares (GPUs)", "field (cells)", "halo rows", "steps per frame",
                        "paths", "steps per path"})
    label_w = std::max(label_w, ImGui::CalcTextSize(l).x);
  ImGui::PushItemWidth(-(label_w + ImGui::GetStyle().ItemInnerSpacing.x));
  draw_picker(m, a);
  if (!m.notice.empty()) advice_text(m.notice);
  if (!m.transport_text.empty()) ImGui::TextWrapped("transport: %s", m.transport_text.c_str());

  section_title("Work");
  int w = static_cast<int>(m.workload);
  if (ImGui::RadioButton("heat field", &w, 0)) a.params_changed = true;
  same_line_if_fits(labelled_width(ImGui::GetFrameHeight(), "Monte Carlo"));
  if (ImGui::RadioButton("Monte Carlo", &w, 1)) a.params_changed = true;
  m.workload = static_cast<Workload>(w);
  int t = static_cast<int>(m.transport);
  if (ImGui::Combo("transport", &t, "auto (NCCL, else peer copies)\0virtual (k slabs on one GPU)\0")) {
    m.transport = static_cast<Transport>(t);
    a.params_changed = true;
  }
  if (m.transport == Transport::Virtual || m.devices.empty()) {
    if (ImGui::SliderInt(m.workload == Workload::Heat ? "slabs" : "shares (GPUs)", &m.gpus, 1, 8))
      a.params_changed = true;
  } else {
    int ticked = 0;
    for (const auto& d : m.devices)
      ticked += d.ticked ? 1 : 0;
    m.gpus = std::max(ticked, 1);
    ImGui::Text("%d GPU%s ticked", ticked, ticked == 1 ? "" : "s");
  }
  if (m.workload == Workload::Heat) {
    int size[2] = {static_cast<int>(m.nx), static_cast<int>(m.ny)};
    if (ImGui::InputInt2("field (cells)", size, ImGuiInputTextFlags_EnterReturnsTrue)) {
      m.nx = std::clamp<int64_t>(size[0], 64, k_mg_max_live_size);
      m.ny = std::clamp<int64_t>(size[1], 64, k_mg_max_live_size);
      a.params_changed = true;
    }
    if (ImGui::SliderInt("halo rows", &m.halo, 0, 16, m.halo == 0 ? "0: model" : "%d"))
      a.params_changed = true;
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "rows of each neighbour a slab keeps = steps between exchanges: wider halos send fewer, "
          "larger messages and compute a few rows twice; 0: the bandwidth model picks the halo and the "
          "overlap for this field and GPU count");
    ImGui::BeginDisabled(m.halo == 0);
    if (ImGui::Checkbox("overlap the exchange with the interior", &m.overlap)) a.params_changed = true;
    ImGui::EndDisabled();
    if (!m.plan_text.empty()) ImGui::TextWrapped("%s", m.plan_text.c_str());
    ImGui::SliderInt("steps per frame", &m.steps_per_frame, 1, 200);
    if (ImGui::Button(m.paused ? "Run" : "Pause")) a.toggle_pause = true;
    same_line_if_fits(button_width("Reset"));
    if (ImGui::Button("Reset")) a.reset = true;
    const std::string steps =
        std::to_string(m.steps_done) + " steps, " + fmt_fixed(m.ms_per_step, 4) + " ms/step";
    same_line_if_text_fits(steps);
    ImGui::TextWrapped("%s", steps.c_str());
    if (!m.slabs.empty() && m.no_gpu.empty()) {
      section_title("Per GPU");
      draw_slab_bars(m);
    }
  } else {
    int paths = static_cast<int>(std::min<int64_t>(m.paths, INT32_MAX));
    if (ImGui::InputInt("paths", &paths, 0, 0, ImGuiInputTextFlags_EnterReturnsTrue)) {
      m.paths = std::clamp<int64_t>(paths, 24, int64_t{16} << 20);
      a.params_changed = true;
    }
    if (ImGui::SliderInt("steps per path", &m.mc_steps, 1, 1024)) a.params_changed = true;
    if (!m.job_running && ImGui::Button(m.devices.empty() ? "Price on the CPU" : "Price across the GPUs"))
      a.price_mc = true;
    if (!m.mc_runs.empty() &&
        ImGui::BeginTable("mc", 5, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) {
      for (const char* h : {"GPUs", "price", "std. error", "ms", "per GPU ms"})
        ImGui::TableSetupColumn(h);
      ImGui::TableHeadersRow();
      for (const auto& r : m.mc_runs) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("%s", r.gpu ? std::to_string(r.gpus).c_str() : "CPU");
        ImGui::TableNextColumn();
        ImGui::Text("%.10f", r.price);
        if (!r.same.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.same.c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%.6f", r.std_error);
        ImGui::TableNextColumn();
        ImGui::Text("%s", fmt_fixed(r.ms, 3).c_str());
        ImGui::TableNextColumn();
        std::string per;
        for (double v : r.rank_ms)
          per += (per.empty() ? "" : " / ") + fmt_fixed(v, 2);
        ImGui::TextUnformatted(per.empty() ? "-" : per.c_str());
      }
      ImGui::EndTable();
      if (std::any_of(m.mc_runs.begin(), m.mc_runs.end(), [](const McRun& r) { return r.gpu; }))
        ImGui::TextDisabled("every GPU count prices the same paths: the price is bitwise identical");
    }
  }
  if (!m.error.empty()) error_text(m.error);
  draw_scaling(m, a);
  ImGui::PopItemWidth();
}

void draw_multigpu_view(PanelModel& m, Actions& a) {
  if (m.workload != Workload::Heat) {
    ImGui::TextWrapped(
        "Monte Carlo across GPUs: the samples are cut into %d fixed chunks; each GPU prices a run of "
        "chunks in one launch, its blocks mapped to the chunks (sample s always draws cuRAND "
        "subsequence s, and each chunk keeps the grid of its own launch), the chunk sums are added over the "
        "GPUs with an all-reduce and then in chunk order, so every GPU count gives the same price "
        "to the last bit. Use the panel's Price button and the scaling plot.",
        multigpu::k_mc_chunks);
    // The chunks as a strip, coloured by the GPU that prices them.
    const int ranks = std::clamp(m.gpus, 1, multigpu::k_mc_chunks);
    const float w = ImGui::GetContentRegionAvail().x, h = ImGui::GetFontSize() * 3;
    const float cw = w / static_cast<float>(multigpu::k_mc_chunks);
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (int r = 0; r < ranks; ++r) {
      const multigpu::ChunkSpan span = multigpu::chunks_of_rank(multigpu::k_mc_chunks, ranks, r);
      const uint32_t c = fig::palette(static_cast<size_t>(r));
      const ImU32 col = IM_COL32(c >> 24, (c >> 16) & 0xff, (c >> 8) & 0xff, 200);
      for (int k = span.first; k < span.end; ++k)
        dl->AddRectFilled(ImVec2(p.x + cw * static_cast<float>(k), p.y),
                          ImVec2(p.x + cw * static_cast<float>(k + 1) - 2, p.y + h), col);
      char label[32];
      std::snprintf(label, sizeof label, "GPU %d", r);
      dl->AddText(ImVec2(p.x + cw * static_cast<float>(span.first) + 4, p.y + 4),
                  IM_COL32(255, 255, 255, 255), label);
    }
    ImGui::Dummy(ImVec2(w, h));
    ImGui::TextDisabled("chunks 0 .. %d, about %lld paths each", multigpu::k_mc_chunks - 1,
                        static_cast<long long>(m.paths / multigpu::k_mc_chunks));
    return;
  }
  FieldViewInput in;
  in.texture = m.texture;
  in.nx = static_cast<int>(m.nx);
  in.ny = static_cast<int>(m.ny);
  in.colormap = m.colormap;
  in.range_min = m.range_min;
  in.range_max = m.range_max;
  in.caption = std::to_string(m.nx) + "x" + std::to_string(m.ny) + ", " + std::to_string(m.slabs.size()) +
               " slab" + (m.slabs.size() == 1 ? "" : "s") + (m.field_path.empty() ? "" : ", " + m.field_path);
  in.cell_tooltip = false;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const FieldViewResult r = draw_field_view(in);
  a.view_w = r.image_w;
  a.view_h = r.image_h;
  // Slabs over the image: owned rows outlined, halo rows tinted, each labelled with its GPU.
  std::vector<multigpu::Slab> slabs;
  for (const auto& s : m.slabs)
    slabs.push_back(s.slab);
  const auto bands = slab_bands(slabs, m.ny, static_cast<float>(r.image_h));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float w = static_cast<float>(r.image_w);
  for (size_t i = 0; i < bands.size(); ++i) {
    const SlabBand& b = bands[i];
    const ImU32 c = IM_COL32(255, 255, 255, 200);
    const float min_h = 2.0f;  // a halo of one row on a big field is thinner than a pixel: draw it visible
    if (b.owned_y0 > b.halo_top_y0)
      dl->AddRectFilled(ImVec2(origin.x, origin.y + b.halo_top_y0),
                        ImVec2(origin.x + w, origin.y + std::max(b.owned_y0, b.halo_top_y0 + min_h)),
                        IM_COL32(255, 170, 60, 110));
    if (b.halo_bottom_y1 > b.owned_y1)
      dl->AddRectFilled(ImVec2(origin.x, origin.y + std::min(b.owned_y1, b.halo_bottom_y1 - min_h)),
                        ImVec2(origin.x + w, origin.y + b.halo_bottom_y1), IM_COL32(255, 170, 60, 110));
    dl->AddRect(ImVec2(origin.x + 1, origin.y + b.owned_y0 + 1),
                ImVec2(origin.x + w - 1, origin.y + b.owned_y1 - 1), c);
    const SlabStat& s = m.slabs[i];
    // The whole caption where it fits on the image, else the short one (the rows kept), shortened to fit.
    const std::string rows = "rows " + std::to_string(s.slab.row0) + "-" + std::to_string(s.slab.row1() - 1);
    const std::string slab = "slab " + std::to_string(s.slab.index);
    // The CPU computes the whole field; a slab then shows one GPU's share.
    const std::string label = s.device >= 0 ? slab + ": GPU " + std::to_string(s.device) + ", " + rows
                                            : slab + " (one GPU's share), " + rows;
    const std::string short_label = (s.device >= 0 ? "GPU " + std::to_string(s.device) : slab) + ": " + rows;
    const float room = w - 12;
    const std::string shown =
        ImGui::CalcTextSize(label.c_str()).x <= room ? label : fit_text(short_label, room);
    dl->AddText(ImVec2(origin.x + 6, origin.y + b.owned_y0 + 4), c, shown.c_str());
  }
  if (r.hovered && r.cell_y) {
    const int64_t row = static_cast<int64_t>(*r.cell_y);
    for (const auto& s : m.slabs)
      if (row >= s.slab.row0 && row < s.slab.row1()) {
        const bool edge = row < s.slab.row0 + m.halo_used || row >= s.slab.row1() - m.halo_used;
        ImGui::SetTooltip("cell (%d, %lld): slab %d%s%s", static_cast<int>(*r.cell_x),
                          static_cast<long long>(row), s.slab.index,
                          s.device >= 0 ? (" on GPU " + std::to_string(s.device)).c_str() : "",
                          edge && m.slabs.size() > 1 ? "\nsent to a neighbour's halo each exchange" : "");
      }
  }
}

}  // namespace bs::ui::mg
