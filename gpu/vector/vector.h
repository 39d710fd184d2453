// vector.h: the vector lab's host interface (pure C++; ui/ and app/ include it).
// Element-wise work on three float arrays, the classic first CUDA program and its first surprise:
//   add:      c[i] = a[i] + b[i]
//   formula:  c[i] = (a[i]*10 + 2) * ((b[i] + 2)*10 - 5) * 5
// Both write into a separate output array c (never in place into a): the inputs then stay the same between
// repetitions, so timings never run on values that drift towards inf, and every op moves exactly 3 arrays
// (2 reads, 1 write; 12 bytes per element). The CPU baselines and the kernels share one definition of each
// formula (elementwise.h).
// Kernel variants: one thread per element or a grid-stride loop over a fixed grid (a few waves of resident
// blocks), each with float or float4 loads (the float4 variants finish a ragged tail element by element).
// A run is host-to-device copy, kernel, device-to-host copy, optionally split into chunks on several streams
// so that the copies of one chunk overlap the kernel of another; every operation is bracketed by CUDA events
// so a timeline can be drawn.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/cpu_job.h"
#include "core/enum_names.h"
#include "core/stats.h"
#include "gpu/common/device_info.h"
#include "gpu/common/device_runner.h"
#include "gpu/common/host_baseline.h"

namespace bs::vector {

enum class Op { Add, Formula };
enum class Indexing { OnePerElement, GridStride };
enum class LoadWidth { Float, Float4 };

// The names files, sessions, sweeps and the CLI use.
inline constexpr auto k_op_names = enum_names<Op>({{Op::Add, "add"}, {Op::Formula, "formula"}});
inline constexpr auto k_indexing_names = enum_names<Indexing>(
    {{Indexing::OnePerElement, "one-per-element"}, {Indexing::GridStride, "grid-stride"}});
inline constexpr auto k_load_width_names =
    enum_names<LoadWidth>({{LoadWidth::Float, "float"}, {LoadWidth::Float4, "float4"}});

const char* to_string(Op op);         // k_op_names: "add" / "formula"
const char* to_string(Indexing ix);   // for people: "one thread per element" / "grid-stride loop"
const char* short_name(Indexing ix);  // for tables: "1 per element" / "grid-stride"
const char* to_string(LoadWidth w);   // k_load_width_names: "float" / "float4"
const char* formula_text(Op op);      // "c = a + b" / "c = (a*10 + 2) * ((b + 2)*10 - 5) * 5"
std::optional<Op> parse_op(std::string_view text);  // k_op_names: "add" | "formula"

constexpr int64_t k_min_n = 1;
constexpr int64_t k_max_n = int64_t{512} << 20;  // 512M elements = 2 GiB per array, 6 GiB for a, b and c
constexpr int k_max_streams = 16;
constexpr int k_max_chunks = 64;
constexpr int k_max_waves = 32;
// The live view's defaults: the strip (elements drawn, and the small grid-stride grid whose passes fit on
// screen) and the largest size of its sweep on a GPU (tens of millions of elements show the GPU's advantage).
constexpr int k_default_strip_count = 2048;
constexpr int k_default_strip_grid = 2;
constexpr const char* k_default_sweep_max = "64M";
// The bench's default size: 64M elements (768 MB moved per run) are far beyond any cache.
constexpr const char* k_bench_n = "64M";
constexpr int64_t k_bytes_per_element = 12;  // a and b read, c written: 3 arrays of 4 bytes

// Relative tolerance for the formula, GPU against CPU. nvcc contracts a*10 + 2 and (b+2)*10 - 5 into fused
// multiply-adds (one rounding instead of two); the CPU build (x86-64 baseline, no FMA instructions) does not.
// With inputs in [0.5, 1.5) no factor comes near zero, so each contraction changes the result by at most
// about one float ulp relative to a factor (2^-24 ~ 6e-8, scaled by at most 1.25): a few 1e-7 in all. 1e-6
// leaves margin and still catches any real error (a wrong constant or operand changes the result by percent).
// The add has a single correctly rounded operation: GPU and CPU must agree exactly.
constexpr double k_formula_rel_tol = 1e-6;

struct Params {
  int64_t n = int64_t{1} << 24;
  Op op = Op::Add;
  Indexing indexing = Indexing::OnePerElement;
  LoadWidth width = LoadWidth::Float;
  int block = 256;  // threads per block
  int waves = 2;    // grid-stride only: grid = SMs x resident blocks per SM x waves
  bool pinned =
      false;        // host arrays in page-locked memory (fast, asynchronous copies) or plain malloc'd memory
  int streams = 1;  // 1..16
  int chunks = 0;   // 0: one chunk per stream; otherwise 1..64 chunks dealt round robin onto the streams

