// lab_hooks.h: the functions a lab's descriptor (app/<id>/<id>_descriptor.cpp) points at, declared once for
// every lab in app/lab_list.inc by their conventional names, so a descriptor needs no forward declarations of
// its own. A lab defines only the hooks it has (a name declared here and never defined costs nothing); the
// descriptor lists those, and a hook it leaves out is simply not offered (app/labs.h).
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>

#include "app/labs.h"

namespace bs {

namespace sweep {
class Target;
}

// For lab `id`:
//   make_<id>_lab              builds the lab (LabDescriptor::make)       app/<id>/<id>_lab.cpp
//   check_<id>_state           cross-field session checks (check_state)   app/<id>/<id>_lab.cpp
//   sweep::<id>_sweep_target   the sweep target (sweep_target)            app/<id>/<id>_sweep_target.cpp
//   cli::register_<id>_bench   `blockscope bench <id>` (register_bench)   app/<id>/<id>_bench.cpp
//   cli::register_<id>_anatomy `blockscope anatomy ...` (register_anatomy) app/<id>/<id>_anatomy.cpp
//   <id>_roofline_runs         what `blockscope roofline` times           app/<id>/<id>_roofline.cpp
//   <id>_roofline_check        a DRAM-ceiling check (roofline_check)      app/<id>/<id>_roofline.cpp
//   ui::<id>_schema            the parameter schema (schema)              ui/<id>/<id>_schema.cpp
#define BS_LAB(id)                                                            \
  std::unique_ptr<Lab> make_##id##_lab(LabEnv& env);                          \
  std::optional<std::string> check_##id##_state(const nlohmann::json& state); \
  void id##_roofline_runs(const LabEnv& env, bool gpu, bool quick);           \
  std::string id##_roofline_check(double dram_gbs);                           \
  namespace sweep {                                                           \
  const Target& id##_sweep_target();                                          \
  }                                                                           \
  namespace cli {                                                             \
  void register_##id##_bench(CLI::App& bench, BenchContext& ctx);             \
  void register_##id##_anatomy(CLI::App& anatomy, BenchContext& ctx);         \
  }                                                                           \
  namespace ui {                                                              \
  const params::Schema& id##_schema();                                        \
  }
#include "app/lab_list.inc"
#undef BS_LAB

}  // namespace bs
