// heat_anatomy.cu: the heat stencil's anatomy kernels and their host side (see heat_anatomy.h): a copy of
// the plain stencil at each cells-per-thread setting (for occupancy queries of "the heat kernel") and the
// instrumented stencil (gpu/heat's per-thread code between the per-block probes of gpu/anatomy/record.cuh).
#include <algorithm>

#include "gpu/anatomy/record.cuh"
#include "gpu/common/device_buffer.h"
#include "gpu/common/device_info.h"
#include "gpu/heat/heat.h"
#include "gpu/heat/heat_anatomy.h"
#include "gpu/heat/stencil_column.cuh"

namespace bs::anatomy {

using detail::BlockProbe;
using detail::check_record_size;
using detail::fill_occupancy;
using detail::record_launches;
using detail::require_device;

namespace {

using heat::stencil_column;  // the heat lab's own per-thread code (gpu/heat/stencil_column.cuh)

// The plain stencil (thread (x, y) -> cells (x, y*C) .. (x, y*C + C - 1)), for occupancy queries of "the heat
// kernel" at each cells-per-thread setting.
template <bool Fixed, int C>
__global__ void heat_step_kernel(const float* __restrict__ in, float* __restrict__ out, int nx, int ny,
                                 float r, float bt) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * C;
  if (x >= nx || y0 >= ny) return;
  stencil_column<Fixed, C>(in, out, x, y0, nx, ny, r, bt);
}

// INSTRUMENTED heat stencil: gpu/heat's coarsened kernel plus the probe.
template <bool Fixed, int C>
__global__ void heat_step_instrumented_kernel(const float* __restrict__ in, float* __restrict__ out, int nx,
                                              int ny, float r, float bt, BlockRecord* __restrict__ rec,
                                              uint32_t* __restrict__ meta, uint32_t capacity) {
  BlockProbe probe;
  probe.begin();
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * C;
  if (x < nx && y0 < ny) stencil_column<Fixed, C>(in, out, x, y0, nx, ny, r, bt);
  probe.end(rec, meta, capacity);
}

// By name for kernel_attributes("heat") and friends; registered with the object file that records them.
const bool k_registered = register_kernels({
    {"heat", reinterpret_cast<const void*>(&heat_step_kernel<true, 1>)},
    {"heat_c2", reinterpret_cast<const void*>(&heat_step_kernel<true, 2>)},
    {"heat_c4", reinterpret_cast<const void*>(&heat_step_kernel<true, 4>)},
    {"heat_c8", reinterpret_cast<const void*>(&heat_step_kernel<true, 8>)},
    {"heat_instrumented", reinterpret_cast<const void*>(&heat_step_instrumented_kernel<true, 1>)},
    {"heat_instrumented_c2", reinterpret_cast<const void*>(&heat_step_instrumented_kernel<true, 2>)},
    {"heat_instrumented_c4", reinterpret_cast<const void*>(&heat_step_instrumented_kernel<true, 4>)},
    {"heat_instrumented_c8", reinterpret_cast<const void*>(&heat_step_instrumented_kernel<true, 8>)},
});

using HeatInstrumentedFn = void (*)(const float*, float*, int, int, float, float, BlockRecord*, uint32_t*,
                                    uint32_t);
HeatInstrumentedFn heat_instrumented_for(int cells_per_thread) {
  switch (cells_per_thread) {
    case 1:
      return heat_step_instrumented_kernel<true, 1>;
    case 2:
      return heat_step_instrumented_kernel<true, 2>;
    case 4:
      return heat_step_instrumented_kernel<true, 4>;
    default:
      return heat_step_instrumented_kernel<true, 8>;
  }
}

}  // namespace

HeatRecord record_heat_blocks(const HeatRecordRequest& req) {
  (void)k_registered;
  heat::Params p;
  p.nx = req.nx;
  p.ny = req.ny;
  if (auto err = heat::validate(p)) throw InvalidRequest(*err);
  if (auto err = heat::validate_cells_per_thread(req.cells_per_thread)) throw InvalidRequest(*err);
  if (auto err = validate_block(req.block, DeviceLimits{})) throw InvalidRequest(*err);
  // Checked before looking for a device, so that the answer does not depend on having one.
  const Dim2 grid = covering_grid(heat::cells_of(req.block, req.cells_per_thread), {p.nx, p.ny});
  check_record_size(grid, "a " + to_string({p.nx, p.ny}) + " field with block " + to_string(req.block));
  const DeviceInfo info = require_device();
  if (auto err = validate_block(req.block, info.limits)) throw InvalidRequest(*err);
  if (auto err = validate_grid(grid, info.limits)) throw InvalidRequest(*err);
  const size_t cells = static_cast<size_t>(p.cells());
  const size_t need = 2 * cells * sizeof(float) + static_cast<size_t>(grid.count()) * sizeof(BlockRecord);
  if (need > info.free_mem)
    throw InvalidRequest("recording needs " + std::to_string(need >> 20) + " MiB of device memory; " +
                         std::to_string(info.free_mem >> 20) + " MiB are free");

  HeatRecord out;
  out.nx = p.nx;
  out.ny = p.ny;
  out.block = req.block;
  out.grid = grid;
  out.cells_per_thread = req.cells_per_thread;
  out.device_name = info.name;
  out.sm_count = info.sm_count;

  const std::vector<float> field = heat::make_initial(p, heat::InitialPattern::HotSpots);
  DeviceBuffer<float> in(cells), dst(cells);
  Stream stream;
  BS_CUDA_CHECK(cudaMemcpyAsync(in.data(), field.data(), in.bytes(), cudaMemcpyHostToDevice, stream.get()));
  const dim3 b(static_cast<unsigned>(req.block.x), static_cast<unsigned>(req.block.y));
  const dim3 g(static_cast<unsigned>(grid.x), static_cast<unsigned>(grid.y));
  const HeatInstrumentedFn kernel = heat_instrumented_for(req.cells_per_thread);
  out.blocks = record_launches(
      grid, stream.get(), out.appended, out.nsmid, [&](BlockRecord* rec, uint32_t* meta, uint32_t capacity) {
        kernel<<<g, b, 0, stream.get()>>>(in.data(), dst.data(), static_cast<int>(p.nx),
                                          static_cast<int>(p.ny), p.r(), p.boundary_temp, rec, meta,
                                          capacity);
      });
  const std::string name = req.cells_per_thread == 1
                               ? std::string("heat_instrumented")
                               : "heat_instrumented_c" + std::to_string(req.cells_per_thread);
  fill_occupancy(out, reinterpret_cast<const void*>(kernel), name, static_cast<int>(req.block.count()));
  return out;
}

}  // namespace bs::anatomy
