// kernel_simulator.h: the kernel editor's Simulator tab (owned by KernelWorkbench): per target, the launch
// to simulate and the last simulated run (app/kernel/kernel_sim.h) on a LabJob (progress, cancel, the result
// taken once), so the UI never waits; the run's diagnostics as editor markers; the access maps exported as files;
// and "Check on the GPU": with a CUDA device and compute-sanitizer on the PATH, the same kernel through
// `blockscope bench kernel` under compute-sanitizer in a child process, its report shown beside the
// simulator's (without them the button is disabled and says why).
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "app/kernel/gpu_check.h"
#include "app/kernel/kernel_sim.h"
#include "app/shell/lab_jobs.h"
#include "gpu/kernel/compiler.h"
#include "ui/kernel/code_document.h"
#include "ui/kernel/sim_panel.h"

namespace bs {

class KernelSimulator {
 public:
  KernelSimulator();
  ~KernelSimulator();
  KernelSimulator(const KernelSimulator&) = delete;
  KernelSimulator& operator=(const KernelSimulator&) = delete;

  // Whether a GPU is usable (App passes its device query); the GPU check needs one.
  void set_gpu(bool available, std::string reason);
  // Where "Export maps" writes (default ~/blockscope-captures/sim-<time>).
  void set_export_dir(std::string dir) { m_export_dir = std::move(dir); }

  // Starts simulating `compiled` (a good compile of `t`) of source revision `revision`; false with the reason
  // in the status when it cannot (a run already going is cancelled first).
  bool simulate(kernel::Target t, std::shared_ptr<const kernel::CompileResult> compiled, uint64_t revision);
  void cancel();
  // Once a frame: takes a finished run. True when a run of some target finished this call (its markers
  // changed).
  bool update();
  // Blocks until the running simulation ends (tests).
  void wait();

  // Draws the tab for target `t`. `compiled`: the target's last good compile (null: none); `revision`: the
  // document's revision now. Returns the line to jump to in the editor (0: none).
  int draw(kernel::Target t, std::shared_ptr<const kernel::CompileResult> compiled, uint64_t revision,
           const std::string& source);

  // The editor markers of the last run of `t` that was simulated from `revision` (none for another revision).
  std::vector<ui::LineMarker> markers(kernel::Target t, uint64_t revision) const;
  SimSettings& settings(kernel::Target t) { return slot(t).settings; }
  const SimOutcome* outcome(kernel::Target t) const;
  ui::SimPanelModel& model(kernel::Target t) { return slot(t).model; }
  bool running() const { return m_job.running(); }
  // {"running", "status", "ran", "check", "passed", "diagnostics", "selection", "maps": [{"name", "read",
  // "written", "unwritten"}], "gpu_check_enabled", "gpu_check_reason"} of target t (tests, the layout dump).
  nlohmann::json dump(kernel::Target t);

  // The reason "Check on the GPU" is unavailable (empty: it is available).
  std::string gpu_check_unavailable() { return m_gpu_check.unavailable(); }

 private:
  struct Slot {
    SimSettings settings;
    ui::SimPanelModel model;
    std::shared_ptr<SimOutcome> outcome;
    uint64_t revision = 0;  // the source revision the outcome was simulated from
  };
  Slot& slot(kernel::Target t) { return m_slots[static_cast<size_t>(t)]; }
  const Slot& slot(kernel::Target t) const { return m_slots[static_cast<size_t>(t)]; }
  void refresh(kernel::Target t, const kernel::CompileResult* compiled, uint64_t revision);
  // A finished run's outcome into its target's slot (the job's on_done, on the frame thread).
  void take(kernel::Target t, std::shared_ptr<SimOutcome> outcome, uint64_t revision);
  void start_gpu_check(kernel::Target t, const std::string& source);
  void export_maps(kernel::Target t);

  std::array<Slot, 3> m_slots;
  // The simulation (app/shell/lab_jobs.h), shown in its target's slot; its on_done takes the outcome once.
  LabJobs m_jobs;
  LabJob m_job;
  kernel::Target m_job_target = kernel::Target::Heat;
  GpuCheck m_gpu_check;  // "Check on the GPU" (compute-sanitizer in a child process)
  kernel::Target m_gpu_target = kernel::Target::Heat;
  std::string m_export_dir;
};

// The simulator's diagnostics and failure as editor markers ("simulator: out-of-bounds: ...").
std::vector<ui::LineMarker> sim_markers(const SimOutcome& o);

}  // namespace bs
