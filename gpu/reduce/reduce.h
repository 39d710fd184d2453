// reduce.h: the reduction and scan lab's host interface (pure C++; ui/ and app/ include it).
// A sum over n elements (reduce) or its running sums (scan), float or int, on the GPU with one of a ladder of
// kernels (the classic seven-step reduction lesson, warp shuffles, atomics, CUB; Hillis-Steele and Blelloch
// in one block, a three-kernel scan for any n, a single-pass decoupled look-back scan, CUB), or on the CPU
// with std::reduce / std::inclusive_scan / std::exclusive_scan on one thread and on all threads.
//
// Inputs are a hash of the index (never all zeros, the same for any thread count): floats in [0.5, 1.5),
// ints in -7..7. The reference is computed in double (float) or int64 (int) with the same hash, so a check
// needs no second copy of the input.
//
// Correctness:
//  - int results are exact: compared with the int64 reference taken modulo 2^32 (int32 adds wrap on the GPU;
//    with inputs in -7..7 no partial sum can leave int32 below n = 306M, and the hashed inputs' sums are a
//    random walk of a few times 4.3 sqrt(n)).
//  - float results are compared with the double reference. Error measure: |computed - reference| / S, where
//    S = sum of |x_i| over the same elements (the sum itself here, since every input is positive; for a scan,
//    per output element with S = its prefix of |x|). Tolerance (float_tolerance):
//        tol = lambda * sqrt(d) * u,   u = 2^-24 (float unit roundoff), lambda = 8,
//    where d = the summation depth of the variant's order: the longest chain of floating-point additions any
//    one input passes through (sequential: n; a tree over a block of B: log2 B; a thread summing k elements
//    before a tree: k + log2 B; a look-back over T tiles: + T; see summation_depth). This is the
//    probabilistic bound of Higham & Mary (SIAM J. Sci. Comput. 2019): with rounding errors independent and
//    of mean zero, |error| <= lambda sqrt(d) u S fails with probability below 2 exp(-lambda^2 / 2) ~ 3e-14.
//    The worst-case bound d * u * S holds always but is vacuous for a sequential order at large n (n u > 1
//    from n = 16M): a sequential float sum of 256M values near 1 stagnates (adding 1 to 2^25 in float adds
//    nothing) and really is wrong by tens of percent, which the probabilistic bound reports as a failure.
//    Float checks cannot see a single lost element in 256M (4e-9 of the sum): the int runs can, exactly.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/cpu_job.h"
#include "core/enum_names.h"
#include "core/stats.h"
#include "gpu/anatomy/array_launch.h"
#include "gpu/common/device_info.h"
#include "gpu/common/device_runner.h"
#include "gpu/common/host_baseline.h"

