// heat_lab.cpp: see heat_lab.h.
#include "app/heat/heat_lab.h"

#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "app/labs.h"
#include "app/heat/heat_anatomy.h"
#include "app/heat/heat_sweep_target.h"
#include "app/kernel/user_kernels.h"
#include "app/session.h"
#include "app/layout.h"
#include "gpu/anatomy/overlay.h"
#include "app/roofline/roofline_report.h"
#include "gpu/heat/heat_work.h"
#include "core/error.h"
#include "core/text.h"
#include "gpu/kernel/lab_runs.h"
#include "ui/field_view.h"
#include "ui/heat/heat_schema.h"

namespace bs {

namespace {
heat::InitialPattern pattern_of(int i) {
  return i == 1   ? heat::InitialPattern::Gaussian
         : i == 2 ? heat::InitialPattern::Noise
                  : heat::InitialPattern::HotSpots;
}
// On the CPU fallback the live simulation gets at most this much time per frame, so the UI stays responsive.
constexpr double k_cpu_frame_budget_ms = 25.0;

std::string fmt_value(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", static_cast<double>(v));
  return buf;
}
}  // namespace

std::vector<std::string> heat_hover_lines(const ui::HeatLaunch& launch, int64_t nx, int64_t ny, int64_t x,
                                          int64_t y, std::optional<float> value, bool gpu) {
  std::vector<std::string> out;
  if (x < 0 || y < 0 || x >= nx || y >= ny) return out;
  out.push_back("cell (" + std::to_string(x) + ", " + std::to_string(y) +
                "): T = " + (value ? fmt_value(*value) : std::string("...")));
  const std::string on = gpu ? "" : "on a GPU: ";
  // The anatomy overlay's mapping: the one description of which thread owns which cell.
  const anatomy::CellMapping map = anatomy::heat_mapping(launch.block, launch.grid, launch.cells_per_thread);
  const anatomy::CellOwner o = anatomy::cell_owner(map, x, y);
  if (!o.covered) {
    out.push_back(on + "no thread (outside the grid): the cell keeps its value");
    return out;
  }
  out.push_back(on + "blockIdx (" + std::to_string(o.bx) + ", " + std::to_string(o.by) + "), threadIdx (" +
                std::to_string(o.tx) + ", " + std::to_string(o.ty) + ")");
  const int c = std::max(launch.cells_per_thread, 1);
  if (c > 1) {
    // The thread's first row: (blockIdx.y * blockDim.y + threadIdx.y) * C, as in the kernel.
    const int64_t y0 = (o.by * launch.block.y + o.ty) * c;
    out.push_back("cell " + std::to_string(y - y0 + 1) + " of the thread's " + std::to_string(c) + " (rows " +
                  std::to_string(y0) + ".." + std::to_string(std::min(y0 + c, ny) - 1) + " of column " +
                  std::to_string(x) + ")");
  }
  return out;
}

std::vector<std::string> temporal_hover_lines(const heat::TemporalTile& t, int64_t x, int64_t y) {
  const int64_t bx = x / t.out_width(), by = y / t.out_height();
  const int64_t col = x - heat::tile_origin(static_cast<int>(bx), t.out_width(), t.steps);
  const int64_t row = y - heat::tile_origin(static_cast<int>(by), t.out_height(), t.steps);
  const int rows = t.shape.rows_per_thread;
  return {"fused pass (" + std::to_string(t.steps) + " steps): blockIdx (" + std::to_string(bx) + ", " +
              std::to_string(by) + "), threadIdx (" + std::to_string(col) + ", " +
              std::to_string(row / rows) + ") writes it",
          "cell " + std::to_string(row % rows + 1) + " of the thread's " + std::to_string(rows) + " in its " +
              std::to_string(t.width()) + "x" + std::to_string(t.height()) +
              " tile; neighbouring tiles near its edge compute it too (halo)"};
}

double float_for_json(float v) {
  if (!std::isfinite(v)) return static_cast<double>(v);
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);  // shortest round-trip form of the float
  if (ec != std::errc()) return static_cast<double>(v);
  double d = 0;
  if (std::from_chars(buf, end, d).ec != std::errc()) return static_cast<double>(v);
  return d;
}

HeatLab::HeatLab(LabEnv& env) : m_env(env), m_presenter(env) {
  m_params.nx = m_model.size[0];
  m_params.ny = m_model.size[1];
  m_model.params = m_params;
  for (int i = 0; i < 2; ++i)
    m_model.cpu[i].label =
        heat::cpu_mode_label(i == 0 ? heat::CpuMode::OneThread : heat::CpuMode::AllThreads);
  rebuild();
}

