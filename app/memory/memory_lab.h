// memory_lab.h: the memory lab: coalescing and shared-memory bank conflicts lane by lane. A warp of the
// chosen kernel and variant stepped through its memory instructions (the access model's addresses: the
// kernels' own index expressions), the matrix or array view where a click picks the warp, the GPU ladder and
// CPU runs timed on worker threads, the predicted counts of the whole launch and the bandwidth-against-stride
// chart. Without a GPU the pictures, predictions and CPU runs work; GPU runs say they need a device.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "app/lab.h"
#include "gpu/memory/memory.h"
#include "ui/memory/memory_panel.h"

namespace bs {

class MemoryLab;
std::unique_ptr<Lab> make_memory_lab(LabEnv& env);
// Checks a saved state beyond the schema: the parameters run together (memory::validate), the warp and
// step extras' shapes. "labs.memory.<field>: ...".
std::optional<std::string> check_memory_state(const nlohmann::json& state);

// For tests that drive the lab as a user would: the model the panels show, and where the last frame drew the
// buffer view (screen rectangle of its cells) so that a click can be aimed at an element.
struct MemoryLabProbe {
  const ui::MemoryPanelModel* model = nullptr;
  bool busy = false;  // a GPU, CPU, prediction or stride job is running
};
MemoryLabProbe probe_memory_lab(Lab& lab);
// Waits for every running job of the lab (tests; headless captures do it themselves).
void wait_memory_lab(Lab& lab);
// Presses the panel's buttons named in `a` (Run CPU, Run GPU ladder, the stride sweep, Cancel): the lab acts
// on them in its next update(), as it does on clicks (tests).
void press_memory_buttons(Lab& lab, const ui::MemoryPanelActions& a);

}  // namespace bs
