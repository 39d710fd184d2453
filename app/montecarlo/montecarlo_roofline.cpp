// montecarlo_roofline.cpp: what `blockscope roofline` times for the Monte Carlo lab (its descriptor's
// roofline_runs): the GPU pricer at the bench size and the all-threads CPU at a fifth of the paths.
#include <algorithm>
#include <string>

#include "app/roofline/roofline_report.h"
#include "gpu/montecarlo/montecarlo.h"
#include "gpu/montecarlo/montecarlo_work.h"

namespace bs {

void montecarlo_roofline_runs(const LabEnv& env, bool gpu, bool quick) {
  namespace mc = montecarlo;
  mc::Params p;
  if (quick) p.paths = 20000;
  const std::string size = std::to_string(p.paths) + " paths x " + std::to_string(p.steps) + " steps";
  if (gpu) {
    const mc::BenchRow r = mc::bench_gpu(p, mc::Launch{}, {}, 5);
    report_run(env, "montecarlo", r.variant, true, r.ms, mc::run_work(p), size);
  }
  mc::Params cp = p;
  cp.paths = std::min<int64_t>(p.paths, quick ? 20000 : 200000);  // the CPU at a fifth of the paths
  const mc::BenchRow r = mc::bench_cpu(cp, mc::CpuMode::AllThreads);
  report_run(env, "montecarlo", r.variant, false, r.ms, mc::run_work(cp),
             std::to_string(cp.paths) + " paths x " + std::to_string(cp.steps) + " steps");
}

}  // namespace bs
