// reduce_anatomy.h: the reduction lab's kernel as the anatomy tools see it (app/anatomy/anatomy_target.h):
// an array target (no field): the launch that passes over the input (the array map), its instrumented copy,
// its occupancy with the launch's own shared memory at each block size, and its time against the block
// sizes the variant takes; and `blockscope anatomy reduce|scan`.
#pragma once

#include "app/anatomy/anatomy_target.h"
#include "gpu/reduce/reduce.h"
#include "gpu/reduce/reduce_anatomy.h"

namespace bs {

class ReduceAnatomyTarget final : public AnatomyTargetOf<ReduceAnatomyTarget> {
 public:
  ReduceAnatomyTarget() = default;
  explicit ReduceAnatomyTarget(const reduce::Params& p) : params(p) {}
  reduce::Params params;

  bool operator==(const ReduceAnatomyTarget& o) const;
  bool is_array() const override { return true; }
  // nullopt for CUB and for parameters the lab refuses.
  std::optional<anatomy::ArrayLaunch> array_launch(const DeviceInfo& device) const override;
  int64_t array_elements() const override { return params.n; }
  std::string no_launch_reason() const override;
  AnatomyRecord record() const override;
  void describe_occupancy(ui::OccupancyPanelModel& o, const OccupancyQuery& q) const override;
  bool measure_occupancy(ui::OccupancyPanelModel& o, const anatomy::ArchSpec& arch,
                         const OccupancyQuery& q) const override;
  const char* model_smem_source() const override { return "as the kernel declares it and the launch passes"; }
  // The kernels' shared memory follows the block: the curve takes each block size with its own.
  void adjust_model_curve(ui::OccupancyPanelModel& o, const anatomy::ArchSpec& arch,
                          const OccupancyQuery& q) const override;
  // The lab's block sizes the variant takes, each a warm-up and 5 timed runs (median), unchecked.
  BlockSizeTimes measure_block_sizes(JobControl& ctl) const override;
};

}  // namespace bs
