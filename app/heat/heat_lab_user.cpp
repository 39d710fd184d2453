// heat_lab_user.cpp: the heat lab's user kernel (see heat_lab.h): the user's heat_step from the Kernel editor
// in place of the built-in step on the GPU (loaded when a new one is published, watched for a deadline), and
// without a GPU the PTX simulator stepping the field with it, each step checked, the cells it got wrong
// marked over the field.
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include "app/heat/heat_lab.h"
#include "app/kernel/user_kernels.h"
#include "core/error.h"
#include "gpu/kernel/lab_runs.h"

namespace bs {

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
    else if (std::string f = m_env.user_kernels->fault_status(kernel::Target::Heat, "the CPU step runs");
             !f.empty())
      status = std::move(f);  // it faulted on the GPU (which this lab then lost): not stepped here either
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

}  // namespace bs
