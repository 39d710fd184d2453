// matmul_lab_user.cpp: the matmul lab's user kernel (see matmul_lab.h): the user's matmul from the Kernel
// editor as one more rung of the ladder, checked and timed on the lab's A and B on a worker; without a GPU,
// run in the PTX simulator on the lab's problem (capped), checked, never timed.
#include <algorithm>
#include <string>

#include "app/matmul/matmul_lab.h"
#include "core/error.h"

namespace bs::matmul_lab {

// Loads the user's matmul when a new one was published; says what the "Run your kernel" button will do.
void MatmulLab::sync_user_kernel() {
  const UserKernelSlot::Update u = m_user.update(m_env.user_kernels, m_gpu != nullptr, m_user_job.running(),
                                                 "the ladder keeps its built-in rungs");
  if (u.loaded) m_user_autorun = true;  // a new kernel: its rung without a click, once the GPU is free
  std::string status = u.status;
  m_model.user_can_simulate = false;
  if (!m_gpu) {
    // No GPU: the simulator runs it (a new kernel without a click), checked like the rung, never timed.
    const UserKernels* uk = m_env.user_kernels;
    m_model.user_can_simulate = uk && uk->has(kernel::Target::Matmul);
    const std::string why = m_env.device.available ? "this lab runs on the CPU path" : "there is none here";
    if (!m_model.user_can_simulate)
      status = "no GPU (" + why + "): write a matmul in the Kernel editor (F9, template 'matmul') and it runs "
               "in the PTX simulator here";
    else
      status = "no GPU (" + why + "): your matmul runs in the PTX simulator on this CPU, checked against the "
               "float64 reference; simulated, so never timed and not a rung of the ladder";
    if (m_model.user_can_simulate && uk->generation(kernel::Target::Matmul) != m_sim.generation())
      start_user_sim();
  } else if (m_user.kernel() && status.empty())
    status = "your matmul (compiled " + m_user.published().compiled_at_text() +
             "): 'Run your kernel' checks and times it on this A and B";
  m_model.user_ready = m_user.kernel() != nullptr;
  m_model.user_running = m_user_job.running();
  m_model.user_figures.clear();
  if (m_user.kernel()) {
    const Dim2 block{m_model.user_block[0], m_model.user_block[1]};
    const Dim2 domain{m_problem.n, m_problem.m};
    if (auto e = kernel::validate_launch(kernel::Target::Matmul, block,
                                         kernel::default_grid(kernel::Target::Matmul, block, domain), domain,
                                         m_env.device.limits))
      m_model.user_figures = *e;
    else if (!m_user_job.running())
      m_model.user_figures = m_user.figures(block);
  }
  // A failed run's message (not a GPU fault: that goes to the recovery) until the next run.
  m_model.user_status = m_user_run_status.empty() ? std::move(status) : m_user_run_status;
}

// The user's matmul in the simulator on the lab's problem (each side capped at 256 so that a run stays within
// seconds) with the rung's block.
void MatmulLab::start_user_sim() {
  if (!m_env.user_kernels || !m_env.user_kernels->has(kernel::Target::Matmul)) return;
  constexpr int64_t k_side = 256;
  LabSimRequest r;
  r.target = kernel::Target::Matmul;
  r.settings = {std::min(m_problem.m, k_side), std::min(m_problem.n, k_side), std::min(m_problem.k, k_side),
                m_model.user_block[0], m_model.user_block[1]};
  if (r.settings.size_x != m_problem.m || r.settings.size_y != m_problem.n || r.settings.size_z != m_problem.k)
    r.note = "each side capped at 256 for the simulator: the lab's problem is " + mm::to_string(m_problem);
  m_sim.start(m_env.user_kernels->current(kernel::Target::Matmul), std::move(r));
  m_model.user_sim = m_sim.view();
}

void MatmulLab::start_user_run() {
  if (!m_gpu || !m_user.kernel() || m_user_job.running()) return;
  drain_gpu();  // nothing else of the lab's on the GPU while the user's kernel is timed
  ensure_reference_gpu();
  const Dim2 block{m_model.user_block[0], m_model.user_block[1]};
  auto task = std::make_shared<UserTask>();
  task->p = m_problem;
  m_user_run_status.clear();
  std::shared_ptr<const kernel::LoadedKernel> k = m_user.kernel();
  std::shared_ptr<const mm::Reference> ref = m_ref;
  const float* a = m_gpu->device_a();
  const float* b = m_gpu->device_b();
  float* c = const_cast<float*>(m_gpu->device_c());  // the lab's C: the user's result is drawn from it
  void* stream = m_gpu->stream_handle();
  // A GPU fault is the user's kernel's (not run again until a new compile) and goes to the recovery.
  m_user_job.start(
      "your matmul",
      [task, k, ref, block, a, b, c, stream](JobControl&) {
        task->run =
            kernel::run_matmul_on(*k, task->p, block, std::nullopt, a, b, c, stream, ref->values, ref->label);
      },
      [this, task] { take_user_run(*task); },
      [this](const GpuError& e) { m_user.note_fault(m_env.user_kernels, e); });
}

// The finished run as the ladder's "user_matmul" rung, its C in the view.
void MatmulLab::take_user_run(const UserTask& t) {
  if (!t.run || !(t.p == m_problem)) return;
  const kernel::UserRun& u = *t.run;
  ui::LadderRow row;
  row.name = k_user_row;
  row.title = "your " + u.kernel + " (block " + to_string(u.block) + ")";
  row.gpu = true;
  row.ms = u.ms;
  row.gflops = u.gflops;
  row.attr.known = true;
  row.attr.regs_per_thread = u.figures.registers;
  row.attr.static_smem_bytes = static_cast<size_t>(u.figures.static_smem_bytes);
  row.attr.local_bytes = static_cast<size_t>(u.figures.local_bytes);
  row.attr.max_threads_per_block = u.figures.max_threads_per_block;
  row.attr.blocks_per_sm = u.figures.blocks_per_sm;
  row.attr.warps_per_sm = u.figures.active_warps;
  row.check = u.matmul_check;
  row.note = "kernel lab: grid " + to_string(u.grid) + ", " + u.figures.text() +
             (u.matmul_check ? "" : "; " + u.check);
  upsert_row(std::move(row));
  m_range = abs_max(u.output);
  m_present_device = true;
  m_dirty = true;
  m_model.c_source = "C below: your " + u.kernel + " on the GPU (magenta cells: never written, still NaN)";
}

}  // namespace bs::matmul_lab
