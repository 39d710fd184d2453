// multi_heat.h: the heat field over the slabs of a Communicator (pure C++ header). Each local slab lives on
// its device with two buffers of its local rows (owned + halos). A round: the halo exchange (NCCL send/recv
// in one group, or device copies) on a communication stream while the compute stream updates the interior of
// the first step; the edge rows after the halos arrive; then halo - 1 more steps without communication. The
// step is gpu/heat's update expression (stencil.h) with gpu/heat's boundary rule, so k slabs equal one GPU
// bit for bit.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "core/launch.h"
#include "gpu/heat/heat.h"
#include "gpu/multigpu/comm.h"
#include "gpu/multigpu/decomposition.h"
#include "gpu/multigpu/scaling.h"

namespace bs::multigpu {

struct HeatConfig {
  heat::Params params;  // the whole field; nx, ny may exceed heat::k_max_size (memory is checked per slab)
  int halo = 1;         // rows per exchange = steps per exchange (plan_heat picks one from the model)
  Dim2 block = heat::k_default_block;
  int cells_per_thread = heat::k_default_cells_per_thread;
  bool overlap = true;  // interior during the exchange; false: exchange, then the whole step
};
// Field sizes beyond the one-GPU lab's limit are fine here: the limit is memory.
std::optional<std::string> validate(const HeatConfig& c, int slabs);

// Per-slab time of the last timed round set (CUDA events on each slab's streams).
struct SlabTiming {
  int slab = 0;
  int device = 0;
  double step_ms = 0;      // compute stream, per step
  double exchange_ms = 0;  // communication stream, per exchange
};

class MultiHeat {
 public:
  MultiHeat(Communicator& comm, const HeatConfig& c);
  ~MultiHeat();
  MultiHeat(const MultiHeat&) = delete;
  MultiHeat& operator=(const MultiHeat&) = delete;

  const std::vector<Slab>& slabs() const;  // all of them (global)
  const HeatConfig& config() const;
  // The full field (nx * ny); each local slab takes its owned rows and halos.
  void upload(const std::vector<float>& field);
  // The full field with the local slabs' rows filled (per-rank mode: the other rows are left as NaN).
  std::vector<float> download();
  // Issues `steps` steps (rounds of `halo` steps; a shorter last round), asynchronously.
  void step(int steps);
  void sync();
  // Timings of the steps issued since the last call (waits for them).
  std::vector<SlabTiming> timings();
  // Sum of the whole field's cells over all ranks (allreduce of the local slabs' sums): the per-rank check.
  double total_heat();

 private:
  struct Impl;
  std::unique_ptr<Impl> m;
};

// A timed run of `c` over `comm`: a warm-up of steps / 4 steps (at least 3), then `reps` repetitions of
// `steps` steps, each timed by the host clock around all slabs (issue, then wait for every slab); the median
// per step, the largest exchange time of any slab (CUDA events), the field's total heat and, with
// keep_field, the field. `between` runs before each repetition (a job's cancel check may throw).
struct HeatTiming {
  double ms_per_step = 0;
  double exchange_ms = 0;  // per exchange, the slowest slab
  double total_heat = 0;
  std::vector<float> field;
};
HeatTiming time_heat(Communicator& comm, const HeatConfig& c, int steps, int reps, bool keep_field,
                     const std::function<void()>& between = {});

// The model's plan (scaling.h: choose_heat_plan) for the field of p on `gpus` GPUs of device `device`'s kind:
// the one-GPU step estimated from that device's DRAM bandwidth (3000 GB/s where no device answers). Keeps the
// current device.
HeatPlan plan_heat(const heat::Params& p, int gpus, int device = 0);
// Per-rank mode: every rank takes rank 0's halo and overlap (the ranks' messages must match even where their
// GPUs differ). Other transports: the plan as it is.
HeatPlan agree_on_plan(Communicator& comm, const HeatPlan& mine);

}  // namespace bs::multigpu
