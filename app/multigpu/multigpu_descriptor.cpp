// multigpu_descriptor.cpp: the Multi-GPU lab's entry in the lab registry (app/labs.h). Its hooks are declared in
// app/lab_hooks.h; its presets are the assets/presets files whose active_lab is "multigpu".
#include "app/lab_hooks.h"
#include "ui/multigpu/multigpu_schema.h"

namespace bs {

const LabDescriptor& multigpu_lab_descriptor() {
  // The chosen GPUs are not a schema parameter (a list of any length): checked here.
  static const LabDescriptor d{
      .id = "multigpu", .title = "Multi-GPU", .short_title = "GPUs", .schema = &ui::multigpu_schema(),
      .make = make_multigpu_lab,
      .check_state = [](const nlohmann::json& state) -> std::optional<std::string> {
        if (!state.contains("devices")) return std::nullopt;
        const auto& d = state["devices"];
        if (!d.is_array()) return "labs.multigpu.devices: expected a list of GPU indices, e.g. [0, 1]";
        if (d.size() > static_cast<size_t>(ui::k_mg_max_gpus))
          return "labs.multigpu.devices: at most " + std::to_string(ui::k_mg_max_gpus) + " GPUs";
        for (const auto& v : d)
          if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() >= 1024)
            return "labs.multigpu.devices: " + params::shown(v) + " is not a GPU index (0..1023)";
        return std::nullopt;
      },
      .sweep_target = &sweep::multigpu_sweep_target(), .register_bench = cli::register_multigpu_bench,
      .state_extras = {"devices"}};
  return d;
}

}  // namespace bs
