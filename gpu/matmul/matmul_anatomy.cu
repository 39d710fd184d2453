// matmul_anatomy.cu: instrumented copies of the matmul lab's naive and shared-memory tile kernels and their
// host side (see matmul_anatomy.h).
#include "gpu/anatomy/record.cuh"
#include "gpu/common/device_buffer.h"
#include "gpu/common/device_info.h"
#include "gpu/matmul/matmul.h"
#include "gpu/matmul/matmul_anatomy.h"
#include "gpu/matmul/matmul_bodies.cuh"

namespace bs::anatomy {

using detail::BlockProbe;
using detail::check_record_size;
using detail::fill_occupancy;
using detail::record_launches;
using detail::require_device;

namespace {

// INSTRUMENTED versions of gpu/matmul's naive and tiled kernels: the lab's own kernel bodies
// (gpu/matmul/matmul_bodies.cuh) between the probe's start and end.
template <bool RowsAlongX>
__global__ void matmul_naive_instrumented(const float* __restrict__ a, const float* __restrict__ b,
                                          float* __restrict__ c, int m, int n, int k,
                                          BlockRecord* __restrict__ rec, uint32_t* __restrict__ meta,
                                          uint32_t capacity) {
  BlockProbe probe;
  probe.begin();
  matmul::kernels::naive_body<RowsAlongX>(a, b, c, m, n, k);
  probe.end(rec, meta, capacity);
}

template <int T>
__global__ void matmul_smem_instrumented(const float* __restrict__ a, const float* __restrict__ b,
                                         float* __restrict__ c, int m, int n, int k,
                                         BlockRecord* __restrict__ rec, uint32_t* __restrict__ meta,
                                         uint32_t capacity) {
  BlockProbe probe;
  probe.begin();
  matmul::kernels::smem_tile_body<T>(a, b, c, m, n, k);
  probe.end(rec, meta, capacity);
}

using MatmulInstrumentedFn = void (*)(const float*, const float*, float*, int, int, int, BlockRecord*,
                                      uint32_t*, uint32_t);

// By name for kernel_attributes("matmul_smem_tile32_instrumented") and friends; registered with the object
// file that records them.
const bool k_registered = register_kernels({
    {"matmul_naive_uncoalesced_instrumented", reinterpret_cast<const void*>(&matmul_naive_instrumented<true>)},
    {"matmul_naive_coalesced_instrumented", reinterpret_cast<const void*>(&matmul_naive_instrumented<false>)},
    {"matmul_smem_tile8_instrumented", reinterpret_cast<const void*>(&matmul_smem_instrumented<8>)},
    {"matmul_smem_tile16_instrumented", reinterpret_cast<const void*>(&matmul_smem_instrumented<16>)},
    {"matmul_smem_tile32_instrumented", reinterpret_cast<const void*>(&matmul_smem_instrumented<32>)},
});

}  // namespace

MatmulRecord record_matmul_blocks(const MatmulRecordRequest& req) {
  (void)k_registered;
  const matmul::Problem p{req.m, req.n, req.k};
  if (auto err = matmul::validate(p)) throw InvalidRequest(*err);
  const auto v = matmul::parse_variant(req.variant);
  if (!v || !is_instrumented_matmul_variant(req.variant)) {
    std::string names;
    for (const auto& n : instrumented_matmul_variants())
      names += (names.empty() ? "" : ", ") + n;
    throw InvalidRequest("variant '" + req.variant + "' has no instrumented copy; instrumented: " + names);
  }
  const matmul::LaunchShape shape = matmul::launch_shape(*v, p);
  check_record_size(shape.grid,
                    "C " + std::to_string(p.m) + "x" + std::to_string(p.n) + " with " + req.variant);
  const DeviceInfo info = require_device();
  if (auto err = validate_grid(shape.grid, info.limits)) throw InvalidRequest(*err);
  if (auto err = matmul::validate_memory(p, info.free_mem)) throw InvalidRequest(*err);

  MatmulRecord out;
  out.m = p.m;
  out.n = p.n;
  out.k = p.k;
  out.variant = req.variant;
  out.block = shape.block;
  out.grid = shape.grid;
  out.device_name = info.name;
  out.sm_count = info.sm_count;

  const std::vector<float> a = matmul::make_matrix(p.m, p.k, 1), bm = matmul::make_matrix(p.k, p.n, 2);
  DeviceBuffer<float> da(a.size()), db(bm.size()), dc(p.c_count());
  Stream stream;
  BS_CUDA_CHECK(cudaMemcpyAsync(da.data(), a.data(), da.bytes(), cudaMemcpyHostToDevice, stream.get()));
  BS_CUDA_CHECK(cudaMemcpyAsync(db.data(), bm.data(), db.bytes(), cudaMemcpyHostToDevice, stream.get()));
  MatmulInstrumentedFn kernel = nullptr;
  switch (*v) {
    case matmul::Variant::NaiveUncoalesced:
      kernel = matmul_naive_instrumented<true>;
      break;
    case matmul::Variant::NaiveCoalesced:
      kernel = matmul_naive_instrumented<false>;
      break;
    case matmul::Variant::SmemTile8:
      kernel = matmul_smem_instrumented<8>;
      break;
    case matmul::Variant::SmemTile16:
      kernel = matmul_smem_instrumented<16>;
      break;
    default:
      kernel = matmul_smem_instrumented<32>;
      break;
  }
  const dim3 b(static_cast<unsigned>(shape.block.x), static_cast<unsigned>(shape.block.y));
  const dim3 g(static_cast<unsigned>(shape.grid.x), static_cast<unsigned>(shape.grid.y));
  out.blocks = record_launches(shape.grid, stream.get(), out.appended, out.nsmid,
                               [&](BlockRecord* rec, uint32_t* meta, uint32_t capacity) {
                                 kernel<<<g, b, 0, stream.get()>>>(
                                     da.data(), db.data(), dc.data(), static_cast<int>(p.m),
                                     static_cast<int>(p.n), static_cast<int>(p.k), rec, meta, capacity);
                               });
  const std::string name = "matmul_" + req.variant + "_instrumented";
  out.static_smem = kernel_attributes(reinterpret_cast<const void*>(kernel), name).static_smem;
  fill_occupancy(out, reinterpret_cast<const void*>(kernel), name, static_cast<int>(shape.block.count()));
  return out;
}

}  // namespace bs::anatomy
