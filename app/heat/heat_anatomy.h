// heat_anatomy.h: the heat lab's kernel as the anatomy tools see it (app/anatomy/anatomy_target.h): the
// stencil's launch over the field (the overlay's cell mapping), its instrumented copy (the timeline), its
// occupancy and its time against block shapes 32 x (threads / 32); and `blockscope anatomy heat`.
#pragma once

#include "app/anatomy/anatomy_target.h"
#include "gpu/heat/heat.h"
#include "gpu/heat/heat_anatomy.h"

namespace bs {

class HeatAnatomyTarget final : public AnatomyTargetOf<HeatAnatomyTarget> {
 public:
  heat::Params params;
  Dim2 block{32, 8};
  Dim2 grid{1, 1};
  int cells_per_thread = 1;

  bool operator==(const HeatAnatomyTarget& o) const {
    return params.nx == o.params.nx && params.ny == o.params.ny && block == o.block && grid == o.grid &&
           cells_per_thread == o.cells_per_thread;
  }
  std::optional<anatomy::CellMapping> mapping() const override;
  AnatomyRecord record() const override;
  void describe_occupancy(ui::OccupancyPanelModel& o, const OccupancyQuery& q) const override;
  bool measure_occupancy(ui::OccupancyPanelModel& o, const anatomy::ArchSpec& arch,
                         const OccupancyQuery& q) const override;
  // Block shapes 32 x (threads / 32), 32..1024 threads: ms per step.
  BlockSizeTimes measure_block_sizes(JobControl& ctl) const override;
};

}  // namespace bs
