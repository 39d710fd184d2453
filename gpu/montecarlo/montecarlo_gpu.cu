// montecarlo_gpu.cu: the pricing kernel (paths -> payoffs -> per-block double sums, optional terminal-price
// histogram), the deterministic second-pass reduction, the sample-path kernel for drawing, and GpuPricer.
//
// Fast path (European option, no histogram): per sample one curand_init (Philox: a counter/key set-up, no
// skip-ahead work), steps/4 curand_normal4 calls whose normals are only summed, one __expf at the end. The
// state lives in registers; nothing but one double pair per block touches global memory.
#include <curand_kernel.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <type_traits>

#include "gpu/common/device_buffer.h"
#include "gpu/common/device_info.h"
#include "gpu/common/nvtx_range.h"
#include "core/stats.h"
#include "gpu/montecarlo/gbm.h"
#include "gpu/montecarlo/montecarlo.h"

namespace bs::montecarlo {

namespace {

struct Partial {
  double sum;
  double sum_sq;
};

// One chunk of a chunked launch (GpuPricer::enqueue_chunks): its samples [first, first + count) and its
// blocks [offset, offset + grid) of the launch.
struct ChunkDesc {
  long long first;
  long long count;
  unsigned offset;
  unsigned grid;
  bool operator==(const ChunkDesc&) const = default;
};

struct KernelArgs {
  unsigned long long seed;
  long long first;  // first sample index (= first subsequence) of the batch
  long long count;  // samples in the batch
  PathConstants pc;
  int bins;  // 0: no histogram
  float hist_lo;
  float hist_scale;          // bins / (hi - lo)
  unsigned long long* hist;  // bins + 2 counters: the bins, then underflow, then overflow
  Partial* partials;         // one per block
  const ChunkDesc* chunks;   // chunked launches: the chunks, ordered by offset
  int n_chunks;
};

constexpr int k_max_block = 1024;
constexpr int k_finalize_block = 512;
constexpr int k_slots = 8;  // batches in flight at most

// Four normals per call. Philox: one counter block gives four 32-bit words, i.e. two Box-Muller pairs.
__device__ __forceinline__ float4 normal4(curandStatePhilox4_32_10_t* s) {
  return curand_normal4(s);
}
__device__ __forceinline__ float4 normal4(curandStateXORWOW_t* s) {
  const float2 a = curand_normal2(s);
  const float2 b = curand_normal2(s);
  return make_float4(a.x, a.y, b.x, b.y);
}

// Draws `steps` normals four at a time and hands them out in order as visit(k, z), k = 1..steps. Every kernel
// consumes the stream through this one function, so sample i gets the same normals in every kernel.
// Not unrolled: the body is ~150 instructions already, and unrolling by 2 raised the kernel from 35 to 62
// registers (75% -> 50% occupancy) for no saving in issued instructions.
template <class State, class Visit>
__device__ __forceinline__ void walk(State& st, int steps, Visit&& visit) {
  int k = 0;
#pragma unroll 1
  for (; k + 4 <= steps; k += 4) {
    const float4 z = normal4(&st);
    visit(k + 1, z.x);
    visit(k + 2, z.y);
    visit(k + 3, z.z);
    visit(k + 4, z.w);
  }
  if (k < steps) {
    const float4 z = normal4(&st);
    visit(k + 1, z.x);
    if (k + 1 < steps) visit(k + 2, z.y);
    if (k + 2 < steps) visit(k + 3, z.z);
  }
}

// Warp sum of two doubles in a fixed tree order (so results are bitwise reproducible). `lanes` is the number
// of threads that exist in this warp (fewer than 32 in the last warp of a block whose size is not a multiple
// of 32).
__device__ __forceinline__ void warp_sum(double& a, double& b, unsigned lanes) {
  const unsigned lane = threadIdx.x & 31u;
  const unsigned mask = lanes >= 32u ? 0xffffffffu : (1u << lanes) - 1u;
#pragma unroll
  for (unsigned off = 16; off > 0; off >>= 1) {
    const double oa = __shfl_down_sync(mask, a, off);
    const double ob = __shfl_down_sync(mask, b, off);
    if (lane + off < lanes) {
      a += oa;
      b += ob;
    }
  }
}

// Block sum of two doubles: warp shuffles, then one warp over the per-warp sums. Valid in thread 0.
__device__ __forceinline__ Partial block_sum(double a, double b) {
  __shared__ double s_a[32], s_b[32];
  const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
  const unsigned warps = (blockDim.x + 31u) >> 5;
  warp_sum(a, b, min(32u, blockDim.x - warp * 32u));
  if (lane == 0) {
    s_a[warp] = a;
    s_b[warp] = b;
  }
  __syncthreads();
  Partial r{0.0, 0.0};
  if (warp == 0) {
    a = lane < warps ? s_a[lane] : 0.0;
    b = lane < warps ? s_b[lane] : 0.0;
    warp_sum(a, b, min(32u, blockDim.x));
    r = {a, b};
  }
  return r;
}

__device__ __forceinline__ void bin_price(unsigned* s_hist, int bins, float lo, float scale, float s) {
  const float t = (s - lo) * scale;
  // Comparisons before the conversion: a NaN or huge t never reaches the float-to-int cast (it lands in
  // overflow).
  const int b = t < 0.0f ? bins : (t < static_cast<float>(bins) ? static_cast<int>(t) : bins + 1);
  atomicAdd(&s_hist[b], 1u);
}

// One thread per sample (grid covering the batch) or a grid-stride loop over samples (fixed grid): the same
// code, only the grid differs. Each thread sums its payoffs in double; the block writes one Partial; no
// atomics on the sums, so the result never depends on the order in which blocks finish.
//
// Launch bounds: any block up to 1024 threads. For the European Philox kernels also as many such blocks per
// SM as the SM holds threads for (2 on sm_80 and sm_90: at most 32 registers, full occupancy with no spills,
// per ptxas). sm_75 holds 1024 threads per SM and sm_86/sm_89 1536, so one block there: asking for 2 would
// only make ptxas warn and ignore it. The Asian and XORWOW kernels would spill at 32 registers, so they keep
// the compiler's choice (34-64 registers).
#if defined(__CUDA_ARCH__) && \
    (__CUDA_ARCH__ == 750 || __CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890)
constexpr int k_blocks_of_max_per_sm = 1;
#else
constexpr int k_blocks_of_max_per_sm = 2048 / k_max_block;
#endif
template <OptionType Opt, class State>
constexpr int k_min_blocks = (Opt != OptionType::AsianCall &&
                              std::is_same_v<State, curandStatePhilox4_32_10_t>)
                                 ? k_blocks_of_max_per_sm
                                 : 1;

// The chunk whose blocks include `block` (the last whose offset is at most `block`).
__device__ __forceinline__ ChunkDesc find_chunk(const ChunkDesc* chunks, int n, unsigned block) {
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (chunks[mid].offset <= block)
      lo = mid;
    else
      hi = mid - 1;
  }
  return chunks[lo];
}

// Chunked: the launch prices several chunks, each on its own blocks, each block exactly as the block of the
// same index in a launch of that chunk alone (same samples, same order, same sums); the partial still goes to
// the launch's block index.
template <OptionType Opt, bool Anti, class State, bool Chunked>
__global__ void __launch_bounds__(k_max_block, (k_min_blocks<Opt, State>)) price_kernel(const KernelArgs a) {
  extern __shared__ unsigned s_hist[];
  const bool hist = a.bins > 0;
  if (hist) {
    for (int b = threadIdx.x; b < a.bins + 2; b += blockDim.x)
      s_hist[b] = 0;
    __syncthreads();
  }
  double sum = 0.0, sum_sq = 0.0;
  const auto price_sample = [&](unsigned long long sample) {
    State st;
    curand_init(a.seed, sample, 0ull, &st);
    PathAccumulator<Opt, Anti> acc;
    walk(st, a.pc.steps, [&](int k, float z) { acc.step(a.pc, k, z); });
    const SampleOutcome o = acc.finish(a.pc);
    const double v = o.value;
    sum += v;
    sum_sq += v * v;
    if (hist) {
      bin_price(s_hist, a.bins, a.hist_lo, a.hist_scale, o.s_t);
      if (Anti) bin_price(s_hist, a.bins, a.hist_lo, a.hist_scale, o.s_t_mirror);
    }
  };
  if constexpr (Chunked) {
    // The samples of the launch of the chunk alone, in the same order: first + i for i = block * blockDim.x +
    // threadIdx.x, stepping by grid * blockDim.x. The chunk's first, count and grid are read from shared
    // memory each time (volatile), not held in registers across the paths, as the one-range loop reads them
    // from the constant bank: the European kernels must fit 32 registers, and held in registers they spilled.
    __shared__ volatile long long s_first, s_count;
    __shared__ volatile unsigned s_grid;
    __shared__ unsigned s_block;
    if (threadIdx.x == 0) {
      const ChunkDesc c = find_chunk(a.chunks, a.n_chunks, blockIdx.x);
      s_first = c.first;
      s_count = c.count;
      s_grid = c.grid;
      s_block = blockIdx.x - c.offset;
    }
    __syncthreads();
    for (long long i = static_cast<long long>(s_block) * blockDim.x + threadIdx.x; i < s_count;
         i += static_cast<long long>(s_grid) * blockDim.x)
      price_sample(static_cast<unsigned long long>(s_first + i));
  } else {
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < a.count; i += stride)
      price_sample(static_cast<unsigned long long>(a.first + i));
  }
  const Partial r =
      block_sum(sum, sum_sq);  // contains a __syncthreads: every shared-memory bin update is done
  if (threadIdx.x == 0) a.partials[blockIdx.x] = r;
  if (hist) {
    __syncthreads();
    for (int b = threadIdx.x; b < a.bins + 2; b += blockDim.x)
      if (s_hist[b] != 0) atomicAdd(&a.hist[b], static_cast<unsigned long long>(s_hist[b]));
  }
}

