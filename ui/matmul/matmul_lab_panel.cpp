// matmul_lab_panel.cpp: see matmul_lab_panel.h.
#include "ui/matmul/matmul_lab_panel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/param_binding.h"
#include "ui/matmul/matmul_schema.h"
#include "ui/plot_export.h"
#include "ui/widgets.h"

namespace bs::ui {

MatmulPanelModel::MatmulPanelModel() {
  // The schema's defaults through its bindings ("size" first, then m, n and k).
  params::load_bound(matmul_schema(), *this, matmul_schema().defaults());
}

namespace mm = matmul;

// --- Tile geometry -----------------------------------------------------------------------------------------
namespace {
int64_t cdiv(int64_t a, int64_t b) {
  return b > 0 ? (a + b - 1) / b : 0;
}
}  // namespace

int64_t TileCover::tile_rows() const {
  return cdiv(m, bm);
}
int64_t TileCover::tile_cols() const {
  return cdiv(n, bn);
}

std::optional<std::pair<int64_t, int64_t>> TileCover::tile_of(int64_t row, int64_t col) const {
  if (row < 0 || col < 0 || row >= m || col >= n || bm <= 0 || bn <= 0) return std::nullopt;
  return std::pair{row / bm, col / bn};
}

CellRect TileCover::nominal(int64_t ty, int64_t tx) const {
  return {ty * bm, tx * bn, bm, bn};
}

CellRect TileCover::tile(int64_t ty, int64_t tx) const {
  CellRect r = nominal(ty, tx);
  r.rows = std::clamp<int64_t>(m - r.row0, 0, bm);
  r.cols = std::clamp<int64_t>(n - r.col0, 0, bn);
  return r;
}

int64_t TileCover::edge_rows() const {
  return m <= 0 ? 0 : m - (tile_rows() - 1) * bm;
}
int64_t TileCover::edge_cols() const {
  return n <= 0 ? 0 : n - (tile_cols() - 1) * bn;
}

int64_t k_steps(int64_t k, int64_t bk) {
  return bk > 0 ? cdiv(k, bk) : 0;
}

CellRect a_row_panel(const TileCover& c, int64_t ty, int64_t k) {
  const CellRect t = c.tile(ty, 0);
  return {t.row0, 0, t.rows, k};
}

CellRect b_col_panel(const TileCover& c, int64_t tx, int64_t k) {
  const CellRect t = c.tile(0, tx);
  return {0, t.col0, k, t.cols};
}

CellRect a_tile_at_step(const TileCover& c, int64_t ty, int64_t k, int64_t bk, int64_t step) {
  const CellRect t = c.tile(ty, 0);
  const int64_t k0 = step * bk;
  return {t.row0, k0, t.rows, std::clamp<int64_t>(k - k0, 0, bk)};
}

CellRect b_tile_at_step(const TileCover& c, int64_t tx, int64_t k, int64_t bk, int64_t step) {
  const CellRect t = c.tile(0, tx);
  const int64_t k0 = step * bk;
  return {k0, t.col0, std::clamp<int64_t>(k - k0, 0, bk), t.cols};
}

std::pair<int64_t, int64_t> block_index(mm::Variant v, int64_t ty, int64_t tx) {
  if (v == mm::Variant::NaiveUncoalesced) return {ty, tx};
  return {tx, ty};
}

ImU32 block_colour(int64_t linear_index, int alpha) {
  // Golden-ratio hue steps: neighbouring blocks get far-apart hues.
  const double h = std::fmod(0.13 + 0.6180339887 * static_cast<double>(linear_index), 1.0);
  float r, g, b;
  ImGui::ColorConvertHSVtoRGB(static_cast<float>(h), 0.75f, 1.0f, r, g, b);
  return IM_COL32(static_cast<int>(r * 255), static_cast<int>(g * 255), static_cast<int>(b * 255), alpha);
}

// --- Panel -------------------------------------------------------------------------------------------------
namespace {

// Message colours of the theme in force (readable on both themes).
ImVec4 k_red() { return tone_colour(Tone::Error); }
ImVec4 k_green() { return tone_colour(Tone::Pass); }
ImVec4 k_amber() { return tone_colour(Tone::Warning); }

const LadderRow* find_row(const std::vector<LadderRow>& rows, const std::string& name) {
  for (const auto& r : rows)
    if (r.name == name) return &r;
  return nullptr;
}

double cublas_gflops(const std::vector<LadderRow>& rows) {
  for (const auto& r : rows)
    if (r.cublas) return r.gflops;
  return 0;
}

std::string geometry_text(mm::Variant v, const mm::Problem& p) {
  const mm::TileGeometry g = mm::tile_geometry(v, p);
  if (!g.known) return "cuBLAS picks its own kernel and tiling";
  char buf[256];
  int n = std::snprintf(buf, sizeof buf, "block tile %dx%d", g.bm, g.bn);
  if (g.k_threads > 1) {  // auto's matrix-vector kernels
    std::snprintf(buf + n, sizeof buf - n,
                  ", each output's K split over %d threads (partial sums added by shuffles%s), %dx%d partial "
                  "outputs/thread, %d threads",
                  g.k_threads, g.stages > 0 ? "; B's k-slice staged in smem" : ", then smem", g.tm, g.tn, g.threads);
    return buf;
  }
  if (g.bk > 0)
    n += std::snprintf(buf + n, sizeof buf - n, ", BK %d (%s)", g.bk,
                       g.stages >= 3   ? "multi-stage cp.async pipeline"
                       : g.stages == 2 ? "double-buffered smem"
                                       : "one smem stage");
  else
    n += std::snprintf(buf + n, sizeof buf - n, ", no shared memory");
  n += std::snprintf(buf + n, sizeof buf - n, ", %dx%d outputs/thread, %d threads", g.tm, g.tn, g.threads);
  if (g.wm > 0) std::snprintf(buf + n, sizeof buf - n, ", warp tile %dx%d", g.wm, g.wn);
  return buf;
}

void problem_section(MatmulPanelModel& m, MatmulPanelActions& a) {
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 13);
  ImGui::InputInt3("M, N, K", m.mnk);
  same_line_if_fits(button_width("Apply"));
  if (ImGui::Button("Apply")) a.apply_size = true;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("C (M x N) = A (M x K) x B (K x N), M and N 1..8192, K 1..16384");
  struct Preset {
    const char* label;
    int m, n, k;
  };
  static constexpr Preset gpu_presets[] = {{"1000x777x333", 1000, 777, 333}, {"1024^3", 1024, 1024, 1024},
                                           {"2048^3", 2048, 2048, 2048},     {"4096^3", 4096, 4096, 4096},
                                           {"8192^3", 8192, 8192, 8192},     {"33x17x5", 33, 17, 5}};
  static constexpr Preset cpu_presets[] = {{"200x155x67", 200, 155, 67},
                                           {"256^3", 256, 256, 256},
                                           {"500x389x167", 500, 389, 167},
                                           {"1000x777x333", 1000, 777, 333},
                                           {"33x17x5", 33, 17, 5}};
  bool first = true;
  auto preset_buttons = [&](auto& list) {
    for (const Preset& p : list) {
      if (!first) same_line_if_fits(button_width(p.label));
      first = false;
      if (ImGui::SmallButton(p.label)) {
        m.mnk[0] = p.m, m.mnk[1] = p.n, m.mnk[2] = p.k;
        a.apply_size = true;
      }
    }
  };
  if (m.gpu)
    preset_buttons(gpu_presets);
  else
    preset_buttons(cpu_presets);
  error_text(m.param_error);
  ImGui::TextDisabled("in force: %s, %.3g GFLOP per product", mm::to_string(m.problem).c_str(),
                      m.problem.flops() * 1e-9);
  ImGui::TextWrapped("%s", m.compute_label.c_str());
}

void variant_section(MatmulPanelModel& m, MatmulPanelActions& a) {
  const auto vars = mm::gpu_variants();
  m.variant = std::clamp(m.variant, 0, static_cast<int>(vars.size()) - 1);
  const mm::VariantInfo& vi = vars[static_cast<size_t>(m.variant)];
  // The combo takes the row but for its label and the two arrow buttons after it (measured: the built-in
  // font, used where DejaVu is missing, is wider than DejaVu).
  const ImGuiStyle& st = ImGui::GetStyle();
  ImGui::SetNextItemWidth(-(ImGui::CalcTextSize("variant").x + st.ItemInnerSpacing.x +
                            2 * (ImGui::GetFrameHeight() + st.ItemSpacing.x)));
  if (ImGui::BeginCombo("variant", vi.title)) {
    for (size_t i = 0; i < vars.size(); ++i) {
      char label[160];
      std::snprintf(label, sizeof label, "%zu. %s", i + 1, vars[i].title);
      if (ImGui::Selectable(label, static_cast<int>(i) == m.variant)) m.variant = static_cast<int>(i);
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  if (ImGui::ArrowButton("##prev", ImGuiDir_Left)) m.variant = std::max(0, m.variant - 1);
  ImGui::SameLine();
  if (ImGui::ArrowButton("##next", ImGuiDir_Right))
    m.variant = std::min(static_cast<int>(vars.size()) - 1, m.variant + 1);
  ImGui::TextWrapped("%s", vi.description);
  ImGui::TextDisabled("%s", geometry_text(vi.id, m.problem).c_str());
  const mm::LaunchShape s = mm::launch_shape(vi.id, m.problem);
  if (s.grid.x > 0)
    ImGui::TextDisabled("launch: grid %lldx%lld = %lld blocks of %lldx%lld threads",
                        static_cast<long long>(s.grid.x), static_cast<long long>(s.grid.y),
                        static_cast<long long>(s.grid.x * s.grid.y), static_cast<long long>(s.block.x),
                        static_cast<long long>(s.block.y));
  if (vi.id == mm::Variant::Auto) {  // the runner's model for an H100-sized GPU (the rung shows the real pick)
    const mm::AutoChoice c = mm::choose_auto(m.problem, mm::k_auto_default_sms);
    ImGui::TextDisabled("auto (%d SMs): %s", mm::k_auto_default_sms, mm::to_string(c).c_str());
  }
  const mm::TileGeometry g = mm::tile_geometry(vi.id, m.problem);
  if (g.known && g.bm > 0) {
    const TileCover cover{m.problem.m, m.problem.n, g.bm, g.bn};
    if (cover.edge_rows() != g.bm || cover.edge_cols() != g.bn)
      ImGui::TextDisabled(
          "edge tiles (hatched): last tile row has %lld of %d rows, last tile column %lld of %d cols",
          static_cast<long long>(cover.edge_rows()), g.bm, static_cast<long long>(cover.edge_cols()), g.bn);
  }

  ImGui::BeginDisabled(!m.gpu);
  if (ImGui::Button("Run")) a.run = true;
  same_line_if_fits(button_width("Run all (the ladder)"));
  if (ImGui::Button("Run all (the ladder)")) a.run_all = true;
  ImGui::EndDisabled();
  same_line_if_fits(button_width("Stop"));
  ImGui::BeginDisabled(!m.gpu_busy && m.queue_left == 0);
  if (ImGui::Button("Stop")) a.stop = true;
  ImGui::EndDisabled();
  same_line_if_fits(button_width("Clear"));
  if (ImGui::Button("Clear")) a.clear = true;
  if (!m.gpu)
    ImGui::TextColored(k_amber(), "GPU variants need a GPU; the overlay still shows each variant's tiling.");
  if (!m.gpu_status.empty()) ImGui::TextColored(k_amber(), "%s", m.gpu_status.c_str());

  // Read-outs of the selected variant, when measured.
  const LadderRow* r = find_row(m.rows, vi.name);
  if (!r) {
    ImGui::TextDisabled("not measured yet at this size");
    return;
  }
  const double cb = cublas_gflops(m.rows);
  ImGui::Text("median %.4f ms  (p10 %.4f, p90 %.4f, n=%zu)", r->ms.median, r->ms.p10, r->ms.p90, r->ms.count);
  ImGui::Text("%.4g GFLOP/s", r->gflops);
  if (cb > 0 && !r->cublas) {
    ImGui::SameLine();
    ImGui::Text("= %.1f%% of cuBLAS", 100.0 * r->gflops / cb);
  }
  if (m.peak_gflops > 0) {
    ImGui::SameLine();
    ImGui::Text("= %.1f%% of FP32 peak (%.0f GFLOP/s)", 100.0 * r->gflops / m.peak_gflops, m.peak_gflops);
  }
  if (r->attr.known) {
    ImGui::Text("%d registers/thread, %zu B shared memory/block, %d blocks (%d warps) per SM",
                r->attr.regs_per_thread, r->attr.static_smem_bytes, r->attr.blocks_per_sm,
                r->attr.warps_per_sm);
    if (r->attr.local_bytes > 0)
      ImGui::TextColored(k_amber(), "%zu B local memory per thread: registers spilled", r->attr.local_bytes);
  } else if (r->cublas) {
    ImGui::TextDisabled("registers / shared memory: chosen inside cuBLAS (%s)", r->note.c_str());
  }
  if (r->check) {
    ImGui::TextColored(r->check->pass ? k_green() : k_red(), "||C - ref|| / ||ref||: %s",
                       r->check->summary().c_str());
    ImGui::TextDisabled("reference: %s; C poisoned with NaN before the run", r->check->reference.c_str());
  }
}

// The user's kernel (Kernel editor, F9): one more rung of the ladder.
void user_section(MatmulPanelModel& m, MatmulPanelActions& a) {
  ImGui::BeginDisabled(!m.user_ready || m.user_running || m.gpu_busy);
  if (ImGui::Button("Run your kernel")) a.run_user = true;
  ImGui::EndDisabled();
  same_line_if_fits(labelled_width(ImGui::GetFontSize() * 7, "its block (x, y)"));
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
  input_ints_on_commit("its block (x, y)", m.user_block, 2);
  m.user_block[0] = std::clamp(m.user_block[0], 1, 1024);
  m.user_block[1] = std::clamp(m.user_block[1], 1, 1024);
  if (m.user_running) {
    ImGui::SameLine();
    ImGui::TextDisabled("running...");
  }
  if (!m.user_status.empty()) advice_text(m.user_status);
  if (m.user_ready && !m.user_figures.empty())
    wrapped_text(m.user_figures, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  if (m.user_can_simulate) {
    ImGui::BeginDisabled(m.user_sim.running);
    if (ImGui::Button("Simulate your kernel")) a.simulate_user = true;
    ImGui::EndDisabled();
  }
  draw_simulated_run(m.user_sim, a.user_sim);
}

void ladder_section(MatmulPanelModel& m) {
  if (m.rows.empty()) {
    ImGui::TextDisabled("run variants (or Run all) to fill the ladder");
    return;
  }
  const double cb = cublas_gflops(m.rows);
  const ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (ImGui::BeginTable("ladder", 6, flags)) {
    ImGui::PushTextWrapPos(0.0f);  // cells wrap in their column (stretch columns share the width: no feedback)
    ImGui::TableSetupColumn("variant", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 7.5f);
    ImGui::TableSetupColumn("ms");
    ImGui::TableSetupColumn("GFLOP/s");
    ImGui::TableSetupColumn("%cuBLAS");
    ImGui::TableSetupColumn("%peak");
    ImGui::TableSetupColumn("check");
    ImGui::TableHeadersRow();
    for (const LadderRow& r : m.rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.name.c_str());
      if (ImGui::IsItemHovered()) {
        if (r.attr.known)
          ImGui::SetTooltip("%s\n%d registers/thread, %zu B shared memory/block", r.title.c_str(),
                            r.attr.regs_per_thread, r.attr.static_smem_bytes);
        else
          ImGui::SetTooltip("%s", r.title.c_str());
      }
      ImGui::TableNextColumn();
      // Median with the p10-p90 spread as +-half its width in %, the full numbers on hover.
      const double spread = r.ms.median > 0 ? 50.0 * (r.ms.p90 - r.ms.p10) / r.ms.median : 0.0;
      ImGui::Text("%.4g +-%.0f%%", r.ms.median, spread);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("median %.4f ms, p10 %.4f, p90 %.4f, %zu timed runs%s%s", r.ms.median, r.ms.p10,
                          r.ms.p90, r.ms.count, r.note.empty() ? "" : "\n", r.note.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%.4g", r.gflops);
      ImGui::TableNextColumn();
      if (cb > 0)
        ImGui::Text("%.1f", 100.0 * r.gflops / cb);
      else
        ImGui::TextDisabled("-");
      ImGui::TableNextColumn();
      if (r.gpu && m.peak_gflops > 0)
        ImGui::Text("%.1f", 100.0 * r.gflops / m.peak_gflops);
      else
        ImGui::TextDisabled("-");
      ImGui::TableNextColumn();
      if (r.check) {
        ImGui::TextColored(r.check->pass ? k_green() : k_red(), "%s %.0e", r.check->pass ? "ok" : "FAIL",
                           r.check->rel_error);
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip("%s\nreference: %s", r.check->summary().c_str(), r.check->reference.c_str());
      } else {
        ImGui::TextDisabled("-");
      }
    }
    ImGui::PopTextWrapPos();
    ImGui::EndTable();
  }
  draw_ladder_chart(m.rows, 0);
}

void cpu_section(MatmulPanelModel& m, MatmulPanelActions& a) {
  const auto cpus = mm::cpu_variants();
  // The fastest GPU row measured: what the speed-ups compare against.
  const LadderRow* best_gpu = nullptr;
  for (const auto& r : m.rows)
    if (r.gpu && (!best_gpu || r.gflops > best_gpu->gflops)) best_gpu = &r;
  for (size_t i = 0; i < cpus.size() && i < 3; ++i) {
    CpuRunView& c = m.cpu[i];
    ImGui::PushID(static_cast<int>(i));
    if (c.running) {
      if (ImGui::SmallButton("cancel")) a.cancel_cpu[i] = true;
      ImGui::SameLine();
      char overlay[160];
      std::snprintf(overlay, sizeof overlay, "%s %.0f%%", c.label.c_str(), c.progress * 100.0);
      ImGui::ProgressBar(static_cast<float>(c.progress), ImVec2(-1, 0), overlay);
      if (!c.status.empty()) ImGui::TextDisabled("%s", c.status.c_str());
    } else {
      if (ImGui::SmallButton("run")) a.run_cpu[i] = true;
      ImGui::SameLine();
      ImGui::TextUnformatted(c.label.c_str());
      if (const LadderRow* r = find_row(m.rows, cpus[i].name)) {
        ImGui::Indent();
        ImGui::Text("%.2f ms, %.1f GFLOP/s", r->ms.median, r->gflops);
        if (r->check) {
          ImGui::SameLine();
          ImGui::TextColored(r->check->pass ? k_green() : k_red(), "%s",
                             r->check->pass ? "check pass" : "check FAIL");
        }
        // Speed-ups against the other CPU rows and the best GPU row.
        std::string ups;
        for (size_t j = 0; j < cpus.size(); ++j) {
          const LadderRow* o = find_row(m.rows, cpus[j].name);
          if (j == i || !o || o->gflops <= 0) continue;
          char buf[96];
          std::snprintf(buf, sizeof buf, "%sx%.1f vs %s", ups.empty() ? "" : ", ", r->gflops / o->gflops,
                        cpus[j].name);
          ups += buf;
        }
        if (!ups.empty()) ImGui::TextDisabled("%s", ups.c_str());
        if (best_gpu && r->gflops > 0)
          ImGui::TextColored(k_green(), "GPU %s is x%.1f faster", best_gpu->name.c_str(),
                             best_gpu->gflops / r->gflops);
        ImGui::Unindent();
      }
      if (!c.status.empty()) ImGui::TextDisabled("(%s)", c.status.c_str());
    }
    if (!c.warning.empty()) ImGui::TextColored(k_amber(), "%s", c.warning.c_str());
    ImGui::PopID();
  }
}

void view_section(MatmulPanelModel& m) {
  colormap_combo(&m.colormap);
  same_line_if_fits(labelled_width(ImGui::GetFrameHeight(), "block grid overlay"));
  ImGui::Checkbox("block grid overlay", &m.overlay);
  ImGui::TextDisabled("%s", m.c_source.c_str());
}

}  // namespace

void draw_matmul_panel(MatmulPanelModel& m, MatmulPanelActions& a) {
  if (ImGui::CollapsingHeader("Problem", ImGuiTreeNodeFlags_DefaultOpen)) problem_section(m, a);
  if (ImGui::CollapsingHeader("Variant", ImGuiTreeNodeFlags_DefaultOpen)) variant_section(m, a);
  if (ImGui::CollapsingHeader("Your kernel (Kernel editor, F9)", ImGuiTreeNodeFlags_DefaultOpen))
    user_section(m, a);
  if (ImGui::CollapsingHeader("Ladder (this session, this size)", ImGuiTreeNodeFlags_DefaultOpen))
    ladder_section(m);
  if (ImGui::CollapsingHeader("CPU baselines (same A, B)", ImGuiTreeNodeFlags_DefaultOpen)) cpu_section(m, a);
  if (ImGui::CollapsingHeader("View", ImGuiTreeNodeFlags_DefaultOpen)) view_section(m);
  m.tc.lab_m = m.problem.m, m.tc.lab_n = m.problem.n, m.tc.lab_k = m.problem.k;  // the TMA box picture's shape
  if (ImGui::CollapsingHeader("Tensor cores and precision")) draw_tc_section(m.tc, a.tc);
  error_text(m.runtime_error);
}

void draw_ladder_chart(const std::vector<LadderRow>& rows, float width) {
  if (rows.empty()) return;
  double top = 0;
  for (const auto& r : rows)
    top = std::max(top, r.gflops);
  if (top <= 0) return;
  const double cb = cublas_gflops(rows);
  const float fs = ImGui::GetFontSize();
  const float w = width > 0 ? width : ImGui::GetContentRegionAvail().x;
  const float label_w = fs * 8.5f, bar_h = fs * 1.05f, gap = fs * 0.25f;
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float bar_w = std::max(w - label_w - fs * 7.0f, fs * 4);
  for (size_t i = 0; i < rows.size(); ++i) {
    const LadderRow& r = rows[i];
    const float y = p.y + static_cast<float>(i) * (bar_h + gap);
    dl->AddText(ImVec2(p.x, y), ImGui::GetColorU32(ImGuiCol_Text), r.name.c_str());
    const float len = static_cast<float>(r.gflops / top) * bar_w;
    const ImU32 col = r.cublas ? IM_COL32(120, 200, 255, 230)
                      : r.gpu  ? IM_COL32(255, 170, 60, 230)
                               : IM_COL32(170, 170, 190, 230);
    dl->AddRectFilled(ImVec2(p.x + label_w, y), ImVec2(p.x + label_w + std::max(len, 1.0f), y + bar_h - 1),
                      col, 2.0f);
    char buf[64];
    if (cb > 0)
      std::snprintf(buf, sizeof buf, "%.4g  (%.0f%%)", r.gflops, 100.0 * r.gflops / cb);
    else
      std::snprintf(buf, sizeof buf, "%.4g", r.gflops);
    dl->AddText(ImVec2(p.x + label_w + std::max(len, 1.0f) + fs * 0.3f, y), ImGui::GetColorU32(ImGuiCol_Text),
                buf);
  }
  ImGui::Dummy(ImVec2(w, static_cast<float>(rows.size()) * (bar_h + gap)));
  figure_export_menu("matmul-ladder", [&] {
    fig::Figure f;
    f.kind = fig::Kind::Bars;
    f.title = "matmul ladder: GFLOP/s";
    f.subtitle = "median per variant, whisker p10-p90; orange GPU kernels, blue cuBLAS, grey CPU";
    f.y_label = "GFLOP/s";
    for (const LadderRow& r : rows) {
      // GFLOP/s is work / time: the slow run (p90) gives the low end of the whisker.
      const double scale = r.ms.median > 0 ? r.gflops * r.ms.median : 0;
      f.bars.push_back({r.name, r.gflops, r.ms.p90 > 0 ? scale / r.ms.p90 : r.gflops,
                        r.ms.p10 > 0 ? scale / r.ms.p10 : r.gflops,
                        r.cublas ? 0x5aa0ffffu
                        : r.gpu  ? 0xf0a040ffu
                                 : 0x9a9aaaffu});
    }
    return f;
  });
  ImGui::TextDisabled(
      "GFLOP/s (%% of cuBLAS); orange GPU kernels, blue cuBLAS, grey CPU (right-click: save)");
}

// --- Overlay -----------------------------------------------------------------------------------------------
namespace {

// Screen rectangle of cells `r` in a matrix of rows x cols drawn in [lo, hi].
std::pair<ImVec2, ImVec2> screen_rect(const CellRect& r, int64_t rows, int64_t cols, ImVec2 lo, ImVec2 hi) {
  const float sx = (hi.x - lo.x) / static_cast<float>(cols), sy = (hi.y - lo.y) / static_cast<float>(rows);
  return {ImVec2(lo.x + sx * static_cast<float>(r.col0), lo.y + sy * static_cast<float>(r.row0)),
          ImVec2(lo.x + sx * static_cast<float>(r.col0 + r.cols),
                 lo.y + sy * static_cast<float>(r.row0 + r.rows))};
}

void hatch(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 col, float spacing) {
  dl->PushClipRect(a, b, true);
  const float h = b.y - a.y;
  for (float x = a.x - h; x < b.x; x += spacing)
    dl->AddLine(ImVec2(x, b.y), ImVec2(x + h, a.y), col, 1.0f);
  dl->PopClipRect();
}

}  // namespace

void draw_block_overlay(const OverlayInput& in, OverlayState& st) {
  const mm::TileGeometry g = mm::tile_geometry(in.variant, in.p);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  st.shown.reset();
  if (!g.known || g.bm <= 0 || g.bn <= 0) return;
  const TileCover cover{in.p.m, in.p.n, g.bm, g.bn};
  const ImVec2 lo = in.image_min, hi = in.image_max;
  const float px_w = (hi.x - lo.x) / static_cast<float>(in.p.n) * static_cast<float>(g.bn);
  const float px_h = (hi.y - lo.y) / static_cast<float>(in.p.m) * static_cast<float>(g.bm);
  dl->PushClipRect(lo, hi, true);
  // Every block as a translucent rectangle, when blocks are big enough on screen to tell apart.
  if (!in.draw_grid) {
  } else if (px_w >= 5.0f && px_h >= 5.0f) {
    for (int64_t ty = 0; ty < cover.tile_rows(); ++ty)
      for (int64_t tx = 0; tx < cover.tile_cols(); ++tx) {
        const auto [bx, by] = block_index(in.variant, ty, tx);
        const int64_t gx =
            in.variant == mm::Variant::NaiveUncoalesced ? cover.tile_rows() : cover.tile_cols();
        const auto [a, b] = screen_rect(cover.tile(ty, tx), in.p.m, in.p.n, lo, hi);
        dl->AddRectFilled(a, b, block_colour(by * gx + bx, 55));
        dl->AddRect(a, b, IM_COL32(0, 0, 0, 110));
        if (cover.partial(ty, tx)) hatch(dl, a, b, IM_COL32(255, 255, 255, 90), 6.0f);
      }
  } else {
    // Too many blocks to draw one by one: the outline of C only (the hover still works).
    dl->AddRect(lo, hi, IM_COL32(255, 255, 255, 120));
  }
  dl->PopClipRect();

  std::optional<std::pair<int64_t, int64_t>> hovered;
  if (in.cell_x && in.cell_y)
    hovered = cover.tile_of(static_cast<int64_t>(std::floor(*in.cell_y)),
                            static_cast<int64_t>(std::floor(*in.cell_x)));
  if (hovered && in.clicked) st.pinned = hovered;
  if (st.pinned && (st.pinned->first >= cover.tile_rows() || st.pinned->second >= cover.tile_cols()))
    st.pinned.reset();
  st.shown = hovered ? hovered : st.pinned;
  if (!st.shown) return;
  const auto [ty, tx] = *st.shown;
  const CellRect t = cover.tile(ty, tx);
  const auto [a, b] = screen_rect(t, in.p.m, in.p.n, lo, hi);
  dl->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(b.x + 1, b.y + 1), IM_COL32(255, 255, 255, 255), 0.0f, 0,
              3.0f);
  if (hovered) {
    const auto [bx, by] = block_index(in.variant, ty, tx);
    ImGui::SetTooltip(
        "blockIdx (%lld, %lld): C rows %lld..%lld, cols %lld..%lld\n%lld x %lld outputs%s\nclick to pin",
        static_cast<long long>(bx), static_cast<long long>(by), static_cast<long long>(t.row0),
        static_cast<long long>(t.row0 + t.rows - 1), static_cast<long long>(t.col0),
        static_cast<long long>(t.col0 + t.cols - 1), static_cast<long long>(t.rows),
        static_cast<long long>(t.cols), cover.partial(ty, tx) ? " (edge tile: some threads idle)" : "");
  }
}

AbBoxes ab_diagram_boxes(const mm::Problem& p, ImVec2 origin, ImVec2 size, float fs) {
  // Layout in matrix cells: A (M x K) left of C (M x N), B (K x N) above C, with a gap.
  AbBoxes b;
  const double kk = static_cast<double>(p.k), mm_ = static_cast<double>(p.m), nn = static_cast<double>(p.n);
  const double gap = 0.06 * std::max({kk, mm_, nn});
  const double total_w = kk + gap + nn;
  b.total_h = kk + gap + mm_;
  const float label = fs * 1.2f;
  const float s = static_cast<float>(std::min((size.x - fs) / total_w, (size.y - 2 * label) / b.total_h));
  b.scale = s;
  const float ox = origin.x + fs * 0.5f, oy = origin.y + label;
  b.lo[0] = ImVec2(ox, oy + static_cast<float>((kk + gap) * s));  // A
  b.hi[0] = ImVec2(b.lo[0].x + static_cast<float>(kk * s), b.lo[0].y + static_cast<float>(mm_ * s));
  b.lo[2] = ImVec2(ox + static_cast<float>((kk + gap) * s), b.lo[0].y);  // C
  b.hi[2] = ImVec2(b.lo[2].x + static_cast<float>(nn * s), b.hi[0].y);
  b.lo[1] = ImVec2(b.lo[2].x, oy);  // B
  b.hi[1] = ImVec2(b.hi[2].x, oy + static_cast<float>(kk * s));
  // B's label above B; A's and C's below their boxes (above them they would sit in the thin gap under B and
  // run into B's box). A's label shares its row with C's: it gets the width up to C and drops its dimensions
  // when they do not fit (a thin A at 720p or in presenter mode); should even its letter be wider than A's
  // column, C's label starts after it.
  const float right = origin.x + size.x, space = fs * 0.3f;
  const auto pick = [](const char* name, const char* letter, float room) {
    return ImGui::CalcTextSize(name).x <= room ? name : letter;
  };
  b.label[0] = pick("A (M x K)", "A", b.lo[2].x - b.lo[0].x - space);
  b.label_at[0] = ImVec2(b.lo[0].x, b.hi[0].y + fs * 0.1f);
  b.label[1] = pick("B (K x N)", "B", right - b.lo[1].x);
  b.label_at[1] = ImVec2(b.lo[1].x, b.lo[1].y - fs * 1.1f);
  const float c_x = std::max(b.lo[2].x, b.lo[0].x + ImGui::CalcTextSize(b.label[0]).x + space);
  b.label[2] = pick("C (M x N)", "C", right - c_x);
  b.label_at[2] = ImVec2(c_x, b.hi[2].y + fs * 0.1f);
  return b;
}

void draw_ab_diagram(const mm::Problem& p, mm::Variant v, const OverlayState& st, int& k_step, bool& animate,
                     ImVec2 size) {
  const mm::TileGeometry g = mm::tile_geometry(v, p);
  const float fs = ImGui::GetFontSize();
  const float start_y = ImGui::GetCursorScreenPos().y;
  const int64_t steps = g.known ? k_steps(p.k, g.bk) : 0;
  // Controls first: the k-step slider for shared-memory variants.
  if (steps > 0) {
    k_step = std::clamp(k_step, 0, static_cast<int>(steps) - 1);
    if (animate && ImGui::GetFrameCount() % 20 == 0) k_step = (k_step + 1) % static_cast<int>(steps);
    const float play_w = labelled_width(ImGui::GetFrameHeight(), "play");
    ImGui::SetNextItemWidth(std::max(size.x - play_w - ImGui::GetStyle().ItemSpacing.x, fs * 4));
    ImGui::SliderInt("##kstep", &k_step, 0, static_cast<int>(steps) - 1, "k step %d");
    same_line_if_fits(play_w);
    ImGui::Checkbox("play", &animate);
    ImGui::Text("step %d of ceil(K/BK) = ceil(%lld/%d) = %lld", k_step + 1, static_cast<long long>(p.k), g.bk,
                static_cast<long long>(steps));
  } else {
    ImGui::TextDisabled(g.known ? "no shared-memory k-loop: each thread reads A and B directly"
                                : "cuBLAS: tiling unknown");
  }
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  // Room left below the controls, keeping three lines for the legend.
  const float avail_h =
      std::max(size.y - (origin.y - start_y) - ImGui::GetTextLineHeightWithSpacing() * 3.5f, fs * 8);
  const float label = fs * 1.2f;
  const AbBoxes boxes = ab_diagram_boxes(p, origin, ImVec2(size.x, avail_h), fs);
  const ImVec2 a_lo = boxes.lo[0], a_hi = boxes.hi[0], b_lo = boxes.lo[1], b_hi = boxes.hi[1],
               c_lo = boxes.lo[2], c_hi = boxes.hi[2];
  const double total_h = boxes.total_h;
  const float s = boxes.scale;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 fill = IM_COL32(60, 64, 80, 255), edge = IM_COL32(150, 150, 170, 255),
              text = ImGui::GetColorU32(ImGuiCol_Text);
  for (int i = 0; i < 3; ++i) {
    dl->AddRectFilled(boxes.lo[i], boxes.hi[i], fill);
    dl->AddRect(boxes.lo[i], boxes.hi[i], edge);
    dl->AddText(boxes.label_at[i], text, boxes.label[i]);
  }
  if (st.shown && g.known && g.bm > 0) {
    const TileCover cover{p.m, p.n, g.bm, g.bn};
    const auto [ty, tx] = *st.shown;
    const auto draw = [&](const CellRect& r, int64_t rows, int64_t cols, ImVec2 lo, ImVec2 hi, ImU32 c,
                          bool outline) {
      const auto [a, b] = screen_rect(r, rows, cols, lo, hi);
      const ImVec2 b2(std::max(b.x, a.x + 2), std::max(b.y, a.y + 2));  // stay visible when thin
      if (outline)
        dl->AddRect(a, b2, c, 0.0f, 0, 2.0f);
      else
        dl->AddRectFilled(a, b2, c);
    };
    draw(a_row_panel(cover, ty, p.k), p.m, p.k, a_lo, a_hi, IM_COL32(255, 170, 60, 90), false);
    draw(b_col_panel(cover, tx, p.k), p.k, p.n, b_lo, b_hi, IM_COL32(255, 170, 60, 90), false);
    draw(cover.tile(ty, tx), p.m, p.n, c_lo, c_hi, IM_COL32(255, 255, 255, 230), false);
    if (steps > 0) {
      const ImU32 hot = IM_COL32(80, 230, 255, 255);
      draw(a_tile_at_step(cover, ty, p.k, g.bk, k_step), p.m, p.k, a_lo, a_hi, hot, false);
      draw(b_tile_at_step(cover, tx, p.k, g.bk, k_step), p.k, p.n, b_lo, b_hi, hot, false);
    }
  }
  ImGui::Dummy(ImVec2(size.x - fs, static_cast<float>(total_h * s) + 2 * label));
  if (st.shown) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(light_theme() ? ImVec4(0.62f, 0.33f, 0.0f, 1.0f) : ImVec4(1.0f, 0.67f, 0.24f, 1.0f),
                       "orange: the A row-panel and B column-panel that feed the white C tile");
    if (steps > 0)
      ImGui::TextColored(light_theme() ? ImVec4(0.0f, 0.42f, 0.58f, 1.0f) : ImVec4(0.31f, 0.9f, 1.0f, 1.0f),
                         "cyan: the A and B tiles in shared memory at this k step");
    ImGui::PopTextWrapPos();
  } else {
    ImGui::TextDisabled("hover a tile of C (click pins it)");
  }
}

}  // namespace bs::ui
