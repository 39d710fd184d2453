// montecarlo_lab_panel.cpp: see montecarlo_lab_panel.h.
#include "ui/montecarlo/montecarlo_lab_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/param_binding.h"
#include "core/text.h"
#include "ui/montecarlo/montecarlo_schema.h"
#include "ui/plot.h"
#include "ui/plot_export.h"
#include "ui/widgets.h"

namespace bs::ui::mc {

namespace mcl = bs::montecarlo;

PanelModel::PanelModel() {
  bs::params::load_bound(montecarlo_schema(), *this, montecarlo_schema().defaults());  // the schema's bindings
  params.option = static_cast<mcl::OptionType>(option);
  params.generator = static_cast<mcl::Generator>(generator);
}

// --- Pure helpers ------------------------------------------------------------------------------------------

std::vector<mcl::SampleRange> growing_batches(int64_t samples, int64_t first, double ratio) {
  std::vector<mcl::SampleRange> out;
  if (samples <= 0) return out;
  ratio = std::max(ratio, 1.1);
  int64_t end = std::clamp<int64_t>(first, 1, samples);
  out.push_back({0, end});
  while (end < samples) {
    const auto grown = static_cast<int64_t>(std::ceil(static_cast<double>(end) * ratio));
    const int64_t next = std::min(samples, std::max(grown, end + 1));
    out.push_back({end, next - end});
    end = next;
  }
  return out;
}

bool ConvergenceTrack::add(const mcl::Estimate& e, std::optional<double> reference) {
  if (!std::isfinite(e.std_error) || e.paths <= 0) return false;
  if (!m_points.empty() && e.paths <= m_points.back().paths) return false;
  ConvergencePoint p;
  p.paths = e.paths;
  p.price = e.price;
  p.half_width = 0.5 * (e.ci_high - e.ci_low);
  p.std_error = e.std_error;
  p.abs_error = reference ? std::abs(e.price - *reference) : std::numeric_limits<double>::quiet_NaN();
  m_points.push_back(p);
  return true;
}

std::vector<double> ConvergenceTrack::xs() const {
  std::vector<double> x;
  for (const auto& p : m_points)
    x.push_back(static_cast<double>(p.paths));
  return x;
}

std::vector<double> ConvergenceTrack::ys(bool has_reference) const {
  std::vector<double> y;
  for (const auto& p : m_points) {
    // An estimate that hits the closed form exactly has |error| 0, which a log axis cannot show: floor it far
    // below the standard error instead of dropping the point.
    const double v = has_reference ? std::max(p.abs_error, 1e-3 * p.std_error) : p.half_width;
    y.push_back(v);
  }
  return y;
}

std::vector<double> ConvergenceTrack::guide(const std::vector<double>& x, bool has_reference) const {
  std::vector<double> g;
  if (m_points.empty()) return g;
  const ConvergencePoint& last = m_points.back();
  const double anchor = has_reference ? last.std_error : last.half_width;
  for (double n : x)
    g.push_back(n > 0 ? anchor * std::sqrt(static_cast<double>(last.paths) / n) : 0.0);
  return g;
}

DensityCurve density_in_counts(const mcl::Histogram& h, const mcl::Params& p, int per_bin) {
  DensityCurve c;
  if (h.counts.empty() || h.hi <= h.lo || p.sigma <= 0) return c;
  per_bin = std::max(per_bin, 1);
  const double total = static_cast<double>(h.total());
  const double w = h.width();
  const int n = h.bins() * per_bin;
  for (int i = 0; i <= n; ++i) {
    const double s = h.lo + (h.hi - h.lo) * static_cast<double>(i) / n;
    c.x.push_back(s);
    c.y.push_back(total * mcl::lognormal_pdf(s, p) * w);
  }
  return c;
}

// --- Drawing -----------------------------------------------------------------------------------------------

namespace {

const ImVec4 k_error_colour(1.0f, 0.45f, 0.4f, 1.0f);
ImVec4 k_note_colour() { return tone_colour(Tone::Warning); }

// The message of check() goes right after the control it names.
void param_message(const PanelModel& m, const char* param) {
  if (m.param_error && m.param_error->param == param) {
    ImGui::PushTextWrapPos(0.0f);
    error_text(m.param_error->message);
    ImGui::PopTextWrapPos();
  }
}
std::string fmt_count(double v) { return compact_count(v); }

void params_section(PanelModel& m, PanelActions& a) {
  mcl::Params& p = m.params;
  const float w = ImGui::GetFontSize() * 7;
  bool changed = false;
  auto input_double = [&](const char* label, double* v, const char* param, const char* tip) {
    ImGui::SetNextItemWidth(w);
    changed |= ImGui::InputDouble(label, v, 0.0, 0.0, "%.4g");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
    param_message(m, param);
  };
  input_double("S0 (spot)", &p.s0, "s0", "Price of the underlying today");
  input_double("K (strike)", &p.strike, "strike", "Strike price");
  input_double("r (rate)", &p.rate, "rate",
               "Risk-free rate per year, continuously compounded (also the drift)");
  input_double("sigma (volatility)", &p.sigma, "sigma", "Volatility per sqrt(year)");
  input_double("T (years)", &p.maturity, "maturity", "Time to maturity in years");

  const char* options[] = {mcl::option_long_label(mcl::OptionType::Call),
                           mcl::option_long_label(mcl::OptionType::Put),
                           mcl::option_long_label(mcl::OptionType::AsianCall)};
  ImGui::SetNextItemWidth(w * 1.6f);
  changed |= ImGui::Combo("option", &m.option, options, 3);
  param_message(m, "option");

  ImGui::SetNextItemWidth(w);
  changed |= ImGui::InputScalar("paths", ImGuiDataType_S64, &p.paths, nullptr, nullptr, "%lld",
                                ImGuiInputTextFlags_EnterReturnsTrue);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("1,000 .. 16,777,216 simulated paths (press Enter)");
  for (int64_t v : {int64_t{10'000}, int64_t{100'000}, int64_t{1'000'000}, mcl::k_max_paths}) {
    const std::string label = fmt_count(static_cast<double>(v));
    same_line_if_fits(button_width(label.c_str()));
    if (ImGui::SmallButton(label.c_str())) {
      p.paths = v;
      changed = true;
    }
  }
  param_message(m, "paths");
  ImGui::SetNextItemWidth(w);
  changed |= ImGui::InputInt("steps", &p.steps, 0, 0, ImGuiInputTextFlags_EnterReturnsTrue);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Time steps per path, 1 .. 1024 (press Enter)");
  param_message(m, "steps");
  ImGui::SetNextItemWidth(w);
  changed |= ImGui::InputScalar("seed", ImGuiDataType_U64, &p.seed, nullptr, nullptr, "%llu",
                                ImGuiInputTextFlags_EnterReturnsTrue);
  param_message(m, "seed");
  changed |= ImGui::Checkbox("antithetic variates", &p.antithetic);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Each sample is a pair of paths driven by Z and -Z");
  same_line_if_fits(labelled_width(w * 1.4f, "generator"));
  const char* gens[] = {mcl::generator_label(mcl::Generator::Philox),
                        mcl::generator_label(mcl::Generator::Xorwow)};
  ImGui::SetNextItemWidth(w * 1.4f);
  changed |= ImGui::Combo("generator", &m.generator, gens, 2);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("cuRAND device generator (the CPU always uses std::mt19937_64)");
  param_message(m, "generator");

  ImGui::SetNextItemWidth(w);
  changed |=
      ImGui::InputInt("sample paths drawn", &m.sample_paths, 0, 0, ImGuiInputTextFlags_EnterReturnsTrue);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("0 .. 4096 paths drawn on the left");
  same_line_if_fits(labelled_width(w * 0.7f, "bins"));
  ImGui::SetNextItemWidth(w * 0.7f);
  changed |= ImGui::InputInt("bins", &m.bins, 0, 0, ImGuiInputTextFlags_EnterReturnsTrue);
  error_text(m.options_error);
  if (m.param_error && m.param_error->param.empty()) error_text(m.param_error->message);
  if (m.param_error || !m.options_error.empty())
    ImGui::TextColored(k_note_colour(), "the previous valid run stays on screen");
  if (changed) a.params_changed = true;
  if (ImGui::Button("Restart run")) a.restart = true;
  same_line_if_fits(labelled_width(ImGui::GetFrameHeight(), "pause"));
  ImGui::Checkbox("pause", &m.paused);
}

void price_section(const PanelModel& m) {
  const mcl::Estimate& e = m.estimate;
  ImGui::TextWrapped("%s", m.compute_label.c_str());
  if (e.samples == 0) {
    ImGui::TextDisabled("no batch finished yet");
  } else {
    ImGui::Text("Monte Carlo price  %.4f", e.price);
    ImGui::Text("95%% CI  [%.4f, %.4f]  (+-%.4f, std error %.4f)", e.ci_low, e.ci_high,
                0.5 * (e.ci_high - e.ci_low), e.std_error);
  }
  if (m.reference) {
    ImGui::Text("Black-Scholes      %.4f", *m.reference);
    if (e.samples > 1) {
      const bool inside = *m.reference >= e.ci_low && *m.reference <= e.ci_high;
      ImGui::TextColored(inside ? tone_colour(Tone::Pass) : k_note_colour(),
                         "error %+.4f = %+.2f std errors (%s)", e.price - *m.reference,
                         mcl::error_in_std_errors(e, *m.reference),
                         inside ? "closed form inside the CI" : "outside the CI: expected 1 time in 20");
    }
  } else {
    ImGui::TextDisabled("Asian call: no closed form; the plot shows the CI half-width");
  }
  const double frac =
      m.target_paths > 0 ? static_cast<double>(e.paths) / static_cast<double>(m.target_paths) : 0;
  char overlay[96];
  std::snprintf(overlay, sizeof overlay, "%s / %s paths, batch %d of %d",
                fmt_count(static_cast<double>(e.paths)).c_str(),
                fmt_count(static_cast<double>(m.target_paths)).c_str(), m.batches_done, m.batches_total);
  ImGui::ProgressBar(static_cast<float>(frac), ImVec2(-1, 0), overlay);
  if (m.live_ms > 0 && e.paths > 0)
    ImGui::Text("%s %.2f ms so far: %s path-steps/s",
                m.gpu ? "GPU kernel time (CUDA events)" : "CPU wall time", m.live_ms,
                fmt_count(static_cast<double>(e.paths) * m.running.steps / (m.live_ms * 1e-3)).c_str());
  error_text(m.runtime_error);
}

void launch_section(PanelModel& m, PanelActions& a) {
  if (!m.gpu) {
    ImGui::TextDisabled("Launch configuration needs a GPU (this run is on the CPU path).");
    return;
  }
  bool changed = false;
  const float w = ImGui::GetFontSize() * 6;
  ImGui::SetNextItemWidth(w);
  changed |= input_ints_on_commit("block size", &m.block, 1, 32, 128);
  const char* layouts[] = {"grid-stride loop", "one path per thread"};
  ImGui::SetNextItemWidth(w * 2);
  changed |= ImGui::Combo("layout", &m.layout, layouts, 2);
  if (m.layout == 0) {
    ImGui::SetNextItemWidth(w);
    changed |= ImGui::SliderInt("waves", &m.waves, 1, 64);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Grid = waves x blocks resident per SM x SMs");
  }
  if (changed) a.launch_changed = true;
  error_text(m.launch_error);
  if (m.shape)
    ImGui::Text("grid %lld x %lld threads, %d registers/thread, %d blocks/SM, %.1f samples/thread",
                static_cast<long long>(m.shape->grid), static_cast<long long>(m.shape->block),
                m.shape->registers, m.shape->blocks_per_sm, m.shape->samples_per_thread);
  if (ImGui::Button("Time both layouts at this block size")) a.time_launch = true;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("2 warm-up + 5 timed runs each of the whole run (CUDA events); the UI waits");
  if (!m.launch_rows.empty() &&
      ImGui::BeginTable("launch_rows", 5, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingStretchProp)) {
    ImGui::PushTextWrapPos(0.0f);  // cells wrap in their column (stretch columns share the width: no feedback)
    for (const char* h : {"variant", "grid", "regs / blocks per SM", "ms (p10-p90)", "path-steps/s"})
      ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    for (const LaunchRow& r : m.launch_rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.variant.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(r.shape.grid));
      ImGui::TableNextColumn();
      ImGui::Text("%d / %d", r.shape.registers, r.shape.blocks_per_sm);
      ImGui::TableNextColumn();
      ImGui::Text("%.3f (%.3f-%.3f)", r.ms, r.p10, r.p90);
      ImGui::TableNextColumn();
      ImGui::Text("%s", fmt_count(r.gpath_steps_per_s * 1e9).c_str());
    }
    ImGui::PopTextWrapPos();
    ImGui::EndTable();
  }
  if (!m.launch_note.empty()) ImGui::TextWrapped("%s", m.launch_note.c_str());
}

void cpu_section(PanelModel& m, PanelActions& a) {
  ImGui::TextWrapped("Whole run (%s paths x %d steps) on the CPU, std::mt19937_64:",
                     fmt_count(static_cast<double>(m.running.paths)).c_str(), m.running.steps);
  for (int i = 0; i < 2; ++i) {
    CpuRunView& v = m.cpu[i];
    ImGui::PushID(i);
    if (v.running) {
      if (ImGui::Button("Cancel")) a.cancel_cpu[i] = true;
      ImGui::SameLine();
      ImGui::ProgressBar(static_cast<float>(v.progress), ImVec2(ImGui::GetFontSize() * 8, 0));
    } else if (ImGui::Button("Run")) {
      a.run_cpu[i] = true;
    }
    ImGui::SameLine();
    ImGui::TextUnformatted(v.label.c_str());
    if (!v.status.empty()) {
      ImGui::SameLine();
      ImGui::TextColored(k_note_colour(), "(%s)", v.status.c_str());
    }
    ImGui::PopID();
  }
  const double one = m.cpu[0].result ? m.cpu[0].result->path_steps_per_s : 0;
  const double all = m.cpu[1].result ? m.cpu[1].result->path_steps_per_s : 0;
  const double gpu = m.gpu && m.live_ms > 0
                         ? static_cast<double>(m.estimate.paths) * m.running.steps / (m.live_ms * 1e-3)
                         : 0;
  if (!ImGui::BeginTable("cpu_rows", 4, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingStretchProp)) return;
  ImGui::PushTextWrapPos(0.0f);  // cells wrap in their column (stretch columns share the width: no feedback)
  for (const char* h : {"run", "path-steps/s", "vs 1 thread", "price"})
    ImGui::TableSetupColumn(h);
  ImGui::TableHeadersRow();
  auto row = [&](const std::string& label, double rate, const std::string& price) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(label.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(rate > 0 ? fmt_count(rate).c_str() : "-");
    ImGui::TableNextColumn();
    if (rate > 0 && one > 0)
      ImGui::Text("%.1fx", rate / one);
    else
      ImGui::TextUnformatted("-");
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(price.c_str());
  };
  auto price_of = [](const CpuRunView& v) {
    char b[32] = "-";
    if (v.result) std::snprintf(b, sizeof b, "%.4f", v.result->estimate.price);
    return std::string(b);
  };
  row(m.cpu[0].label, one, price_of(m.cpu[0]));
  row(m.cpu[1].label, all, price_of(m.cpu[1]));
  if (m.gpu) row("GPU live batches (kernel time)", gpu, "-");
  for (const LaunchRow& r : m.launch_rows)
    row("GPU " + r.variant, r.gpath_steps_per_s * 1e9, "-");
  ImGui::PopTextWrapPos();
  ImGui::EndTable();
}

// Bars of the histogram and the density (in counts) on top; x is the terminal price.
void draw_histogram(const PanelModel& m, ImVec2 size) {
  ImGui::InvisibleButton("##hist", size);
  figure_export_menu("montecarlo-histogram", [&] {
    fig::Figure f;
    f.title = "terminal prices: histogram and lognormal density";
    f.x_label = "S_T";
    f.y_label = "paths per bin";
    const std::vector<double> e = m.histogram.edges();
    fig::Series counts{"simulated paths", {}, {}, {}, {}, fig::palette(0)};
    for (size_t i = 0; i + 1 < e.size(); ++i) {
      counts.x.push_back(0.5 * (e[i] + e[i + 1]));
      counts.y.push_back(static_cast<double>(m.histogram.counts[i]));
    }
    f.series.push_back(std::move(counts));
    f.series.push_back({"lognormal density (expected)", m.density.x, m.density.y, {}, {}, fig::palette(1)});
    return f;
  });
  const ImVec2 p0 = ImGui::GetItemRectMin(), p1 = ImGui::GetItemRectMax();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float fh = ImGui::GetFontSize();
  dl->AddRectFilled(p0, p1, ImGui::GetColorU32(ImGuiCol_FrameBg));
  const mcl::Histogram& h = m.histogram;
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  if (h.counts.empty() || h.total() == 0) {
    dl->AddText(ImVec2(p0.x + fh, p0.y + fh), ImGui::GetColorU32(ImGuiCol_TextDisabled),
                h.counts.empty() ? "no histogram (bins = 0)" : "histogram: no batch yet");
    return;
  }
  const ImVec2 q0(p0.x + fh * 3.2f, p0.y + fh * 1.6f), q1(p1.x - fh * 0.6f, p1.y - fh * 2.6f);
  double ymax = 1;
  for (uint64_t c : h.counts)
    ymax = std::max(ymax, static_cast<double>(c));
  for (double v : m.density.y)
    ymax = std::max(ymax, v);
  ymax *= 1.08;
  auto X = [&](double s) { return q0.x + static_cast<float>((s - h.lo) / (h.hi - h.lo)) * (q1.x - q0.x); };
  auto Y = [&](double c) { return q1.y - static_cast<float>(c / ymax) * (q1.y - q0.y); };
  const std::vector<double> e = h.edges();
  for (int i = 0; i < h.bins(); ++i) {
    const double c = static_cast<double>(h.counts[static_cast<size_t>(i)]);
    // Bars above the strike in the money for a call (below for a put) are drawn warmer.
    const double mid = 0.5 * (e[static_cast<size_t>(i)] + e[static_cast<size_t>(i) + 1]);
    const bool itm =
        m.running.option == mcl::OptionType::Put ? mid < m.running.strike : mid > m.running.strike;
    const ImU32 col = itm ? IM_COL32(90, 170, 240, 220) : IM_COL32(70, 110, 160, 200);
    dl->AddRectFilled(ImVec2(X(e[static_cast<size_t>(i)]) + 0.5f, Y(c)),
                      ImVec2(X(e[static_cast<size_t>(i) + 1]) - 0.5f, q1.y), col);
  }
  std::vector<ImVec2> pts;
  for (size_t i = 0; i < m.density.x.size(); ++i)
    pts.emplace_back(X(m.density.x[i]), Y(m.density.y[i]));
  if (pts.size() >= 2)
    dl->AddPolyline(pts.data(), static_cast<int>(pts.size()), IM_COL32(255, 190, 60, 255), 0, 2.5f);
  // Axes: prices along x, counts up y, the strike as a dashed marker.
  const ImU32 grid = ImGui::GetColorU32(ImGuiCol_Border);
  for (double t : nice_ticks(h.lo, h.hi, 6, false)) {
    const float x = X(t);
    dl->AddLine(ImVec2(x, q1.y), ImVec2(x, q1.y + 4), grid);
    const std::string s = format_tick(t);
    dl->AddText(ImVec2(x - ImGui::CalcTextSize(s.c_str()).x * 0.5f, q1.y + 3), text, s.c_str());
  }
  for (double t : nice_ticks(0, ymax, 4, false)) {
    const float y = Y(t);
    dl->AddLine(ImVec2(q0.x, y), ImVec2(q1.x, y), IM_COL32(255, 255, 255, 25));
    const std::string s = format_tick(t);
    dl->AddText(ImVec2(q0.x - ImGui::CalcTextSize(s.c_str()).x - 4, y - fh * 0.5f), text, s.c_str());
  }
  if (m.running.strike > h.lo && m.running.strike < h.hi) {
    const float x = X(m.running.strike);
    for (float y = q0.y; y < q1.y; y += 8)
      dl->AddLine(ImVec2(x, y), ImVec2(x, std::min(y + 4, q1.y)), IM_COL32(240, 240, 240, 200), 1.5f);
    dl->AddText(ImVec2(x + 3, q0.y), IM_COL32(240, 240, 240, 220), "K");
  }
  char title[160];
  std::snprintf(title, sizeof title, "S_T of %s paths (%s); line: lognormal density",
                fmt_count(static_cast<double>(h.total())).c_str(), m.gpu ? "GPU histogram" : "CPU histogram");
  dl->AddText(ImVec2(p0.x + 4, p0.y + 2), text, title);
  dl->AddText(ImVec2((q0.x + q1.x) * 0.5f - fh * 3, q1.y + fh * 1.2f), text, "terminal price S_T");
  if (h.underflow + h.overflow > 0) {
    char tails[64];
    std::snprintf(tails, sizeof tails, "outside: %s",
                  fmt_count(static_cast<double>(h.underflow + h.overflow)).c_str());
    dl->AddText(ImVec2(q1.x - ImGui::CalcTextSize(tails).x, q0.y), ImGui::GetColorU32(ImGuiCol_TextDisabled),
                tails);
  }
}

// The GL image of the paths with a price axis, the strike and S0 drawn over it.
void draw_paths(PanelModel& m, PanelActions& a, ImVec2 size) {
  const float fh = ImGui::GetFontSize();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float left = fh * 3.2f, bottom = fh * 2.5f, top = fh * 0.6f;
  const ImVec2 q0(origin.x + left, origin.y + top),
      q1(origin.x + size.x - fh * 0.6f, origin.y + size.y - bottom);
  a.paths_w = std::max(16, static_cast<int>(q1.x - q0.x));
  a.paths_h = std::max(16, static_cast<int>(q1.y - q0.y));
  ImGui::InvisibleButton("##paths", size);
  dl->AddRectFilled(origin, ImVec2(origin.x + size.x, origin.y + size.y),
                    ImGui::GetColorU32(ImGuiCol_FrameBg));
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  if (m.paths_texture && m.paths_count > 0) {
    // The texture's first row is the bottom of the GL image.
    dl->AddImage(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(m.paths_texture)), q0, q1, ImVec2(0, 1),
                 ImVec2(1, 0));
  } else {
    dl->AddText(ImVec2(q0.x + fh, q0.y + fh), ImGui::GetColorU32(ImGuiCol_TextDisabled),
                "no sample paths drawn");
  }
  auto Y = [&](double s) {
    return q1.y - static_cast<float>((s - m.price_lo) / (m.price_hi - m.price_lo)) * (q1.y - q0.y);
  };
  for (double t : nice_ticks(m.price_lo, m.price_hi, 6, false)) {
    const std::string s = format_tick(t);
    dl->AddText(ImVec2(q0.x - ImGui::CalcTextSize(s.c_str()).x - 4, Y(t) - fh * 0.5f), text, s.c_str());
  }
  if (m.running.strike > m.price_lo && m.running.strike < m.price_hi) {
    const float y = Y(m.running.strike);
    for (float x = q0.x; x < q1.x; x += 10)
      dl->AddLine(ImVec2(x, y), ImVec2(std::min(x + 5, q1.x), y), IM_COL32(240, 240, 240, 210), 1.5f);
    dl->AddText(ImVec2(q1.x - fh * 2.5f, y - fh * 1.1f), IM_COL32(240, 240, 240, 230), "K");
  }
  // The caption sits under the image: the app's path overlay covers the view's top-left corner.
  char title[240];
  std::snprintf(title, sizeof title,
                "%d sample paths, %d steps over T = %.3g y, coloured by S_T (blue low, red high)",
                m.paths_count, m.running.steps, m.running.maturity);
  dl->AddText(ImVec2(q0.x + fh * 3, q1.y + 2), text, title);
  dl->AddText(ImVec2(q0.x + fh * 3, q1.y + 2 + fh * 1.1f), ImGui::GetColorU32(ImGuiCol_TextDisabled),
              m.paths_label.c_str());
  dl->AddText(ImVec2(q0.x, q1.y + 2), text, "t = 0");
  dl->AddText(ImVec2(q1.x - ImGui::CalcTextSize("t = T").x, q1.y + 2), text, "t = T");
}

