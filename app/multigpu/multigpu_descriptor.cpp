// multigpu_descriptor.cpp: the Multi-GPU lab's entry in the lab registry (app/labs.h): id, titles, schema, how
// to build it, its session checks (the chosen GPUs), sweep target and bench.
#include "app/labs.h"
#include "app/multigpu/multigpu_bench.h"
#include "app/multigpu/multigpu_sweep_target.h"
#include "ui/multigpu/multigpu_schema.h"

namespace bs {

std::unique_ptr<Lab> make_multigpu_lab(LabEnv& env);  // app/multigpu/multigpu_lab.cpp

const LabDescriptor& multigpu_lab_descriptor() {
  static const LabDescriptor d = [] {
    LabDescriptor d;
    d.id = "multigpu";
    d.title = "Multi-GPU";
    d.short_title = "GPUs";
    d.schema = &ui::multigpu_schema();
    d.make = [](LabEnv& env) { return make_multigpu_lab(env); };
    d.check_state = [](const nlohmann::json& state) -> std::optional<std::string> {
      if (!state.contains("devices")) return std::nullopt;
      const auto& d = state["devices"];
      if (!d.is_array()) return "labs.multigpu.devices: expected a list of GPU indices, e.g. [0, 1]";
      if (d.size() > static_cast<size_t>(ui::k_mg_max_gpus))
        return "labs.multigpu.devices: at most " + std::to_string(ui::k_mg_max_gpus) + " GPUs";
      for (const auto& v : d)
        if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() >= 1024)
          return "labs.multigpu.devices: " + params::shown(v) + " is not a GPU index (0..1023)";
      return std::nullopt;
    };
    d.sweep_target = &sweep::multigpu_sweep_target();
    d.register_bench = cli::register_multigpu_bench;
    d.state_extras = {"devices"};
    return d;
  }();
  return d;
}

}  // namespace bs
