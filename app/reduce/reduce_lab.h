// reduce_lab.h: the reduction and scan lab (app/reduce/reduce_lab.cpp): the Lab behind the descriptor in
// app/reduce/reduce_descriptor.cpp. Builds the panel's model from the schema, runs the ladder, CUB, the copy
// kernel and the CPU baselines on a worker thread (progress, cancel), and draws the pictures of its step
// models. Without a GPU the pictures and the CPU runs work, and the panel says the GPU runs need a device.
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>

#include "app/lab.h"

namespace bs {

std::unique_ptr<Lab> make_reduce_lab(LabEnv& env);
// The lab's rules beyond the schema's (the variant, block and n together: reduce::validate);
// "labs.reduce...: ..." on error.
std::optional<std::string> check_reduce_state(const nlohmann::json& state);

}  // namespace bs
