// matmul.h: the matrix-multiplication workload's host interface (pure C++; ui/ and app/ include it).
// C = A x B in float32, all three row-major: A is M x K, B is K x N, C is M x N. M and N from 1 to 8192, K from
// 1 to 16384 (so every offset into A, B and C stays below 2^27 and fits in int).
// A ladder of GPU kernels (naive -> shared-memory tiles -> register blocking -> warp tiling -> double
// buffering), cuBLAS SGEMM in strict FP32 as the reference, and three labelled CPU baselines.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/cpu_job.h"
#include "gpu/matmul/configs.h"
#include "gpu/common/device_info.h"
#include "core/launch.h"
#include "core/stats.h"

namespace bs::matmul {

constexpr int64_t k_min_dim = 1;
constexpr int64_t k_max_dim = 8192;
// K may be longer: large-K shapes (128x128x16384) are where split-k matters.
constexpr int64_t k_max_k = 16384;
// The live view's default problem: awkward sizes, so partial edge tiles show in every direction.
constexpr int64_t k_default_m = 1000, k_default_n = 777, k_default_k = 333;
// The bench's default problem (M = N = K): large enough that every ladder step's gain shows.
constexpr int64_t k_bench_dim = 4096;
// A sweep's default size (M = N = K): seconds per point on the CPU baselines too.
constexpr int64_t k_sweep_dim = 512;
// The largest dimension a saved session may name (the device's memory decides what runs).
constexpr int64_t k_session_max_dim = int64_t{1} << 16;
// Device memory kept free beyond A, B and C: cuBLAS workspace and allocator slack.
constexpr size_t k_device_reserve_bytes = size_t{64} << 20;

struct Problem {
  int64_t m = 1024;
  int64_t n = 1024;
  int64_t k = 1024;
  friend bool operator==(const Problem&, const Problem&) = default;
  double flops() const {
    return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  }
  size_t a_count() const { return static_cast<size_t>(m * k); }
  size_t b_count() const { return static_cast<size_t>(k * n); }
  size_t c_count() const { return static_cast<size_t>(m * n); }
};
std::string to_string(const Problem& p);  // "1000x777x333 (M x N x K)"

// nullopt when M and N are in [1, 8192] and K in [1, 16384]; otherwise a message naming the dimension, e.g.
// "K = 0: every dimension must be at least 1".
std::optional<std::string> validate(const Problem& p);
// Device bytes the GPU runner allocates (A, B, C in float32) plus k_device_reserve_bytes.
size_t device_bytes_needed(const Problem& p);
// nullopt when the problem fits in `free_bytes` of device memory; otherwise "... needs X MiB ...; Y MiB are
// free". Pure function so it can be tested with a made-up free-memory figure.
std::optional<std::string> validate_memory(const Problem& p, size_t free_bytes);

// --- Variants ----------------------------------------------------------------------------------------------
enum class Variant {
  NaiveUncoalesced,  // one thread per output, consecutive threads walk down a column of C
  NaiveCoalesced,    // same, consecutive threads walk along a row of C
  SmemTile8,         // shared-memory tiles, 8x8
  SmemTile16,        // 16x16
  SmemTile32,        // 32x32 (the tutorials' kernel)
  RegBlock1D,        // 64x64 block tile, BK 8, each thread 8 outputs in a column
  RegBlock2D,        // 128x128 block tile, BK 8, each thread an 8x8 micro-tile, float4 loads
  WarpTile,          // + warp tiling: conflict-free shared-memory reads
  WarpTileDb,        // + double-buffered shared memory with register prefetch
  WarpTileDbK16,     // same, BK 16
  WarpTileDb128x64,  // same, 128x64 block tile of 128 threads (more blocks per SM)
  WarpTileDb16x8,    // same, 4 warps of 64x64, 16x8 outputs per thread
  AsyncPipe,         // warptile layout fed by a 4-stage cp.async pipeline (sm_80+; plain copies below)
  AsyncPipe16x8,     // same pipeline, 4 warps of 64x64, 16x8 outputs per thread
  Auto,              // picks tile shape, threads, pipeline depth and split-k per shape and device (choose_auto)
  Cublas,            // cuBLAS SGEMM, strict FP32 (no TF32)
};

struct VariantInfo {
  Variant id;
  const char* name;         // command-line name, e.g. "smem_tile32"
  const char* title;        // short label, e.g. "shared-memory tiles 32x32"
  const char* description;  // one or two sentences for a lecture: what changed and why it helps
};
// All GPU variants in ladder order (cuBLAS last).
std::span<const VariantInfo> gpu_variants();
const VariantInfo& info(Variant v);
std::optional<Variant> parse_variant(std::string_view name);

// The tiling a variant uses, for drawing tile overlays and the k-loop steps. Rows of C are M, columns N.
struct TileGeometry {
  int bm = 1, bn = 1;              // C tile computed by one block (rows x cols)
  int bk = 0;                      // k-step per shared-memory stage (0: no shared-memory tiling)
  int tm = 1, tn = 1;              // C outputs per thread (rows x cols)
  int wm = 0, wn = 0;              // C tile per warp (0: no warp tiling)
  int threads = 0;                 // threads per block
  int stages = 0;                  // shared-memory buffers per operand (0 none, 1 single, 2 double-buffered,
                                   // 3+ a cp.async pipeline)
  int k_threads = 1;               // threads sharing each output, K split across them (auto's skinny kernels:
                                   // partial sums added by shuffles and shared memory)
  bool vector_loads = false;       // float4 global loads (used only when K and N are multiples of 4)
  bool a_transposed_smem = false;  // A tile stored k-major in shared memory
  bool known = true;               // false for cuBLAS: the library picks its own kernel
};
TileGeometry tile_geometry(Variant v);
// The same, except for Auto: the geometry of the config choose_auto picks at `p` (tile_geometry(Variant::Auto)
// alone gives its largest-shape config).
TileGeometry tile_geometry(Variant v, const Problem& p);

// Block and grid of the launch for problem `p` (x indexes columns of C except for NaiveUncoalesced, whose x
// indexes rows: that is the point of the variant). cuBLAS: both {0, 0}.
struct LaunchShape {
  Dim2 block{0, 0};
  Dim2 grid{0, 0};
};
LaunchShape launch_shape(Variant v, const Problem& p);

// --- auto: a kernel configuration per shape and device -----------------------------------------------------
// The configs (cfg::k_auto_configs: block tile, warp tile, thread tile, k-step, pipeline stages) are compiled
// in; per problem the choice is the config, the number of k-slices (split-k: partial products in a workspace,
// summed in slice order by a second kernel, so the result is deterministic) and the block-order swizzle.
struct AutoChoice {
  int config = 0;   // index into auto_configs()
  int split_k = 1;  // k-slices (1: no split, C written directly)
  int group = 1;    // block-order swizzle: tile rows walked per band (1: row-major order)
  double predicted_ms = 0;  // the model's estimate (0: not from the model)
  friend bool operator==(const AutoChoice& x, const AutoChoice& y) {
    return x.config == y.config && x.split_k == y.split_k && x.group == y.group;
  }
};
// Tile: the cp.async pipeline over block tiles. SkinnyM / SkinnyN: matrix-vector shapes (M, resp. N, from
// half the config's width + 1 up to its width, 1 to 8): a kernel that reads the big operand once.
using AutoKind = cfg::AutoKind;
struct AutoConfigInfo {
  const char* name;  // "128x128x8", "skinny_m4"
  int bm, bn, bk, wm, wn, tm, tn, threads, stages, min_blocks;
  size_t smem_bytes;  // dynamic shared memory per block
  AutoKind kind;
  int max_k_chunk;  // longest k-slice the kernel takes (0: any): auto_k_chunk never exceeds it
};
std::span<const AutoConfigInfo> auto_configs();
// Whether config `c` computes all of C at `p`: tile configs everywhere, skinny_m<W> where M <= W (and the
// heuristic uses it only for M > W / 2), skinny_n likewise for N.
bool auto_fits(const AutoConfigInfo& c, const Problem& p);
// Whether auto's kernel of config `c` runs its float4 flavour at `p`: N a multiple of 4 for the tile kernels
// and skinny_m (16-byte copies of B's rows, float4 stores of C; A is copied 4 bytes at a time, so K may be
// odd), K a multiple of 4 for skinny_n (16-byte loads of A's rows).
bool auto_float4(const AutoConfigInfo& c, const Problem& p);
// Whether a run of config `c` at `p` first copies B into rows padded to a multiple of 4 floats (the tile
// kernels where N is not a multiple of 4: their copies of B stay 16-byte cp.async; C is stored one float at a
// time). The copy is part of the run (and of its time).
bool auto_pads_b(const AutoConfigInfo& c, const Problem& p);
// Whether a split run of `c` at `p` sums its slices inside the kernel (the last block of each tile of C to
// finish adds the tile's slices, splitk_fold.cuh) instead of in a separate splitk_reduce launch: the skinny
// configs (a tile of at most 8 x 32 floats per slice). Either way the slices are added in slice order.
bool auto_folds(const AutoChoice& c, const Problem& p);
// The heuristic (no measurement at run time): a cost model over every config that fits and split count for
// the device's SM count: waves of resident blocks (from each config's occupancy) times the block's work at the
// config's per-SM rate (rates measured once on an H100 and written into the table), plus the split-k reduction's
// memory traffic and launch; for the skinny configs, the big operand's bytes at the memory bandwidth, scaled
// down while there are too few blocks to fill the SMs. See docs/PERFORMANCE.md for the measurements.
AutoChoice choose_auto(const Problem& p, int sm_count);
// The model's time for `c` (its config, slices and k-chunk as auto_slices / auto_k_chunk give them).
double auto_predict_ms(const AutoChoice& c, const Problem& p, int sm_count);
// The split counts the model and the bench's scan consider (before rounding to whole k-steps).
std::span<const int> auto_split_candidates();
// The k-slices actually launched for `c` at `p` (each slice a whole number of k-steps, none empty) and their
// length.
int auto_slices(const AutoChoice& c, const Problem& p);
int auto_k_chunk(const AutoChoice& c, const Problem& p);
// "128x128x8, 256 thr, warp 64x32, 8x8/thr, 4 stages, split-k 1" (short: "128x128x8 s4 k1").
std::string to_string(const AutoChoice& c, bool brief = false);
TileGeometry tile_geometry(const AutoChoice& c);
LaunchShape launch_shape(const AutoChoice& c, const Problem& p);
// The SM count launch_shape(Variant::Auto, p) and tile_geometry(Variant::Auto) assume without a device (the
// H100's); GpuRunner uses its device's.
constexpr int k_auto_default_sms = 132;

// --- Inputs and correctness --------------------------------------------------------------------------------
// rows x cols values uniform in (-1, 1), never exactly zero, deterministic in (seed, index) and independent
// of the thread count (a counter-based hash, filled with OpenMP).
std::vector<float> make_matrix(int64_t rows, int64_t cols, uint32_t seed);

// Relative Frobenius error ||C - ref|| / ||ref|| allowed for a float32 product with inner dimension k:
// float32 rounding grows like sqrt(k) for random inputs (about 0.4 * 2^-24 * sqrt(k) in practice); we allow
// 8 * 2^-24 * sqrt(k) (floor 1e-6). TF32 (10-bit mantissa) gives about 2e-4 at every k and fails it.
double tolerance(int64_t k);

struct CheckResult {
  double rel_error = 0;  // ||C - ref||_F / ||ref||_F (NaN when C holds NaN)
  double tolerance = 0;
  size_t nan_count = 0;  // cells still holding NaN: never written (C is poisoned with NaN before each run)
  bool pass = false;
  std::string reference;        // what `ref` was, e.g. "float64 CPU (OpenBLAS dgemm)"
  std::string summary() const;  // "rel err 3.1e-07 <= 2.4e-05: pass" or "... 12 cells never written: FAIL"
};
CheckResult check_result(std::span<const float> c, std::span<const double> ref, int64_t k,
                         std::string reference_label = "float64 reference");

// Float64 reference C = A x B on the CPU (OpenBLAS dgemm, all its threads), computed in row panels so that
// progress is reported and cancel honoured between panels (throws JobCancelled).
std::vector<double> reference_cpu(std::span<const float> a, std::span<const float> b, const Problem& p,
                                  JobControl* ctl = nullptr);
// Where the bench takes its reference from: the CPU up to this many multiply-adds, cuBLAS DGEMM on the GPU
// above.
constexpr double k_cpu_reference_max_fmas = 2048.0 * 2048.0 * 2048.0;

// --- CPU baselines -----------------------------------------------------------------------------------------
enum class CpuVariant { Naive, Blocked, OpenBlas };
struct CpuVariantInfo {
  CpuVariant id;
  const char* name;  // "cpu_naive", "cpu_blocked", "cpu_openblas"
  const char* description;
};
std::span<const CpuVariantInfo> cpu_variants();
const CpuVariantInfo& info(CpuVariant v);
std::optional<CpuVariant> parse_cpu_variant(std::string_view name);
// "CPU naive triple loop, 1 thread", "CPU cache-blocked, 16 threads (OpenMP)", "CPU OpenBLAS sgemm, 16
// threads".
std::string cpu_label(CpuVariant v);
// The bench runs the naive CPU loop only up to this many multiply-adds (1024^3: about a second or more).
constexpr double k_cpu_naive_bench_max_fmas = 1024.0 * 1024.0 * 1024.0;

// C (M x N) = A x B on the CPU. Reports progress and throws JobCancelled when `ctl` is cancelled: the naive
// loop checks every 64 outputs, the blocked loop every block, OpenBLAS between row panels.
void run_cpu(CpuVariant v, std::span<const float> a, std::span<const float> b, std::span<float> c,
             const Problem& p, JobControl* ctl = nullptr);

// --- GPU runner --------------------------------------------------------------------------------------------
struct KernelAttributes {
  bool known = false;  // false for cuBLAS (kernel chosen inside the library)
  int regs_per_thread = 0;
  size_t static_smem_bytes = 0;  // shared memory per block
  size_t local_bytes = 0;        // local memory per thread: > 0 means registers spilled
  int max_threads_per_block = 0;
  int blocks_per_sm = 0;  // occupancy: resident blocks per SM for this kernel at its block size
  int warps_per_sm = 0;
};

// Owns A, B and C on the device, a stream and (lazily) a cuBLAS handle. Throws bs::InvalidRequest for a
// problem that cannot run (bad size, not enough free device memory; checked before any allocation) and
// bs::GpuError on CUDA failures.
class GpuRunner {
 public:
  explicit GpuRunner(const Problem& p);
  ~GpuRunner();
  GpuRunner(const GpuRunner&) = delete;
  GpuRunner& operator=(const GpuRunner&) = delete;

