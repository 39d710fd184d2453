// matmul_tc_timing.h: the tensor-core rungs timed in the matmul lab (the section's "time the rungs" button):
// bench_tc (gpu/matmul/tc.h) at the lab's size on the lab's A and B, on the lab's worker (progress, cancel), then
// on the frame thread the section's rows and one roofline point per timed rung, under its precision's roof
// (rung_work, gpu/matmul/matmul_work.h). The same run `blockscope bench matmul --tensor-cores` prints.
#pragma once

#include <string>
#include <vector>

#include "app/lab.h"
#include "core/cpu_job.h"
#include "gpu/matmul/matmul.h"
#include "gpu/matmul/tc.h"
#include "ui/matmul/tc_views.h"

namespace bs::matmul_lab {

struct TcTiming {
  matmul::Problem p;
  matmul::tc::TcBenchResult result;
};

// Why the lab cannot time the rungs here ("" when it can): the CPU path, or no CUDA device.
std::string tc_timing_unavailable(const LabEnv& env);

// On a worker: every rung at `p` (those this GPU cannot run come back skipped with the reason), checked against
// `ref` (the lab's float64 reference; computed when empty), warm-up and median of CUDA-event timings. Throws
// JobCancelled when `ctl` is cancelled, GpuError without a device or on a CUDA failure.
TcTiming time_tc_rungs(const matmul::Problem& p, const std::vector<float>& a, const std::vector<float>& b,
                       matmul::Reference ref, JobControl& ctl);

// On the frame thread: the timing into the section's rows, and each timed rung reported to the roofline.
void take_tc_timing(const LabEnv& env, const TcTiming& t, ui::TcPanelModel& m);

}  // namespace bs::matmul_lab
