// montecarlo_descriptor.cpp: the Monte Carlo lab's entry in the lab registry (app/labs.h): id, titles, schema, how
// to build it, its session checks, sweep target, bench, presets and roofline runs.
#include "app/labs.h"
#include "app/montecarlo/montecarlo_sweep_target.h"
#include "ui/montecarlo/montecarlo_schema.h"

namespace bs {

// app/montecarlo/montecarlo_lab.cpp:
std::unique_ptr<Lab> make_montecarlo_lab(LabEnv& env);
std::optional<std::string> check_montecarlo_state(const nlohmann::json& state);

namespace cli {
void register_montecarlo_bench(CLI::App& bench, BenchContext& ctx);  // app/montecarlo/montecarlo_bench.cpp
}

void montecarlo_roofline_runs(const LabEnv& env, bool gpu, bool quick);  // app/montecarlo/montecarlo_roofline.cpp

const LabDescriptor& montecarlo_lab_descriptor() {
  static const LabDescriptor d = [] {
    LabDescriptor d;
    d.id = "montecarlo";
    d.title = "Monte Carlo";
    d.short_title = "M. Carlo";
    d.schema = &ui::montecarlo_schema();
    d.make = [](LabEnv& env) { return make_montecarlo_lab(env); };
    d.check_state = check_montecarlo_state;
    d.sweep_target = &sweep::montecarlo_sweep_target();
    d.register_bench = cli::register_montecarlo_bench;
    d.presets = {"montecarlo-convergence"};
    d.roofline_runs = montecarlo_roofline_runs;
    return d;
  }();
  return d;
}

}  // namespace bs