// Second pass: one block adds n per-block partials in a fixed order.
__device__ __forceinline__ void reduce_partials(const Partial* partials, int n, Partial* out) {
  double a = 0.0, b = 0.0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    a += partials[i].sum;
    b += partials[i].sum_sq;
  }
  const Partial r = block_sum(a, b);
  if (threadIdx.x == 0) *out = r;
}
__global__ void __launch_bounds__(k_finalize_block)
    finalize_kernel(const Partial* partials, int n, Partial* out) {
  reduce_partials(partials, n, out);
}
// A chunked launch's second pass: block c reduces chunk c's partials, as finalize_kernel would alone.
__global__ void __launch_bounds__(k_finalize_block)
    finalize_chunks_kernel(const Partial* partials, const ChunkDesc* chunks, Partial* out) {
  const ChunkDesc c = chunks[blockIdx.x];
  reduce_partials(partials + c.offset, static_cast<int>(c.grid), out + blockIdx.x);
}

// Simulated path j (j = 2i and 2i+1 are sample i's pair under antithetic variates): all steps + 1 prices,
// from the same normals and the same float arithmetic as price_kernel, so the last column is the priced S_T.
template <class State>
__global__ void sample_paths_kernel(unsigned long long seed, PathConstants pc, bool anti, int n, float* out) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const bool mirrored = anti && (j & 1);
  const unsigned long long sample = anti ? j / 2 : j;
  State st;
  curand_init(seed, sample, 0ull, &st);
  float* row = out + static_cast<size_t>(j) * (pc.steps + 1);
  row[0] = pc.s0;
  float zsum = 0.0f;
  walk(st, pc.steps, [&](int k, float z) {
    zsum = add_rn(zsum, z);
    row[k] = mul_rn(pc.s0, fast_exp(log_growth(pc, k, zsum, mirrored)));
  });
}

