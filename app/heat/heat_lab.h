// heat_lab.h: the heat lab: a live 2D heat-diffusion field on the GPU (or the CPU fallback), drawn through
// interop or a host copy, with its panel, CPU baselines and timing.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/anatomy/anatomy_window.h"
#include "app/field_presenter.h"
#include "app/kernel/lab_sim.h"
#include "app/lab.h"
#include "app/shell/lab_jobs.h"
#include "core/stats.h"
#include "gpu/heat/heat.h"
#include "ui/heat/heat_panel.h"

namespace bs::kernel {
class LoadedKernel;  // gpu/kernel/kernel_runner.h
}  // namespace bs::kernel

namespace bs {

// The hover read-out for cell (x, y) of an nx x ny field: the cell and its value (nullopt: not read yet), and
// which blockIdx / threadIdx (and which of the thread's cells) computes it under `launch`, through the
// anatomy module's cell mapping; "no thread (outside the grid)" when the grid does not cover it. `gpu` false:
// the CPU fallback runs, and the thread lines say what a GPU would do ("on a GPU: ...").
std::vector<std::string> heat_hover_lines(const ui::HeatLaunch& launch, int64_t nx, int64_t ny, int64_t x,
                                          int64_t y, std::optional<float> value, bool gpu);

// The hover read-out's thread lines while steps are fused: which block and thread of the fused kernel write
// cell (x, y) (the tile whose output region holds it) and which of the thread's rows it is.
std::vector<std::string> temporal_hover_lines(const heat::TemporalTile& t, int64_t x, int64_t y);

// A float as the JSON number a person would have typed: the shortest decimal that reads back as the same
// float, as a double (0.2f gives 0.2, not 0.20000000298023224). Sessions save every float this way.
double float_for_json(float v);

// Checks a saved heat state without a lab: the schema, then the rules across members (a block that fits, a
// grid that covers the field); "labs.heat.<field>: ..." on error.
std::optional<std::string> check_heat_state(const nlohmann::json& state);

class HeatLab final : public Lab {
 public:
  // At the schema's defaults (ui/heat/heat_schema.h); the command line's --size, --block, ... arrive as a
  // start state through load_state (the schema's start_flag parameters).
  explicit HeatLab(LabEnv& env);
  ~HeatLab() override;
  const char* id() const override { return "heat"; }
  const char* title() const override { return "Heat diffusion"; }
  void draw_ui() override;
  void update() override;
  void abandon_gpu() noexcept override;
  void rebuild() override;

  // For tests and headless runs.
  const heat::Params& params() const { return m_params; }
  int64_t steps_done() const { return m_steps_done; }
  const ui::HeatPanelModel& model() const { return m_model; }
  // The field image on screen in the last frame (x, y, w, h in ImGui screen pixels).
  const float* image_rect() const { return m_image_rect; }
  // The current field (downloaded on the GPU path).
  std::vector<float> field();
  // What the panel's controls do, for tests (call between frames): a CPU baseline's run button (0: one
  // thread, 1: all threads) and its cancel button, an edit of the block box.
  void run_cpu_baseline(int i) { start_cpu_job(i); }
  void cancel_cpu_baseline(int i) { m_cpu_job[i].cancel(); }
  bool cpu_baseline_running() const { return m_cpu_job[0].running() || m_cpu_job[1].running(); }
  void edit_block(int bx, int by) {
    m_model.block[0] = bx;
    m_model.block[1] = by;
    apply_launch();
  }
  // The "set grid by hand" checkbox.
  void tick_manual_grid(bool on) {
    ui::set_manual_grid(m_model, on);
    apply_launch();
  }
  // The hover read-out drawn in the last frame (empty when the mouse was not over the field).
  const std::vector<std::string>& hover_lines() const { return m_hover_lines; }
  // The field's style in the last frame (block lines of the launch in force), the panel's "measure copy"
  // button, and whether the field is computed on the GPU.
  const gl::FieldStyle& field_style() const { return m_field_style; }
  void measure_copy_bandwidth() { measure_copy(); }
  bool on_gpu() const { return m_gpu != nullptr; }
  // Without a GPU, the user's heat_step in the simulator: whether a step is being simulated, and the cells
  // (x, y) of the field the last simulated step's diagnostics concern (marked on the field view).
  bool simulating() const { return m_sim.running(); }
  std::vector<std::pair<int64_t, int64_t>> marked_cells() const;

