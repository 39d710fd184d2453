// montecarlo.h: the Monte Carlo option-pricing workload's host interface (pure C++; ui/ and app/ include it).
// Geometric Brownian motion under the pricing measure (drift mu = r), float32 state:
//   S(t+dt) = S(t) exp((r - sigma^2/2) dt + sigma sqrt(dt) Z),  Z ~ N(0, 1),  dt = T / steps.
// Options: European call and put (Black-Scholes closed form as the reference) and an arithmetic Asian call on
// the average of the prices at the `steps` monitoring dates t_1..t_n (S_0 not included). A "sample" is one
// path, or with antithetic variates one pair of paths (Z and -Z) whose two payoffs are averaged. On the GPU,
// sample i draws all its normals from its own cuRAND subsequence (curand_init(seed, i, 0, &state)), so
// splitting [0, N) into batches simulates exactly the paths of one run with the same seed.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/cpu_job.h"
#include "core/enum_names.h"
#include "core/launch.h"
#include "gpu/common/host_baseline.h"

namespace bs::montecarlo {

enum class OptionType { Call, Put, AsianCall };
enum class Generator { Philox, Xorwow };  // cuRAND device generators; the CPU always uses std::mt19937_64

// The names files, sessions, sweeps and the CLI use.
inline constexpr auto k_option_names = enum_names<OptionType>(
    {{OptionType::Call, "call"}, {OptionType::Put, "put"}, {OptionType::AsianCall, "asian"}});
inline constexpr auto k_generator_names =
    enum_names<Generator>({{Generator::Philox, "philox"}, {Generator::Xorwow, "xorwow"}});

constexpr int64_t k_max_paths = int64_t{1} << 24;  // 16,777,216 ("16M")
constexpr int64_t k_ui_min_paths = 1000;
constexpr int k_max_steps = 1024;
constexpr int k_max_sample_paths = 4096;
constexpr int k_max_histogram_bins = 4096;
// The live view's defaults: sample paths drawn, and bins of the S_T histogram.
constexpr int k_default_sample_paths = 512;
constexpr int k_default_histogram_bins = 80;
// The bench's histogram row: as many bins as a block has threads (one shared-memory counter each).
constexpr int k_bench_histogram_bins = 256;
// Tails beyond exp(+-5 sd) would overflow float32 prices or make the histogram meaningless.
constexpr double k_max_sigma_sqrt_t = 5.0;
constexpr double k_max_abs_rate_t = 10.0;
// Sane ranges for the market inputs: float32 paths keep about 7 significant digits, and a 1e308 spot would
// overflow them on the first step. S0 and K from 0.001 to 1,000,000; |r| at most 1 (100% a year); T up to
// 100 years.
constexpr double k_min_price = 1e-3;
constexpr double k_max_price = 1e6;
constexpr double k_max_abs_rate = 1.0;
constexpr double k_max_maturity = 100.0;

const char* option_label(OptionType o);       // "call", "put", "asian"
const char* option_long_label(OptionType o);  // "European call", "European put", "Asian call (arithmetic)"
std::optional<OptionType> parse_option(std::string_view text);    // "call" | "put" | "asian"
const char* generator_label(Generator g);                         // "Philox4_32_10", "XORWOW"
std::optional<Generator> parse_generator(std::string_view text);  // "philox" | "xorwow"
bool is_european(OptionType o);

struct Params {
  double s0 = 100.0;      // spot price
  double strike = 100.0;  // K
  double rate = 0.05;     // r, continuously compounded; also the drift (risk-neutral pricing)
  double sigma = 0.2;     // volatility per sqrt(year)
  double maturity = 1.0;  // T in years
  OptionType option = OptionType::Call;
  int64_t paths = 1'000'000;  // simulated paths; with antithetic variates rounded up to an even count
  int steps = 256;
  uint64_t seed = 42;
  bool antithetic = false;
  Generator generator = Generator::Philox;

