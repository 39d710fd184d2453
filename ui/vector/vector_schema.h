// vector_schema.h: the vector lab's parameters, described once (core/params.h): the panel's defaults, session
// checks, the sweep's parameters and the bench flags all read them here. The numeric defaults come from
// gpu/vector/vector.h (vector::Params and the view's constants), the kernels' own.
#pragma once

#include "core/params.h"
#include "gpu/vector/vector.h"

namespace bs::ui {

const params::Schema& vector_schema();


}  // namespace bs::ui
