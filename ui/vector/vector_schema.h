// vector_schema.h: the vector lab's parameters, described once (core/params.h): the panel's defaults, session
// checks, the sweep's parameters and the bench flags all read them here. The numeric defaults come from
// gpu/vector/vector.h (vector::Params and the view's constants), the kernels' own.
#pragma once

#include <string_view>

#include "core/params.h"

namespace bs::ui {

const params::Schema& vector_schema();

// Names as sessions store them (index = the enum's value: Op, Indexing, LoadWidth).
constexpr std::string_view k_vec_ops[] = {"add", "formula"};
constexpr std::string_view k_vec_indexing[] = {"one-per-element", "grid-stride"};
constexpr std::string_view k_vec_widths[] = {"float", "float4"};

}  // namespace bs::ui