  double dt() const { return maturity / steps; }
  double discount() const;  // exp(-r T)
};

// Which parameter is wrong (named as the CLI flag without dashes: "paths", "sigma", ...) and why.
struct ParamError {
  std::string param;
  std::string message;
};
std::optional<ParamError> check(const Params& p);
// nullopt when the parameters can run; otherwise the message of check().
std::optional<std::string> validate(const Params& p);

// Independent samples of a run: paths, or path pairs (ceil(paths / 2)) with antithetic variates.
int64_t sample_count(const Params& p);
// Paths simulated for `samples` samples (twice as many with antithetic variates).
int64_t paths_for_samples(int64_t samples, bool antithetic);

// --- Closed forms
// --------------------------------------------------------------------------------------------------
double normal_cdf(double x);
double normal_quantile(double p);  // inverse of normal_cdf, p in (0, 1)

struct BlackScholes {
  double call = 0;
  double put = 0;
};
// sigma = 0 gives the discounted intrinsic values max(S0 - K e^{-rT}, 0) and max(K e^{-rT} - S0, 0).
BlackScholes black_scholes(double s0, double strike, double rate, double sigma, double maturity);
// Black-Scholes price of a European option; nullopt for the Asian call (no closed form).
std::optional<double> reference_price(const Params& p);

// S_T is lognormal: ln S_T ~ N(ln S0 + (r - sigma^2/2) T, sigma^2 T). With sigma = 0 it is a point mass, for
// which the density returns 0 and the cdf a step.
double lognormal_pdf(double s, const Params& p);
double lognormal_cdf(double s, const Params& p);
double lognormal_quantile(double prob, const Params& p);

// --- Results
// -------------------------------------------------------------------------------------------------------
// Sums of undiscounted sample payoffs, accumulated in double (accurate for 16M samples).
struct Moments {
  int64_t n = 0;
  double sum = 0;
  double sum_sq = 0;
  Moments& operator+=(const Moments& o) {
    n += o.n;
    sum += o.sum;
    sum_sq += o.sum_sq;
    return *this;
  }
};

struct Estimate {
  int64_t samples = 0;
  int64_t paths = 0;               // simulated paths
  double price = 0;                // discounted mean payoff
  double std_error = 0;            // NaN with fewer than 2 samples
  double ci_low = 0, ci_high = 0;  // 95% confidence interval: price +- 1.96 standard errors
};
constexpr double k_z95 = 1.959963984540054;
Estimate make_estimate(const Moments& m, const Params& p);
// (price - reference) / standard error: how many standard errors the estimate is off.
double error_in_std_errors(const Estimate& e, double reference);

struct Result {
  std::string variant;  // "GPU grid-stride, block 256", "CPU, 1 thread", ...
  Estimate estimate;
  double ms = 0;  // GPU: kernel time from CUDA events; CPU: wall time
  double path_steps_per_s = 0;
  std::string note;
};

// --- Histogram of terminal prices
// ----------------------------------------------------------------------------------
struct Histogram {
  double lo = 0, hi = 0;
  std::vector<uint64_t> counts;  // bins equal-width bins on [lo, hi)
  uint64_t underflow = 0;        // S_T < lo
  uint64_t overflow = 0;         // S_T >= hi
  int bins() const { return static_cast<int>(counts.size()); }
  double width() const { return counts.empty() ? 0.0 : (hi - lo) / static_cast<double>(counts.size()); }
  std::vector<double> edges() const;  // bins + 1 values
  uint64_t total() const;             // every path: counts + underflow + overflow
};
struct Range {
  double lo = 0, hi = 0;
};
// [0.1% quantile, 99.9% quantile] of the lognormal S_T (a small band around S0 e^{rT} when sigma = 0).
Range default_histogram_range(const Params& p);
// What each bin should hold for h.total() lognormal draws (for the density overlay, in counts).
std::vector<double> expected_counts(const Histogram& h, const Params& p);

// --- Batches (convergence plots)
// -----------------------------------------------------------------------------------
struct SampleRange {
  int64_t first = 0;
  int64_t count = 0;
  int64_t end() const { return first + count; }
};
// `batches` consecutive ranges covering [0, samples), sizes differing by at most one.
std::vector<SampleRange> even_batches(int64_t samples, int batches);
// Ranges whose cumulative ends are first, 2 first, 4 first, ... up to `samples` (even points on a log axis).
std::vector<SampleRange> doubling_batches(int64_t samples, int64_t first = 1000);

struct BatchResult {
  SampleRange range;
  Moments batch;        // this batch alone
  Estimate cumulative;  // every batch completed so far, this one included
  double ms = 0;        // GPU time of this batch (CUDA events)
};

// --- CPU baselines
// ------------------------------------------------------------------------------------------------- Samples
// are split into fixed chunks of k_cpu_chunk; chunk c draws from std::mt19937_64 seeded from (seed, c) and
// the chunk sums are added in chunk order, so one thread and all threads give bitwise the same result.
constexpr int64_t k_cpu_chunk = 4096;
// CPU mode, its label and thread count: gpu/common/host_baseline.h.
using bs::CpuMode;
using bs::cpu_mode_label;
using bs::cpu_thread_count;

// Samples [r.first, r.end()) of the run `p` (validated: throws bs::InvalidRequest). Reports progress and
// honours cancel (throws bs::JobCancelled) via `ctl`.
Moments simulate_cpu(const Params& p, SampleRange r, CpuMode mode, JobControl* ctl = nullptr);
// The whole run, timed (wall clock).
Result run_cpu(const Params& p, CpuMode mode, JobControl* ctl = nullptr);

// The CPU path of the UI (additive, for the app's Monte Carlo lab). As simulate_cpu, and also bins the
// terminal price of every simulated path (both paths of an antithetic pair) into `hist`, whose lo, hi and
// counts.size() the caller sets; counts, underflow and overflow are added to (so batches accumulate).
Moments simulate_cpu(const Params& p, SampleRange r, CpuMode mode, JobControl* ctl, Histogram& hist);
// The first `count` (<= k_max_sample_paths) simulated paths of the CPU run, row-major, steps + 1 floats each
// (S_0 .. S_n), with the layout of GpuPricer's sample paths (rows 2i and 2i+1 are pair i when antithetic):
// the very prices simulate_cpu prices for those samples.
std::vector<float> cpu_sample_paths(const Params& p, int count);

// --- GPU
// -----------------------------------------------------------------------------------------------------------
// GridStride: a fixed grid of `waves` x (blocks resident per SM) x SMs; each thread loops over samples.
// OnePathPerThread: a grid covering every sample (one sample per thread; more blocks, more block reductions).
enum class Layout { GridStride, OnePathPerThread };
const char* layout_label(Layout l);     // "grid-stride", "one path per thread" (for people)
inline constexpr auto k_layout_names =  // for files, sessions and sweeps
    enum_names<Layout>({{Layout::GridStride, "grid-stride"}, {Layout::OnePathPerThread, "one-per-thread"}});

struct Launch {
  int block = 256;  // threads per block, any size the device accepts (1..1024)
  Layout layout = Layout::GridStride;
  int waves = 2;  // grid-stride only: resident-grid multiples, 1..64
};
// The grid a launch will use for `samples` samples, for display.
struct LaunchShape {
  int64_t block = 0;
  int64_t grid = 0;
  int blocks_per_sm = 0;  // occupancy of the pricing kernel at this block size
  int registers = 0;      // per thread, of the pricing kernel
  double samples_per_thread = 0;
};

struct RunOptions {
  int histogram_bins = 0;                     // 0: no histogram; else 1..k_max_histogram_bins
  double histogram_lo = 0, histogram_hi = 0;  // hi <= lo: default_histogram_range()
  int sample_paths = 0;                       // 0..k_max_sample_paths simulated paths stored for drawing
};
std::optional<std::string> validate(const RunOptions& o);

// Owns the device buffers and a stream, and accumulates batches into one estimate. Throws bs::GpuError on
// CUDA failure and bs::InvalidRequest on parameters or launches that cannot run.
class GpuPricer {
 public:
  GpuPricer();  // on the current device; throws bs::GpuError when no device is usable
  ~GpuPricer();
  GpuPricer(const GpuPricer&) = delete;
  GpuPricer& operator=(const GpuPricer&) = delete;

