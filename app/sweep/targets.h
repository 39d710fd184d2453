// targets.h: the labs a sweep can run, looked up by name in the lab registry (app/labs.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "app/sweep/target.h"

namespace bs::sweep {

// nullptr for an unknown lab.
const Target* find_target(std::string_view lab);
// The lab's target; throws bs::InvalidRequest "unknown lab 'X' (known: heat, matmul, ...)" for an unknown
// one.
const Target& target_of(std::string_view lab);
std::vector<std::string> lab_names();  // heat, matmul, montecarlo, vector

}  // namespace bs::sweep
