// matmul_anatomy.h: the matmul lab's kernel as the anatomy tools see it (app/anatomy/anatomy_target.h): the
// variant's launch over C (the overlay's cell mapping; none for cuBLAS), its instrumented copy (the naive
// and shared-memory tile kernels), its occupancy, and the tile kernels' time at 64, 256 and 1024 threads;
// and `blockscope anatomy matmul`.
#pragma once

#include "app/anatomy/anatomy_target.h"
#include "gpu/matmul/matmul.h"
#include "gpu/matmul/matmul_anatomy.h"

namespace bs {

class MatmulAnatomyTarget final : public AnatomyTargetOf<MatmulAnatomyTarget> {
 public:
  MatmulAnatomyTarget() = default;
  MatmulAnatomyTarget(const matmul::Problem& p, matmul::Variant v) : problem(p), variant(v) {}
  matmul::Problem problem;
  matmul::Variant variant{};

  bool operator==(const MatmulAnatomyTarget& o) const { return problem == o.problem && variant == o.variant; }
  std::optional<anatomy::CellMapping> mapping() const override;  // nullopt for cuBLAS
  std::string no_launch_reason() const override;
  AnatomyRecord record() const override;
  void describe_occupancy(ui::OccupancyPanelModel& o, const OccupancyQuery& q) const override;
  bool measure_occupancy(ui::OccupancyPanelModel& o, const anatomy::ArchSpec& arch,
                         const OccupancyQuery& q) const override;
  // The shared-memory tile kernels (the same algorithm) at 8x8, 16x16 and 32x32 threads: ms per launch.
  BlockSizeTimes measure_block_sizes(JobControl& ctl) const override;
};

}  // namespace bs