  // Starts a new estimate: drops batches in flight, clears the sums and the histogram, and writes the sample
  // paths (the first o.sample_paths simulated paths) into the device buffer.
  void reset(const Params& p, const RunOptions& o = {});
  void set_launch(const Launch& l);  // validates the block size (validate_block) and waves
  const Params& params() const;
  const RunOptions& options() const;
  const Launch& launch() const;
  LaunchShape shape(int64_t samples) const;
  std::string device_name() const;

  // Queues samples [r.first, r.end()) (within [0, sample_count(params()))) on the pricer's stream; never
  // waits unless more than 8 batches are in flight.
  void enqueue(SampleRange r);
  // Batches completed since the last call, oldest first (non-blocking).
  std::vector<BatchResult> poll();
  // Waits for every queued batch and returns those not yet polled.
  std::vector<BatchResult> finish();
  int in_flight() const;

  // Many batches for the cost of one launch: enqueue_chunks(chunks) starts ONE pricing launch whose blocks
  // are mapped to the chunks, chunk i getting the very grid that enqueue(chunks[i]) would give it, so that
  // each chunk's moments are bitwise those of enqueue(chunks[i]) (and independent of the other chunks in the
  // launch). reduce_chunks() queues the per-chunk reductions (one block per chunk) and the copy back;
  // finish_chunks() waits and returns them (calling reduce_chunks() first if it was not). A caller driving
  // several GPUs starts every GPU's launch before reducing any. Needs nothing in flight (after reset() or
  // finish()); the moments also count in moments() and estimate(), but not in poll()/finish().
  struct Chunks {
    std::vector<Moments> moments;  // one per chunk, in the order given
    double ms = 0;                 // GPU time of the launch and the reductions (CUDA events)
  };
  void enqueue_chunks(const std::vector<SampleRange>& chunks);
  void reduce_chunks();
  Chunks finish_chunks();

