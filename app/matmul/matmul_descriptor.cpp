// matmul_descriptor.cpp: the matmul lab's entry in the lab registry (app/labs.h). Its hooks are declared in
// app/lab_hooks.h; its presets are the assets/presets files whose active_lab is "matmul".
#include "app/lab_hooks.h"

namespace bs {

const LabDescriptor& matmul_lab_descriptor() {
  static const LabDescriptor d{.id = "matmul", .title = "Matmul", .short_title = "Matmul",
                               .schema = &ui::matmul_schema(), .make = make_matmul_lab,
                               .check_state = check_matmul_state, .sweep_target = &sweep::matmul_sweep_target(),
                               .register_bench = cli::register_matmul_bench, .state_extras = {"anatomy_overlay"},
                               .roofline_runs = matmul_roofline_runs,
                               .register_anatomy = cli::register_matmul_anatomy};
  return d;
}

}  // namespace bs
