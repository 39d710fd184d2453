// vector_descriptor.cpp: the vector lab's entry in the lab registry (app/labs.h): id, titles, schema, how
// to build it, its session checks, sweep target, bench, presets and roofline runs.
#include "app/labs.h"
#include "app/vector/vector_sweep_target.h"
#include "ui/vector/vector_schema.h"

namespace bs {

// app/vector/vector_lab.cpp:
std::unique_ptr<Lab> make_vector_lab(LabEnv& env);
std::optional<std::string> check_vector_state(const nlohmann::json& state);

namespace cli {
void register_vector_bench(CLI::App& bench, BenchContext& ctx);  // app/vector/vector_bench.cpp
}

void vector_roofline_runs(const LabEnv& env, bool gpu, bool quick);  // app/vector/vector_roofline.cpp
std::string vector_roofline_check(double dram_gbs);               // app/vector/vector_roofline.cpp

const LabDescriptor& vector_lab_descriptor() {
  static const LabDescriptor d = [] {
    LabDescriptor d;
    d.id = "vector";
    d.title = "Vector";
    d.short_title = "Vector";
    d.schema = &ui::vector_schema();
    d.make = [](LabEnv& env) { return make_vector_lab(env); };
    d.check_state = check_vector_state;
    d.sweep_target = &sweep::vector_sweep_target();
    d.register_bench = cli::register_vector_bench;
    d.presets = {"vector-crossover"};
    d.roofline_runs = vector_roofline_runs;
    d.roofline_check = vector_roofline_check;
    return d;
  }();
  return d;
}

}  // namespace bs