using PriceKernel = void (*)(KernelArgs);

template <class State, bool Chunked>
PriceKernel pick_kernel_for(OptionType o, bool anti) {
  switch (o) {
    case OptionType::Call:
      return anti ? price_kernel<OptionType::Call, true, State, Chunked>
                  : price_kernel<OptionType::Call, false, State, Chunked>;
    case OptionType::Put:
      return anti ? price_kernel<OptionType::Put, true, State, Chunked>
                  : price_kernel<OptionType::Put, false, State, Chunked>;
    case OptionType::AsianCall:
      return anti ? price_kernel<OptionType::AsianCall, true, State, Chunked>
                  : price_kernel<OptionType::AsianCall, false, State, Chunked>;
  }
  return price_kernel<OptionType::Call, false, State, Chunked>;
}

template <bool Chunked>
PriceKernel pick_kernel(const Params& p) {
  return p.generator == Generator::Philox
             ? pick_kernel_for<curandStatePhilox4_32_10_t, Chunked>(p.option, p.antithetic)
             : pick_kernel_for<curandStateXORWOW_t, Chunked>(p.option, p.antithetic);
}

std::string mib(size_t bytes) {
  return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB";
}

}  // namespace

const char* layout_label(Layout l) {
  return l == Layout::GridStride ? "grid-stride" : "one path per thread";
}

