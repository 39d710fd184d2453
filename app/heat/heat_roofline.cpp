// heat_roofline.cpp: what `blockscope roofline` times for the heat lab (its descriptor's roofline_runs): the
// GPU stencil and the all-threads CPU baseline at the bench size.
#include <string>

#include "app/roofline/roofline_report.h"
#include "gpu/heat/heat.h"
#include "gpu/heat/heat_work.h"

namespace bs {

void heat_roofline_runs(const LabEnv& env, bool gpu, bool quick) {
  heat::Params p;
  p.nx = p.ny = quick ? 512 : 4096;
  const std::string size = std::to_string(p.nx) + "x" + std::to_string(p.ny);
  if (gpu) {
    const heat::GpuBench b = heat::bench_gpu(p, heat::k_default_block, quick ? 10 : 100, 5);
    report_run(env, "heat", "GPU stencil", true, b.stencil.ms_per_step, heat::step_work(p), size);
  }
  const heat::BenchRow c = heat::bench_cpu(p, heat::CpuMode::AllThreads, quick ? 2 : 3);
  report_run(env, "heat", c.variant, false, c.ms_per_step, heat::step_work(p), size);
}

}  // namespace bs
