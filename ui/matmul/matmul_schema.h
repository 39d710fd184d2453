// matmul_schema.h: the matmul lab's parameters, described once (core/params.h): the panel's defaults, session
// checks, the sweep's parameters and the bench flags all read them here. The sizes come from
// gpu/matmul/matmul.h (k_default_m/n/k, k_bench_dim, k_sweep_dim), the variant names from
// matmul::gpu_variants().
#pragma once

#include "core/params.h"

namespace bs::ui {

const params::Schema& matmul_schema();

}  // namespace bs::ui
