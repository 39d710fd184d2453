// memory_descriptor.cpp: the memory lab's entry in the lab registry (app/labs.h): id, titles, schema and
// bench. The window (make), the sweep target and the presets are added by the lab's app side.
#include "app/labs.h"
#include "app/memory/memory_bench.h"
#include "ui/memory/memory_schema.h"

namespace bs {

const LabDescriptor& memory_lab_descriptor() {
  static const LabDescriptor d = [] {
    LabDescriptor d;
    d.id = "memory";
    d.title = "Memory access";
    d.short_title = "Memory";
    d.schema = &ui::memory_schema();
    d.register_bench = cli::register_memory_bench;
    return d;
  }();
  return d;
}

}  // namespace bs
