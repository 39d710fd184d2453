// memory_descriptor.cpp: the memory lab's entry in the lab registry (app/labs.h). Its hooks are declared in
// app/lab_hooks.h; its presets are the assets/presets files whose active_lab is "memory".
#include <utility>

#include "app/lab_hooks.h"

namespace bs {

namespace {

// Version 1 stored the size as [rows, cols]; version 2 stores it x first, [cols, rows].
std::optional<std::string> migrate_memory_state(int64_t from_version, nlohmann::json& state) {
  if (from_version != 1 || !state.is_object() || !state.contains("size")) return std::nullopt;
  nlohmann::json& size = state["size"];
  if (!size.is_array() || size.size() != 2 || size[0] == size[1]) return std::nullopt;
  std::swap(size[0], size[1]);
  return "the memory lab's size [rows, cols] is now read x first, as " + size.dump() + " (cols, rows)";
}

}  // namespace

const LabDescriptor& memory_lab_descriptor() {
  // state_extras: the picture's warp and instruction (app/memory/memory_lab.h).
  static const LabDescriptor d{.id = "memory", .title = "Memory access", .short_title = "Memory",
                               .schema = &ui::memory_schema(), .make = make_memory_lab,
                               .check_state = check_memory_state, .migrate_state = migrate_memory_state,
                               .sweep_target = &sweep::memory_sweep_target(),
                               .register_bench = cli::register_memory_bench, .state_extras = {"warp", "step"},
                               .roofline_runs = memory_roofline_runs};
  return d;
}

}  // namespace bs
