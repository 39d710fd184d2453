// memory.h: the memory lab's host interface (plain C++; ui/ and app/ include it). Four kernels, each a ladder
// of variants, that show how the addresses a warp touches decide the speed of global and shared memory:
//   transpose: copy (the same bytes, both sides coalesced), naive (coalesced read, strided write), tiled
//              through shared memory, the tile padded by one column, padded with several elements per thread;
//   stride:    every element read once, lanes `stride` floats apart (1..64), or a random permutation;
//   banks:     shared-memory reads with lanes `bank stride` words apart (2- to 32-way conflicts), plain or
//              padded (one spare word per 32);
//   aos:       one step of a particle update on an array of structures or a structure of arrays.
// The index expressions all of them use are in memory_index.h; the predicted sectors, requests and bank
// conflicts (from those same expressions) in memory_model.h. Every GPU run is timed with CUDA events (warm-up
// excluded, median and p10/p90) and checked against the CPU result.
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
#include "core/launch.h"
#include "core/stats.h"
#include "gpu/common/device_info.h"
#include "gpu/common/device_runner.h"
#include "gpu/common/host_baseline.h"
#include "gpu/memory/memory_index.h"

namespace bs::memory {

enum class Kernel { Transpose, Stride, Banks, Aos };
// Every variant of every kernel, one enum (a bench row, a sweep point or the picture names one). The
// per-kernel tables below give each kernel's own names (the schema's `transpose`, `stride_pattern`, ...).
enum class Variant {
  Copy,              // transpose: a plain copy of the same bytes over the same tiles (the ceiling)
  Naive,             // transpose: read coalesced, write strided by `rows`
  Tiled,             // transpose: through a 32 x 32 shared tile, block 32 x 32 (one element per thread)
  TiledPadded,       // transpose: the tile padded to 33 columns (no bank conflicts), block 32 x 32
  TiledPaddedMulti,  // transpose: padded tile, block 32 x dy, 32 / dy elements per thread
  Strided,           // stride: lanes `stride` floats apart
  Random,            // stride: a random permutation (gather)
  BanksPlain,        // banks: lanes `bank_stride` words apart in a plain array
  BanksPadded,       // banks: the same logical words with one spare word after every 32
  Aos,               // aos: array of structures
  Soa,               // aos: structure of arrays
};
enum class Device { Gpu, Cpu, All };  // the bench's rows: GPU variants, CPU versions, or both

inline constexpr auto k_kernel_names = enum_names<Kernel>({{Kernel::Transpose, "transpose"},
                                                           {Kernel::Stride, "stride"},
                                                           {Kernel::Banks, "banks"},
                                                           {Kernel::Aos, "aos"}});
// All variants by their unique name (the bench's --variant, sweep values).
inline constexpr auto k_variant_names =
    enum_names<Variant>({{Variant::Copy, "copy"},
                         {Variant::Naive, "naive"},
                         {Variant::Tiled, "tiled"},
                         {Variant::TiledPadded, "tiled-padded"},
                         {Variant::TiledPaddedMulti, "tiled-padded-multi"},
                         {Variant::Strided, "strided"},
                         {Variant::Random, "random"},
                         {Variant::BanksPlain, "plain"},
                         {Variant::BanksPadded, "padded"},
                         {Variant::Aos, "aos"},
                         {Variant::Soa, "soa"}});
// Each kernel's variants, in ladder order (the schema's per-kernel choices use these names).
inline constexpr auto k_transpose_names =
    enum_names<Variant>({{Variant::Copy, "copy"},
                         {Variant::Naive, "naive"},
                         {Variant::Tiled, "tiled"},
                         {Variant::TiledPadded, "tiled-padded"},
                         {Variant::TiledPaddedMulti, "tiled-padded-multi"}});
inline constexpr auto k_stride_names =
    enum_names<Variant>({{Variant::Strided, "strided"}, {Variant::Random, "random"}});
inline constexpr auto k_banks_names =
    enum_names<Variant>({{Variant::BanksPlain, "plain"}, {Variant::BanksPadded, "padded"}});
inline constexpr auto k_aos_names = enum_names<Variant>({{Variant::Aos, "aos"}, {Variant::Soa, "soa"}});
inline constexpr auto k_device_names =
    enum_names<Device>({{Device::Gpu, "gpu"}, {Device::Cpu, "cpu"}, {Device::All, "all"}});

const char* to_string(Kernel k);   // "transpose"
const char* to_string(Variant v);  // "tiled-padded"
const char* title(Kernel k);       // "matrix transpose", "strided read", "shared-memory banks", "AoS vs SoA"
Kernel kernel_of(Variant v);
std::vector<Variant> variants_of(Kernel k);  // ladder order
bool uses_shared_memory(Variant v);          // Tiled*, Banks*

// --- Limits and defaults
// -------------------------------------------------------------------------------------------
constexpr int64_t k_max_dim = 16384;             // transpose rows, cols: 1..16384 (1 GiB per matrix)
constexpr int64_t k_min_n = 1;                   // stride, banks, aos: elements / threads / particles
constexpr int64_t k_max_n = int64_t{256} << 20;  // 256M (1 GiB of floats; 8 GiB of AoS particles)
constexpr int k_max_stride = 64;
constexpr int64_t k_default_dim = 2048;    // the live view's transpose: 2048 x 2048
constexpr int64_t k_bench_dim = 8192;      // the bench's: 8192 x 8192 (256 MiB per matrix)
constexpr const char* k_default_n = "4M";  // the live view's n
constexpr const char* k_bench_n = "64M";   // the bench's n (stride, aos: far beyond L2)
// Relative tolerance of the particle step, GPU against CPU: nvcc contracts v - x*inv_m*dt and x + v*dt into
// fused multiply-adds, the x86-64 baseline build does not; with x, v in [0.5, 1.5) and mass in [1, 2) no
// term cancels, so the results differ by a few float ulps (~1e-7 relative). 2e-6 leaves margin and still
// catches a wrong field (which changes a result by percent). Transpose, stride and banks move or add floats
// in a fixed order: GPU and CPU must agree exactly.
constexpr double k_aos_rel_tol = 2e-6;

struct Params {
  Kernel kernel = Kernel::Transpose;
  Variant transpose = Variant::TiledPaddedMulti;  // each kernel's chosen variant
  Variant stride_pattern = Variant::Strided;
  Variant banks = Variant::BanksPlain;
  Variant aos = Variant::Aos;
  int64_t rows = k_default_dim;  // transpose: in is rows x cols (a matrix: rows of cols floats)
  int64_t cols = k_default_dim;
  int64_t n = int64_t{4} << 20;  // stride: floats; banks: threads; aos: particles
  int stride = 2;                // strided read: 1..64 floats between lanes
  int bank_stride = 32;          // banks: 1..32 words between lanes
  Dim2 block{32, 8};  // transpose: copy, naive and multi (the tiled ones are 32 x 32 by definition)
  int threads = 256;  // stride, banks, aos: threads per block (1..1024)
  uint32_t seed = 1;  // inputs and the random permutation

