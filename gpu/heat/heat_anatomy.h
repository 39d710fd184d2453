// heat_anatomy.h: the heat stencil as the anatomy tools see it (pure C++; app/ includes it): how its threads
// own the field's cells (the overlay's mapping) and an instrumented copy of the stencil that records, per
// block, which SM ran it and when (gpu/anatomy/record.cuh's probe around gpu/heat's own per-thread code). The
// instrumented copy only explains scheduling: it is never timed. Its kernels are also queried by name
// ("heat", "heat_c2", ..., "heat_instrumented", ...: gpu/anatomy/anatomy.h's kernel_attributes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/launch.h"
#include "gpu/anatomy/anatomy.h"
#include "gpu/anatomy/overlay.h"

namespace bs::anatomy {

// The heat stencil as gpu/heat launches it: each thread computes cells_per_thread cells down its column
// (rows (blockIdx.y * blockDim.y + threadIdx.y) * cpt ...), so a block owns block.x x block.y*cpt cells.
CellMapping heat_mapping(Dim2 block, Dim2 grid, int cells_per_thread);

// "heat" for 1 cell per thread, else "heat_c<N>": this lab's copy of the plain stencil, by name.
std::string heat_kernel_name(int cells_per_thread);

struct HeatRecordRequest {
  int64_t nx = 1024;
  int64_t ny = 1024;
  Dim2 block{32, 8};
  // 1, 2, 4 or 8: the instrumented kernel is gpu/heat's coarsened stencil (each thread cells_per_thread cells
  // down its column), so a block covers block.x x block.y*cells_per_thread cells, as in the heat lab.
  int cells_per_thread = 1;
};

struct HeatRecord {
  int64_t nx = 0, ny = 0;
  Dim2 block, grid;
  int cells_per_thread = 1;
  std::vector<BlockRecord> blocks;  // one per block, in completion order (as appended on the device)
  uint32_t appended = 0;  // how many records the kernel appended (== blocks.size() when all ran once)
  std::string device_name;
  int sm_count = 0;
  uint32_t nsmid = 0;             // %nsmid: the SM id range the hardware reports (may exceed sm_count)
  int runtime_blocks_per_sm = 0;  // cudaOccupancyMaxActiveBlocksPerMultiprocessor of the instrumented kernel
  int regs_per_thread = 0;        // of the instrumented kernel
  ArchSpec arch;                  // the device's limits
  Occupancy model;                // the model for the instrumented kernel on this device
};

// One warm-up launch, then one recorded launch of the instrumented stencil on a HotSpots field (never zeros).
// Throws bs::GpuError (no device: "no CUDA device: <reason>") and bs::InvalidRequest (bad block, too many
// blocks).
HeatRecord record_heat_blocks(const HeatRecordRequest& req);

}  // namespace bs::anatomy
