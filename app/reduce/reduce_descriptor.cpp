// TEMPORARY local stand-in (not committed): the partner's descriptor replaces it.
#include "app/labs.h"
#include "app/reduce/reduce_lab.h"
#include "app/reduce/reduce_sweep_target.h"
#include "ui/reduce/reduce_schema.h"

namespace bs {
const LabDescriptor& reduce_lab_descriptor() {
  static const LabDescriptor d = [] {
    LabDescriptor d;
    d.id = "reduce";
    d.title = "Reduction and scan";
    d.short_title = "Reduce";
    d.schema = &ui::reduce_schema();
    d.make = [](LabEnv& env, const AppOptions&) { return make_reduce_lab(env); };
    d.check_state = check_reduce_state;
    d.sweep_target = &sweep::reduce_sweep_target();
    d.presets = {"reduce-ladder", "reduce-scan-ladder"};
    return d;
  }();
  return d;
}
}  // namespace bs
