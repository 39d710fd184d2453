// heat_schema.h: the heat lab's parameters, described once (core/params.h): the panel's defaults, session
// checks, the sweep's parameters and the bench and CLI flags all read them here. The numeric defaults come
// from gpu/heat/heat.h (heat::Params, k_default_block, k_default_cells_per_thread), the kernel's own.
#pragma once

#include "core/params.h"

namespace bs::ui {

const params::Schema& heat_schema();

}  // namespace bs::ui
