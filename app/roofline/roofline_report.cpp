// roofline_report.cpp: see roofline_report.h.
#include "app/roofline/roofline_report.h"

#include <cmath>

namespace bs {

void report_run(const LabEnv& env, const char* lab, const std::string& variant, bool gpu, double ms,
                const work::Work& w, const std::string& size) {
  if (!env.runs || !(ms > 0) || !std::isfinite(ms)) return;
  work::RunRecord r;
  r.lab = lab;
  r.variant = variant;
  r.where = gpu ? work::Where::Gpu : work::Where::Cpu;
  r.device = gpu ? env.device.name : std::string("CPU");
  r.label = std::string(lab) + ": " + variant + (size.empty() ? "" : ", " + size);
  r.seconds = ms * 1e-3;
  r.work = w;
  env.runs->add(std::move(r));
}

}  // namespace bs
