// multigpu_schema.h: the Multi-GPU lab's parameters, described once (core/params.h): the panel's defaults,
// session checks and the sweep's parameters (the GPU count among them) read them here.
#pragma once

#include <array>
#include <string_view>

#include "core/params.h"

namespace bs::ui {

const params::Schema& multigpu_schema();

// Names as sessions store them (index = the panel model's enum value).
inline constexpr std::array<std::string_view, 2> k_mg_workloads{"heat", "montecarlo"};
// auto: NCCL between distinct GPUs where it loads, else peer copies; virtual: k slabs on one GPU (the logic
// on any machine with a GPU; not a scaling figure).
inline constexpr std::array<std::string_view, 2> k_mg_transports{"auto", "virtual"};

// The largest live field (it is downloaded to the host every frame to be drawn) and the scaling runs' limit.
constexpr int64_t k_mg_max_live_size = 8192;
constexpr int64_t k_mg_max_scaling_size = 32768;
constexpr int k_mg_max_gpus = 16;

}  // namespace bs::ui
