// matmul_anatomy.h: the matmul kernels as the anatomy tools see them (pure C++; app/ includes it): how a
// variant's threads own the cells of C (the overlay's mapping), and instrumented copies of the naive and
// shared-memory tile kernels (gpu/matmul's own kernel bodies between the per-block probes of
// gpu/anatomy/record.cuh) that record which SM ran each block and when. The register-blocked variants are not
// instrumented. Never timed. The copies are also queried by name ("matmul_<variant>_instrumented").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/launch.h"
#include "gpu/anatomy/anatomy.h"
#include "gpu/anatomy/overlay.h"
#include "gpu/matmul/matmul.h"

namespace bs::anatomy {

// The matmul variant's launch for problem p, on C (N columns x M rows). cuBLAS: nullopt (the library picks
// its kernel).
std::optional<CellMapping> matmul_mapping(matmul::Variant v, const matmul::Problem& p);

std::vector<std::string>
instrumented_matmul_variants();  // naive_uncoalesced, naive_coalesced, smem_tile8/16/32
bool is_instrumented_matmul_variant(std::string_view variant);

struct MatmulRecordRequest {
  int64_t m = 1024, n = 1024, k = 1024;
  std::string variant = "smem_tile32";
};
struct MatmulRecord {
  int64_t m = 0, n = 0, k = 0;
  std::string variant;
  Dim2 block, grid;                 // matmul::launch_shape of the variant
  std::vector<BlockRecord> blocks;  // one per block, in completion order
  uint32_t appended = 0;
  std::string device_name;
  int sm_count = 0;
  uint32_t nsmid = 0;
  int runtime_blocks_per_sm = 0;  // of the instrumented copy
  int regs_per_thread = 0;
  int64_t static_smem = 0;
  ArchSpec arch;
  Occupancy model;
};
// One warm-up launch and one recorded launch on random A and B (never zeros). Throws bs::InvalidRequest for a
// bad size, an uninstrumented variant or too many blocks, bs::GpuError without a device.
MatmulRecord record_matmul_blocks(const MatmulRecordRequest& req);

}  // namespace bs::anatomy
