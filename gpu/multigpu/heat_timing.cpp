// heat_timing.cpp: time_heat and the model's plan (multi_heat.h), shared by `bench heat --gpus` and the
// Multi-GPU lab.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>

#include "core/stats.h"
#include "gpu/common/device_info.h"
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

HeatPlan plan_heat(const heat::Params& p, int gpus, int device) {
  int current = 0;
  const bool had = cudaGetDevice(&current) == cudaSuccess;
  (void)cudaGetLastError();
  const DeviceInfo d = query_device(device);
  if (had) (void)cudaSetDevice(current);
  (void)cudaGetLastError();
  const double dram = d.available && peak_dram_gbs(d) > 0 ? peak_dram_gbs(d) : 3000.0;
  HaloModelInput in;
  in.nx = p.nx;
  in.ny = p.ny;
  in.gpus = gpus;
  in.one_gpu_ms_per_step = estimate_heat_step_ms(p.nx, p.ny, dram);
  return choose_heat_plan(in);
}

HeatPlan agree_on_plan(Communicator& comm, const HeatPlan& mine) {
  if (!comm.per_rank() || comm.size() == 1) return mine;
  std::vector<std::vector<double>> v(1, std::vector<double>(2, 0.0));
  if (comm.local().at(0) == 0) v[0] = {static_cast<double>(mine.halo), mine.overlap ? 1.0 : 0.0};
  comm.allreduce_sum(v);  // only rank 0 adds non-zeros
  HeatPlan out = mine;
  out.halo = static_cast<int>(v[0][0]);
  out.overlap = v[0][1] != 0;
  return out;
}

}  // namespace bs::multigpu

