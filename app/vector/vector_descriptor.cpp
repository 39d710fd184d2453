// vector_descriptor.cpp: the vector lab's entry in the lab registry (app/labs.h). Its hooks are declared in
// app/lab_hooks.h; its presets are the assets/presets files whose active_lab is "vector".
#include "app/lab_hooks.h"

namespace bs {

const LabDescriptor& vector_lab_descriptor() {
  static const LabDescriptor d{.id = "vector", .title = "Vector", .short_title = "Vector",
                               .schema = &ui::vector_schema(), .make = make_vector_lab,
                               .check_state = check_vector_state, .sweep_target = &sweep::vector_sweep_target(),
                               .register_bench = cli::register_vector_bench,
                               .roofline_runs = vector_roofline_runs, .roofline_check = vector_roofline_check};
  return d;
}

}  // namespace bs