struct GpuPricer::Impl {
  DeviceInfo info;
  Params params;
  RunOptions options;
  Launch launch;
  Range hist_range;
  Stream stream;
  DeviceBuffer<Partial> partials;
  DeviceBuffer<Partial> results{k_slots};
  PinnedBuffer<Partial> host_results{k_slots};
  DeviceBuffer<unsigned long long> hist;
  DeviceBuffer<float> sample_paths;
  int n_sample_paths = 0;

  struct Slot {
    Event start, stop, done;
    SampleRange range;
  };
  std::vector<Slot> slots;
  std::deque<int> queue;  // slots in flight, oldest first
  int64_t submitted = 0;
  std::vector<BatchResult> ready;
  Moments total;

  // The chunked launch (enqueue_chunks): its chunk table (on the device, and the host copy it was uploaded
  // from, kept so that a repeated decomposition is not uploaded again), the per-chunk sums and their events.
  enum class ChunkState { Idle, Launched, Reduced };
  ChunkState chunk_state = ChunkState::Idle;
  std::vector<ChunkDesc> chunk_table;
  PinnedBuffer<ChunkDesc> host_chunk_table;
  DeviceBuffer<ChunkDesc> device_chunk_table;
  DeviceBuffer<Partial> chunk_results;
  PinnedBuffer<Partial> host_chunk_results;
  Event chunk_start, chunk_stop;

  // The occupancy queries of shape(), for the last kernel and launch asked about (they cost microseconds, and
  // a chunked launch needs the shape of every chunk).
  struct Occupancy {
    PriceKernel kernel = nullptr;
    int block = 0;
    size_t smem = 0;
    int registers = 0, per_sm = 0;
  };
  mutable Occupancy occupancy;

  size_t hist_smem() const {
    return options.histogram_bins > 0 ? (options.histogram_bins + 2) * sizeof(unsigned) : 0;
  }

