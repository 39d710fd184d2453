// exercise_trace.cpp: see exercise_trace.h.
#include "app/exercise/exercise_trace.h"

#include <algorithm>

#include "sim/trace.h"

namespace bs {

ExerciseTrace trace_of_check(const exercise::Exercise& e, const exercise::CheckResult& r,
                             const exercise::RunOptions& o) {
  ExerciseTrace out;
  const exercise::TestResult* failed = r.first_failure >= 0 ? &r.tests[static_cast<size_t>(r.first_failure)] : nullptr;
  const exercise::TestCase& t = failed ? failed->test : r.tests.front().test;
  out.test = t.name + (t.hidden ? " (hidden)" : "");
  exercise::Replay rp = exercise::prepare_replay(e, t, o);
  if (!rp.error.empty()) {
    out.error = rp.error;
    return out;
  }
  sim::Recorder::Options ro;
  ro.max_bytes = uint64_t{256} << 20;
  sim::Recorder rec(rp.config.grid.count(), ro);
  exercise::run_replay(r.compiled, rp, &rec);
  auto trace = std::make_shared<ui::SimTrace>(
      ui::make_trace(r.compiled.module, r.compiled.entry, rp.config, rp.result, rec));
  out.sampled = rec.sampled();
  out.selections.push_back({ui::Scope::Launch, 0, 0});
  if (failed && failed->wrong && failed->wrong->writer_block >= 0)
    out.selections.push_back(
        {ui::Scope::Thread, static_cast<uint64_t>(failed->wrong->writer_block), failed->wrong->writer_thread});
  for (const sim::Diagnostic& d : rp.result.diagnostics) {
    if (d.pc < 0) continue;  // not one thread's access (an unwritten output)
    const ui::Selection s{ui::Scope::Thread, trace->block_index(d.block), trace->thread_index(d.thread)};
    if (std::find(out.selections.begin(), out.selections.end(), s) == out.selections.end()) out.selections.push_back(s);
    break;
  }
  out.trace = std::move(trace);
  return out;
}

}  // namespace bs
