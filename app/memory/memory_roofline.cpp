// memory_roofline.cpp: what `blockscope roofline` times for the memory lab (its descriptor's roofline_runs):
// each kernel's GPU ladder and its all-threads CPU variants at the bench sizes.
#include <optional>
#include <string>

#include "app/roofline/roofline_report.h"
#include "gpu/memory/memory.h"
#include "gpu/memory/memory_work.h"

namespace bs {

void memory_roofline_runs(const LabEnv& env, bool gpu, bool quick) {
  namespace mem = memory;
  mem::Params p;
  p.rows = p.cols = quick ? 512 : mem::k_bench_dim;
  p.n = quick ? int64_t{1} << 20 : *mem::parse_count(mem::k_bench_n, "n").value;
  for (mem::Kernel k : {mem::Kernel::Transpose, mem::Kernel::Stride, mem::Kernel::Banks, mem::Kernel::Aos}) {
    p.kernel = k;
    const std::string size = k == mem::Kernel::Transpose
                                 ? mem::shape_text(p.rows, p.cols)
                                 : mem::format_count(p.n);
    if (gpu) {
      mem::GpuRunner runner;
      for (const mem::RunResult& r : runner.run_ladder(p, std::nullopt, 5, false))
        report_run(env, "memory", r.label, true, r.ms.median, mem::run_work(p, r.variant), size);
    }
    for (mem::Variant v : mem::cpu_variants_of(k)) {
      const Summary s = mem::time_cpu(p, v, mem::CpuMode::AllThreads, 2);
      report_run(env, "memory", mem::describe(v, p) + ", " + mem::cpu_mode_label(mem::CpuMode::AllThreads),
                 false, s.median, mem::run_work(p, v), size);
    }
  }
}

}  // namespace bs
