// reduce_descriptor.cpp: the reduction and scan lab's entry in the lab registry (app/labs.h): id, titles,
// schema, how to build it, its session checks, bench commands (`bench reduce`, `bench scan`), sweep target,
// presets, roofline runs and anatomy commands.
#include "app/bench.h"
#include "app/labs.h"
#include "app/reduce/reduce_bench.h"
#include "app/reduce/reduce_lab.h"
#include "app/reduce/reduce_sweep_target.h"
#include "ui/reduce/reduce_schema.h"

namespace bs {

namespace cli {
void register_reduce_anatomy(CLI::App& anatomy, BenchContext& ctx);  // app/reduce/reduce_anatomy.cpp
}

void reduce_roofline_runs(const LabEnv& env, bool gpu, bool quick);  // app/reduce/reduce_roofline.cpp

const LabDescriptor& reduce_lab_descriptor() {
  static const LabDescriptor d = [] {
    LabDescriptor d;
    d.id = "reduce";
    d.title = "Reduction and scan";
    d.short_title = "Reduce/scan";
    d.schema = &ui::reduce_schema();
    d.register_bench = cli::register_reduce_bench;
    d.make = [](LabEnv& env) { return make_reduce_lab(env); };
    d.check_state = check_reduce_state;
    d.sweep_target = &sweep::reduce_sweep_target();
    d.presets = {"reduce-ladder", "reduce-scan-ladder"};
    d.state_extras = {"anatomy_map", "anatomy_window"};
    d.roofline_runs = reduce_roofline_runs;
    d.register_anatomy = cli::register_reduce_anatomy;
    return d;
  }();
  return d;
}

}  // namespace bs
