// roofline_report.h: how a lab reports a timed run to the session's run log (LabEnv::runs,
// core/work_model.h), one call where the lab produces its timing. The roofline window and `blockscope
// roofline` read the log.
#pragma once

#include <string>

#include "app/lab.h"
#include "core/work_model.h"

namespace bs {

// Records one run of `ms` milliseconds (a median where the lab takes one) doing `w`: label "lab: variant,
// size" (size may be empty), device the GPU's name or "CPU". Nothing happens when env.runs is null or ms is
// not positive.
void report_run(const LabEnv& env, const char* lab, const std::string& variant, bool gpu, double ms,
                const work::Work& w, const std::string& size = {});

}  // namespace bs
