// reduce_schema.h: the reduction and scan lab's parameters, described once (core/params.h): the panel's
// defaults, session checks, the sweep's parameters and the bench flags all read them here. The numeric
// defaults come from gpu/reduce/reduce.h (reduce::Params), the kernels' own.
#pragma once

#include "core/params.h"
#include "gpu/reduce/reduce.h"

namespace bs::ui {

const params::Schema& reduce_schema();

struct ReducePanelModel;  // ui/reduce/reduce_lab_panel.h: the lab's state, every parameter bound to a member

// The reduce::Params the bound members of `m` stand for (the n text parsed with reduce::parse_count; a text
// that does not parse keeps reduce::Params' n).
reduce::Params params_of(const ReducePanelModel& m);
// The reduce::Params a state (schema values by name: n, op, type, reduce_variant, scan_variant, scan_kind,
// block) stands for, read through the schema's bindings; members missing from `state` take the schema's
// defaults. The values must already have passed the schema's checks (check_state).
reduce::Params params_from_state(const nlohmann::json& state);

}  // namespace bs::ui