  int chunk_count() const { return chunks > 0 ? chunks : streams; }
};

// nullopt when the parameters can run; otherwise a message that names the parameter and its legal range.
// (Whether the arrays fit in memory is checked when they are allocated: check_host_memory, GpuRunner.)
std::optional<std::string> validate(const Params& p);

// Element counts ("256M") and host memory: gpu/common/host_baseline.h.
using bs::available_host_bytes;
using bs::check_host_memory;
using bs::format_count;
using bs::parse_count;
using bs::ParsedCount;

// --- Chunks, launch shapes and the element -> thread mapping (pure arithmetic, for the strip view)
// ----------
struct Chunk {
  int64_t begin = 0;  // first element; a multiple of 4 so that float4 loads stay 16-byte aligned
  int64_t count = 0;
  int stream = 0;  // chunk k runs on stream k % streams
};
// Splits [0, n) into at most `chunks` non-empty chunks of equal size rounded up to a multiple of 4 (the last
// one takes the rest). Fewer chunks come back when n is too small to give every chunk an element.
std::vector<Chunk> make_chunks(int64_t n, int chunks, int streams);

// One kernel launch over `n` elements.
struct LaunchShape {
  Indexing indexing = Indexing::OnePerElement;
  LoadWidth width = LoadWidth::Float;
  int64_t n = 0;       // elements
  int64_t items = 0;   // work items a thread takes one at a time: n (float) or ceil(n/4) (float4)
  int64_t block = 0;   // threads per block
  int64_t grid = 0;    // blocks
  int64_t passes = 0;  // trips of the grid over the items: 1 for one-per-element, ceil(items / threads) else
  int64_t threads() const { return grid * block; }
  int64_t idle_threads() const {
    return threads() * passes - items;
  }  // threads with nothing to do in some pass
};
// One-per-element: grid = ceil(items / block). Grid-stride: grid = min(stride_grid, ceil(items / block)), so
// a small array never gets more blocks than it has work for. n = 0 gives an empty shape.
LaunchShape make_shape(int64_t n, Indexing ix, LoadWidth w, int64_t block, int64_t stride_grid);

// Which thread touched element i (index within the launch's n): work item v = i (float) or i / 4 (float4,
// lane i % 4 of the float4); global thread g = v % threads; pass = v / threads; block = g / blockDim.
struct Touch {
  int chunk = 0;  // which chunk (and so which kernel launch) holds the element
  int stream = 0;
  int64_t block = 0;   // blockIdx.x within that launch
  int64_t thread = 0;  // threadIdx.x
  int64_t pass = 0;    // grid-stride pass (0 for one-per-element)
  int lane = 0;        // element within the float4 (0 for float loads)
  bool tail = false;   // float4 only: in the last, partial group of 4, done element by element
};
Touch touched_by(int64_t i, const LaunchShape& s);
// The same for a whole run with p's chunks: i is a global index in [0, p.n); stride_grid as for make_shape.
Touch touched_by(int64_t i, const Params& p, int64_t stride_grid);

// --- Inputs and checks
// ------------------------------------------------------------------------------------------ Deterministic
// inputs in [0.5, 1.5), a hash of the index (and seed): never zeros, identical for any thread count, and with
// no factor of the formula near zero (see k_formula_rel_tol). Filled with all threads, each thread
// first-touching the part it later computes (NUMA locality for the CPU baseline).
void fill_inputs(float* a, float* b, int64_t n, uint32_t seed = 1);

struct Check {
  bool passed = false;
  int64_t mismatches = 0;  // elements outside the tolerance (add: any difference)
  int64_t first_bad = -1;
  double max_rel_err = 0;
  std::string text;  // "exact" / "max rel err 2.1e-07 <= 1e-06" / "3 mismatches, first at i = 7: ..."
};
// Compares c with the CPU result of p's op on a and b: exact for add, k_formula_rel_tol for the formula.
Check check_result(Op op, const float* a, const float* b, const float* c, int64_t n);

// --- CPU baselines
// ------------------------------------------------------------------------------------------------
// CPU mode, its label and thread count: gpu/common/host_baseline.h.
using bs::CpuMode;
using bs::cpu_mode_label;
using bs::cpu_thread_count;

// c = op(a, b) over n elements. Progress and cancel through ctl (throws JobCancelled when cancelled).
void compute_cpu(Op op, const float* a, const float* b, float* c, int64_t n, CpuMode mode,
                 JobControl* ctl = nullptr);

// Milliseconds per call of compute_cpu, median (and p10/p90) over `repetitions` samples after a warm-up; tiny
// n are timed in batches of calls so that each sample lasts at least ~0.2 ms of clock.
Summary time_cpu(Op op, const float* a, const float* b, float* c, int64_t n, CpuMode mode, int repetitions,
                 JobControl* ctl = nullptr);

// --- Results
// ------------------------------------------------------------------------------------------------------ One
// row of the bench table: a GPU variant (copies and kernel) or a CPU baseline (kernel = compute).
struct BenchRow {
  std::string variant;  // "GPU float4, grid-stride" / "CPU, 1 thread"
  std::string device;
  bool gpu = false;
  bool pinned = false;
  double h2d_ms = 0, kernel_ms = 0, d2h_ms = 0;  // medians over repetitions (CPU: kernel_ms = compute time)
  double total_ms = 0, total_p10 = 0, total_p90 = 0;  // GPU: first event to last event of a run
  double kernel_gbs = 0;                              // 12 bytes per element over kernel_ms
  double total_gbs = 0;  // 12 bytes per element over total_ms: end-to-end throughput seen by the host
  double h2d_gbs = 0, d2h_gbs = 0;
  int repetitions = 0;
  std::string check;  // Check::text, or "" when not checked
  bool check_passed = true;
  std::string note;
};

// --- Stream timeline
// ----------------------------------------------------------------------------------------------
enum class OpKind { H2D, Kernel, D2H };
const char* to_string(OpKind k);  // "H2D" / "kernel" / "D2H"

struct TimelineOp {
  OpKind kind = OpKind::Kernel;
  int stream = 0;
  int chunk = 0;
  double start_ms = 0;  // relative to the first event of the run
  double end_ms = 0;
  int64_t bytes = 0;  // copies: bytes moved; kernel: bytes read and written
  double ms() const { return end_ms - start_ms; }
};

// A run's operations and what overlapping them bought. Rows for a drawing: one per stream, or one per engine
// (copy engine host-to-device, the SMs, copy engine device-to-host) by kind. Each engine takes the chunks in
// order (the runner makes every operation wait for the same operation of the previous chunk), so an op's
// start is when it began to run, not when it was queued, and ops of one kind never overlap each other.
struct Timeline {
  int streams = 1;
  int chunks = 1;
  std::vector<TimelineOp> ops;
  double total_ms = 0;       // first op start to last op end
  double serial_sum_ms = 0;  // sum of all op durations: the time with no overlap at all
  double h2d_sum_ms = 0, kernel_sum_ms = 0, d2h_sum_ms = 0;
  double kernel_busy_ms = 0;    // length of the union of kernel intervals
  double kernel_hidden_ms = 0;  // length of (union of kernel intervals) meet (union of copy intervals)
  // kernel_hidden_ms / kernel_busy_ms: the fraction of the time a kernel was running during which at least
  // one copy (either direction, any stream) was in flight too, i.e. kernel time that costs no extra wall time
  // because the copies had to happen anyway.
  double kernel_hidden_fraction = 0;
  double saved_ms() const { return serial_sum_ms - total_ms; }
};
// Fills the sums, union and overlap figures from ops (ops are kept; their times need not be sorted).
Timeline analyze_timeline(std::vector<TimelineOp> ops, int streams, int chunks);

struct RunResult {
  Params params;
  std::string variant;  // "GPU formula, float4, grid-stride"
  LaunchShape shape;    // of the first (largest) chunk
  int chunks_used = 1;
  Summary h2d_ms, kernel_ms, d2h_ms,
      total_ms;       // per repetition; chunked runs: sums over chunks, total = wall
  Timeline timeline;  // of the repetition with the median total
  BenchRow row;
};

// Host<->device copy rates of one transfer size, pinned and pageable host memory side by side.
struct CopyRates {
  int64_t bytes = 0;
  double pinned_h2d_gbs = 0, pageable_h2d_gbs = 0;
  double pinned_d2h_gbs = 0, pageable_d2h_gbs = 0;
};

// The host link's nominal rate per direction. Neither the CUDA runtime nor cudaDeviceProp says which PCIe
// generation and width a slot runs at (nvidia-smi/NVML would), so this is an assumption from the compute
// capability and the device's attributes, and says so.
struct NominalLink {
  std::string name;  // "PCIe 5.0 x16", "NVLink-C2C (Grace Hopper)", "shared memory (integrated GPU)"
  double gbs = 0;    // per direction; 0 when not meaningful
  bool assumed = true;
  std::string text() const;  // "PCIe 5.0 x16 = 63 GB/s per direction (assumed from compute capability 9.0)"
};
NominalLink nominal_link(int cc_major, int cc_minor, bool integrated, bool host_page_tables);

struct LaunchOverhead {
  double event_us = 0;         // one empty kernel between two events (GPU time, median)
  double back_to_back_us = 0;  // per launch, 1000 empty kernels issued back to back (throughput)
  double round_trip_us = 0;    // launch + cudaStreamSynchronize, host clock (what a tiny run pays, median)
};

struct CopyKernel {
  int64_t n = 0;   // floats copied
  double ms = 0;   // median
  double gbs = 0;  // 2 arrays (one read, one write) over ms
};

// --- GPU runner
// --------------------------------------------------------------------------------------------------- Owns
// device arrays a, b, c, host arrays (pinned or pageable, per Params::pinned), streams and events. Buffers
// only grow; a run uses the first n elements. Throws bs::GpuError when no device is usable or CUDA fails, and
// bs::InvalidRequest for parameters that cannot run (saying how many MiB are needed vs free).
class GpuRunner : public DeviceRunner {
 public:
  GpuRunner();
  ~GpuRunner();