HeatLab::~HeatLab() = default;

void HeatLab::set_error(const std::string& msg) {
  m_model.runtime_error = msg;
}

void HeatLab::rebuild() {
  m_gpu.reset();
  const bool gpu = m_env.path.path != RenderPath::Cpu;
  m_model.gpu = gpu;
  m_model.compute_label = gpu ? "GPU: " + m_env.device.name
                              : std::string(heat::cpu_mode_label(heat::CpuMode::AllThreads)) +
                                    " (CPU fallback: " + m_env.path.reason + ")";
  if (gpu) m_gpu = std::make_unique<heat::GpuSolver>(m_params);
  m_presenter.resize(static_cast<int>(m_params.nx), static_cast<int>(m_params.ny), gpu);
  m_model.nx = m_params.nx;
  m_model.ny = m_params.ny;
  // The copy kernel's bandwidth was measured over the old footprint.
  m_model.copy_gb_per_s = 0;
  m_drag.reset();
  m_hover_value.reset();
  apply_launch();
  reset_field();
}

void HeatLab::abandon_gpu() noexcept {
  if (m_user_kernel) m_user_kernel->abandon();
  m_user_kernel.reset();
  m_user_generation = 0;
  m_user_busy_since.reset();
  if (m_env.user_kernels) m_env.user_kernels->set_in_use(kernel::Target::Heat, false);
  if (m_gpu) m_gpu->abandon();
  m_presenter.abandon_gpu();
  m_gpu.reset();  // abandon() made its destructor harmless
  m_anatomy.abandon_gpu();
}

void HeatLab::reset_field() {
  m_initial = heat::make_initial(m_params, pattern_of(m_model.pattern));
  const auto [lo, hi] = std::minmax_element(m_initial.begin(), m_initial.end());
  m_range_lo = *lo;
  m_range_hi = *hi;
  if (m_params.boundary == heat::Boundary::Fixed) {
    m_range_lo = std::min(m_range_lo, m_params.boundary_temp);
    m_range_hi = std::max(m_range_hi, m_params.boundary_temp);
  }
  if (m_gpu) {
    m_gpu->upload(m_initial);
  } else {
    m_cpu_field = m_initial;
    m_cpu_tmp.assign(m_cpu_field.size(), 0.0f);
  }
  m_samples.clear();
  m_history.clear();
  m_model.timing_nx = m_params.nx;
  m_model.timing_ny = m_params.ny;
  ++m_field_epoch;
  m_sim_halted = false;
  m_steps_done = 0;
  m_sim_time = 0;
  m_hover_value.reset();
  m_dirty = true;
}

void HeatLab::apply_size() {
  heat::Params p = m_params;
  p.nx = m_model.size[0];
  p.ny = m_model.size[1];
  if (p.nx < heat::k_ui_min_size || p.ny < heat::k_ui_min_size) {
    m_model.param_error =
        "the live view takes grids from 64x64 to 8192x8192 (smaller ones: blockscope bench heat)";
    return;
  }
  if (auto err = heat::validate(p)) {
    m_model.param_error = *err;
    return;
  }
  const heat::Params old = m_params;
  m_params = p;
  m_model.param_error.clear();
  try {
    rebuild();
  } catch (const InvalidRequest& e) {
    m_model.param_error = e.what();
    m_params = old;
    rebuild();
  }
}

void HeatLab::apply_physics() {
  heat::Params p = m_model.params;
  p.nx = m_params.nx;
  p.ny = m_params.ny;
  if (auto err = heat::validate(p)) {
    m_model.param_error = *err;
    return;
  }
  m_model.param_error.clear();
  m_params = p;
  if (m_gpu) m_gpu->set_physics(p);
  if (p.boundary == heat::Boundary::Fixed) {
    m_range_lo = std::min(m_range_lo, p.boundary_temp);
    m_range_hi = std::max(m_range_hi, p.boundary_temp);
  }
}

