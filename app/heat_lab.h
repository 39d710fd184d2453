// heat_lab.h: the heat lab: a live 2D heat-diffusion field on the GPU (or the CPU fallback), drawn through
// interop or a host copy, with its panel, CPU baselines and timing.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "app/anatomy_window.h"
#include "app/field_presenter.h"
#include "app/lab.h"
#include "gpu/common/cpu_job.h"
#include "gpu/common/stats.h"
#include "gpu/heat/heat.h"
#include "ui/heat_panel.h"

namespace bs {

struct HeatLabOptions {
  int64_t nx = 1024, ny = 1024;
  Dim2 block{64, 4};
  int cells_per_thread = heat::k_default_cells_per_thread;
  std::optional<Dim2> grid;
  int steps_per_frame = 10;
  anatomy::OverlayMode overlay = anatomy::OverlayMode::Off;  // --overlay: the anatomy overlay at start
};

class HeatLab final : public Lab {
 public:
  HeatLab(LabEnv& env, const HeatLabOptions& opt);
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

 private:
  void apply_size();
  void apply_physics();
  void apply_launch();
  void reset_field();
  void simulate(int steps);
  void upload_field();
  void collect_timings();
  void poll_cpu_jobs();
  void start_cpu_job(int i);
  void paint(double cx, double cy, float value);
  void set_error(const std::string& msg);

  LabEnv& m_env;
  ui::HeatPanelModel m_model;
  ui::HeatPanelActions m_actions;
  heat::Params m_params;
  std::vector<float> m_initial;
  std::unique_ptr<heat::GpuSolver> m_gpu;
  std::vector<float> m_cpu_field, m_cpu_tmp;
  FieldPresenter m_presenter;
  bool m_dirty = true;
  int m_pending_steps = 0;
  RollingSamples m_samples{120, 3};
  std::deque<double> m_history;
  int64_t m_batches = 0;
  int64_t m_steps_done = 0;
  float m_range_lo = 0, m_range_hi = 1;
  struct PaintRequest {
    double x, y;
    float value;
  };
  std::optional<PaintRequest> m_paint;
  int m_view_w = 640, m_view_h = 640;
  unsigned m_view_texture = 0;

  struct CpuSlot {
    CpuJob job;
    std::shared_ptr<heat::BenchRow> result;
    int64_t cells = 0;
  };
  CpuSlot m_cpu[2];
  AnatomyWindow m_anatomy{m_env};  // overlay (key O) and the Anatomy window (key A)
  void sync_anatomy();

  // Sessions and presenter mode (app/session.h, ui/presenter.h).
 public:
  nlohmann::json save_state() const override;
  std::optional<std::string> load_state(const nlohmann::json& state) override;
  std::vector<ui::Readout> readouts() const override;
  const char* view_window() const override { return "Heat field"; }
};

}  // namespace bs