  NominalLink link() const;
  // Blocks of the grid-stride variant: SMs x resident blocks per SM for this kernel and block size x waves.
  int64_t stride_grid(const Params& p) const;
  LaunchShape shape(const Params& p) const;  // of one launch over the first chunk

  // Allocates (if needed) and fills the host inputs for p.n with fill_inputs(seed 1).
  void prepare(const Params& p);
  // prepare, one warm-up run, then `repetitions` timed runs of H2D -> kernel -> D2H. The output stays in the
  // host array c (output()); row.check compares it with the CPU result.
  RunResult run(const Params& p, int repetitions = 5, bool check = true);
  std::span<const float> input_a() const;
  std::span<const float> input_b() const;
  std::span<const float> output() const;  // host array c after the last run (p.n elements)

  // One untimed run on caller data (tests): a and b (same length n = p.n) go through the same host buffers,
  // chunks and streams as run(); returns c.
  std::vector<float> compute(const Params& p, std::span<const float> a, std::span<const float> b);
  // The kernel launches of one run alone (same chunks, streams and launch shapes), on the inputs that the
  // last run() or compute() of at least p.n elements left on the device; waits for them. For the hardware
  // counters, which replay the launches once per counter pass: no copies are repeated. Throws InvalidRequest
  // when no such inputs are on the device.
  void launch_kernels(const Params& p);