// Validates the panel's launch; a valid one becomes the accepted launch, a rejected one is only reported.
// Either way the accepted launch is (re)installed for the field in force (its covering grid follows the
// size), and everything drawn, measured and mapped reads m_model.launch, the launch the kernel really runs.
void HeatLab::apply_launch() {
  const Dim2 domain{m_params.nx, m_params.ny};
  const Dim2 block{m_model.block[0], m_model.block[1]};
  const DeviceLimits limits = m_env.device.available ? m_env.device.limits : DeviceLimits{};
  m_model.launch_error.clear();
  m_model.launch_advice.clear();
  // The user's heat_step is one thread per cell (the contract): cells per thread 1 while it runs.
  const int cpt = m_user_kernel ? 1 : m_model.cells_per_thread;
  const std::optional<Dim2> grid =
      m_model.manual_grid ? std::optional<Dim2>(Dim2{m_model.grid[0], m_model.grid[1]}) : std::nullopt;
  if (auto err = validate_block(block, limits)) {
    m_model.launch_error = *err + " - the kernel keeps its previous configuration";
  } else if (auto gerr = grid ? validate_grid(*grid, limits) : std::nullopt) {
    m_model.launch_error = *gerr + " - the kernel keeps its previous configuration";
  } else if (auto cerr = heat::validate_cells_per_thread(cpt)) {
    m_model.launch_error = *cerr + " - the kernel keeps its previous configuration";
  } else {
    if (auto adv = block_advice(block, limits)) m_model.launch_advice = *adv;
    if (m_gpu) {
      try {
        m_gpu->set_launch(block, grid, cpt);
        m_accepted = {block, grid, cpt};
      } catch (const InvalidRequest& e) {
        m_model.launch_error = std::string(e.what()) + " - the kernel keeps its previous configuration";
      }
    } else {
      m_accepted = {block, grid, cpt};
    }
  }
  ui::HeatLaunch in_force;
  if (m_gpu) {
    // A new solver (after a size change) starts with its own default launch: give it the accepted one.
    if (!m_model.launch_error.empty()) {
      try {
        m_gpu->set_launch(m_accepted.block, m_accepted.grid, m_accepted.cells_per_thread);
      } catch (const InvalidRequest&) {
        // The solver keeps what it has; the read-back below reports it.
      }
    }
    in_force = {m_gpu->block(), m_gpu->grid(), m_gpu->cells_per_thread()};
  } else {
    in_force.block = m_accepted.block;
    in_force.cells_per_thread = m_accepted.cells_per_thread;
    in_force.grid = m_accepted.grid.value_or(
        covering_grid(heat::cells_of(m_accepted.block, m_accepted.cells_per_thread), domain));
  }
  m_model.launch = in_force;
  if (m_user_kernel) m_model.user_kernel_figures = m_user_kernel->figures(in_force.block).text();
  // The same rule as GpuSolver::coverage(); on the CPU path the fallback computes exactly these cells.
  m_model.coverage =
      coverage_of(in_force.grid, heat::cells_of(in_force.block, in_force.cells_per_thread), domain);
  apply_temporal();
  m_samples.clear();
  m_history.clear();
  m_model.timing_nx = m_params.nx;
  m_model.timing_ny = m_params.ny;
}

// Temporal blocking (steps fused per pass): the GPU's built-in step only; the user's kernel and the CPU
// fallback take one step at a time (the fallback's field is the same either way).
void HeatLab::apply_temporal() {
  m_model.temporal = {};
  if (!m_gpu) return;
  const int want = m_user_kernel ? 1 : std::clamp(m_model.fused_steps, 1, heat::k_max_fused_steps);
  try {
    if (want != m_gpu->fused_steps()) m_gpu->set_fused_steps(want);
  } catch (const InvalidRequest& e) {
    m_model.launch_error += std::string(m_model.launch_error.empty() ? "" : "; ") + e.what() +
                            " - one step per pass runs instead";
    m_gpu->set_fused_steps(1);
  }
  if (!m_gpu->fused_active()) return;
  const heat::TemporalTile t{m_gpu->tile_shape(), m_gpu->fused_steps()};
  const heat::TemporalCost c = heat::temporal_cost(t, m_params.nx, m_params.ny);
  m_model.temporal = {t.steps, heat::to_string(t.shape), c.computed_per_useful(), c.bytes_per_update()};
  m_model.coverage = m_gpu->coverage();  // the tiles compute every cell
}

void HeatLab::paint_stroke(double x0, double y0, double x1, double y1, float value) {
  const heat::Stroke s{x0, y0, x1, y1, m_model.brush_radius, value};
  ++m_field_epoch;
  if (m_gpu)
    m_gpu->paint(s);
  else
    heat::apply_stroke_cpu(m_cpu_field, m_params.nx, m_params.ny, s);
  m_range_lo = std::min(m_range_lo, value);
  m_range_hi = std::max(m_range_hi, value);
  m_dirty = true;
}

