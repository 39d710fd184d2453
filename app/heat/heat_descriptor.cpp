// heat_descriptor.cpp: the heat lab's entry in the lab registry (app/labs.h). Its hooks are declared in
// app/lab_hooks.h; its presets are the assets/presets files whose active_lab is "heat".
#include "app/heat/heat_lab.h"
#include "app/lab_hooks.h"

namespace bs {

const LabDescriptor& heat_lab_descriptor() {
  static const LabDescriptor d{
      .id = "heat", .title = "Heat diffusion", .short_title = "Heat", .schema = &ui::heat_schema(),
      .make = [](LabEnv& env) { return std::make_unique<HeatLab>(env); },
      .check_state = check_heat_state, .sweep_target = &sweep::heat_sweep_target(),
      .register_bench = cli::register_heat_bench, .state_extras = {"anatomy_overlay"},
      .roofline_runs = heat_roofline_runs, .register_anatomy = cli::register_heat_anatomy,
      .shortcuts = {{"left / right drag", "heat field: paint hot / cold"},
                    {"Space / R", "heat lab: pause or run / reset the field"}}};
  return d;
}

}  // namespace bs