  LaunchShape shape(int64_t count) const {
    LaunchShape s;
    s.block = launch.block;
    const PriceKernel k = pick_kernel<false>(params);
    Occupancy& o = occupancy;
    if (o.kernel != k || o.block != launch.block || o.smem != hist_smem()) {
      cudaFuncAttributes attr{};
      BS_CUDA_CHECK(cudaFuncGetAttributes(&attr, k));
      int per_sm = 0;
      BS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, launch.block, hist_smem()));
      o = {k, launch.block, hist_smem(), attr.numRegs, per_sm};
    }
    s.registers = o.registers;
    const int per_sm = o.per_sm;
    if (per_sm == 0)
      throw InvalidRequest("a block of " + std::to_string(launch.block) +
                           " threads cannot run the pricing kernel (" + std::to_string(o.registers) +
                           " registers per thread, " + mib(hist_smem()) +
                           " shared memory): choose a smaller block");
    s.blocks_per_sm = per_sm;
    const int64_t covering = ceil_div(std::max<int64_t>(count, 1), launch.block);
    if (launch.layout == Layout::OnePathPerThread)
      s.grid = covering;
    else
      s.grid = std::min<int64_t>(covering, static_cast<int64_t>(launch.waves) * per_sm * info.sm_count);
    s.samples_per_thread = static_cast<double>(count) / static_cast<double>(s.grid * s.block);
    return s;
  }

  // Moves the oldest batch in flight to `ready` once its result has arrived; false when it has not (and
  // !wait).
  bool complete_oldest(bool wait) {
    if (queue.empty()) return false;
    Slot& s = slots[static_cast<size_t>(queue.front())];
    if (wait) {
      BS_CUDA_CHECK(cudaEventSynchronize(s.done.get()));
    } else {
      const cudaError_t q = cudaEventQuery(s.done.get());
      if (q == cudaErrorNotReady) return false;
      if (q != cudaSuccess) BS_CUDA_CHECK(q);
    }
    const Partial r = host_results.data()[queue.front()];
    BatchResult b;
    b.range = s.range;
    b.batch = {s.range.count, r.sum, r.sum_sq};
    total += b.batch;
    b.cumulative = make_estimate(total, params);
    b.ms = elapsed_ms(s.start, s.stop);
    ready.push_back(b);
    queue.pop_front();
    return true;
  }

  void drop_in_flight() {
    stream.sync();
    queue.clear();
    ready.clear();
    total = {};
    chunk_state = ChunkState::Idle;
  }

  // Throws unless r lies inside this run's samples.
  void check_range(SampleRange r) const {
    const int64_t samples = sample_count(params);
    if (r.first < 0 || r.count < 1 || r.end() > samples)
      throw InvalidRequest("samples [" + std::to_string(r.first) + ", " + std::to_string(r.end()) +
                           ") are not inside this run's [0, " + std::to_string(samples) + ")");
  }

  // Room for `blocks` partial sums. Grown only (never shrunk), and only once the stream is idle, because
  // batches still in flight read the old buffer.
  void reserve_partials(int64_t blocks) {
    const size_t need = static_cast<size_t>(blocks);
    if (need <= partials.size()) return;
    size_t free_b = 0, total_b = 0;
    BS_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (need * sizeof(Partial) > free_b + partials.bytes())
      throw InvalidRequest(std::to_string(blocks) + " blocks need " + mib(need * sizeof(Partial)) +
                           " of device memory for their partial sums; " + mib(free_b) +
                           " are free: use a larger block or the grid-stride layout");
    stream.sync();
    partials.resize(need);
  }

  KernelArgs kernel_args(SampleRange r) {
    KernelArgs a{};
    a.seed = params.seed;
    a.first = r.first;
    a.count = r.count;
    a.pc = path_constants(params);
    a.bins = options.histogram_bins;
    a.hist_lo = static_cast<float>(hist_range.lo);
    a.hist_scale = static_cast<float>(options.histogram_bins / (hist_range.hi - hist_range.lo));
    a.hist = hist.data();
    a.partials = partials.data();
    return a;
  }
};

GpuPricer::GpuPricer() {
  // The caller's current device (a multi-GPU caller sets it first); query_device makes it current again.
  int current = 0;
  if (cudaGetDevice(&current) != cudaSuccess) {
    (void)cudaGetLastError();
    current = 0;
  }
  DeviceInfo info = query_device(current);
  if (!info.available) throw GpuError("no CUDA device: " + info.reason, 100, false);
  m = std::make_unique<Impl>();
  m->info = std::move(info);
  m->slots.resize(k_slots);
  reset(Params{}, RunOptions{});
}

GpuPricer::~GpuPricer() = default;

const Params& GpuPricer::params() const {
  return m->params;
}
const RunOptions& GpuPricer::options() const {
  return m->options;
}
const Launch& GpuPricer::launch() const {
  return m->launch;
}
LaunchShape GpuPricer::shape(int64_t samples) const {
  return m->shape(samples);
}
std::string GpuPricer::device_name() const {
  return m->info.name;
}
int GpuPricer::in_flight() const {
  return static_cast<int>(m->queue.size());
}
Moments GpuPricer::moments() const {
  return m->total;
}
Estimate GpuPricer::estimate() const {
  return make_estimate(m->total, m->params);
}