void HeatLab::simulate(int steps) {
  if (steps <= 0) return;
  if (m_sim_mode) {
    // The user's heat_step in the simulator: a step at a time on a worker; counted when it finishes.
    if (!m_sim.running() && !m_sim_halted) start_sim_step();
    return;
  }
  if (m_gpu) {
    m_gpu->step(steps);
  } else {
    // CPU fallback: all threads, within a time budget per frame; only the cells the launch covers, as the
    // GPU kernel would (the hatched cells keep their values).
    const auto t0 = std::chrono::steady_clock::now();
    int done = 0;
    while (done < steps) {
      heat::step_cpu(m_cpu_field.data(), m_cpu_tmp.data(), m_params, heat::CpuMode::AllThreads,
                     m_model.coverage);
      m_cpu_field.swap(m_cpu_tmp);
      ++done;
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (ms > k_cpu_frame_budget_ms) break;
    }
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    m_samples.push(ms / done);
    m_history.push_back(ms / done);
    steps = done;
  }
  m_steps_done += steps;
  m_sim_time += static_cast<double>(steps) * m_params.dt;
  m_dirty = true;
}

void HeatLab::collect_timings() {
  if (!m_gpu) return;
  for (double ms : m_gpu->poll_step_ms()) {
    m_samples.push(ms);
    m_history.push_back(ms);
  }
}

void HeatLab::upload_field() {
  if (!m_dirty) return;
  if (m_gpu)
    m_presenter.present_device(m_gpu->device_field(), m_gpu->stream_handle());
  else
    m_presenter.present_host(m_cpu_field.data());
  m_dirty = false;
}

std::vector<float> HeatLab::field() {
  return m_gpu ? m_gpu->download() : m_cpu_field;
}

void HeatLab::start_cpu_job(int i) {
  const heat::CpuMode mode = i == 0 ? heat::CpuMode::OneThread : heat::CpuMode::AllThreads;
  auto result = std::make_shared<heat::BenchRow>();
  m_cpu[i].result = result;
  m_cpu[i].nx = m_params.nx;
  m_cpu[i].ny = m_params.ny;
  m_model.cpu[i].status.clear();
  const heat::Params p = m_params;
  const int steps = m_model.cpu_steps;
  m_cpu[i].job.start(heat::cpu_mode_label(mode), [p, mode, steps, result](JobControl& ctl) {
    *result = heat::bench_cpu(p, mode, steps, &ctl);
  });
}

// The copy kernel's bandwidth ceiling, over the field in force with the launch in force (m_model.launch, what
// the kernel runs; never a block the panel rejected, which bench_gpu would refuse).
void HeatLab::measure_copy() {
  if (!m_gpu) return;
  const heat::GpuBench b =
      heat::bench_gpu(m_params, m_model.launch.block, 20, 3, m_model.launch.cells_per_thread);
  m_model.copy_gb_per_s = b.copy_gb_per_s;
  m_model.copy_nx = m_params.nx;
  m_model.copy_ny = m_params.ny;
}

void HeatLab::poll_cpu_jobs() {
  for (int i = 0; i < 2; ++i) {
    CpuSlot& s = m_cpu[i];
    ui::CpuBaselineView& v = m_model.cpu[i];
    poll_job(s.job, v.running, v.progress, v.status, [&] {
      v.ms_per_step = s.result->ms_per_step;
      report_run(m_env, "heat", s.result->variant, false, s.result->ms_per_step,
                 heat::step_work(heat::Params{.nx = s.nx, .ny = s.ny}),
                 std::to_string(s.nx) + "x" + std::to_string(s.ny));
      v.measured_nx = s.nx;
      v.measured_ny = s.ny;
    });
  }
  m_model.paused_for_baseline = cpu_baseline_running();
}

// The launch in force (m_model.launch: the solver's on the GPU, the accepted one on the CPU path) to the
// anatomy views.
void HeatLab::sync_anatomy() {
  HeatAnatomyTarget t;
  t.params = m_params;
  t.block = m_model.launch.block;
  t.grid = m_model.launch.grid;
  t.cells_per_thread = m_model.launch.cells_per_thread;
  if (t.block.x < 1 || t.block.y < 1 || t.grid.x < 1 || t.grid.y < 1) return;
  m_anatomy.set_target(t, m_params.nx, m_params.ny);
}

// Space: pause / run; R: reset the field. Not while typing into a text field, nor with a modifier (Ctrl+R
// and friends belong to others).
void HeatLab::handle_keys() {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput || io.KeyCtrl || io.KeyAlt || io.KeySuper) return;
  // ImGui 1.86 indexes keys by the GLFW key code.
  if (ImGui::IsKeyPressed(GLFW_KEY_SPACE, false)) m_model.paused = !m_model.paused;
  if (ImGui::IsKeyPressed(GLFW_KEY_R, false)) m_actions.reset = true;
}

