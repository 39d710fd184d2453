// memory_descriptor.cpp: the memory lab's entry in the lab registry (app/labs.h): id, titles, schema, how to
// build it, its session checks, sweep target, bench, presets and roofline runs.
#include "app/labs.h"
#include "app/memory/memory_bench.h"
#include "app/memory/memory_lab.h"
#include "app/memory/memory_sweep_target.h"
#include "ui/memory/memory_schema.h"

namespace bs {

void memory_roofline_runs(const LabEnv& env, bool gpu, bool quick);  // app/memory/memory_roofline.cpp

const LabDescriptor& memory_lab_descriptor() {
  static const LabDescriptor d = [] {
    LabDescriptor d;
    d.id = "memory";
    d.title = "Memory access";
    d.short_title = "Memory";
    d.schema = &ui::memory_schema();
    d.register_bench = cli::register_memory_bench;
    d.make = [](LabEnv& env) { return make_memory_lab(env); };
    d.check_state = check_memory_state;
    d.sweep_target = &sweep::memory_sweep_target();
    d.presets = {"memory-transpose", "memory-stride", "memory-banks"};
    d.state_extras = {"warp", "step"};  // the picture's warp and instruction (app/memory/memory_lab.h)
    d.roofline_runs = memory_roofline_runs;
    return d;
  }();
  return d;
}

}  // namespace bs
