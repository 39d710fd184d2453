// vector_roofline.cpp: what `blockscope roofline` times for the vector lab (its descriptor's roofline_runs:
// add and formula kernels at float and float4 loads, and the all-threads CPU), and its roofline_check: the
// float4 copy kernel the measured DRAM ceiling is compared with.
#include <string>
#include <vector>

#include "app/roofline/roofline_report.h"
#include "core/text.h"
#include "gpu/vector/vector.h"
#include "gpu/vector/vector_work.h"

namespace bs {

void vector_roofline_runs(const LabEnv& env, bool gpu, bool quick) {
  namespace vec = vector;
  const int64_t n = quick ? int64_t{1} << 20 : *vec::parse_count(vec::k_bench_n, "n").value;
  const std::string size = vec::format_count(n);
  if (gpu) {
    vec::GpuRunner runner;
    for (vec::Op op : {vec::Op::Add, vec::Op::Formula})
      for (vec::LoadWidth w : {vec::LoadWidth::Float, vec::LoadWidth::Float4}) {
        vec::Params p;
        p.n = n;
        p.op = op;
        p.width = w;
        p.indexing = vec::Indexing::GridStride;
        const vec::RunResult r = runner.run(p, 5, false);
        report_run(env, "vector", r.variant + " (kernel)", true, r.kernel_ms.median, vec::kernel_work(op, n),
                   size);
      }
  }
  std::vector<float> a(n), b(n), c(n);
  vec::fill_inputs(a.data(), b.data(), n);
  for (vec::Op op : {vec::Op::Add, vec::Op::Formula}) {
    const Summary s = vec::time_cpu(op, a.data(), b.data(), c.data(), n, vec::CpuMode::AllThreads, 3);
    report_run(env, "vector",
               std::string(vec::to_string(op)) + ", " + vec::cpu_mode_label(vec::CpuMode::AllThreads), false,
               s.median, vec::kernel_work(op, n), size);
  }
}

std::string vector_roofline_check(double dram_gbs) {
  vector::GpuRunner vr;
  const vector::CopyKernel ck = vr.copy_kernel(int64_t{64} << 20);
  return "check: the vector bench's float4 copy kernel (64M floats) reaches " + fmt_fixed(ck.gbs, 0) +
         " GB/s; the DRAM ceiling is " + fmt_fixed(100.0 * dram_gbs / ck.gbs, 1) + "% of it";
}

}  // namespace bs
