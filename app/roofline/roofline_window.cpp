// roofline_window.cpp: see roofline_window.h.
#include "app/roofline/roofline_window.h"

#include <imgui.h>

#include "core/text.h"
#include "gpu/roofline/ceilings.h"
#include "ui/figure_view.h"
#include "ui/plot_export.h"

namespace bs {

RooflineWindow::RooflineWindow(LabEnv& env) : m_env(env) {}

void RooflineWindow::start_measuring(bool force) {
  m_started = true;
  m_collected = false;
  auto result = std::make_shared<Measured>();
  m_result = result;
  const bool gpu = m_env.device.available && m_env.path.path != RenderPath::Cpu;
  const std::string dir = roofline::default_cache_dir();
  m_job.start("measuring the ceilings", [result, gpu, dir, force](JobControl& ctl) {
    std::string msg;
    if (gpu) {
      try {
        result->gpu = roofline::get_ceilings(true, dir, &msg, force);
        result->message = "GPU: " + msg;
      } catch (const std::exception& e) {
        result->message = std::string("GPU ceilings not measured: ") + e.what();
      }
    }
    ctl.set_progress(0.5);
    result->cpu = roofline::get_ceilings(false, dir, &msg, force);
    if (!result->message.empty()) result->message.append("\n");
    result->message.append("CPU: ");
    result->message.append(msg);
  });
}

void RooflineWindow::request_ceilings() {
  if (!m_started) start_measuring(false);
}

// The ceilings a previous session cached, without measuring anything: the shell's read-out can show a %
// from the first run on, before the window is ever opened.
void RooflineWindow::read_cached() {
  m_cache_read = true;
  // The caches a small working set fits in (a run above the DRAM ceiling then says so).
  m_chart.gpu_cache_bytes = m_env.device.available ? static_cast<double>(m_env.device.l2_bytes) : 0.0;
  m_chart.cpu_cache_bytes = roofline::cpu_last_level_cache_bytes();
  const std::string dir = roofline::default_cache_dir();
  try {
    if (m_env.device.available && m_env.path.path != RenderPath::Cpu) {
      const std::string key = roofline::gpu_key();
      m_chart.gpu = roofline::read_cache(roofline::cache_path(dir, key), key).ceilings;
      m_chart.datasheet = m_chart.gpu ? roofline::datasheet_for(m_chart.gpu->device) : std::nullopt;
    }
  } catch (const std::exception&) {  // no usable GPU after all: the window measures and says why
  }
  const std::string key = roofline::cpu_key();
  m_chart.cpu = roofline::read_cache(roofline::cache_path(dir, key), key).ceilings;
}

void RooflineWindow::collect() {
  if (!m_cache_read && !m_started) read_cached();
  if (!m_collected && !m_job.running()) {
    m_collected = true;
    if (m_job.state() == CpuJob::State::Done && m_result) {
      m_chart.gpu = m_result->gpu;
      m_chart.cpu = m_result->cpu;
      m_chart.datasheet = m_chart.gpu ? roofline::datasheet_for(m_chart.gpu->device) : std::nullopt;
      m_status = m_result->message;
    } else if (m_job.state() == CpuJob::State::Failed) {
      m_status = "measuring the ceilings failed: " + m_job.error();
    }
    m_version = ~uint64_t{0};  // redraw the figure
  }
  const uint64_t v = m_env.runs ? m_env.runs->version() : 0;
  if (v != m_version) {
    m_version = v;
    m_chart.runs = m_env.runs ? m_env.runs->snapshot() : std::vector<work::RunRecord>{};
    m_figure = roofline::make_figure(m_chart);
  }
}

std::string RooflineWindow::readout_for(const std::string& lab) const {
  for (auto it = m_chart.runs.rbegin(); it != m_chart.runs.rend(); ++it)
    if (it->lab == lab) {
      const roofline::Roof roof = roofline::roof_for(m_chart, *it);
      if (!roof.valid()) return {};
      return it->label + ": " + roofline::place(roof, *it).text();
    }
  return {};
}

void RooflineWindow::draw(Layout& layout, bool* open) {
  if (*open && !m_started) start_measuring(false);
  collect();
  if (!*open) return;
  if (layout.begin("Roofline", Slot::Sweep, open)) {
    if (m_job.running()) {
      ImGui::ProgressBar(static_cast<float>(m_job.progress()), ImVec2(ImGui::GetFontSize() * 12, 0),
                         "measuring ceilings...");
      ImGui::SameLine();
      ImGui::TextDisabled("(copy, L2, shared memory, FMA, launch, tensor cores; CPU copy and FMA)");
    } else {
      if (ImGui::Button("Measure again")) start_measuring(true);
      ImGui::SameLine();
      if (ImGui::Button("Clear runs") && m_env.runs) m_env.runs->clear();
      ImGui::SameLine();
      ImGui::TextDisabled("%zu run(s); right-click the plot to export", m_chart.runs.size());
    }
    // Ceilings: measured (with the date) and the datasheet's, labelled.
    if (ImGui::BeginTable("ceilings", 7, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) {
      for (const char* h :
           {"ceilings", "DRAM GB/s", "L2 GB/s", "shared GB/s", "FP32 GFLOP/s", "launch us", "measured"})
        ImGui::TableSetupColumn(h);
      ImGui::TableHeadersRow();
      auto row = [](const std::string& name, double dram, double l2, double smem, double fp32, double launch,
                    const std::string& when) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(name.c_str());
        for (double v : {dram, l2, smem, fp32}) {
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(v > 0 ? fmt_fixed(v, v < 100 ? 1 : 0).c_str() : "-");
        }
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(launch > 0 ? fmt_fixed(launch, 2).c_str() : "-");
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(when.c_str());
      };
      if (m_chart.gpu)
        row("GPU (measured): " + m_chart.gpu->device, m_chart.gpu->dram_gbs, m_chart.gpu->l2_gbs,
            m_chart.gpu->smem_gbs, m_chart.gpu->fp32_gflops, m_chart.gpu->launch_us,
            m_chart.gpu->measured_utc);
      if (m_chart.datasheet)
        row(m_chart.datasheet->name, m_chart.datasheet->dram_gbs, 0, 0, m_chart.datasheet->fp32_gflops, 0,
            "datasheet");
      if (m_chart.cpu)
        row("CPU (measured): " + m_chart.cpu->device, m_chart.cpu->dram_gbs, 0, 0, m_chart.cpu->fp32_gflops,
            0, m_chart.cpu->measured_utc);
      ImGui::EndTable();
    }
    if (m_chart.gpu) {
      // The tensor-core ceilings: measured (what was run in the tooltip), or why they are absent.
      const roofline::Ceilings& g = *m_chart.gpu;
      ImGui::PushTextWrapPos(0.0f);
      ImGui::TextDisabled("Tensor cores (best of cuBLAS, measured): %s",
                          roofline::tensor_core_summary(g).c_str());
      ImGui::PopTextWrapPos();
      if (!g.tc_how.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", g.tc_how.c_str());
    }
    if (!m_chart.gpu && !m_job.running())
      ImGui::TextDisabled("%s", m_env.device.available ? "GPU ceilings: see the message below"
                                                       : ("no GPU: " + m_env.device.reason).c_str());
    if (!m_status.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", m_status.c_str());
    const float table_h = ImGui::GetFontSize() * 7.5f;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float plot_h = std::max(avail.y - table_h, ImGui::GetFontSize() * 12);
    ui::draw_figure("##roofline", ImVec2(0, plot_h), m_figure, false, ui::HoverPick::Near);
    ui::figure_export_menu("roofline", [this] { return m_figure; });
    // Every run with its % of the nearer ceiling (runs without FLOPs: of the bandwidth ceiling).
    if (ImGui::BeginTable("runs", 5,
                          ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp,
                          ImVec2(0, table_h - ImGui::GetFontSize()))) {
      ImGui::TableSetupScrollFreeze(0, 1);
      for (const char* h : {"run", "device", "GFLOP/s", "GB/s (model)", "of the nearer ceiling"})
        ImGui::TableSetupColumn(h);
      ImGui::TableHeadersRow();
      for (auto it = m_chart.runs.rbegin(); it != m_chart.runs.rend(); ++it) {
        const roofline::Roof roof = roofline::roof_for(m_chart, *it);
        const roofline::Placement p = roofline::place(roof, *it);
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(it->label.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(it->device.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(fmt_fixed(p.gflops, p.gflops < 100 ? 2 : 0).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(fmt_fixed(p.gbs, p.gbs < 100 ? 2 : 0).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(roof.valid() ? p.text().c_str() : roofline::roof_missing(m_chart, *it).c_str());
      }
      ImGui::EndTable();
    }
  }
  ImGui::End();
}

}  // namespace bs