void GpuPricer::reset(const Params& p, const RunOptions& o) {
  if (auto err = validate(p)) throw InvalidRequest(*err);
  if (auto err = validate(o)) throw InvalidRequest(*err);
  m->drop_in_flight();
  m->params = p;
  m->options = o;
  cudaStream_t s = m->stream.get();

  // Histogram: bins + 2 counters (underflow, overflow), cleared.
  m->hist_range =
      o.histogram_hi > o.histogram_lo ? Range{o.histogram_lo, o.histogram_hi} : default_histogram_range(p);
  m->hist.resize(o.histogram_bins > 0 ? static_cast<size_t>(o.histogram_bins) + 2 : 0);
  if (m->hist.size() > 0) BS_CUDA_CHECK(cudaMemsetAsync(m->hist.data(), 0, m->hist.bytes(), s));

  // Sample paths for drawing: never more than the run simulates.
  const int64_t paths = paths_for_samples(sample_count(p), p.antithetic);
  m->n_sample_paths = static_cast<int>(std::min<int64_t>(o.sample_paths, paths));
  const size_t floats = static_cast<size_t>(m->n_sample_paths) * static_cast<size_t>(p.steps + 1);
  if (floats * sizeof(float) > m->sample_paths.bytes()) {
    size_t free_b = 0, total_b = 0;
    BS_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (floats * sizeof(float) > free_b)
      throw InvalidRequest(std::to_string(m->n_sample_paths) + " sample paths of " +
                           std::to_string(p.steps + 1) + " prices need " + mib(floats * sizeof(float)) +
                           " of device memory; " + mib(free_b) + " are free");
  }
  m->sample_paths.resize(floats);
  if (m->n_sample_paths > 0) {
    const PathConstants pc = path_constants(p);
    const int block = 128;
    const unsigned grid = static_cast<unsigned>(ceil_div(m->n_sample_paths, block));
    if (p.generator == Generator::Philox)
      sample_paths_kernel<curandStatePhilox4_32_10_t>
          <<<grid, block, 0, s>>>(p.seed, pc, p.antithetic, m->n_sample_paths, m->sample_paths.data());
    else
      sample_paths_kernel<curandStateXORWOW_t>
          <<<grid, block, 0, s>>>(p.seed, pc, p.antithetic, m->n_sample_paths, m->sample_paths.data());
    BS_CUDA_CHECK_LAUNCH();
  }
}

void GpuPricer::set_launch(const Launch& l) {
  if (auto err = validate_block(Dim2{l.block, 1}, m->info.limits)) throw InvalidRequest(*err);
  if (l.waves < 1 || l.waves > 64)
    throw InvalidRequest("waves = " + std::to_string(l.waves) + ": the grid-stride grid holds 1 to 64 waves");
  m->launch = l;
}

void GpuPricer::enqueue(SampleRange r) {
  const Params& p = m->params;
  if (m->chunk_state != Impl::ChunkState::Idle)
    throw InvalidRequest("a chunked launch is in flight: call finish_chunks() before enqueue()");
  m->check_range(r);
  const LaunchShape shape = m->shape(r.count);
  if (auto err = validate_grid(Dim2{shape.grid, 1}, m->info.limits)) throw InvalidRequest(*err);
  cudaStream_t s = m->stream.get();
  m->reserve_partials(shape.grid);  // one Partial per block

  if (m->queue.size() >= static_cast<size_t>(k_slots)) m->complete_oldest(true);
  const int slot = static_cast<int>(m->submitted % k_slots);
  Impl::Slot& sl = m->slots[static_cast<size_t>(slot)];
  sl.range = r;

  const KernelArgs a = m->kernel_args(r);
  const PriceKernel kernel = pick_kernel<false>(p);
  const NvtxRange range("montecarlo/batch " + std::to_string(r.count) + " paths");
  sl.start.record(s);
  kernel<<<static_cast<unsigned>(shape.grid), static_cast<unsigned>(shape.block), m->hist_smem(), s>>>(a);
  BS_CUDA_CHECK_LAUNCH();
  finalize_kernel<<<1, k_finalize_block, 0, s>>>(m->partials.data(), static_cast<int>(shape.grid),
                                                 m->results.data() + slot);
  BS_CUDA_CHECK_LAUNCH();
  sl.stop.record(s);
  BS_CUDA_CHECK(cudaMemcpyAsync(m->host_results.data() + slot, m->results.data() + slot, sizeof(Partial),
                                cudaMemcpyDeviceToHost, s));
  sl.done.record(s);
  m->queue.push_back(slot);
  ++m->submitted;
}