namespace bs::reduce {

enum class Op { Reduce, Scan };
enum class ElemType { F32, I32 };
enum class ScanKind { Inclusive, Exclusive };
enum class ReduceVariant {
  InterleavedDivergent,      // 1: interleaved addressing, tid % (2s) == 0: divergent warps
  InterleavedBankConflicts,  // 2: interleaved, index = 2 s tid: no divergence, shared-memory bank conflicts
  Sequential,                // 3: sequential addressing (stride halves): conflict-free, half the threads idle
  FirstAddDuringLoad,        // 4: each thread adds two elements while loading: half the blocks
  UnrollLastWarp,            // 5: the last 6 steps unrolled in one warp (volatile, __syncwarp)
  CompleteUnroll,            // 6: block size a template parameter: every step unrolled
  GridStride,                // 7: a fixed grid, each thread sums many elements first (Harris' reduce6)
  WarpShuffle,               // 8: __shfl_down_sync instead of shared memory, float4 loads, 2 kernels
  AtomicPerBlock,            // 9: as 8, one atomicAdd per block instead of a second kernel
  Cub,                       // cub::DeviceReduce::Sum
};
enum class ScanVariant {
  HillisSteeleBlock,  // one block, n <= block: log2 n steps, each thread adds at every step (n log n adds)
  BlellochBlock,      // one block, n <= 2 block: up-sweep and down-sweep (2n adds), bank-conflict padding
  ScanThenPropagate,  // any n: scan tiles, scan the tile sums, add each tile's offset (3 kernels)
  DecoupledLookback,  // any n, one pass: each tile publishes its sum and looks back at its predecessors
  Cub,                // cub::DeviceScan::InclusiveSum / ExclusiveSum
};
enum class Device { Gpu, Cpu, All };
// CPU mode, its label and thread count: gpu/common/host_baseline.h.
using bs::CpuMode;
using bs::cpu_mode_label;
using bs::cpu_thread_count;

// The names files, sessions, sweeps and the CLI use.
inline constexpr auto k_op_names = enum_names<Op>({{Op::Reduce, "reduce"}, {Op::Scan, "scan"}});
inline constexpr auto k_type_names = enum_names<ElemType>({{ElemType::F32, "float"}, {ElemType::I32, "int"}});
inline constexpr auto k_scan_kind_names =
    enum_names<ScanKind>({{ScanKind::Inclusive, "inclusive"}, {ScanKind::Exclusive, "exclusive"}});
inline constexpr auto k_reduce_variant_names = enum_names<ReduceVariant>({
    {ReduceVariant::InterleavedDivergent, "interleaved-divergent"},
    {ReduceVariant::InterleavedBankConflicts, "interleaved-bank-conflicts"},
    {ReduceVariant::Sequential, "sequential"},
    {ReduceVariant::FirstAddDuringLoad, "first-add-during-load"},
    {ReduceVariant::UnrollLastWarp, "unroll-last-warp"},
    {ReduceVariant::CompleteUnroll, "complete-unroll"},
    {ReduceVariant::GridStride, "grid-stride"},
    {ReduceVariant::WarpShuffle, "warp-shuffle"},
    {ReduceVariant::AtomicPerBlock, "atomic-per-block"},
    {ReduceVariant::Cub, "cub"},
});
inline constexpr auto k_scan_variant_names = enum_names<ScanVariant>({
    {ScanVariant::HillisSteeleBlock, "hillis-steele-block"},
    {ScanVariant::BlellochBlock, "blelloch-block"},
    {ScanVariant::ScanThenPropagate, "scan-then-propagate"},
    {ScanVariant::DecoupledLookback, "decoupled-lookback"},
    {ScanVariant::Cub, "cub"},
});
inline constexpr auto k_device_names =
    enum_names<Device>({{Device::Gpu, "gpu"}, {Device::Cpu, "cpu"}, {Device::All, "all"}});

// One line for the panel and the bench: "sequential addressing: stride halves, no bank conflicts; half the
// threads idle from the first step".
const char* description(ReduceVariant v);
const char* description(ScanVariant v);
// The rung's number in the lesson (1..10 / 1..5) and a short label for tables: "3 sequential".
int rung(ReduceVariant v);
int rung(ScanVariant v);

constexpr int64_t k_min_n = 1;
// 64G elements: beyond any device's memory, so that too large a size is refused by the memory check, which
// names the sizes, rather than by the range.
constexpr int64_t k_max_n = int64_t{1} << 36;
constexpr int k_min_block = 32;
constexpr int k_max_block = 1024;
constexpr const char* k_bench_n = "256M";  // the bench's default: 1 GiB per array, far beyond any cache
constexpr int k_default_block = 256;

struct Params {
  int64_t n = int64_t{1} << 24;
  Op op = Op::Reduce;
  ElemType type = ElemType::F32;
  ReduceVariant reduce_variant = ReduceVariant::WarpShuffle;
  ScanVariant scan_variant = ScanVariant::DecoupledLookback;
  ScanKind scan_kind = ScanKind::Inclusive;
  int block = k_default_block;  // threads per block (CUB chooses its own; ignored there)
};

// The variant's name in k_*_variant_names for p.op ("warp-shuffle", "decoupled-lookback").
std::string variant_name(const Params& p);
// "reduce float 16M, warp-shuffle, block 256" / "scan int 1000 (exclusive), blelloch-block, block 512".
std::string describe(const Params& p);

// What the variant requires of the block size.
bool needs_power_of_two_block(ReduceVariant v);  // every tree variant; warp-shuffle/atomic/cub do not
bool needs_power_of_two_block(ScanVariant v);    // hillis-steele, blelloch, scan-then-propagate, lookback
int min_block(ReduceVariant v);                  // 64 for unroll-last-warp and complete-unroll, else 32
// Single-block scans: the largest n one block handles (Hillis-Steele: block; Blelloch: 2 x block); 0 for
// the scans that take any n.
int64_t single_block_max_n(ScanVariant v, int block);

// nullopt when p can run; else a message naming the parameter and what is allowed: "n = 0: nothing to
// reduce (n must be at least 1)", "block 96 is not a power of two: interleaved-divergent halves ...",
// "blelloch-block scans one block of at most 2 x 256 = 512 elements, n = 1000: use scan-then-propagate or
// decoupled-lookback for larger n". Memory is checked separately (check_device_memory).
std::optional<std::string> validate(const Params& p);

// Device bytes a GPU run of p allocates: the input, the output (scans) and the partial sums / tile states.
uint64_t device_bytes_needed(const Params& p, int sm_count);
// nullopt when device_bytes_needed fits in free_bytes; else "n = 32G floats need 128.0 GiB of device memory
// (input 128.0 GiB + ...); the device has 79.1 GiB free of 79.6 GiB".
std::optional<std::string> check_device_memory(const Params& p, int sm_count, uint64_t free_bytes,
                                               uint64_t total_bytes);
// The same for the host arrays a CPU run (or a scan's check) needs, against available_host_bytes().
std::optional<std::string> check_host_memory(const Params& p, uint64_t available_bytes);
// Element counts ("256M") and host memory: gpu/common/host_baseline.h.
using bs::available_host_bytes;
using bs::check_host_memory;
using bs::format_count;
using bs::parse_count;
using bs::ParsedCount;
// --- Launch plan (pure arithmetic; the runner launches exactly this)
// --------------------------------------------------------------------------------------------------------
struct LaunchPlan {
  int block = 0;           // threads per block
  int64_t grid = 0;        // blocks of the first (largest) kernel
  int64_t per_thread = 0;  // elements one thread adds sequentially before any tree (at most)
  int64_t tiles = 0;       // scans: tiles of the first kernel (look-back: the chain length)
  int kernels = 0;         // launches per run (multi-pass reductions: one per level)
  int64_t depth = 0;       // summation_depth: the longest chain of additions (float tolerance)
  std::string text;        // "2 kernels: 1056 blocks x 256 threads, 993 elements per thread, then 1 block"
};
// sm_count and resident blocks per SM decide the grid of the grid-stride variants (a few waves of resident
// blocks); CUB's plan has grid 0 (its own) and a conservative depth (see summation_depth).
LaunchPlan make_plan(const Params& p, int sm_count, int blocks_per_sm = 8);
// The longest chain of additions in the order the variant sums (see the header comment). CPU one thread: n
// (std::reduce and the scans are sequential); all threads: n / threads + threads. CUB's order is not
// documented: its depth is taken as that of a look-back over tiles of 512 elements plus a sequential tile
// (n / 512 + 512 + log2), the shape of its single-pass algorithms.
int64_t summation_depth(const Params& p, int sm_count, int blocks_per_sm = 8);
int64_t cpu_summation_depth(int64_t n, CpuMode mode, int threads);
// lambda sqrt(depth) u with lambda = 8, u = 2^-24 (see the header comment).
double float_tolerance(int64_t depth);
constexpr double k_tolerance_lambda = 8.0;

// Shared memory (bytes) of the tile scans' transposing buffer for a block of `block` threads: block x 32
// elements as 16-byte words, one spare word after every 8 (see reduce_kernels.cuh).
int64_t tile_scan_smem_bytes(int block);

// The kernel of p's run that passes over the whole input (the first launch; scan-then-propagate: its tile
// scan; later launches work on the per-block partial sums), as GpuRunner launches it: for the occupancy
// read-out and the anatomy tools' instrumented copy and array map (gpu/anatomy/array_launch.h: kernel is the
// name in reduce_gpu.cu, grid is plan.grid, transposed marks the tile scans' staging, tail_from the warp
// shuffle's n mod 4 tail).
using KernelShape = anatomy::ArrayLaunch;
// `plan` is make_plan(p, ...) (its grid decides the grid-stride variants); `smem_optin` the device's opt-in
// shared memory per block (the tile scans use their buffer only where it fits).
KernelShape first_kernel_shape(const Params& p, const LaunchPlan& plan, int64_t smem_optin);
// The block that takes input element i under `s` (i < p.n); -1 when none does.
using anatomy::block_of_element;

// --- Inputs, reference, checks
// --------------------------------------------------------------------------------------------------------
float input_f32(int64_t i, uint32_t seed = 1);               // in [0.5, 1.5)
int32_t input_i32(int64_t i, uint32_t seed = 1);             // in -7..7
void fill_inputs(float* x, int64_t n, uint32_t seed = 1);    // all threads
void fill_inputs(int32_t* x, int64_t n, uint32_t seed = 1);  // all threads

// The exact (int64) or double sum of the first n inputs (all threads).
double reference_sum_f32(int64_t n, uint32_t seed = 1);
int64_t reference_sum_i32(int64_t n, uint32_t seed = 1);

struct Check {
  bool passed = false;
  double max_err = 0;      // float: the largest |c - ref| / S (see the header comment); int: 0 or mismatches
  double tolerance = 0;    // float: float_tolerance(depth); int: 0 (exact)
  int64_t depth = 0;       // the summation depth the tolerance was derived from
  int64_t mismatches = 0;  // scans: outputs outside the tolerance
  int64_t first_bad = -1;  // scans: the first such output
  std::string text;  // "rel err 3.1e-08 <= 1.5e-05 (depth 1034)" / "exact" / "3 of 1000 wrong, first ..."
};
// Reduce: compare one result with the reference sum of the inputs (seed 1) of n elements.
Check check_sum(double computed, int64_t n, int64_t depth);  // float
Check check_sum(int64_t computed, int64_t n);                // int (computed as the int32 result)
// Scan: compare n outputs with the reference prefix sums (inclusive or exclusive) of the inputs (seed 1).
Check check_scan(std::span<const float> out, ScanKind kind, int64_t depth);
Check check_scan(std::span<const int32_t> out, ScanKind kind);

// --- CPU baselines
// --------------------------------------------------------------------------------------------------------
// One thread: std::reduce / std::inclusive_scan / std::exclusive_scan (sequential in libstdc++). All threads:
// the same per contiguous chunk (one per thread), then the chunk sums (scans: a second pass adds each chunk's
// offset). Progress and cancel through ctl (throws JobCancelled).
float reduce_cpu(std::span<const float> x, CpuMode mode, JobControl* ctl = nullptr);
int32_t reduce_cpu(std::span<const int32_t> x, CpuMode mode, JobControl* ctl = nullptr);
void scan_cpu(std::span<const float> x, std::span<float> out, ScanKind kind, CpuMode mode,
              JobControl* ctl = nullptr);
void scan_cpu(std::span<const int32_t> x, std::span<int32_t> out, ScanKind kind, CpuMode mode,
              JobControl* ctl = nullptr);

// --- Results
// --------------------------------------------------------------------------------------------------------
// One row of the bench table (and the panel's last result).
struct Row {
  std::string variant;  // "3 sequential" / "cub" / "CPU, 1 thread"
  std::string name;     // the variant's name ("sequential"), or "cpu-1" / "cpu-all"
  bool gpu = false;
  Summary ms;           // per run, over the repetitions after one warm-up
  double gbs = 0;       // bytes moved (reduce: n x 4 read; scan: n x 4 read + n x 4 written) / median ms
  double copy_pct = 0;  // GPU: gbs / the copy kernel's GB/s of the same runner, in %; 0 when not measured
  double cub_pct = 0;   // GPU: CUB's median ms / this median ms, in % (100: as fast as CUB); 0 when no CUB
  LaunchPlan plan;      // GPU
  double value = 0;     // reduce: the sum (int: exactly representable in a double); scan: the last output
  Check check;
  int repetitions = 0;
  std::string note;
};

struct CopyKernel {
  int64_t n = 0;   // elements (4 bytes each) copied
  double ms = 0;   // median
  double gbs = 0;  // 2 arrays (one read, one write) / ms: the practical DRAM ceiling of a streaming kernel
  double read_gbs = 0;  // the same time counting only the read array (what a reduction moves): gbs / 2
};

// --- GPU runner
// --------------------------------------------------------------------------------------------------------
// Owns the device input, output, partial sums and tile states (buffers grow, never shrink), the CUB temporary
// storage, a stream and events. Inputs are generated on the device (the same hash as input_f32/input_i32).
// Throws bs::GpuError when no device is usable or CUDA fails, bs::InvalidRequest for parameters that cannot
// run (validate's message, or check_device_memory's).
class GpuRunner : public DeviceRunner {
 public:
  GpuRunner();
  ~GpuRunner();

