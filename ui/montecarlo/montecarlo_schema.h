// montecarlo_schema.h: the Monte Carlo lab's parameters, described once (core/params.h): the panel's
// defaults, session checks, the sweep's parameters and the bench flags all read them here. The numeric
// defaults come from gpu/montecarlo/montecarlo.h (montecarlo::Params, montecarlo::Launch and the view's
// constants), the kernels' own.
#pragma once

#include "core/params.h"
#include "gpu/montecarlo/montecarlo.h"

namespace bs::ui {

const params::Schema& montecarlo_schema();


}  // namespace bs::ui