void GpuPricer::enqueue_chunks(const std::vector<SampleRange>& chunks) {
  if (chunks.empty()) throw InvalidRequest("a chunked launch needs at least one chunk");
  if (!m->queue.empty() || m->chunk_state != Impl::ChunkState::Idle)
    throw InvalidRequest("enqueue_chunks() needs nothing in flight: call finish() or finish_chunks() first");
  // Each chunk gets the grid a launch of it alone would have; the launch is their concatenation.
  std::vector<ChunkDesc> table;
  table.reserve(chunks.size());
  int64_t blocks = 0;
  for (const SampleRange& r : chunks) {
    m->check_range(r);
    const int64_t grid = m->shape(r.count).grid;
    table.push_back({r.first, r.count, static_cast<unsigned>(blocks), static_cast<unsigned>(grid)});
    blocks += grid;
  }
  if (auto err = validate_grid(Dim2{blocks, 1}, m->info.limits))
    throw InvalidRequest(std::to_string(chunks.size()) + " chunks in one launch: " + *err);
  m->reserve_partials(blocks);
  cudaStream_t s = m->stream.get();
  if (table != m->chunk_table) {
    m->stream.sync();  // the pinned table may still be on its way from an earlier launch
    m->host_chunk_table.resize(table.size());
    m->device_chunk_table.resize(table.size());
    m->chunk_results.resize(table.size());
    m->host_chunk_results.resize(table.size());
    std::copy(table.begin(), table.end(), m->host_chunk_table.data());
    BS_CUDA_CHECK(cudaMemcpyAsync(m->device_chunk_table.data(), m->host_chunk_table.data(),
                                  m->host_chunk_table.bytes(), cudaMemcpyHostToDevice, s));
    m->chunk_table = std::move(table);
  }
  KernelArgs a = m->kernel_args({0, 0});
  a.chunks = m->device_chunk_table.data();
  a.n_chunks = static_cast<int>(m->chunk_table.size());
  const NvtxRange range("montecarlo/" + std::to_string(a.n_chunks) + " chunks, one launch");
  m->chunk_start.record(s);
  pick_kernel<true>(m->params)<<<static_cast<unsigned>(blocks), static_cast<unsigned>(m->launch.block),
                                 m->hist_smem(), s>>>(a);
  BS_CUDA_CHECK_LAUNCH();
  m->chunk_state = Impl::ChunkState::Launched;
}

void GpuPricer::reduce_chunks() {
  if (m->chunk_state != Impl::ChunkState::Launched)
    throw InvalidRequest("reduce_chunks() follows enqueue_chunks()");
  cudaStream_t s = m->stream.get();
  const unsigned n = static_cast<unsigned>(m->chunk_table.size());
  finalize_chunks_kernel<<<n, k_finalize_block, 0, s>>>(m->partials.data(), m->device_chunk_table.data(),
                                                        m->chunk_results.data());
  BS_CUDA_CHECK_LAUNCH();
  m->chunk_stop.record(s);
  BS_CUDA_CHECK(cudaMemcpyAsync(m->host_chunk_results.data(), m->chunk_results.data(),
                                m->chunk_results.bytes(), cudaMemcpyDeviceToHost, s));
  m->chunk_state = Impl::ChunkState::Reduced;
}

GpuPricer::Chunks GpuPricer::finish_chunks() {
  if (m->chunk_state == Impl::ChunkState::Idle)
    throw InvalidRequest("finish_chunks() follows enqueue_chunks()");
  if (m->chunk_state == Impl::ChunkState::Launched) reduce_chunks();
  m->stream.sync();
  m->chunk_state = Impl::ChunkState::Idle;
  Chunks out;
  out.ms = elapsed_ms(m->chunk_start, m->chunk_stop);
  out.moments.reserve(m->chunk_table.size());
  for (size_t c = 0; c < m->chunk_table.size(); ++c) {
    const Partial r = m->host_chunk_results.data()[c];
    out.moments.push_back({m->chunk_table[c].count, r.sum, r.sum_sq});
    m->total += out.moments.back();
  }
  return out;
}

std::vector<BatchResult> GpuPricer::poll() {
  while (m->complete_oldest(false)) {
  }
  std::vector<BatchResult> out;
  out.swap(m->ready);
  return out;
}

std::vector<BatchResult> GpuPricer::finish() {
  while (m->complete_oldest(true)) {
  }
  std::vector<BatchResult> out;
  out.swap(m->ready);
  return out;
}