  LaunchPlan plan(const Params& p) const;

  // One warm-up run, then `repetitions` runs each bracketed by CUDA events; checks the last run's result
  // against the reference when `check` (scans copy the output back for it). row.copy_pct and row.cub_pct are
  // 0 (run_bench fills them).
  Row run(const Params& p, int repetitions = 5, bool check = true);
  // The copy kernel (float4 grid-stride) over n 4-byte elements on this runner's buffers.
  CopyKernel copy_kernel(int64_t n, int repetitions = 7);

  // Untimed runs on caller data (tests): x goes to the device as is; p.n is taken from x.size().
  float reduce(const Params& p, std::span<const float> x);
  int32_t reduce(const Params& p, std::span<const int32_t> x);
  std::vector<float> scan(const Params& p, std::span<const float> x);
  std::vector<int32_t> scan(const Params& p, std::span<const int32_t> x);

  // The device function of first_kernel_shape(p)'s kernel (the one the runner launches first), for
  // cudaFuncGetAttributes and the occupancy API; nullptr for CUB. Throws bs::InvalidRequest for a block the
  // variant cannot take.
  static const void* first_kernel_function(const Params& p);

  // After a device reset every handle is gone: forget them without freeing.
  void abandon() noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> m;
};

// --- Bench (the bench command and the panel's "run all")
// --------------------------------------------------------------------------------------------------------
struct BenchOptions {
  Params params;  // op, type, n, block, scan kind; the variant fields are ignored when all_variants
  bool all_variants = true;
  Device device = Device::All;
  int repetitions = 5;
  bool check = true;
};
struct BenchResult {
  std::vector<Row> rows;  // GPU rows in ladder order (skipped: single-block scans beyond one block), then CPU
  CopyKernel copy;        // timed in the same run
  bool gpu_ran = false;
  std::string gpu_skipped_reason;    // "no CUDA device (...)" when the GPU was asked for and absent
  std::vector<std::string> skipped;  // "hillis-steele-block: n = 16M is more than one block (256)"
  std::string gpu_name;
  bool all_checks_passed = true;
};
// Runs the GPU rows (when asked and a device exists: copy kernel, CUB first, then the variants, filling
// copy_pct and cub_pct) and the CPU rows (one thread, all threads). Throws bs::InvalidRequest for parameters
// that cannot run at all (n = 0, too large for memory); a variant that cannot run at this n is skipped with a
// line in `skipped`. Progress and cancel through ctl.
BenchResult run_bench(const BenchOptions& o, JobControl* ctl = nullptr);

}  // namespace bs::reduce
