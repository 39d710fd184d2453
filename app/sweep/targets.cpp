// targets.cpp: see targets.h. A lab is a sweep target when its descriptor (app/labs.h) names one; each lab's
// target lives in its own folder (app/<lab>/<lab>_sweep_target.cpp).
#include "app/sweep/targets.h"

#include "app/labs.h"
#include "core/error.h"

namespace bs::sweep {

const Target* find_target(std::string_view lab) {
  const LabDescriptor* d = find_lab(lab);
  return d ? d->sweep_target : nullptr;
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
  for (const LabDescriptor& d : lab_entries())
    if (d.sweep_target) names.emplace_back(d.id);
  return names;
}

}  // namespace bs::sweep