  const Problem& problem() const;
  const DeviceInfo& device() const;  // queried once, at construction
  void set_inputs(std::span<const float> a, std::span<const float> b);

  // Fills C with NaN, so that cells a kernel never writes fail the check and show up in a picture.
  void poison_c();
  // Blocking: poison C, one launch of `v`, wait. C then holds that variant's result.
  void run_once(Variant v);
  // Non-blocking: one launch of `v` on the runner's stream, bracketed by events read later by poll_ms().
  void enqueue(Variant v);
  std::vector<double> poll_ms();
  // Blocking: `warmup` untimed launches, then `repetitions` launches each timed with CUDA events (ms each).
  std::vector<double> time_runs(Variant v, int warmup, int repetitions);
  void sync();

  std::vector<float> download_c();
  // Device pointers (M*K, K*N, M*N floats, row-major) for rendering, and the stream that writes them.
  const float* device_a() const;
  const float* device_b() const;
  const float* device_c() const;
  void* stream_handle() const;

  KernelAttributes attributes(Variant v);
  LaunchShape launch(Variant v) const;  // launch_shape(v, problem()); for Auto that of auto_choice()

  // What Variant::Auto runs: choose_auto(problem, this device's SM count) unless overridden (the bench's
  // config scan and the tests force each config). Overriding with nullopt restores the heuristic's choice.
  AutoChoice auto_choice() const;
  void set_auto_choice(std::optional<AutoChoice> c);

