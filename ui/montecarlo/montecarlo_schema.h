// montecarlo_schema.h: the Monte Carlo lab's parameters, described once (core/params.h): the panel's
// defaults, session checks, the sweep's parameters and the bench flags all read them here. The numeric
// defaults come from gpu/montecarlo/montecarlo.h (montecarlo::Params, montecarlo::Launch and the view's
// constants), the kernels' own.
#pragma once

#include "core/params.h"
#include "gpu/montecarlo/montecarlo.h"

namespace bs::ui {

const params::Schema& montecarlo_schema();

// Names as sessions store them (index = the enum's value: OptionType, Generator, Layout).
inline constexpr auto k_mc_options = montecarlo::k_option_names.names();
inline constexpr auto k_mc_generators = montecarlo::k_generator_names.names();
inline constexpr auto k_mc_layouts = montecarlo::k_layout_names.names();

}  // namespace bs::ui
