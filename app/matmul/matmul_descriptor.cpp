// matmul_descriptor.cpp: the matmul lab's entry in the lab registry (app/labs.h): id, titles, schema, how
// to build it, its session checks, sweep target, bench, presets and roofline runs.
#include "app/labs.h"
#include "app/matmul/matmul_sweep_target.h"
#include "ui/matmul/matmul_schema.h"

namespace bs {

// app/matmul/matmul_lab.cpp:
std::unique_ptr<Lab> make_matmul_lab(LabEnv& env);
std::optional<std::string> check_matmul_state(const nlohmann::json& state);

namespace cli {
void register_matmul_anatomy(CLI::App& anatomy, BenchContext& ctx);  // app/matmul/matmul_anatomy.cpp
void register_matmul_bench(CLI::App& bench, BenchContext& ctx);  // app/matmul/matmul_bench.cpp
}

void matmul_roofline_runs(const LabEnv& env, bool gpu, bool quick);  // app/matmul/matmul_roofline.cpp

const LabDescriptor& matmul_lab_descriptor() {
  static const LabDescriptor d = [] {
    LabDescriptor d;
    d.id = "matmul";
    d.title = "Matmul";
    d.short_title = "Matmul";
    d.schema = &ui::matmul_schema();
    d.make = [](LabEnv& env) { return make_matmul_lab(env); };
    d.check_state = check_matmul_state;
    d.sweep_target = &sweep::matmul_sweep_target();
    d.register_bench = cli::register_matmul_bench;
    d.presets = {"matmul-coalescing", "matmul-ladder"};
    d.state_extras = {"anatomy_overlay"};
    d.roofline_runs = matmul_roofline_runs;
    d.register_anatomy = cli::register_matmul_anatomy;
    return d;
  }();
  return d;
}

}  // namespace bs
