// montecarlo_schema.h: the Monte Carlo lab's parameters, described once (core/params.h): the panel's
// defaults, session checks, the sweep's parameters and the bench flags all read them here. The numeric
// defaults come from gpu/montecarlo/montecarlo.h (montecarlo::Params, montecarlo::Launch and the view's
// constants), the kernels' own.
#pragma once

#include <string_view>

#include "core/params.h"

namespace bs::ui {

const params::Schema& montecarlo_schema();

// Names as sessions store them (index = the enum's value: OptionType, Generator, Layout).
constexpr std::string_view k_mc_options[] = {"call", "put", "asian"};
constexpr std::string_view k_mc_generators[] = {"philox", "xorwow"};
constexpr std::string_view k_mc_layouts[] = {"grid-stride", "one-per-thread"};

}  // namespace bs::ui