void HeatLab::draw_hover(int64_t x, int64_t y) {
  // The value is read in update(): shown once it belongs to this very cell.
  std::optional<float> value;
  if (m_hover_value && m_hover_value->x == x && m_hover_value->y == y) value = m_hover_value->value;
  m_hover_lines = heat_hover_lines(m_model.launch, m_params.nx, m_params.ny, x, y, value, m_gpu != nullptr);
  if (m_hover_lines.empty()) return;
  if (m_gpu && m_gpu->fused_active()) {
    // The tiles of the fused kernel compute the cell, not the one-step launch above.
    m_hover_lines.resize(1);
    for (std::string& l : temporal_hover_lines({m_gpu->tile_shape(), m_gpu->fused_steps()}, x, y))
      m_hover_lines.push_back(std::move(l));
  }
  ImGui::BeginTooltip();
  for (const std::string& l : m_hover_lines)
    ImGui::TextUnformatted(l.c_str());
  ImGui::EndTooltip();
}

void HeatLab::draw_ui() {
  m_actions = {};
  m_model.nx = m_params.nx;
  m_model.ny = m_params.ny;
  sync_anatomy();
  m_anatomy.handle_keys();
  handle_keys();
  // Read-outs for the panel.
  m_model.step_ms = m_samples.summary();
  if (m_gpu && m_model.step_ms.count > 0)
    report_run(m_env, "heat", m_gpu->has_step_override() ? "user step kernel" : "GPU stencil", true,
               m_model.step_ms.median, heat::step_work(m_params),
               std::to_string(m_params.nx) + "x" + std::to_string(m_params.ny));
  m_model.first_step_ms = m_samples.first_sample();
  m_model.warmup_discarded = m_samples.discarded();
  m_model.steps_done = m_steps_done;
  m_model.simulated_time = m_sim_time;
  while (m_history.size() > 240)
    m_history.pop_front();
  m_model.history_x.clear();
  m_model.history_ms.clear();
  m_model.history_lo.clear();
  m_model.history_hi.clear();
  for (size_t i = 0; i < m_history.size(); ++i) {
    m_model.history_x.push_back(static_cast<double>(i));
    // The line and its band over the same window, the 15 batches ending here: median, p10-p90 (so the band
    // always holds the line, and one slow batch shows as a band, not as a spike nobody can read).
    const size_t from = i >= 14 ? i - 14 : 0;
    const std::vector<double> win(m_history.begin() + static_cast<std::ptrdiff_t>(from),
                                  m_history.begin() + static_cast<std::ptrdiff_t>(i + 1));
    const Summary s = summarize(win);
    m_model.history_ms.push_back(s.median);
    m_model.history_lo.push_back(s.p10);
    m_model.history_hi.push_back(s.p90);
  }
  poll_cpu_jobs();

  m_hover_request.reset();
  m_hover_lines.clear();
  if (begin_window("Heat field", Slot::View)) {
    if (m_model.auto_range) {
      m_model.range[0] = m_range_lo;
      m_model.range[1] = m_range_hi;
    }
    ui::FieldViewInput in;
    in.texture = m_view_texture;
    in.nx = static_cast<int>(m_params.nx);
    in.ny = static_cast<int>(m_params.ny);
    in.colormap = m_model.colormap;
    in.range_min = m_model.range[0];
    in.range_max = m_model.range[1];
    in.caption = std::to_string(m_params.nx) + "x" + std::to_string(m_params.ny) + " cells, " +
                 to_string(m_env.path.path) + (m_model.coverage.full() ? "" : ", hatched cells: no thread");
    in.cell_tooltip = false;  // the hover read-out below says more
    const ImVec2 image_origin = ImGui::GetCursorScreenPos();
    const ui::FieldViewResult r = ui::draw_field_view(in);
    m_view_w = r.image_w;
    m_view_h = r.image_h;
    m_image_rect[0] = image_origin.x;
    m_image_rect[1] = image_origin.y;
    m_image_rect[2] = static_cast<float>(r.image_w);
    m_image_rect[3] = static_cast<float>(r.image_h);
    // The hover read-out, then the anatomy's own hover lines only where they add something (the SM and the
    // run time of the block, from an instrumented run): its blockIdx / threadIdx lines would repeat ours.
    std::optional<double> anatomy_x, anatomy_y;
    if (r.hovered && r.cell_x && r.cell_y) {
      const auto hx = static_cast<int64_t>(std::floor(*r.cell_x)),
                 hy = static_cast<int64_t>(std::floor(*r.cell_y));
      if (hx >= 0 && hy >= 0 && hx < m_params.nx && hy < m_params.ny) {
        m_hover_request = {hx, hy};
        draw_hover(hx, hy);
      }
      if (m_anatomy.mode() == anatomy::OverlayMode::Sm ||
          m_anatomy.mode() == anatomy::OverlayMode::BlockTime) {
        anatomy_x = r.cell_x;
        anatomy_y = r.cell_y;
      }
    }
    draw_marked_cells(image_origin.x, image_origin.y, static_cast<float>(r.image_w),
                      static_cast<float>(r.image_h));
    m_anatomy.draw_on_field(image_origin,
                            ImVec2(static_cast<float>(r.image_w), static_cast<float>(r.image_h)), anatomy_x,
                            anatomy_y);
    // Painting touches the GPU, so it happens in update(), outside the ImGui window. Each frame the button is
    // held paints the segment from the last frame's mouse position: a fast drag leaves a stroke, not dots.
    if (r.cell_x && r.cell_y && (r.paint_hot || r.paint_cold)) {
      const bool hot = r.paint_hot;
      const double x = *r.cell_x, y = *r.cell_y;
      const bool continues = m_drag && m_drag->hot == hot;
      m_paint = PaintRequest{continues ? m_drag->x : x, continues ? m_drag->y : y, x, y,
                             hot ? m_model.brush_hot : m_model.brush_cold};
      m_drag = Drag{x, y, hot};
    } else {
      m_drag.reset();
    }
  } else {
    m_drag.reset();
  }
  ImGui::End();

  if (begin_window("Heat lab", Slot::Panel)) {
    ui::draw_heat_panel(m_model, m_actions);
    m_anatomy.draw_controls();
  }
  ImGui::End();
  m_anatomy.draw_window();
}