 private:
  void apply_size();
  void apply_physics();
  void apply_launch();
  void apply_temporal();
  void reset_field();
  void simulate(int steps);
  void upload_field();
  void collect_timings();
  void poll_cpu_jobs();
  void start_cpu_job(int i);
  void measure_copy();
  void paint_stroke(double x0, double y0, double x1, double y1, float value);
  void set_error(const std::string& msg);
  void handle_keys();
  void draw_hover(int64_t x, int64_t y);

  LabEnv& m_env;
  ui::HeatPanelModel m_model;
  ui::HeatPanelActions m_actions;
  heat::Params m_params;
  std::vector<float> m_initial;
  std::unique_ptr<heat::GpuSolver> m_gpu;
  std::vector<float> m_cpu_field, m_cpu_tmp;
  FieldPresenter m_presenter;
  gl::FieldStyle m_field_style;
  bool m_dirty = true;
  int m_pending_steps = 0;
  RollingSamples m_samples{120, 3};
  std::deque<double> m_history;
  int64_t m_batches = 0;
  int64_t m_steps_done = 0;
  float m_range_lo = 0, m_range_hi = 1;
  double m_sim_time = 0;  // sum of steps x dt (dt may change during a run)
  // The launch configuration last accepted from the panel (grid nullopt: the covering grid of the field in
  // force). A block the panel rejects never replaces it.
  struct AcceptedLaunch {
    Dim2 block = heat::k_default_block;
    std::optional<Dim2> grid;
    int cells_per_thread = heat::k_default_cells_per_thread;
  };
  AcceptedLaunch m_accepted;
  // The kernel lab's hook (model.kernel = user): the user's heat_step, loaded from LabEnv::user_kernels when
  // its generation changes, runs as the solver's step. m_user_busy_since: when the frame loop first found
  // the user's steps still running (a kernel past k_default_timeout_s is reported, never waited for).
  void sync_user_kernel();
  void update_frame();
  bool user_steps_running();
  std::shared_ptr<kernel::LoadedKernel> m_user_kernel;
  uint64_t m_user_generation = 0;
  std::optional<std::chrono::steady_clock::time_point> m_user_busy_since;
  // No GPU: the user's heat_step steps the field in the simulator (one step per run, on a worker), each step
  // checked against the CPU step; a failing step stops the stepping until a new kernel, Step or Reset.
  void start_sim_step();
  SimSettings sim_settings() const;  // the field and the block in force
  void take_sim_step();
  void draw_marked_cells(float x0, float y0, float w, float h) const;
  bool m_sim_mode = false;
  bool m_sim_halted = false;
  uint64_t m_field_epoch = 0;  // changes when the field is reset or painted (a running step's result is stale)
  uint64_t m_sim_epoch = 0;    // the epoch the running step started from
  std::vector<float> m_sim_input;
  LabSimulation m_sim;
  // Painting: each frame a button is held, a stroke from the previous frame's mouse position to this one's.
  struct PaintRequest {
    double x0, y0, x1, y1;
    float value;
  };
  std::optional<PaintRequest> m_paint;
  struct Drag {
    double x, y;
    bool hot;
  };
  std::optional<Drag> m_drag;
  // Hover read-out: the cell under the mouse is read in update() (a 4-byte copy on the GPU path) and shown
  // from the next frame on.
  struct CellValue {
    int64_t x = -1, y = -1;
    float value = 0;
  };
  std::optional<std::pair<int64_t, int64_t>> m_hover_request;
  std::optional<CellValue> m_hover_value;
  std::vector<std::string> m_hover_lines;
  int m_view_w = 640, m_view_h = 640;
  unsigned m_view_texture = 0;
  float m_image_rect[4] = {0, 0, 0, 0};

  // The CPU baselines (one thread, all threads): started by a click and watched while they run, so a headless
  // update does not drain them.
  LabJobs m_jobs;
  LabJob m_cpu_job[2];
  AnatomyWindow m_anatomy{m_env};  // overlay (key O) and the Anatomy window (key A)
  void sync_anatomy();

  // Sessions and presenter mode (app/session.h, ui/presenter.h).
 public:
  nlohmann::json save_state() const override;
  std::optional<std::string> load_state(const nlohmann::json& state) override;
  ui::HeatPanelModel in_force() const;  // the model with the size and physics in force
  std::vector<ui::Readout> readouts() const override;
  const char* view_window() const override { return "Heat field"; }
};

}  // namespace bs