  // Float64 reference on the GPU: cuBLAS DGEMM on double copies of A and B (allocated for the call, then
  // freed). Throws bs::InvalidRequest if the double copies do not fit in free device memory.
  std::vector<double> reference_f64();
  // How cuBLAS was configured, e.g. "cublasGemmEx, CUBLAS_COMPUTE_32F, CUBLAS_DEFAULT_MATH (no TF32)".
  static std::string cublas_mode();

  // After a device reset everything the runner held is gone: forget the handles without freeing them.
  void abandon() noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> m;
};

// --- Benchmark ---------------------------------------------------------------------------------------------
struct BenchRow {
  std::string variant;  // variant name ("warptile_db", "cpu_openblas", ...)
  std::string label;    // title or CPU label
  std::string device;   // GPU name or "CPU"
  bool gpu = false;
  Summary ms;  // per run
  int runs = 0;
  double gflops = 0;
  double pct_cublas = -1;  // < 0: not measured
  double pct_peak = -1;    // % of the GPU's FP32 peak; < 0 for CPU rows
  std::string choice;      // auto: the configuration it ran (to_string(AutoChoice))
  KernelAttributes attr;
  LaunchShape launch;
  CheckResult check;
  bool checked = false;
  std::string note;
};

// The float64 reference a bench checks against, shared by its GPU and CPU rows.
struct Reference {
  std::vector<double> values;  // M x N, row-major; empty: not computed yet
  std::string label;           // "float64 CPU (OpenBLAS dgemm)" or "float64 GPU (cuBLAS DGEMM)"
};

struct GpuBenchResult {
  std::string device;
  double peak_gflops = 0;
  std::vector<BenchRow> rows;  // requested variants in ladder order; cuBLAS always included
  std::vector<std::string> notes;
};
// Uploads `a` and `b` and runs each variant: a poisoned correctness run checked against `ref` (computed here
// when empty: on the CPU up to k_cpu_reference_max_fmas, else by cuBLAS DGEMM, falling back to the CPU if the
// double copies do not fit), then `warmup` + timed runs (fewer when a run is slow: about `budget_s` seconds
// of timed runs per variant, at least 3). cuBLAS is always measured, before and after the others; the faster
// of the two is its row and the reference of the % cuBLAS column.
GpuBenchResult bench_gpu(const Problem& p, std::span<const float> a, std::span<const float> b, Reference& ref,
                         std::span<const Variant> variants, int repetitions = 10, double budget_s = 2.0);

// CPU row: an untimed warm-up only when a run is short, then up to `repetitions` runs within about
// `budget_s`. `ref` may be empty (no check). Honours cancel through `ctl`.
BenchRow bench_cpu(CpuVariant v, const Problem& p, std::span<const float> a, std::span<const float> b,
                   const Reference& ref, int repetitions = 3, double budget_s = 3.0,
                   JobControl* ctl = nullptr);

}  // namespace bs::matmul