// Loads the user's heat_step when the choice is "user" and a new one was published; drops it otherwise. A
// GpuError (the load on a poisoned context) goes to the app's recovery.
void HeatLab::sync_user_kernel() {
  const bool want = m_model.kernel == 1;
  std::string status;
  UserKernel uk;
  bool sim = false;
  if (want && !m_gpu) {
    // No GPU: the simulator steps the field with the user's kernel (never timed), while the field fits it.
    const SimSettings ss = sim_settings();
    const std::string why =
        m_env.device.available ? std::string("this lab runs on the CPU path") : m_env.device.reason;
    if (!m_env.user_kernels || !m_env.user_kernels->has(kernel::Target::Heat))
      status = "no heat_step yet: write one in the Kernel editor (F9); the CPU step runs";
    else if (auto e = check_settings(kernel::Target::Heat, ss))
      status = "no GPU here (" + why + ") and " + *e + ": the CPU step runs";
    else {
      sim = true;
      status = "no GPU here (" + why +
               "): your heat_step runs in the PTX simulator on this CPU, a step at a time, each step checked "
               "against the CPU step; simulated, so never timed";
      const uint64_t g = m_env.user_kernels->generation(kernel::Target::Heat);
      if (g != m_sim.generation() && m_sim.generation() != 0) {
        m_sim.cancel();
        m_sim.clear();
        m_sim_halted = false;
      }
    }
  }
  if (sim != m_sim_mode) {
    m_sim_mode = sim;
    m_sim.cancel();
    m_sim_halted = false;
    m_samples.clear();  // CPU-step timings are not the user's kernel's; simulated steps are never timed
    m_history.clear();
  }
  if (want && m_gpu) {
    if (!m_env.user_kernels || !m_env.user_kernels->has(kernel::Target::Heat))
      status = "no heat_step yet: write one in the Kernel editor (F9); the built-in step runs";
    else if (std::string f = m_env.user_kernels->fault_status(kernel::Target::Heat, "the built-in step runs");
             !f.empty())
      status = std::move(f);  // it poisoned the context once: not run again until a new compile
    else
      uk = m_env.user_kernels->current(kernel::Target::Heat);
  }
  if (uk.generation != m_user_generation || (uk.generation == 0 && m_user_kernel)) {
    if (m_gpu) m_gpu->set_step_override({});
    m_user_kernel.reset();
    m_user_generation = 0;
    m_user_busy_since.reset();
    if (uk) {
      try {
        m_user_kernel = std::make_shared<kernel::LoadedKernel>(*uk.result);
        m_user_generation = uk.generation;
        std::shared_ptr<kernel::LoadedKernel> k = m_user_kernel;
        heat::GpuSolver* solver = m_gpu.get();
        m_gpu->set_step_override(
            [k, solver](const float* in, float* out, Dim2 grid, Dim2 block, void* stream) {
              kernel::launch_heat_step(*k, grid, block, in, out, solver->params(), stream);
            });
      } catch (const InvalidRequest& e) {
        status = e.what();
      }
    }
    apply_launch();  // cells per thread: 1 for the user's kernel, the panel's for the built-in
    // Experiment records include the source of the kernel the lab runs.
    if (m_env.user_kernels) m_env.user_kernels->set_in_use(kernel::Target::Heat, m_user_kernel != nullptr);
  }
  if (m_user_kernel && m_env.user_kernels && !m_env.user_kernels->last_failure(kernel::Target::Heat).empty())
    status = "the newest compile failed: the last good heat_step runs";
  m_model.user_kernel_running = m_user_kernel != nullptr;
  m_model.user_kernel_status = status;
}