  // Float4 grid-stride device-to-device copy of n floats: the practical DRAM ceiling for a streaming kernel.
  CopyKernel copy_kernel(int64_t n, int repetitions = 7);
  CopyRates copy_rates(int64_t bytes, int repetitions = 5);
  LaunchOverhead launch_overhead(int repetitions = 101);

  // After a device reset every handle is gone: forget them without freeing.
  void abandon() noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> m;
};

// --- Size sweep
// ---------------------------------------------------------------------------------------------------
struct SweepOptions {
  Op op = Op::Add;
  int64_t min_n = 1024;
  int64_t max_n = int64_t{64} << 20;
  // The GPU variant timed (the fastest by default); copies always from pinned memory, one stream.
  Indexing indexing = Indexing::GridStride;
  LoadWidth width = LoadWidth::Float4;
  int block = 256;
  bool gpu = true;
  bool cpu = true;
  double budget_ms_per_point = 40;  // repetitions per point are chosen to take about this long
};

struct SweepPoint {
  int64_t n = 0;
  double gpu_kernel_ms = 0;  // kernel only (data already on the device; includes launch latency)
  double gpu_total_ms = 0;   // H2D + kernel + D2H, pinned, one stream: first event to last
  double cpu1_ms = 0;        // CPU, 1 thread
  double cpu_all_ms = 0;     // CPU, all threads (OpenMP)
  int gpu_reps = 0, cpu_reps = 0;
};

// Where the GPU starts to win: the smallest size from which the GPU is faster at every larger sweep point,
// interpolated linearly in (log n, log(gpu_ms / cpu_ms)) between the last losing and the first winning point.
struct Crossover {
  enum class Kind { InRange, GpuAlwaysWins, None };
  Kind kind = Kind::None;
  double n = 0;  // InRange: interpolated size; GpuAlwaysWins: the smallest size swept
  std::string text()
      const;  // "at ~3.2M elements" / "GPU wins already at 1K (smallest size swept)" / "none in range"
};
// n ascending; gpu_ms and cpu_ms of the same length. Points with a non-positive time are ignored.
Crossover find_crossover(std::span<const int64_t> n, std::span<const double> gpu_ms,
                         std::span<const double> cpu_ms);

struct SweepResult {
  SweepOptions options;
  std::vector<SweepPoint> points;  // ascending n; for a log-log plot
  bool gpu_ran = false;
  std::string gpu_skipped_reason;
  std::string gpu_name, cpu_all_label;
  Crossover total_vs_cpu1, total_vs_cpu_all;  // GPU including copies against each CPU baseline
  Crossover kernel_vs_cpu_all;                // GPU kernel only against all CPU threads
};
// Sizes: powers of two from min_n up to max_n (max_n itself included). Progress and cancel through ctl.
std::vector<int64_t> sweep_sizes(int64_t min_n, int64_t max_n);
// The lab's first, quick sweep: 1K .. 1M, widened to take in n (the N in the lab's box), so the first figure
// always shows the size the lab runs. {min_n, max_n}.
std::pair<int64_t, int64_t> quick_sweep_range(int64_t n);
SweepResult run_sweep(const SweepOptions& o, JobControl* ctl = nullptr);
// Fills the crossovers of r from its points (run_sweep calls it; exposed for tests).
void compute_crossovers(SweepResult& r);

}  // namespace bs::vector
