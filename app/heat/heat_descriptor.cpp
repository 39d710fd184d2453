// heat_descriptor.cpp: the heat lab's entry in the lab registry (app/labs.h): id, titles, schema, how
// to build it, its session checks, sweep target, bench, presets and roofline runs.
#include "app/heat/heat_lab.h"
#include "app/heat/heat_sweep_target.h"
#include "app/labs.h"
#include "ui/heat/heat_schema.h"

namespace bs {

namespace cli {
void register_heat_anatomy(CLI::App& anatomy, BenchContext& ctx);  // app/heat/heat_anatomy.cpp
void register_heat_bench(CLI::App& bench, BenchContext& ctx);  // app/heat/heat_bench.cpp
}

void heat_roofline_runs(const LabEnv& env, bool gpu, bool quick);  // app/heat/heat_roofline.cpp

const LabDescriptor& heat_lab_descriptor() {
  static const LabDescriptor d = [] {
    LabDescriptor d;
    d.id = "heat";
    d.title = "Heat diffusion";
    d.short_title = "Heat";
    d.schema = &ui::heat_schema();
    d.make = [](LabEnv& env) { return std::make_unique<HeatLab>(env); };
    d.start_flags = {"size", "block", "cells_per_thread", "grid", "steps_per_frame", "fused_steps"};
    d.check_state = check_heat_state;
    d.sweep_target = &sweep::heat_sweep_target();
    d.register_bench = cli::register_heat_bench;
    d.presets = {"heat-block-sweep"};
    d.state_extras = {"anatomy_overlay"};
    d.roofline_runs = heat_roofline_runs;
    d.shortcuts = {{"left / right drag", "heat field: paint hot / cold"},
                   {"Space / R", "heat lab: pause or run / reset the field"}};
    d.register_anatomy = cli::register_heat_anatomy;
    return d;
  }();
  return d;
}

}  // namespace bs
