// reduce_views.cpp: see reduce_lab_panel.h. The pictures beside the controls: the reduction tree of one
// block with its shared-memory banks, the scan steps, and the ladder chart of GB/s.
#include "ui/reduce/reduce_lab_panel.h"

#include <imgui.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "core/readout.h"
#include "ui/plot_export.h"
#include "ui/widgets.h"

namespace bs::ui {

namespace red = reduce;
namespace rm = reduce_model;

// --- Pure helpers ------------------------------------------------------------------------------------------

std::optional<rm::Tree> tree_of(red::ReduceVariant v) {
  using V = red::ReduceVariant;
  switch (v) {
    case V::InterleavedDivergent:
      return rm::Tree::InterleavedDivergent;
    case V::InterleavedBankConflicts:
      return rm::Tree::InterleavedStrided;
    case V::Sequential:
    case V::FirstAddDuringLoad:
      return rm::Tree::Sequential;
    case V::UnrollLastWarp:
    case V::CompleteUnroll:
    case V::GridStride:
      return rm::Tree::SequentialLastWarp;
    case V::WarpShuffle:
    case V::AtomicPerBlock:
      return rm::Tree::Shuffle;
    case V::Cub:
      return std::nullopt;
  }
  return std::nullopt;
}

rm::LoadPhase load_of(red::ReduceVariant v) {
  using V = red::ReduceVariant;
  rm::LoadPhase l;
  if (v == V::FirstAddDuringLoad || v == V::UnrollLastWarp || v == V::CompleteUnroll)
    l.elements_per_thread = 2;
  if (v == V::GridStride || v == V::WarpShuffle || v == V::AtomicPerBlock) {
    l.grid_stride = true;
    l.elements_per_thread = 0;  // as many as the grid leaves each thread
  }
  l.atomic_result = v == V::AtomicPerBlock;
  return l;
}

rm::ScanAlgo scan_algo_of(red::ScanVariant v) {
  return v == red::ScanVariant::BlellochBlock ? rm::ScanAlgo::Blelloch : rm::ScanAlgo::HillisSteele;
}

const char* scan_view_note(red::ScanVariant v) {
  switch (v) {
    case red::ScanVariant::HillisSteeleBlock:
    case red::ScanVariant::BlellochBlock:
      return "";
    case red::ScanVariant::ScanThenPropagate:
      return "scan-then-propagate scans tiles of block x 32 elements: each thread scans its 32 in registers, "
             "the "
             "threads' totals go through __shfl_up_sync inside each warp (the Hillis-Steele steps drawn "
             "here, on "
             "32 lanes), then the warps' totals the same way; a second kernel scans the tile sums, a third "
             "adds "
             "each tile's offset";
    case red::ScanVariant::DecoupledLookback:
      return "decoupled-lookback scans each tile as scan-then-propagate does (per-thread scans, then the "
             "Hillis-Steele shuffle steps drawn here on 32 lanes), publishes the tile's sum at once and "
             "looks back "
             "at its predecessors' published sums for its prefix: one pass, 2 arrays moved";
    case red::ScanVariant::Cub:
      return "cub::DeviceScan picks its own tiles (a single-pass look-back scan; its inside is not drawn): "
             "the "
             "steps below are the Hillis-Steele warp scan the hand-written tile scans use";
  }
  return "";
}

std::vector<double> scan_demo_values(int n) {
  static constexpr double k_textbook[8] = {3, 1, 7, 0, 4, 1, 6, 3};
  std::vector<double> v(static_cast<size_t>(std::max(n, 0)));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = i < 8 ? k_textbook[i] : static_cast<double>((i * 7 + 3) % 10);
  return v;
}

// --- Views -------------------------------------------------------------------------------------------------

namespace {

// The GB/s the rows' "% of copy" refers to (the copy kernel of the same run), from any GPU row that has it.
double copy_reference_gbs(const std::vector<red::Row>& rows) {
  for (const red::Row& r : rows)
    if (r.gpu && r.copy_pct > 0 && r.gbs > 0) return r.gbs * 100.0 / r.copy_pct;
  return 0;
}

struct TreeColours {
  ImU32 useful, executes, idle_lane, idle_warp, divergent_edge, sync, text_dim;
};
TreeColours tree_colours() {
  const bool light = light_theme();
  return {IM_COL32(240, 150, 40, 255),
          light ? IM_COL32(240, 205, 150, 255) : IM_COL32(140, 95, 45, 255),
          light ? IM_COL32(235, 120, 120, 255) : IM_COL32(170, 50, 55, 255),
          light ? IM_COL32(215, 215, 222, 255) : IM_COL32(58, 58, 68, 255),
          light ? IM_COL32(200, 30, 30, 255) : IM_COL32(255, 90, 90, 255),
          light ? IM_COL32(40, 110, 200, 255) : IM_COL32(100, 170, 255, 255),
          ImGui::GetColorU32(ImGuiCol_TextDisabled)};
}

void legend_swatch(ImU32 col, const char* text, bool outline = false, ImU32 edge = 0) {
  const float h = ImGui::GetTextLineHeight();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(ImVec2(p.x, p.y + h * 0.15f), ImVec2(p.x + h * 0.9f, p.y + h * 0.85f), col);
  if (outline)
    dl->AddRect(ImVec2(p.x, p.y + h * 0.15f), ImVec2(p.x + h * 0.9f, p.y + h * 0.85f), edge, 0, 0, 2);
  ImGui::Dummy(ImVec2(h, h));
  ImGui::SameLine(0, h * 0.3f);
  ImGui::TextUnformatted(text);
}

std::string step_stats(const rm::ReduceStep& s) {
  std::string t = std::to_string(s.active_threads) + (s.active_threads == 1 ? " lane" : " lanes");
  if (s.useful_threads != s.active_threads) t += " (" + std::to_string(s.useful_threads) + " count)";
  if (s.idle_warps) t += ", " + std::to_string(s.idle_warps) + " idle";
  if (s.divergent_warps) t += ", " + std::to_string(s.divergent_warps) + " diverge";
  if (s.conflict_ways > 1) t += ", " + std::to_string(s.conflict_ways) + "-way";
  return t;
}

// The banks of the step's worst warp access: one column per bank, one box per distinct word the warp's lanes
// touch in it (stacked: an N-way conflict is a column N boxes tall, N shared-memory passes).
void draw_bank_picture(const rm::ReduceStep& s) {
  const rm::WarpStep* worst = nullptr;
  for (const rm::WarpStep& w : s.warps)
    if (w.active && (!worst || w.conflict_ways > worst->conflict_ways)) worst = &w;
  if (!worst) return;
  std::vector<int64_t> dst(worst->dst.begin(), worst->dst.end()), src(worst->src.begin(), worst->src.end());
  const bool use_src =
      rm::bank_conflict_ways(src, worst->active) >= rm::bank_conflict_ways(dst, worst->active);
  const auto cols = rm::bank_columns(use_src ? src : dst, worst->active);
  size_t tall = 1;
  for (const auto& c : cols)
    tall = std::max(tall, c.size());
  const int warp = static_cast<int>(worst - s.warps.data());
  ImGui::Separator();
  ImGui::Text("warp %d's %s: %zu-way (%s)", warp, use_src ? "reads of the partner word" : "writes", tall,
              tall > 1 ? "stacked boxes: words of one bank, served one after another" : "one word per bank");
  const float fs = ImGui::GetFontSize();
  const float cw = fs * 1.25f, ch = std::min(fs * 1.1f, fs * 12.0f / static_cast<float>(tall));
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const TreeColours c = tree_colours();
  const float base = p.y + ch * static_cast<float>(tall);
  for (int b = 0; b < rm::k_banks; ++b) {
    const float x0 = p.x + static_cast<float>(b) * cw;
    const auto& col = cols[static_cast<size_t>(b)];
    for (size_t k = 0; k < col.size(); ++k) {
      const float y1 = base - static_cast<float>(k) * ch, y0 = y1 - ch + 1;
      dl->AddRectFilled(ImVec2(x0, y0), ImVec2(x0 + cw - 1, y1), k == 0 ? c.useful : c.idle_lane);
      const std::string w = std::to_string(col[k]);
      const ImVec2 sz = ImGui::CalcTextSize(w.c_str());
      if (sz.x < cw - 1 && sz.y <= ch + 1)
        dl->AddText(ImVec2(x0 + 0.5f * (cw - 1 - sz.x), y0 + 0.5f * (ch - 1 - sz.y)),
                    IM_COL32(20, 20, 25, 255), w.c_str());
    }
    if (b % 4 == 0) dl->AddText(ImVec2(x0, base + 2), c.text_dim, std::to_string(b).c_str());
  }
  ImGui::Dummy(ImVec2(cw * rm::k_banks, ch * static_cast<float>(tall) + fs * 1.2f));
  ImGui::TextDisabled("banks 0..31 across; box = a 4-byte word (its index in shared memory)");
}

// The tree's title line, its note and the legend (which wraps at the window's edge: 720p, presenter scale).
void tree_header(const rm::ReduceTree& t, const std::string& vname, int block, const TreeColours& c) {
  wrapped_text(vname + ": one block of " + std::to_string(block) + " threads = " + std::to_string(t.warps) +
                   " warps, " + std::to_string(t.steps.size()) + " steps, " + std::to_string(t.syncthreads) +
                   " __syncthreads()",
               ImGui::GetStyleColorVec4(ImGuiCol_Text));
  dim_text(t.note);
  const float fs0 = ImGui::GetFontSize(), room = ImGui::GetContentRegionAvail().x;
  float used = 0;
  auto item = [&](ImU32 col, const char* label, bool outline = false, ImU32 edge = 0) {
    const float w = ImGui::GetTextLineHeight() * 1.3f + ImGui::CalcTextSize(label).x;
    if (used > 0 && used + fs0 + w <= room) {
      ImGui::SameLine(0, fs0);
      used += fs0;
    } else {
      used = 0;
    }
    legend_swatch(col, label, outline, edge);
    used += w;
  };
  item(c.useful, "lane adds (result counts)");
  item(c.executes, "lane executes, result unused");
  item(c.idle_lane, "idle lane in a working warp");
  item(c.idle_warp, "idle warp");
  item(c.idle_warp, "divergent warp", true, c.divergent_edge);
}

// One warp of one step: a box per lane, or where lanes are too narrow, the warp's share of each kind.
void draw_warp_step(ImDrawList* dl, const rm::WarpStep& ws, float x0, float x1, float y, float row_h,
                    float lane_w, bool show_useful, const TreeColours& c) {
  if (ws.state == rm::WarpState::Idle) {
    dl->AddRectFilled(ImVec2(x0, y), ImVec2(x1, y + row_h), c.idle_warp);
    return;
  }
  if (lane_w >= 1.5f) {
    for (int l = 0; l < rm::k_warp; ++l) {
      const bool act = ws.active >> l & 1u, use = ws.useful >> l & 1u;
      const ImU32 col = !act ? c.idle_lane : (use || !show_useful) ? c.useful : c.executes;
      const float lx = x0 + static_cast<float>(l) * lane_w;
      dl->AddRectFilled(ImVec2(lx, y),
                        ImVec2(lx + std::max(lane_w - (lane_w > 4 ? 1.0f : 0.0f), 1.0f), y + row_h), col);
    }
  } else {
    const float span = x1 - x0;
    const float fu = static_cast<float>(std::popcount(ws.useful)) / rm::k_warp;
    const float fa = static_cast<float>(std::popcount(ws.active)) / rm::k_warp;
    const float xu = x0 + span * (show_useful ? fu : fa), xa = x0 + span * fa;
    dl->AddRectFilled(ImVec2(x0, y), ImVec2(x1, y + row_h), c.idle_lane);
    dl->AddRectFilled(ImVec2(x0, y), ImVec2(xa, y + row_h), c.executes);
    dl->AddRectFilled(ImVec2(x0, y), ImVec2(xu, y + row_h), c.useful);
  }
  if (ws.state == rm::WarpState::Divergent)
    dl->AddRect(ImVec2(x0 - 0.5f, y - 0.5f), ImVec2(x1 + 0.5f, y + row_h + 0.5f), c.divergent_edge, 0, 0, 2);
}

// A step's hover text: what it does, the first few additions (which words, in shared memory, or lanes, for
// shuffles, add into which), its shared-memory passes and whether a barrier follows.
std::string step_tooltip(const rm::ReduceStep& s, const std::string& stats) {
  std::string tip = std::string(rm::step_kind_label(s.kind)) + "\n" + s.label + "\n" + stats;
  const bool lanes = s.kind == rm::StepKind::Shuffle;
  const char* v = lanes ? "v" : "s";
  std::string adds;
  for (size_t i = 0; i < s.adds.size() && i < 4; ++i) {
    const auto [dst, src] = s.adds[i];
    adds += (i ? ", " : "") + std::string(v) + "[" + std::to_string(dst) + "] " +
            (s.kind == rm::StepKind::WarpSumsToShared ? "= v[" : "+= " + std::string(v) + "[") +
            std::to_string(src) + "]";
  }
  if (s.adds.size() > 4) adds += ", ... (" + std::to_string(s.adds.size()) + " in all)";
  if (!adds.empty()) tip += "\n" + adds;
  if (s.smem_ideal > 0)
    tip += "\nshared-memory passes: " + std::to_string(s.smem_wavefronts) +
           " (conflict-free: " + std::to_string(s.smem_ideal) + ")";
  tip += s.sync_after ? "\nthen __syncthreads()" : "\nno __syncthreads() after it";
  return tip;
}

void draw_tree_view(ReducePanelModel& m) {
  const auto v = static_cast<red::ReduceVariant>(m.reduce_variant);
  const std::optional<rm::Tree> tree = tree_of(v);
  const std::string vname(red::k_reduce_variant_names.names()[static_cast<size_t>(m.reduce_variant)]);
  if (!tree) {
    ImGui::TextWrapped(
        "cub::DeviceReduce picks its own tiles, loads and warp/block reductions for this GPU (its inside is "
        "not drawn). Pick a hand-written rung to see its tree; CUB is the yardstick in the results.");
    return;
  }
  const int block = m.params.block;
  if (auto err = rm::check_block(*tree, block)) {
    advice_text(*err);
    return;
  }
  const rm::ReduceTree t = rm::build_tree(*tree, block, load_of(v));
  const TreeColours c = tree_colours();
  tree_header(t, vname, block, c);
  const float fs = ImGui::GetFontSize();
  const float avail = ImGui::GetContentRegionAvail().x;
  const float label_w = fs * 4.2f;
  // The stats column as wide as its longest line (at most 45% of the width), the lanes take the rest.
  float stats_w = 0;
  for (const rm::ReduceStep& s : t.steps)
    stats_w = std::max(stats_w, ImGui::CalcTextSize(step_stats(s).c_str()).x);
  stats_w = std::min(stats_w + fs * 0.8f, avail * 0.45f);
  const float area_w = std::max(avail - label_w - stats_w, fs * 6);
  // Rows grow to fill the height left (a 1080p screen or a projector), from 1.15 to 2.5 text lines.
  const float footer = ImGui::GetFrameHeightWithSpacing() + ImGui::GetTextLineHeightWithSpacing() + fs * 1.6f;
  const float row_gap = fs * 0.35f;
  const float fill =
      (ImGui::GetContentRegionAvail().y - footer) / static_cast<float>(t.steps.size()) - row_gap;
  const float row_h = std::clamp(fill, std::max(fs * 1.15f, 10.0f), fs * 2.5f);
  const float warp_gap = area_w / static_cast<float>(t.warps) > 12 ? 2.0f : 1.0f;
  const float warp_w = area_w / static_cast<float>(t.warps);
  const float lane_w = (warp_w - warp_gap) / rm::k_warp;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  // Warp numbers above the first row where they fit.
  const float head_h = fs * 1.1f;
  const int every = std::max(1, static_cast<int>(std::ceil(fs * 1.6f / warp_w)));
  for (int w = 0; w < t.warps; w += every) {
    const std::string s = std::string("w").append(std::to_string(w));
    dl->AddText(ImVec2(p0.x + label_w + static_cast<float>(w) * warp_w, p0.y), c.text_dim, s.c_str());
  }
  float y = p0.y + head_h;
  for (const rm::ReduceStep& s : t.steps) {
    const char* tag = s.kind == rm::StepKind::WarpSumsToShared ? "sums"
                      : s.kind == rm::StepKind::Shuffle        ? "off"
                                                               : "st";
    std::string label = s.kind == rm::StepKind::WarpSumsToShared
                            ? "store"
                            : std::string(tag) + " " + std::to_string(s.stride);
    dl->AddText(ImVec2(p0.x, y + (row_h - fs) * 0.5f), text, label.c_str());
    for (int w = 0; w < t.warps; ++w) {
      const float x0 = p0.x + label_w + static_cast<float>(w) * warp_w;
      draw_warp_step(dl, s.warps[static_cast<size_t>(w)], x0, x0 + warp_w - warp_gap, y, row_h, lane_w,
                     m.show_useful, c);
    }
    const std::string stats = step_stats(s);
    dl->AddText(ImVec2(p0.x + label_w + area_w + fs * 0.4f, y + (row_h - fs) * 0.5f),
                s.conflict_ways > 1 ? c.divergent_edge : text, stats.c_str());
    // Only while this window is the one under the mouse (another window, e.g. Anatomy, may cover the rows).
    if (ImGui::IsWindowHovered() &&
        ImGui::IsMouseHoveringRect(ImVec2(p0.x, y), ImVec2(p0.x + avail, y + row_h + row_gap))) {
      ImGui::BeginTooltip();
      ImGui::TextUnformatted(step_tooltip(s, stats).c_str());
      if (s.kind != rm::StepKind::Shuffle && s.conflict_ways > 0) draw_bank_picture(s);
      ImGui::EndTooltip();
    }
    y += row_h;
    if (s.sync_after) {
      // The barrier: a thin line under the row across the block.
      dl->AddLine(ImVec2(p0.x + label_w, y + row_gap * 0.5f),
                  ImVec2(p0.x + label_w + area_w, y + row_gap * 0.5f), c.sync, 1.5f);
    }
    y += row_gap;
  }
  ImGui::Dummy(ImVec2(avail, y - p0.y));
  dim_text("blue line: __syncthreads(); red text: bank conflicts (32 banks of 4 bytes); hover a row");
  ImGui::Checkbox("show which lanes count", &m.show_useful);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("tell lanes whose result counts from lanes that only execute");
}

// The kernel scans up to 1024 elements in one block (512 threads); the small array fits in one warp, so its
// own accesses never conflict. The same step at the kernel's size: without and with its padding.
std::string blelloch_conflicts_text(const rm::ScanStep& st) {
  const rm::ScanModel big = rm::build_scan(rm::ScanAlgo::Blelloch, 1024);
  for (const rm::ScanStep& b : big.steps)
    if (b.phase == st.phase && b.offset == st.offset)
      return "at 1024 elements this stride gives " + std::to_string(b.conflict_ways) +
             "-way bank conflicts; the kernel's padding (i + i/32) makes it " +
             std::to_string(b.conflict_ways_padded) + "-way";
  return "";
}

void draw_scan_view(ReducePanelModel& m) {
  const auto sv = static_cast<red::ScanVariant>(m.scan_variant);
  const rm::ScanAlgo algo = scan_algo_of(sv);
  const float fs = ImGui::GetFontSize();
  dim_text(scan_view_note(sv));
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("array");
  for (int n : {8, 16, 32}) {
    ImGui::SameLine();
    if (ImGui::RadioButton(std::to_string(n).c_str(), m.scan_n == n)) {
      m.scan_n = n;
      m.scan_step = 0;
    }
  }
  const rm::ScanModel sm = rm::build_scan(algo, m.scan_n);
  const int steps = static_cast<int>(sm.steps.size());
  m.scan_step = std::clamp(m.scan_step, 0, steps);
  ImGui::SameLine(0, fs);
  if (ImGui::Button(m.scan_play ? "Pause" : "Play")) {
    if (!m.scan_play && m.scan_step >= steps) m.scan_step = 0;
    m.scan_play = !m.scan_play;
    m.scan_clock = 0;
  }
  ImGui::SameLine();
  if (ImGui::ArrowButton("##prev", ImGuiDir_Left) && m.scan_step > 0) --m.scan_step;
  ImGui::SameLine();
  if (ImGui::ArrowButton("##next", ImGuiDir_Right) && m.scan_step < steps) ++m.scan_step;
  ImGui::SameLine();
  ImGui::SetNextItemWidth(std::max(ImGui::GetContentRegionAvail().x, fs * 6));
  ImGui::SliderInt("##step", &m.scan_step, 0, steps, "step %d");

  const std::vector<double> x = scan_demo_values(m.scan_n);
  const int cur = m.scan_step;
  const std::vector<double> before = rm::run_scan(sm, x, static_cast<size_t>(std::max(cur - 1, 0)));
  const std::vector<double> after = rm::run_scan(sm, x, static_cast<size_t>(cur));
  const rm::ScanStep* st = cur > 0 ? &sm.steps[static_cast<size_t>(cur - 1)] : nullptr;
  if (st) {
    ImGui::Text("%s  (%zu %s)", st->label.c_str(), st->ops.size(),
                st->ops.size() == 1 ? "thread" : "threads");
    if (st->phase != rm::ScanPhase::ClearRoot && algo == rm::ScanAlgo::Blelloch)
      dim_text(blelloch_conflicts_text(*st));
  } else {
    ImGui::Text("the input (%s, %s): %d steps, %lld adds",
                algo == rm::ScanAlgo::HillisSteele ? "Hillis-Steele" : "Blelloch",
                sm.inclusive ? "inclusive" : "exclusive", steps, static_cast<long long>(sm.adds));
    dim_text(algo == rm::ScanAlgo::HillisSteele
                 ? "every element adds at every step: n log2 n work, log2 n steps"
                 : "the up-sweep builds a tree of partial sums, the down-sweep "
                   "hands each prefix down: 2(n-1) adds");
  }

  // Two rows: before the step (top) and after it (bottom); lines show which element adds into which.
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float avail = ImGui::GetContentRegionAvail().x;
  const float cell = std::min(avail / static_cast<float>(m.scan_n), fs * 3.2f);
  // Taller cells and longer lines where the window has the room (1080p, a projector).
  const float room = ImGui::GetContentRegionAvail().y;
  const float cell_h = std::clamp(room * 0.09f, fs * 1.6f, fs * 2.6f);
  const float gap_h = std::clamp(room * 0.3f, fs * 3.2f, fs * 9.0f);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float top = p0.y + fs * 1.1f, bottom = top + cell_h + gap_h;
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const TreeColours c = tree_colours();
  const ImU32 box = light_theme() ? IM_COL32(235, 235, 240, 255) : IM_COL32(45, 45, 55, 255);
  const ImU32 changed_col = light_theme() ? IM_COL32(250, 215, 160, 255) : IM_COL32(120, 80, 30, 255);
  std::vector<bool> touched(static_cast<size_t>(m.scan_n), false);
  if (st)
    for (const rm::ScanOp& op : st->ops) {
      touched[static_cast<size_t>(op.dst)] = true;
      if (op.kind == rm::ScanOpKind::SwapAdd) touched[static_cast<size_t>(op.src)] = true;
    }
  auto cell_x = [&](int i) { return p0.x + static_cast<float>(i) * cell; };
  auto draw_row = [&](const std::vector<double>& vals, float yy, bool highlight) {
    for (int i = 0; i < m.scan_n; ++i) {
      const float x0 = cell_x(i), x1 = x0 + cell - 2;
      dl->AddRectFilled(ImVec2(x0, yy), ImVec2(x1, yy + cell_h),
                        highlight && touched[static_cast<size_t>(i)] ? changed_col : box, 3);
      char buf[24];
      std::snprintf(buf, sizeof buf, "%.0f", vals[static_cast<size_t>(i)]);
      const ImVec2 sz = ImGui::CalcTextSize(buf);
      if (sz.x < cell - 3)
        dl->AddText(ImVec2(0.5f * (x0 + x1 - sz.x), yy + 0.5f * (cell_h - sz.y)), text, buf);
    }
  };
  dl->AddText(ImVec2(p0.x, p0.y), c.text_dim, cur > 0 ? "before the step" : "input");
  draw_row(before, top, false);
  if (cur > 0) {
    draw_row(after, bottom, true);
    dl->AddText(ImVec2(p0.x, bottom + cell_h + fs * 0.2f), c.text_dim,
                "after the step (changed cells highlighted)");
    for (const rm::ScanOp& op : st->ops) {
      const float xd = cell_x(op.dst) + cell * 0.5f, xs = cell_x(op.src) + cell * 0.5f;
      if (op.kind == rm::ScanOpKind::Clear) {
        dl->AddLine(ImVec2(xd, top + cell_h), ImVec2(xd, bottom), c.divergent_edge, 2);
        continue;
      }
      dl->AddLine(ImVec2(xs, top + cell_h), ImVec2(xd, bottom), c.useful, 2);
      dl->AddLine(ImVec2(xd, top + cell_h), ImVec2(xd, bottom), c.text_dim, 1);
      if (op.kind == rm::ScanOpKind::SwapAdd)
        dl->AddLine(ImVec2(xd, top + cell_h), ImVec2(xs, bottom), c.sync, 2);
    }
  }
  ImGui::Dummy(ImVec2(avail, bottom + cell_h + fs * 1.3f - p0.y));
  dim_text("orange: x[dst] += x[src]; blue: the down-sweep's swap (old x[dst] goes to x[src]); red: cleared");
  if (cur == steps) {
    std::vector<double> want(x.size());
    if (sm.inclusive)
      std::inclusive_scan(x.begin(), x.end(), want.begin());
    else
      std::exclusive_scan(x.begin(), x.end(), want.begin(), 0.0);
    const bool ok = want == after;
    const std::string what = std::string(ok ? "matches " : "differs from ") +
                             (sm.inclusive ? "std::inclusive_scan" : "std::exclusive_scan") + " of the input";
    if (ok)
      wrapped_text(what, light_theme() ? ImVec4(0.1f, 0.5f, 0.1f, 1) : ImVec4(0.45f, 0.9f, 0.45f, 1));
    else
      error_text(what);
  }
}

void draw_ladder_chart(ReducePanelModel& m) {
  if (m.rows.empty()) {
    ImGui::TextDisabled("Run the ladder (GPU) or the CPU baselines: the bars of GB/s appear here.");
    return;
  }
  double top = 0;
  for (const red::Row& r : m.rows)
    top = std::max(top, r.gbs);
  const double ref = copy_reference_gbs(m.rows);
  top = std::max(top, ref);
  if (top <= 0) return;
  const float fs = ImGui::GetFontSize();
  const float w = ImGui::GetContentRegionAvail().x;
  float label_w = fs * 6;
  for (const red::Row& r : m.rows)
    label_w = std::max(label_w, ImGui::CalcTextSize(r.variant.c_str()).x + fs * 0.5f);
  const float bar_h = fs * 1.05f, gap = fs * 0.25f;
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float bar_w = std::max(w - label_w - fs * 9.0f, fs * 4);
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  for (size_t i = 0; i < m.rows.size(); ++i) {
    const red::Row& r = m.rows[i];
    const float y = p.y + static_cast<float>(i) * (bar_h + gap);
    dl->AddText(ImVec2(p.x, y), text, r.variant.c_str());
    const float len = std::max(static_cast<float>(r.gbs / top) * bar_w, 1.0f);
    dl->AddRectFilled(ImVec2(p.x + label_w, y), ImVec2(p.x + label_w + len, y + bar_h - 1),
                      rgba_u32(row_rgba(r), 230), 2);
    std::string s = fmt_double("%.4g GB/s", r.gbs);
    if (r.copy_pct > 0) s += fmt_double("  (%.0f%% copy)", r.copy_pct);
    if (!r.check.passed) s += "  FAIL";
    dl->AddText(ImVec2(p.x + label_w + len + fs * 0.3f, y),
                r.check.passed ? text : tree_colours().divergent_edge, s.c_str());
  }
  const float h = static_cast<float>(m.rows.size()) * (bar_h + gap);
  if (ref > 0) {
    const float x = p.x + label_w + static_cast<float>(ref / top) * bar_w;
    dl->AddLine(ImVec2(x, p.y - 2), ImVec2(x, p.y + h), tree_colours().sync, 1.5f);
  }
  ImGui::Dummy(ImVec2(w, h));
  figure_export_menu("reduce-ladder",
                     [&] { return ladder_figure(m.rows, m.copy, m.rows_problem, m.gpu_name); });
  dim_text(std::string("GB/s; orange GPU kernels, blue CUB, grey CPU") +
           (ref > 0 ? "; blue line: the copy kernel" : "") + " (right-click: save)");
}

}  // namespace

void draw_reduce_views(ReducePanelModel& m, ReducePanelActions&) {
  const float fs = ImGui::GetFontSize();
  const float chart_h = m.rows.empty() ? fs * 3.0f
                                       : std::min(static_cast<float>(m.rows.size()) * fs * 1.3f + fs * 3.2f,
                                                  ImGui::GetContentRegionAvail().y * 0.45f);
  if (ImGui::BeginChild("##pictures", ImVec2(0, -chart_h), false)) {
    const WrapAtEdge wrap;
    if (ImGui::BeginTabBar("##reduce_tabs")) {
      const ImGuiTabItemFlags f0 = m.view_tab == 0 ? ImGuiTabItemFlags_SetSelected : 0;
      const ImGuiTabItemFlags f1 = m.view_tab == 1 ? ImGuiTabItemFlags_SetSelected : 0;
      if (ImGui::BeginTabItem("Reduction tree (one block)", nullptr, f0)) {
        draw_tree_view(m);
        ImGui::EndTabItem();
      }
      if (ImGui::BeginTabItem("Scan steps", nullptr, f1)) {
        draw_scan_view(m);
        ImGui::EndTabItem();
      }
      ImGui::EndTabBar();
    }
    m.view_tab = -1;
  }
  ImGui::EndChild();
  section_title(m.rows_problem.empty() ? "Ladder timing" : ("Ladder timing: " + m.rows_problem).c_str());
  draw_ladder_chart(m);
}

}  // namespace bs::ui
