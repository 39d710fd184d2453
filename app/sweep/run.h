// run.h: planning and running a sweep. plan_sweep() decides, before anything runs, which series run on this
// machine, what values stand in or are dropped, and how long it may take; run_plan() runs every point
// (warm-up excluded, R timed repetitions, every raw sample kept) with progress, ETA, cancel and GPU errors.
// Pure C++ (no CUDA, no ImGui): the CLI, the Sweep window and the tests share it.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "app/sweep/definition.h"
#include "app/sweep/export.h"
#include "app/sweep/target.h"
#include "core/cpu_job.h"
#include "gpu/common/device_info.h"

namespace bs::sweep {

struct Progress {
  size_t point = 0, points = 0;  // points completed so far, of all
  double fraction = 0;           // work done / work total (work: the lab's cost estimate of each point)
  double elapsed_s = 0;
  double eta_s = -1;  // < 0: not known yet
  std::string line;   // "point 3/12 block.x=64 size=2048: GPU stencil 0.0123 ms ..." (for stderr / the UI)
};
using ProgressFn = std::function<void(const Progress&)>;

// Seconds left, from the time spent per unit of work so far; < 0 until some work is done.
double estimate_eta(double elapsed_s, double work_done, double work_total);

// What a sweep will do on this machine, decided before it starts: which series run, the definition that
// actually runs (values that cannot run on the chosen device dropped or, where no GPU exists and the device
// was not chosen as cpu, replaced by the lab's CPU equivalents), notes that say so, and a conservative
// duration estimate.
struct Plan {
  Definition definition;  // what runs; its device is resolved (auto -> gpu or cpu)
  bool run_gpu = false;
  bool run_cpu = false;
  bool cpu_explicit = false;   // device cpu: CPU series run even where they are slow
  bool named_explicit = true;  // false where CPU values stand in for GPU ones: the CPU guards still apply
  std::string gpu_name;
  std::vector<std::string> notes;           // "no GPU here (...): this sweep runs on the CPU", ...
  std::vector<std::string> ignored_params;  // swept, but no series that runs depends on them
  double estimate_s = 0;                    // conservative: the real run is usually shorter
};
// Above this estimate the Sweep window asks before running and the CLI refuses without --force.
constexpr double k_confirm_above_s = 600;

// Validates, then plans against `dev` (query_device() in the app and the CLI). Throws bs::InvalidRequest when
// the definition is bad or nothing of it can run on the chosen device (e.g. only GPU variants with device
// cpu: the message names them and what can run), std::runtime_error for device gpu without a GPU.
Plan plan_sweep(const Definition& d, const bs::DeviceInfo& dev);
// "3.5 min", "42 s", "2.1 h"
std::string duration_text(double seconds);

// Plans against query_device() (plan_sweep: validation, notes, values that cannot run), then runs every
// point. Device::Gpu without a usable GPU throws std::runtime_error with the reason; Device::All without one
// runs the CPU series and notes why the GPU ones were skipped; Device::Auto without one runs the CPU series
// and says so. The result's definition is the plan's (device resolved). Cancellation through `ctl` returns
// the completed points with `cancelled` set. A CUDA error at a point is recorded in that point; a sticky one
// stops the sweep (`stopped`). Progress goes to ctl (fraction) and to `on_progress` after every point.
Result run_sweep(const Definition& d, JobControl& ctl, const ProgressFn& on_progress = {});
// Runs a plan made by plan_sweep() (the window and the CLI plan first, to show notes and the estimate).
Result run_plan(const Plan& plan, JobControl& ctl, const ProgressFn& on_progress = {});

// run_sweep(), plan_sweep() and run_plan() against a given target (a test's stand-in, or one already looked
// up). d.lab is not looked up.
Result run_sweep_with(const Target& t, const Definition& d, JobControl& ctl,
                      const ProgressFn& on_progress = {});
Plan plan_with(const Target& t, const Definition& d, const DeviceInfo& dev);
Result run_plan_with(const Target& t, const Plan& plan, JobControl& ctl, const ProgressFn& on_progress = {});

}  // namespace bs::sweep