// The launch in force, its hand-set grid included: the simulator runs the blocks the GPU would (too few leave
// cells unwritten, too many run threads past the field), not the covering grid.
SimSettings HeatLab::sim_settings() const {
  SimSettings s{m_params.nx, m_params.ny, 0, static_cast<int>(m_model.launch.block.x),
                static_cast<int>(m_model.launch.block.y)};
  if (m_model.manual_grid) {
    s.grid_x = m_model.launch.grid.x;
    s.grid_y = m_model.launch.grid.y;
  }
  return s;
}

void HeatLab::start_sim_step() {
  LabSimRequest r;
  r.target = kernel::Target::Heat;
  r.settings = sim_settings();
  r.inputs.heat = m_params;
  r.inputs.field = m_cpu_field;
  m_sim_input = m_cpu_field;
  m_sim_epoch = m_field_epoch;
  if (!m_sim.start(m_env.user_kernels->current(kernel::Target::Heat), std::move(r))) m_sim_halted = true;
}

// The finished step becomes the field (cells no thread wrote keep their value, as on the GPU's ping-pong
// buffers the hatched cells do) unless the field was reset or painted meanwhile; a failing step halts.
void HeatLab::take_sim_step() {
  const std::shared_ptr<const SimOutcome> o = m_sim.outcome();
  if (!m_sim.view().passed) m_sim_halted = true;
  if (!o || !o->ran || m_sim_epoch != m_field_epoch || o->output.size() != m_cpu_field.size()) return;
  for (size_t i = 0; i < m_cpu_field.size(); ++i)
    m_cpu_field[i] = std::isnan(o->output[i]) ? m_sim_input[i] : o->output[i];
  ++m_steps_done;
  m_sim_time += m_params.dt;
  m_dirty = true;
}

std::vector<std::pair<int64_t, int64_t>> HeatLab::marked_cells() const {
  std::vector<std::pair<int64_t, int64_t>> out;
  if (!m_sim_mode || m_params.nx < 1) return out;
  for (const ui::ProblemElements& p : m_sim.problems()) {
    if (p.name != "out") continue;
    for (uint64_t e : p.elements)
      if (e < static_cast<uint64_t>(m_params.cells()))
        out.emplace_back(static_cast<int64_t>(e % static_cast<uint64_t>(m_params.nx)),
                         static_cast<int64_t>(e / static_cast<uint64_t>(m_params.nx)));
  }
  return out;
}

// The marked cells as outlined squares over the field image (at least 3 px, so one cell of a big field shows).
void HeatLab::draw_marked_cells(float x0, float y0, float w, float h) const {
  const std::vector<std::pair<int64_t, int64_t>> cells = marked_cells();
  if (cells.empty() || m_params.nx < 1 || m_params.ny < 1) return;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float sx = w / static_cast<float>(m_params.nx), sy = h / static_cast<float>(m_params.ny);
  const float ex = std::max(sx, 3.0f), ey = std::max(sy, 3.0f);
  for (const auto& [x, y] : cells) {
    const float cx = x0 + static_cast<float>(x) * sx, cy = y0 + static_cast<float>(y) * sy;
    dl->AddRect(ImVec2(cx, cy), ImVec2(cx + ex, cy + ey), IM_COL32(80, 255, 255, 230));
  }
}

