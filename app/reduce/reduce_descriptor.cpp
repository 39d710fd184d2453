// reduce_descriptor.cpp: the reduction and scan lab's entry in the lab registry (app/labs.h). Its hooks are declared in
// app/lab_hooks.h; its presets are the assets/presets files whose active_lab is "reduce".
#include "app/lab_hooks.h"

namespace bs {

const LabDescriptor& reduce_lab_descriptor() {
  // register_bench adds both `bench reduce` and `bench scan`.
  static const LabDescriptor d{.id = "reduce", .title = "Reduction and scan", .short_title = "Reduce/scan",
                               .schema = &ui::reduce_schema(), .make = make_reduce_lab,
                               .check_state = check_reduce_state, .sweep_target = &sweep::reduce_sweep_target(),
                               .register_bench = cli::register_reduce_bench,
                               .state_extras = {"anatomy_map", "anatomy_window"},
                               .roofline_runs = reduce_roofline_runs,
                               .register_anatomy = cli::register_reduce_anatomy};
  return d;
}

}  // namespace bs
