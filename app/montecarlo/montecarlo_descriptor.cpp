// montecarlo_descriptor.cpp: the Monte Carlo lab's entry in the lab registry (app/labs.h). Its hooks are declared in
// app/lab_hooks.h; its presets are the assets/presets files whose active_lab is "montecarlo".
#include "app/lab_hooks.h"

namespace bs {

const LabDescriptor& montecarlo_lab_descriptor() {
  static const LabDescriptor d{.id = "montecarlo", .title = "Monte Carlo", .short_title = "M. Carlo",
                               .schema = &ui::montecarlo_schema(), .make = make_montecarlo_lab,
                               .check_state = check_montecarlo_state,
                               .sweep_target = &sweep::montecarlo_sweep_target(),
                               .register_bench = cli::register_montecarlo_bench,
                               .roofline_runs = montecarlo_roofline_runs};
  return d;
}

}  // namespace bs
