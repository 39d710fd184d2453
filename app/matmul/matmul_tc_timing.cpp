// matmul_tc_timing.cpp: see matmul_tc_timing.h.
#include "app/matmul/matmul_tc_timing.h"

#include "app/roofline/roofline_report.h"
#include "gpu/matmul/matmul_work.h"
#include "gpu/matmul/precision.h"

namespace bs::matmul_lab {

namespace mm = bs::matmul;

std::string tc_timing_unavailable(const LabEnv& env) {
  if (env.path.path == RenderPath::Cpu) return "CPU path: " + env.path.reason;
  if (!env.device.available) return "no CUDA device: " + env.device.reason;
  return {};
}

TcTiming time_tc_rungs(const mm::Problem& p, const std::vector<float>& a, const std::vector<float>& b,
                       mm::Reference ref, JobControl& ctl) {
  TcTiming t;
  t.p = p;
  // The bench's own defaults (at least 3 timed runs, about 1.5 s a rung), every rung.
  t.result = mm::tc::bench_tc(p, a, b, ref, {}, 10, 1.5, &ctl);
  return t;
}

void take_tc_timing(const LabEnv& env, const TcTiming& t, ui::TcPanelModel& m) {
  m.timed.clear();
  m.timed_problem = mm::to_string(t.p);
  m.timed_device = t.result.device;
  m.timed_reference = t.result.reference;
  for (const mm::tc::TcRow& row : t.result.rows) {
    ui::TcTimedRow v;
    v.name = row.rung->name;
    v.precision = mm::info(row.rung->precision).name;
    v.skipped = row.skipped;
    if (row.skipped.empty()) {
      v.ms = row.ms.median;
      v.runs = row.runs;
      v.tflops = row.tflops;
      v.pct_cublas = row.pct_cublas;
      v.rel_error = row.error.rel_frobenius;
      v.bound = row.error.bound;
      v.within = row.error.within_bound;
      report_run(env, "matmul", row.rung->name, true, row.ms.median, mm::rung_work(t.p, row.rung->precision),
                 mm::to_string(t.p));
    }
    m.timed.push_back(std::move(v));
  }
}

}  // namespace bs::matmul_lab
