// sweep.h: parameter sweeps over any lab, the whole interface in one include for callers that use most of it
// (the Sweep window, the CLI). A Definition (definition.h) names the lab, one or two swept parameters, fixed
// parameters, warm-up runs, repetitions and the device; plan_sweep() and run_plan() (run.h) run every point
// through the lab's Target (target.h, looked up in targets.h); the Result goes to CSV and JSON (export.h) and
// to a figure (figure.h). Callers that need one part include that part's header.
#pragma once

#include "app/sweep/definition.h"
#include "app/sweep/export.h"
#include "app/sweep/figure.h"
#include "app/sweep/run.h"
#include "app/sweep/target.h"
#include "app/sweep/targets.h"
