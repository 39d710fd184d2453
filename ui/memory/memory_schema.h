// memory_schema.h: the memory lab's parameters, described once (core/params.h): the panel's defaults, session
// checks, the sweep's parameters and the bench flags all read them here. Defaults and ranges come from
// gpu/memory/memory.h (memory::Params and its constants), the kernels' own.
#pragma once

#include "core/params.h"
#include "gpu/memory/memory.h"

namespace bs::ui {

const params::Schema& memory_schema();


// The memory::Params a state (schema-checked JSON, missing members at their defaults) describes.
memory::Params memory_params_from(const nlohmann::json& state);
// The state of p (every saved parameter; `device` excluded).
nlohmann::json memory_state_of(const memory::Params& p);

}  // namespace bs::ui
