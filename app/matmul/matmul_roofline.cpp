// matmul_roofline.cpp: what `blockscope roofline` times for the matmul lab (its descriptor's roofline_runs):
// every GPU variant at the bench size, the tensor-core rungs this GPU runs (each under its precision's roof),
// OpenBLAS, and the blocked CPU baseline at a quarter of the size.
#include <algorithm>
#include <string>
#include <vector>

#include "app/roofline/roofline_report.h"
#include "gpu/matmul/matmul.h"
#include "gpu/matmul/matmul_work.h"
#include "gpu/matmul/tc.h"

namespace bs {

void matmul_roofline_runs(const LabEnv& env, bool gpu, bool quick) {
  namespace mm = matmul;
  const int64_t d = quick ? 256 : mm::k_bench_dim;
  const mm::Problem p{d, d, d};
  const auto a = mm::make_matrix(d, d, 1), b = mm::make_matrix(d, d, 2);
  mm::Reference ref;
  const std::string size = mm::to_string(p);
  if (gpu) {
    std::vector<mm::Variant> vs;
    for (const auto& v : mm::gpu_variants())
      vs.push_back(v.id);
    const mm::GpuBenchResult r = mm::bench_gpu(p, a, b, ref, vs, 5, quick ? 0.2 : 0.5);
    for (const auto& row : r.rows)
      report_run(env, "matmul", row.variant, true, row.ms.median, mm::run_work(p), size);
    const mm::tc::TcBenchResult t = mm::tc::bench_tc(p, a, b, ref, {}, 5, quick ? 0.2 : 0.5);
    for (const auto& row : t.rows)
      if (row.skipped.empty())
        report_run(env, "matmul", row.rung->name, true, row.ms.median, mm::rung_work(p, row.rung->precision), size);
  }
  for (mm::CpuVariant v : {mm::CpuVariant::OpenBlas, mm::CpuVariant::Blocked}) {
    // The blocked baseline at a quarter of the size (seconds at 4096 on a few cores).
    const int64_t cd = v == mm::CpuVariant::Blocked ? std::max<int64_t>(d / 4, 64) : d;
    const mm::Problem cp{cd, cd, cd};
    const auto ca = cd == d ? a : mm::make_matrix(cd, cd, 1), cb = cd == d ? b : mm::make_matrix(cd, cd, 2);
    const mm::BenchRow row = mm::bench_cpu(v, cp, ca, cb, mm::Reference{}, 2, 1.0);
    report_run(env, "matmul", row.variant, false, row.ms.median, mm::run_work(cp), mm::to_string(cp));
  }
}

}  // namespace bs
