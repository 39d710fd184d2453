// occupancy.h: the CUDA occupancy calculator as a model. For an architecture (from a table of sm_75..sm_90,
// or filled from the real device) and a kernel's per-block resources (threads, registers per thread, shared
// memory), how many blocks and warps fit on one SM, the theoretical occupancy, and which resource limits it.
// The rules follow NVIDIA's occupancy calculator (cuda_occupancy.h in the toolkit), so on a GPU the model
// agrees with cudaOccupancyMaxActiveBlocksPerMultiprocessor. Without a GPU it is a model, not a measurement.
// Pure C++: ui/ and app/ include it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bs::anatomy {

// Per-SM resource limits of one architecture. Shared memory sizes are in bytes.
struct ArchSpec {
  std::string name;    // "sm_90"
  std::string family;  // "Hopper"
  int cc_major = 0, cc_minor = 0;
  int warp_size = 32;
  int max_threads_per_block = 1024;
  int max_threads_per_sm = 2048;
  int max_warps_per_sm = 64;  // max_threads_per_sm / warp_size
  int max_blocks_per_sm = 32;
  int regs_per_sm = 65536;     // the register file: 64K 32-bit registers
  int regs_per_block = 65536;  // the most one block may hold
  int reg_alloc_unit = 256;    // registers are handed to a warp in units of 256
  int max_regs_per_thread = 255;
  // The SM has 4 sub-partitions (one warp scheduler and a quarter of the register file each). Registers are
  // allocated per sub-partition, and the hardware's per-block register check rounds a block's warps up to a
  // multiple of 4, as the occupancy calculator's "warp allocation granularity" does.
  int warp_alloc_granularity = 4;
  int64_t smem_per_sm = 0;  // the largest shared-memory carve-out
  int64_t smem_per_block_default =
      49152;                            // without opting in (48 KiB); static shared memory never exceeds it
  int64_t smem_per_block_optin = 0;     // with cudaFuncAttributeMaxDynamicSharedMemorySize
  int64_t smem_reserved_per_block = 0;  // the driver keeps 1 KiB per block for itself from sm_80 on
  int smem_alloc_granularity = 128;     // a block's shared memory is rounded up to this
  std::vector<int64_t> smem_carveouts;  // the shared-memory sizes an SM can be configured to, ascending
  bool from_device = false;             // filled from a real device rather than the table
  std::string note;                     // e.g. "compute capability 10.0 is not in the table: approximate"
};

// sm_75, sm_80, sm_86, sm_89, sm_90.
const std::vector<ArchSpec>& arch_table();
// Accepts "sm_90", "90", "9.0", "compute_90". nullopt when the table does not hold it.
std::optional<ArchSpec> find_arch(std::string_view name);
// "sm_75, sm_80, sm_86, sm_89, sm_90": for error messages.
std::string arch_names();

// What one block of a kernel asks for.
struct KernelUsage {
  int threads_per_block = 256;
  int regs_per_thread = 32;
  int64_t static_smem = 0;   // __shared__ arrays; at most 48 KiB
  int64_t dynamic_smem = 0;  // the third launch parameter; above 48 KiB the kernel must opt in
  // cudaFuncAttributePreferredSharedMemoryCarveout in percent of the largest carve-out; -1 = the default
  // (the calculator then assumes the largest carve-out).
  int carveout_percent = -1;
};

// Which resource stops more blocks from being resident. Ties are reported in this order.
enum class Limiter { Warps, Registers, SharedMemory, Blocks };
const char* limiter_label(Limiter l);  // "threads/warps", "registers", "shared memory", "blocks per SM"

constexpr int k_no_limit = 1 << 30;  // a resource the kernel does not use limits nothing

struct Occupancy {
  int warps_per_block = 0;
  int regs_per_warp = 0;       // allocated: registers x warp size rounded up to the allocation unit
  int regs_per_block = 0;      // allocated: regs_per_warp x warps_per_block
  int64_t smem_per_block = 0;  // allocated: static + dynamic + reserved, rounded up to the granularity
  int64_t smem_config = 0;     // the carve-out the SM runs with
  int limit_warps = 0;         // blocks per SM allowed by each resource (k_no_limit: unlimited)
  int limit_regs = 0;
  int limit_smem = 0;
  int limit_blocks = 0;
  int blocks_per_sm = 0;  // the smallest of the four
  int warps_per_sm = 0;
  int threads_per_sm = 0;
  double occupancy = 0;              // warps_per_sm / max_warps_per_sm, 0..1
  Limiter limiter = Limiter::Warps;  // the first (in enum order) resource whose limit equals blocks_per_sm
  std::string reason;                // when blocks_per_sm == 0: why no block fits
  std::vector<std::string> notes;    // advice: opt-in needed, threads not a multiple of the warp size, ...
};

// Throws bs::InvalidRequest for requests no compiler or launch could produce (threads outside 1..max per
// block, registers outside 0..max per thread, negative or impossible shared memory, carve-out outside
// -1..100). Launches that are legal to ask for but fit no block on an SM (too many registers or too much
// shared memory for one block) give blocks_per_sm == 0 with `reason` and the limiter that caused it.
Occupancy compute_occupancy(const ArchSpec& arch, const KernelUsage& usage);

// Occupancy for block sizes step, 2*step, ... up to the architecture's max threads per block (32..1024 by
// default), for the UI's occupancy-vs-block-size plot. usage.threads_per_block is ignored.
struct CurvePoint {
  int threads = 0;
  Occupancy occ;
};
std::vector<CurvePoint> occupancy_curve(const ArchSpec& arch, const KernelUsage& usage, int step = 32);

// Human-readable reports (the CLI prints them; the UI may show them).
std::string describe_arch(const ArchSpec& arch);
std::string format_occupancy(const ArchSpec& arch, const KernelUsage& usage, const Occupancy& occ);
std::string format_curve(const ArchSpec& arch, const KernelUsage& usage,
                         const std::vector<CurvePoint>& curve);
// "48K" / "48KiB" / "49152" -> bytes; nullopt for anything else.
std::optional<int64_t> parse_bytes(std::string_view text);

}  // namespace bs::anatomy
