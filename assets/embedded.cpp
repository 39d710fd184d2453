// embedded.cpp: lookup over the generated table (see embedded.h).
#include "assets/embedded.h"

namespace bs::embedded {

std::string_view find(std::string_view name) {
  for (const File& f : files())
    if (f.name == name) return f.content;
  return {};
}

}  // namespace bs::embedded
