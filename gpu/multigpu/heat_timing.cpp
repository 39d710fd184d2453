// heat_timing.cpp: time_heat (multi_heat.h), shared by `bench heat --gpus` and the Multi-GPU lab's scaling
// runs.
#include <algorithm>
#include <chrono>

#include "core/stats.h"
#include "gpu/multigpu/multi_heat.h"

namespace bs::multigpu {

HeatTiming time_heat(Communicator& comm, const HeatConfig& c, int steps, int reps, bool keep_field,
                     const std::function<void()>& between) {
  MultiHeat h(comm, c);
  h.upload(heat::make_initial(c.params, heat::InitialPattern::HotSpots));
  h.step(std::max(steps / 4, 3));  // warm-up
  (void)h.timings();
  std::vector<double> per_step;
  HeatTiming out;
  for (int r = 0; r < reps; ++r) {
    if (between) between();
    const auto t0 = std::chrono::steady_clock::now();
    h.step(steps);
    h.sync();
    per_step.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / steps);
    for (const SlabTiming& t : h.timings())
      out.exchange_ms = std::max(out.exchange_ms, t.exchange_ms);
  }
  out.ms_per_step = summarize(per_step).median;
  out.total_heat = h.total_heat();
  if (keep_field) out.field = h.download();
  return out;
}

}  // namespace bs::multigpu
