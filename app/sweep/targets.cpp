// targets.cpp: see targets.h. Each lab's target lives in its own folder (app/<lab>/<lab>_sweep_target.cpp);
// this table only names them.
#include "app/sweep/targets.h"

#include "app/heat/heat_sweep_target.h"
#include "app/matmul/matmul_sweep_target.h"
#include "app/montecarlo/montecarlo_sweep_target.h"
#include "app/vector/vector_sweep_target.h"
#include "core/error.h"

namespace bs::sweep {

namespace {

// The labs in the order lab_names() lists them.
using TargetFn = const Target& (*)();
constexpr TargetFn k_targets[] = {heat_sweep_target, matmul_sweep_target, montecarlo_sweep_target,
                                  vector_sweep_target};

}  // namespace

const Target* find_target(std::string_view lab) {
  for (TargetFn target : k_targets)
    if (lab == target().lab()) return &target();
  return nullptr;
}

const Target& target_of(std::string_view lab) {
  if (const Target* t = find_target(lab)) return *t;
  std::string known;
  for (const std::string& name : lab_names())
    known += (known.empty() ? "" : ", ") + name;
  throw InvalidRequest("unknown lab '" + std::string(lab) + "' (known: " + known + ")");
}

std::vector<std::string> lab_names() {
  std::vector<std::string> names;
  for (TargetFn target : k_targets)
    names.emplace_back(target().lab());
  return names;
}

}  // namespace bs::sweep