Result GpuPricer::run() {
  reset(m->params, m->options);
  const int64_t samples = sample_count(m->params);
  const LaunchShape sh = m->shape(samples);
  enqueue({0, samples});
  const std::vector<BatchResult> done = finish();
  Result r;
  r.variant =
      std::string("GPU ") + layout_label(m->launch.layout) + ", block " + std::to_string(m->launch.block);
  r.estimate = done.back().cumulative;
  r.ms = done.back().ms;
  r.path_steps_per_s = static_cast<double>(r.estimate.paths) * m->params.steps / (r.ms * 1e-3);
  r.note = std::to_string(sh.grid) + " blocks, " + std::to_string(sh.registers) + " regs, " +
           std::to_string(sh.blocks_per_sm) + " blocks/SM, " + generator_label(m->params.generator);
  return r;
}

Histogram GpuPricer::histogram() {
  Histogram h;
  if (m->options.histogram_bins <= 0) return h;
  std::vector<unsigned long long> raw(m->hist.size());
  BS_CUDA_CHECK(
      cudaMemcpyAsync(raw.data(), m->hist.data(), m->hist.bytes(), cudaMemcpyDeviceToHost, m->stream.get()));
  m->stream.sync();
  const size_t bins = static_cast<size_t>(m->options.histogram_bins);
  h.lo = m->hist_range.lo;
  h.hi = m->hist_range.hi;
  h.counts.assign(raw.begin(), raw.begin() + static_cast<std::ptrdiff_t>(bins));
  h.underflow = raw[bins];
  h.overflow = raw[bins + 1];
  return h;
}

const float* GpuPricer::device_sample_paths() const {
  return m->sample_paths.data();
}
int GpuPricer::sample_path_count() const {
  return m->n_sample_paths;
}
int GpuPricer::sample_path_length() const {
  return m->params.steps + 1;
}

std::vector<float> GpuPricer::download_sample_paths() {
  std::vector<float> out(m->sample_paths.size());
  if (!out.empty())
    BS_CUDA_CHECK(cudaMemcpyAsync(out.data(), m->sample_paths.data(), m->sample_paths.bytes(),
                                  cudaMemcpyDeviceToHost, m->stream.get()));
  m->stream.sync();
  return out;
}

void* GpuPricer::stream_handle() const {
  return m->stream.get();
}
void GpuPricer::sync() {
  m->stream.sync();
}

void GpuPricer::abandon() noexcept {
  m->partials.abandon();
  m->results.abandon();
  m->host_results.abandon();
  m->hist.abandon();
  m->sample_paths.abandon();
  m->host_chunk_table.abandon();
  m->device_chunk_table.abandon();
  m->chunk_results.abandon();
  m->host_chunk_results.abandon();
  m->chunk_start.abandon();
  m->chunk_stop.abandon();
  m->chunk_table.clear();
  m->chunk_state = Impl::ChunkState::Idle;
  for (auto& s : m->slots) {
    s.start.abandon();
    s.stop.abandon();
    s.done.abandon();
  }
  m->stream.abandon();
  m->queue.clear();
}

Result run_gpu(const Params& p, const Launch& l, const RunOptions& o) {
  GpuPricer pricer;
  pricer.set_launch(l);
  pricer.reset(p, o);
  return pricer.run();
}

BenchRow bench_gpu(const Params& p, const Launch& l, const RunOptions& o, int repetitions) {
  GpuPricer pricer;
  pricer.set_launch(l);
  pricer.reset(p, o);
  Result r = pricer.run();  // warm-up: module load, first launch, clocks ramping up
  r = pricer.run();
  std::vector<double> ms;
  for (int i = 0; i < std::max(repetitions, 1); ++i) {
    r = pricer.run();
    ms.push_back(r.ms);
  }
  const Summary sum = summarize(ms);
  BenchRow row;
  row.variant = r.variant;
  if (o.histogram_bins > 0) row.variant += " + histogram";
  if (p.generator != Generator::Philox) row.variant += std::string(" (") + generator_label(p.generator) + ")";
  row.device = pricer.device_name();
  row.estimate = r.estimate;
  row.reference = reference_price(p);
  row.ms = sum.median;
  row.p10 = sum.p10;
  row.p90 = sum.p90;
  row.repetitions = static_cast<int>(ms.size());
  row.gpath_steps_per_s = static_cast<double>(r.estimate.paths) * p.steps / (sum.median * 1e-3) / 1e9;
  row.note = r.note;
  return row;
}

}  // namespace bs::montecarlo