  Variant variant() const;  // the chosen variant of `kernel`
  // The block a variant is launched with: Tiled/TiledPadded 32 x 32, the transpose's others `block`, the
  // 1-D kernels threads x 1.
  Dim2 block_of(Variant v) const;
  int64_t elements() const;  // transpose rows*cols; stride n; banks n; aos n
};

// For people: "tiled, padded tile (33 columns), 4 elements per thread" (block shape from p where it matters).
std::string describe(Variant v, const Params& p);

// nullopt when variant v can run with p; otherwise a message that names the parameter and its legal range
// ("block 16x8: the tiled transposes need block.x = 32 (the tile's width) and block.y dividing 32 ...").
// Memory is checked separately (check_device_memory, check_host_memory).
std::optional<std::string> validate(const Params& p, Variant v);
std::optional<std::string> validate(const Params& p);  // p.variant()

// Element counts ("256M") and host memory: gpu/common/host_baseline.h.
using bs::available_host_bytes;
using bs::check_host_memory;
using bs::format_count;
using bs::parse_count;
using bs::ParsedCount;

// Bytes of device memory variant v allocates (inputs, outputs, permutation-free), and the bytes it counts as
// moved for GB/s: transpose and copy 2 * 4 * rows * cols (read once, written once); stride and random
// 2 * 4 * n; banks 4 * n * k_bank_iterations (shared-memory bytes loaded; no global bytes counted); aos
// n * 4 * (7 + 6) (the fields the step reads and writes, not the 32 bytes a particle occupies).
int64_t device_bytes(const Params& p, Variant v);
int64_t counted_bytes(const Params& p, Variant v);
const char* counted_bytes_text(Variant v);  // "bytes read + written (2 x 4 x rows x cols)"
// A transpose's size as every label, read-out, CLI message and export writes it: x first, as the other labs'
// fields and CUDA's dims do ("4096 x 1024" is 4096 cols by 1024 rows); `size` pairs are [cols, rows] too.
std::string shape_text(int64_t rows, int64_t cols);
// nullopt when v's buffers fit into `free_bytes` (less a 64 MiB margin for the context); else "the transpose
// of 16384 x 16384 needs 2048 MiB of device memory; 1500 MiB are free".
std::optional<std::string> check_device_memory(const Params& p, Variant v, uint64_t free_bytes);
// The same for the CPU versions' host buffers against MemAvailable.
std::optional<std::string> check_host_memory(const Params& p, Variant v, uint64_t available_bytes);

// --- Inputs and checks
// ----------------------------------------------------------------------------------------------
// Deterministic inputs: a hash of the index and seed, in [0.5, 1.5) (never zero, all different enough that a
// misplaced element is caught). Particles: x, y, z, vx, vy, vz in [0.5, 1.5), mass in [1, 2), charge in
// [-1, 1).
void fill_floats(float* a, int64_t n, uint32_t seed);
void fill_particles_aos(float* p, int64_t n, uint32_t seed);  // n particles, 8 floats each
void fill_particles_soa(float* p, int64_t n, uint32_t seed);  // 8 arrays of n floats, same values as AoS

struct Check {
  bool passed = false;
  int64_t mismatches = 0;
  int64_t first_bad = -1;  // index in the output
  double max_rel_err = 0;
  std::string text;  // "exact" / "max rel err 1.2e-07 <= 2e-06" / "MISMATCH: 3 of 100 values, first at 7: got
                     // .., want .."
};
// Compares a GPU (or CPU) output with the reference one computed by the reference functions below. `rel_tol`
// 0: exact.
Check compare(std::span<const float> got, std::span<const float> want, double rel_tol);

// --- CPU versions
// ---------------------------------------------------------------------------------------------------
// The references (one thread, plain loops; the checks call them) and the timed CPU versions, on one thread or
// all threads (OpenMP), with progress and cancel through ctl (JobCancelled when cancelled).
// CPU mode, its label and thread count: gpu/common/host_baseline.h.
using bs::CpuMode;
using bs::cpu_mode_label;
using bs::cpu_thread_count;

// Reference outputs of variant v on the inputs fill_* gives for p (lengths: output_length(p, v)).
int64_t input_length(const Params& p, Variant v);   // floats the input buffer holds (banks: the shared array)
int64_t output_length(const Params& p, Variant v);  // floats the output buffer holds
// The input variant v reads for p (input_length floats: fill_floats, or fill_particles_* for aos / soa).
std::vector<float> make_input(const Params& p, Variant v);
std::vector<float> reference_output(const Params& p, Variant v, JobControl* ctl = nullptr);
// The same on caller data (`in` of input_length floats); InvalidRequest when the length is wrong.
std::vector<float> reference_output(const Params& p, Variant v, std::span<const float> in,
                                    JobControl* ctl = nullptr);

// CPU transpose of rows x cols: Naive (row by row: reads sequential, writes stride rows), Tiled (32 x 32
// blocks: both sides stay within a few cache lines), Copy (the same bytes). Others: InvalidRequest.
void transpose_cpu(Variant v, const float* in, float* out, int64_t rows, int64_t cols, CpuMode mode,
                   JobControl* ctl = nullptr);
// CPU strided read / random gather: out[strided_out(row, col)] = in[strided_element(row, col)] over the
// rows x s view (0 where the element is beyond n), or out[t] = in[random_index(t)] for t < n.
void gather_cpu(Variant v, const float* in, float* out, int64_t n, int stride, uint32_t seed, CpuMode mode,
                JobControl* ctl = nullptr);
// CPU particle step, AoS or SoA layout (in and out of the same layout).
void particles_cpu(Variant v, const float* in, float* out, int64_t n, CpuMode mode,
                   JobControl* ctl = nullptr);
// Each thread's sum of the banks kernel (out[t] for t < n), for the check.
void banks_cpu(const Params& p, Variant v, const float* shared_init, float* out, JobControl* ctl = nullptr);

// Which CPU versions the bench times for a kernel: transpose copy/naive/tiled, stride strided/random, aos
// aos/soa; banks none (shared memory has no CPU counterpart).
std::vector<Variant> cpu_variants_of(Kernel k);
// Milliseconds per run of CPU variant v (median, p10/p90 over `repetitions` after one warm-up run).
Summary time_cpu(const Params& p, Variant v, CpuMode mode, int repetitions, JobControl* ctl = nullptr);

// --- Results
// -------------------------------------------------------------------------------------------------------
struct RunResult {
  Variant variant = Variant::Copy;
  std::string label;   // describe(variant, params)
  std::string device;  // GPU name or cpu_mode_label
  bool gpu = true;
  Dim2 block{1, 1};  // launch shape (GPU)
  Dim2 grid{1, 1};
  Summary ms;              // per run, over the timed repetitions (warm-up excluded)
  int64_t bytes = 0;       // counted_bytes
  double gbs = 0;          // bytes / median
  double pct_of_copy = 0;  // gbs / the copy kernel's gbs in the same run (0: no copy reference)
  Check check;
};

// --- GPU runner
// ----------------------------------------------------------------------------------------------------
// Owns the device buffers (RAII, gpu/common/device_buffer.h), grown as needed, and events. Throws
// bs::GpuError when no device is usable or CUDA fails and bs::InvalidRequest for parameters that cannot run
// (validate's message, or the memory it would need against what is free).
class GpuRunner : public DeviceRunner {
 public:
  GpuRunner();
  ~GpuRunner();

  Dim2 grid_of(const Params& p, Variant v) const;  // the grid a variant is launched with

  // Uploads inputs (fill_* with p.seed), one warm-up launch, `repetitions` timed launches (CUDA events around
  // each), then, when `check`, compares the output with reference_output.
  RunResult run(const Params& p, Variant v, int repetitions = 9, bool check = true);
  // run() for every variant of p.kernel in ladder order; pct_of_copy against the copy row (transpose) or the
  // stride-1 strided read (stride) or the plain banks at stride 1 (banks) or SoA (aos), measured in the same
  // call. When `only` is set, just that variant (plus its reference row, marked as such in the label).
  std::vector<RunResult> run_ladder(const Params& p, std::optional<Variant> only, int repetitions = 9,
                                    bool check = true);
  // One untimed launch on caller data (tests): `in` has the length the variant reads (transpose rows*cols,
  // stride n, aos 8n, banks bank_words); returns the output (output_length floats).
  std::vector<float> compute(const Params& p, Variant v, std::span<const float> in);

  void abandon() noexcept;  // after a device reset: forget every handle without freeing

 private:
  struct Impl;
  std::unique_ptr<Impl> m;
};

}  // namespace bs::memory
