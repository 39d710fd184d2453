// lab_sim.h: a lab's user kernel run in the PTX simulator when there is no GPU (the heat lab's "user kernel"
// step, the vector lab's user op, the matmul lab's user rung): simulate_contract (kernel_sim.h) on the lab's
// inputs, on a worker thread with progress and cancel, turned into the panel's view (ui/kernel/
// simulated_run.h) and the output elements the diagnostics concern (the heat field marks them as cells).
// The run is labelled "simulated" and never timed: labs report no milliseconds, roofline point or speedup
// from it. Its verdict is PASS only when the output matches the lab's reference and the simulator found
// nothing (a kernel that writes past its output can still match). "Check on the GPU" (gpu_check.h) runs the
// last simulated kernel and launch under compute-sanitizer in a child process, its report in the same view;
// offered only with a CUDA device and compute-sanitizer on the PATH.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/kernel/gpu_check.h"
#include "app/kernel/kernel_sim.h"
#include "app/kernel/user_kernels.h"
#include "core/cpu_job.h"
#include "ui/kernel/simulated_run.h"
#include "ui/presenter.h"

namespace bs {

struct LabSimRequest {
  kernel::Target target = kernel::Target::Heat;
  SimSettings settings;  // sizes and block (kernel_sim.h's caps apply)
  LabInputs inputs;
  std::string note;  // what the lab capped ("n = 4M of the lab's 16M: ..."), shown with the result
};

class LabSimulation {
 public:
  // The output elements kept for marking (the first ones, ascending).
  static constexpr size_t k_max_problem_elements = 1 << 16;

  LabSimulation();
  LabSimulation(const LabSimulation&) = delete;
  LabSimulation& operator=(const LabSimulation&) = delete;

  // Starts simulating `k` (a published kernel of r.target) on a worker; a run going is cancelled first.
  // False (the reason in view().status) when the kernel has no PTX or its name is missing.
  bool start(const UserKernel& k, LabSimRequest r);
  void cancel() { m_job.cancel(); }
  // Once a frame: the view's progress and, when a run ended, its result. True when a run finished this call.
  bool poll();
  void wait() { m_job.wait(); }
  bool running() const { return m_job.running(); }
  const ui::SimulatedRunView& view() const { return m_view; }
  // The last finished run (null: none) and its problem elements (per buffer, at most k_max_problem_elements).
  std::shared_ptr<const SimOutcome> outcome() const { return m_outcome; }
  const std::vector<ui::ProblemElements>& problems() const { return m_problems; }
  // The generation of the kernel last started (0: none).
  uint64_t generation() const { return m_generation; }
  // The labs' read-out of the last run: {"check", "pass" / "FAIL", "simulated", "<label>: <check>; <the first
  // diagnostic>"}; nullopt before the first. A verdict, never a time.
  std::optional<ui::Readout> readout() const;
  // Forgets the last result (a new kernel, a new size).
  void clear();

  // Whether a CUDA device is usable; until called, the check asks query_device() once (the simulated path
  // is taken without a GPU, or with one when the lab runs on the CPU path by choice).
  void set_gpu(bool available, std::string reason) { m_check.set_gpu(available, std::move(reason)); }
  GpuCheck& gpu_check() { return m_check; }
  // "Check on the GPU" on the last started kernel and launch; false (the reason in view().gpu_report) when
  // it cannot. The view's button does the same through poll().
  bool check_on_gpu();
  bool checking_on_gpu() const { return m_check.running(); }
  void wait_gpu_check() { m_check.wait(); }

 private:
  void take(const LabSimRequest& r, const SimOutcome& o);
  void refresh_gpu_check();

  ui::SimulatedRunView m_view;
  std::shared_ptr<const SimOutcome> m_outcome;
  std::vector<ui::ProblemElements> m_problems;
  uint64_t m_generation = 0;
  // The run in flight (written by the job, taken by poll()).
  struct Pending {
    LabSimRequest request;
    std::string kernel;
    SimOutcome outcome;
  };
  std::shared_ptr<Pending> m_pending;
  std::optional<GpuCheckRequest> m_check_request;  // the last kernel and launch started
  GpuCheck m_check;
  CpuJob m_job;  // last: joined before the state it writes goes
};

}  // namespace bs
