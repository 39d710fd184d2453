// reduce_roofline.cpp: what `blockscope roofline` times for the reduction lab (its descriptor's
// roofline_runs): reduce and scan, every variant on the GPU (when there is one) and the CPU.
#include <string>

#include "app/roofline/roofline_report.h"
#include "gpu/reduce/reduce.h"
#include "gpu/reduce/reduce_work.h"

namespace bs {

void reduce_roofline_runs(const LabEnv& env, bool gpu, bool quick) {
  namespace rd = reduce;
  for (rd::Op op : {rd::Op::Reduce, rd::Op::Scan}) {
    rd::BenchOptions o;
    o.params.op = op;
    o.params.n = quick ? int64_t{1} << 20 : int64_t{64} << 20;
    o.device = gpu ? rd::Device::All : rd::Device::Cpu;
    o.repetitions = 5;
    o.check = false;
    const rd::BenchResult r = rd::run_bench(o);
    const std::string size =
        std::string(rd::k_op_names.c_name(op)) + " " + std::to_string(o.params.n >> 20) + "M";
    for (const rd::Row& row : r.rows)
      report_run(env, "reduce", row.variant, row.gpu, row.ms.median, rd::run_work(op, o.params.n), size);
  }
}

}  // namespace bs