void draw_convergence(const PanelModel& m, ImVec2 size) {
  const bool has_ref = m.reference.has_value();
  const std::vector<double> x = m.convergence.xs();
  const std::vector<double> y = m.convergence.ys(has_ref);
  std::vector<double> gx;
  if (!x.empty()) gx = {x.front(), x.back()};
  const std::vector<double> gy = m.convergence.guide(gx, has_ref);
  PlotSeries s[2];
  s[0].label = has_ref ? "|price - Black-Scholes|" : "95% CI half-width (Asian: no closed form)";
  s[0].x = x;
  s[0].y = y;
  s[0].color = IM_COL32(120, 200, 255, 255);
  s[1].label = has_ref ? "1/sqrt(N) guide (1 standard error)" : "1/sqrt(N) guide";
  s[1].x = gx;
  s[1].y = gy;
  s[1].color = IM_COL32(255, 190, 60, 255);
  PlotAxes axes;
  axes.x_label = "paths N";
  axes.y_label = has_ref ? "|error|" : "CI half-width";
  axes.log_x = axes.log_y = true;
  plot_lines("mc_convergence", size, axes, std::span<const PlotSeries>(s, 2));
}

}  // namespace

void draw_montecarlo_panel(PanelModel& m, PanelActions& a) {
  if (ImGui::CollapsingHeader("Option and simulation", ImGuiTreeNodeFlags_DefaultOpen)) params_section(m, a);
  if (ImGui::CollapsingHeader("Price", ImGuiTreeNodeFlags_DefaultOpen)) price_section(m);
  if (ImGui::CollapsingHeader("Launch configuration", ImGuiTreeNodeFlags_DefaultOpen)) launch_section(m, a);
  if (ImGui::CollapsingHeader("CPU runs", ImGuiTreeNodeFlags_DefaultOpen)) cpu_section(m, a);
}

void draw_montecarlo_view(PanelModel& m, PanelActions& a) {
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float gap = ImGui::GetStyle().ItemSpacing.y;
  const float paths_h = std::max(120.0f, avail.y * 0.5f);
  draw_paths(m, a, ImVec2(avail.x, paths_h));
  const float rest = std::max(100.0f, avail.y - paths_h - gap);
  const float half = (avail.x - ImGui::GetStyle().ItemSpacing.x) * 0.5f;
  draw_histogram(m, ImVec2(half, rest));
  ImGui::SameLine();
  ImGui::BeginGroup();
  draw_convergence(m, ImVec2(half, rest));
  ImGui::EndGroup();
}

}  // namespace bs::ui::mc