  Moments moments() const;    // of the completed batches
  Estimate estimate() const;  // of the completed batches

  // reset() with the current parameters, every sample as one batch, wait: the one-shot run.
  Result run();

  // Terminal-price histogram of every completed batch (waits for the stream). Empty when bins = 0.
  Histogram histogram();
  // Sample paths, row-major: sample_path_count() rows of sample_path_length() = steps + 1 floats (S_0 ..
  // S_n), written by reset() on stream_handle(). The pointer stays valid until the next reset() or
  // destruction.
  const float* device_sample_paths() const;
  int sample_path_count() const;
  int sample_path_length() const;
  std::vector<float> download_sample_paths();

  void* stream_handle() const;  // cudaStream_t, kept out of this header
  void sync();
  void abandon() noexcept;  // after a device reset: forget every handle without freeing it

 private:
  struct Impl;
  std::unique_ptr<Impl> m;
};

// One-shot GPU run (a fresh pricer).
Result run_gpu(const Params& p, const Launch& l = {}, const RunOptions& o = {});

// --- Benchmark
// -----------------------------------------------------------------------------------------------------
struct BenchRow {
  std::string variant;
  std::string device;
  Estimate estimate;
  std::optional<double> reference;  // Black-Scholes, European options only
  double ms = 0;                    // median
  double p10 = 0, p90 = 0;
  int repetitions = 0;
  double gpath_steps_per_s = 0;  // simulated paths x steps / median time / 1e9
  std::string note;
};
// Times `repetitions` full runs after two warm-up runs (CUDA events, median and p10/p90).
BenchRow bench_gpu(const Params& p, const Launch& l, const RunOptions& o = {}, int repetitions = 10);
// One timed run (a one-thread run of 1M x 256 takes seconds).
BenchRow bench_cpu(const Params& p, CpuMode mode, JobControl* ctl = nullptr);

}  // namespace bs::montecarlo
