// vector_schema.h: the vector lab's parameters, described once (core/params.h): the panel's defaults, session
// checks, the sweep's parameters and the bench flags all read them here. The numeric defaults come from
// gpu/vector/vector.h (vector::Params and the view's constants), the kernels' own.
#pragma once

#include "core/params.h"
#include "gpu/vector/vector.h"

namespace bs::ui {

const params::Schema& vector_schema();

// Names as sessions store them (index = the enum's value: Op, Indexing, LoadWidth).
inline constexpr auto k_vec_ops = vector::k_op_names.names();
inline constexpr auto k_vec_indexing = vector::k_indexing_names.names();
inline constexpr auto k_vec_widths = vector::k_load_width_names.names();

}  // namespace bs::ui
