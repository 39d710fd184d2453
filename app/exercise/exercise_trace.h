// exercise_trace.h: the simulator's trace of one test of a checked submission (the first failing test, else
// the first), for the access pictures: the CLI's `check --maps` writes them, the Exercises window draws them
// with the kernel editor's Simulator panel. The test runs again on its inputs with a Recorder.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gpu/exercise/runner.h"
#include "ui/kernel/access_map.h"

namespace bs {

struct ExerciseTrace {
  std::shared_ptr<const ui::SimTrace> trace;  // null when the launch could not be prepared (error says why)
  std::string error;
  std::string test;     // "n=257 (hidden)"
  std::string sampled;  // the Recorder's "all 4 blocks", ...
  // The whole launch, the thread that wrote the first wrong element, the thread of the first located diagnostic.
  std::vector<ui::Selection> selections;
};

// `r` must hold a compiled submission and at least one test.
ExerciseTrace trace_of_check(const exercise::Exercise& e, const exercise::CheckResult& r,
                             const exercise::RunOptions& o);

}  // namespace bs
