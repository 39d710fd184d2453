// memory_descriptor.cpp: the memory lab's entry in the lab registry (app/labs.h). Its hooks are declared in
// app/lab_hooks.h; its presets are the assets/presets files whose active_lab is "memory".
#include "app/lab_hooks.h"

namespace bs {

const LabDescriptor& memory_lab_descriptor() {
  // state_extras: the picture's warp and instruction (app/memory/memory_lab.h).
  static const LabDescriptor d{.id = "memory", .title = "Memory access", .short_title = "Memory",
                               .schema = &ui::memory_schema(), .make = make_memory_lab,
                               .check_state = check_memory_state, .sweep_target = &sweep::memory_sweep_target(),
                               .register_bench = cli::register_memory_bench, .state_extras = {"warp", "step"},
                               .roofline_runs = memory_roofline_runs};
  return d;
}

}  // namespace bs