// While the user's steps of earlier frames still run, the frame issues no more and draws what it has: a
// kernel that takes too long is reported by the deadline instead of freezing the window.
bool HeatLab::user_steps_running() {
  if (!m_user_kernel || !m_gpu) return false;
  if (kernel::work_done(m_gpu->stream_handle(), m_user_kernel->name())) {
    m_user_busy_since.reset();
    return false;
  }
  const auto now = std::chrono::steady_clock::now();
  if (!m_user_busy_since) m_user_busy_since = now;
  if (now - *m_user_busy_since > std::chrono::duration<double>(kernel::k_default_timeout_s)) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.0f s", kernel::k_default_timeout_s);
    throw GpuError(kernel::fault_message(m_user_kernel->name(),
                                         std::string("did not finish within ") + buf +
                                             "; a running kernel cannot be stopped without a device reset"),
                   0, true);
  }
  return true;
}

void HeatLab::update() {
  try {
    update_frame();
  } catch (const GpuError& e) {
    // A fault while the user's kernel runs is the user's kernel's: say so (the recovery shows the message).
    const std::string what = e.what();
    if (m_user_kernel && e.sticky() && m_env.user_kernels)
      m_env.user_kernels->note_fault(kernel::Target::Heat, m_user_generation, what);
    if (m_user_kernel && what.find("user kernel") == std::string::npos)
      throw GpuError(kernel::fault_message(m_user_kernel->name(), what), e.code(), e.sticky());
    throw;
  }
}

void HeatLab::update_frame() {
  try {
    if (m_actions.apply_size) apply_size();
    if (m_actions.physics_changed) apply_physics();
    if (m_actions.launch_changed) apply_launch();
    sync_user_kernel();
    if (m_actions.reset) reset_field();
    if (m_actions.user_sim.cancel) m_sim.cancel();
    if (m_actions.step_once) m_sim_halted = false;
    if (m_sim.poll()) take_sim_step();
    m_model.user_sim = m_sim.view();
    if (m_sim_mode) m_model.user_kernel_running = true;
    for (int i = 0; i < 2; ++i) {
      if (m_actions.run_cpu[i]) start_cpu_job(i);
      if (m_actions.cancel_cpu[i]) m_cpu[i].job.cancel();
    }
    if (m_actions.measure_copy) measure_copy();
    if (m_paint) paint_stroke(m_paint->x0, m_paint->y0, m_paint->x1, m_paint->y1, m_paint->value);
    m_paint.reset();
    // The anatomy block-size sweep times the stencil on the GPU, and a CPU baseline times the CPU: the live
    // run pauses meanwhile, so that it does not disturb them.
    const bool baseline = cpu_baseline_running();
    m_model.paused_for_baseline = baseline;
    int steps = m_model.paused || m_anatomy.sweeping() || baseline ? 0 : m_model.steps_per_frame;
    if (m_actions.step_once && !baseline) steps += 1;
    const bool user_busy = user_steps_running();
    if (!user_busy) simulate(steps);
    collect_timings();
    if (!user_busy) upload_field();
    // The hover read-out's value: one cell, once per frame, only while the mouse is over the field.
    if (m_hover_request && !user_busy) {
      const auto [hx, hy] = *m_hover_request;
      if (hx < m_params.nx && hy < m_params.ny) {
        const float v =
            m_gpu ? m_gpu->read_cell(hx, hy) : m_cpu_field[static_cast<size_t>(hy * m_params.nx + hx)];
        m_hover_value = CellValue{hx, hy, v};
      }
    }
    m_anatomy.update();
    m_model.runtime_error.clear();
  } catch (const InvalidRequest& e) {
    set_error(e.what());
  }
  gl::FieldStyle& style = m_field_style;
  style.range_min = m_model.range[0];
  style.range_max = m_model.range[1];
  style.colormap = m_model.colormap;
  style.covered_x = m_model.coverage.covered_x;
  style.covered_y = m_model.coverage.covered_y;
  style.block_lines = m_model.block_lines;
  // The blocks of the launch in force, each covering block.y * cells_per_thread rows.
  style.block_x = m_model.launch.block.x;
  style.block_y = m_model.launch.block.y * m_model.launch.cells_per_thread;
  if (m_gpu && m_gpu->fused_active()) {
    // Fused passes: the lines bound each tile's output region (the tiles' halos overlap across them).
    const heat::TemporalTile t{m_gpu->tile_shape(), m_gpu->fused_steps()};
    style.block_x = t.out_width();
    style.block_y = t.out_height();
  }
  m_view_texture = m_presenter.render(m_view_w, m_view_h, style);
}

}  // namespace bs
