// vector_gpu.cu: the vector lab's kernels (op x indexing x load width), the copy and empty kernels used as
// yardsticks, the GpuRunner host interface (copies, kernel and copies again, on 1..16 streams, every
// operation bracketed by CUDA events) and the size sweep.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "gpu/common/device_buffer.h"
#include "gpu/common/device_info.h"
#include "gpu/common/nvtx_range.h"
#include "core/launch.h"
#include "gpu/vector/elementwise.h"
#include "gpu/vector/vector.h"

namespace bs::vector {

namespace {

// --- Kernels
// ------------------------------------------------------------------------------------------------------- All
// take (a, b, c, n) over one chunk; 64-bit indices so that n up to 512M (and threads x passes beyond 2^31)
// never overflow.

// The tutorial kernel: thread i computes element i; threads past the end (the ragged last block) do nothing.
template <Op op>
__global__ void one_per_element_float(const float* __restrict__ a, const float* __restrict__ b,
                                      float* __restrict__ c, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) c[i] = apply_op<op>(a[i], b[i]);
}

// A fixed grid walks the array: thread g takes g, g + T, g + 2T, ... (T = all threads of the grid).
// Consecutive threads still touch consecutive elements in every pass, so loads stay coalesced.
template <Op op>
__global__ void grid_stride_float(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    c[i] = apply_op<op>(a[i], b[i]);
}

// Work item v = elements 4v .. 4v+3: one 16-byte load per input and one 16-byte store when all four exist,
// the same formula element by element for the last, partial group (n not a multiple of 4). Chunks start on
// multiples of 4 elements, so the float4 accesses stay 16-byte aligned.
template <Op op>
__device__ __forceinline__ void group_of_four(const float* __restrict__ a, const float* __restrict__ b,
                                              float* __restrict__ c, int64_t n, int64_t v) {
  const int64_t base = v * 4;
  if (base + 3 < n) {
    const float4 x = reinterpret_cast<const float4*>(a)[v];
    const float4 y = reinterpret_cast<const float4*>(b)[v];
    float4 z;
    z.x = apply_op<op>(x.x, y.x);
    z.y = apply_op<op>(x.y, y.y);
    z.z = apply_op<op>(x.z, y.z);
    z.w = apply_op<op>(x.w, y.w);
    reinterpret_cast<float4*>(c)[v] = z;
  } else {
    for (int64_t i = base; i < n; ++i)
      c[i] = apply_op<op>(a[i], b[i]);
  }
}

template <Op op>
__global__ void one_per_element_float4(const float* __restrict__ a, const float* __restrict__ b,
                                       float* __restrict__ c, int64_t n) {
  const int64_t v = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v * 4 < n) group_of_four<op>(a, b, c, n, v);
}

template <Op op>
__global__ void grid_stride_float4(const float* __restrict__ a, const float* __restrict__ b,
                                   float* __restrict__ c, int64_t n) {
  const int64_t items = (n + 3) / 4;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t v = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; v < items; v += stride)
    group_of_four<op>(a, b, c, n, v);
}

// Device-to-device float4 copy, grid-stride: one read and one write per byte, the ceiling for streaming
// kernels.
__global__ void copy_float4(const float4* __restrict__ in, float4* __restrict__ out, int64_t n4) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += stride)
    out[i] = in[i];
}

__global__ void empty_kernel() {}

using KernelFn = void (*)(const float*, const float*, float*, int64_t);

template <Op op>
KernelFn pick_for_op(Indexing ix, LoadWidth w) {
  if (ix == Indexing::OnePerElement)
    return w == LoadWidth::Float ? one_per_element_float<op> : one_per_element_float4<op>;
  return w == LoadWidth::Float ? grid_stride_float<op> : grid_stride_float4<op>;
}

KernelFn pick_kernel(Op op, Indexing ix, LoadWidth w) {
  return op == Op::Add ? pick_for_op<Op::Add>(ix, w) : pick_for_op<Op::Formula>(ix, w);
}

int resident_blocks_per_sm(const void* fn, int block) {
  int nb = 0;
  BS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, fn, block, 0));
  return std::max(nb, 1);
}

std::string mib(uint64_t bytes) {
  return std::to_string(bytes >> 20) + " MiB";
}

double median_of(std::vector<double> v) {
  return summarize(v).median;
}

// Page-able host array: plain new[], no zeroing (each thread first-touches its share in fill_inputs).
std::unique_ptr<float[]> new_host_array(int64_t n) {
  return std::unique_ptr<float[]>(new (std::nothrow) float[static_cast<size_t>(n)]);
}

}  // namespace

struct GpuRunner::Impl {
  explicit Impl(const DeviceInfo& d) : info(d) {}
  const DeviceInfo& info;  // the runner's (DeviceRunner::device())
  NominalLink link;

  DeviceBuffer<float> da, db, dc;
  int64_t dev_cap = 0;
  int64_t on_device = 0;  // leading elements of da and db that the last issue() copied in

  bool host_pinned = false;
  int64_t host_cap = 0;
  int64_t filled = 0;  // leading elements of the host a and b that hold fill_inputs data
  int64_t last_n = 0;  // elements of the last run (valid in the host c)
  PinnedBuffer<float> pa, pb, pc;
  std::unique_ptr<float[]> ua, ub, uc;

  std::vector<Stream> streams;
  // Per chunk: start and end of its H2D (a and b), its kernel and its D2H (c).
  struct ChunkEvents {
    Event e[6];
  };
  std::vector<ChunkEvents> events;
  Event start;

  float* ha() { return host_pinned ? pa.data() : ua.get(); }
  float* hb() { return host_pinned ? pb.data() : ub.get(); }
  float* hc() { return host_pinned ? pc.data() : uc.get(); }

  void ensure_device(int64_t n) {
    if (n <= dev_cap) return;
    size_t free_b = 0, total_b = 0;
    BS_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    const uint64_t held = 3 * static_cast<uint64_t>(dev_cap) * sizeof(float);
    const uint64_t need = 3 * static_cast<uint64_t>(n) * sizeof(float);
    const std::string msg = "n = " + std::to_string(n) + " needs " + mib(need) +
                            " of device memory for a, b and c; " + mib(free_b + held) + " are free on " +
                            info.name;
    if (need > free_b + held) throw InvalidRequest(msg);
    da.release();
    db.release();
    dc.release();
    dev_cap = 0;
    on_device = 0;
    try {
      da.resize(static_cast<size_t>(n));
      db.resize(static_cast<size_t>(n));
      dc.resize(static_cast<size_t>(n));
    } catch (const GpuError& e) {
      da.release();
      db.release();
      dc.release();
      if (e.code() == cudaErrorMemoryAllocation)
        throw InvalidRequest(msg + " (cudaMalloc failed: " + e.what() + ")");
      throw;
    }
    dev_cap = n;
  }

  void ensure_host(int64_t n, bool pinned) {
    if (pinned == host_pinned && n <= host_cap) return;
    pa.release();
    pb.release();
    pc.release();
    ua.reset();
    ub.reset();
    uc.reset();
    host_cap = 0;
    filled = 0;
    last_n = 0;
    if (auto err = check_host_memory(n, 3, available_host_bytes())) throw InvalidRequest(*err);
    host_pinned = pinned;
    const size_t count = static_cast<size_t>(n);
    if (pinned) {
      try {
        pa.resize(count);
        pb.resize(count);
        pc.resize(count);
      } catch (const GpuError& e) {
        pa.release();
        pb.release();
        pc.release();
        throw InvalidRequest("could not pin " + mib(3 * count * sizeof(float)) +
                             " of host memory for a, b and c (" + e.what() + "); try pageable memory");
      }
    } else {
      ua = new_host_array(n);
      ub = new_host_array(n);
      uc = new_host_array(n);
      if (!ua || !ub || !uc) {
        ua.reset();
        ub.reset();
        uc.reset();
        throw InvalidRequest("could not allocate " + mib(3 * count * sizeof(float)) +
                             " of host memory for a, b and c");
      }
    }
    host_cap = n;
  }

  void prepare(const Params& p) {
    if (auto err = validate(p)) throw InvalidRequest(*err);
    ensure_device(p.n);
    ensure_host(p.n, p.pinned);
    if (filled < p.n) {
      fill_inputs(ha(), hb(), p.n);
      std::fill(hc(), hc() + p.n, 0.0f);  // touch c's pages too, so no copy pays for first-touch faults
      filled = p.n;
    }
  }

  void ensure_streams(int k) {
    while (static_cast<int>(streams.size()) < k)
      streams.emplace_back();
  }
  void ensure_events(size_t k) {
    while (events.size() < k)
      events.emplace_back();
  }

  int64_t stride_grid(const Params& p) const {
    const KernelFn fn = pick_kernel(p.op, Indexing::GridStride, p.width);
    return static_cast<int64_t>(info.sm_count) *
           resident_blocks_per_sm(reinterpret_cast<const void*>(fn), p.block) * p.waves;
  }

  // NaN in every byte of the device c (0xff..): an element the kernel never writes then fails the check.
  void poison_output(int64_t n) {
    BS_CUDA_CHECK(cudaMemsetAsync(dc.data(), 0xff, static_cast<size_t>(n) * sizeof(float), streams[0].get()));
    BS_CUDA_CHECK(cudaStreamSynchronize(streams[0].get()));
  }

  // The kernel over one chunk of a, b and c, on stream `st` (issue() and issue_kernels() share it).
  void launch_chunk(KernelFn fn, const Params& p, int64_t sgrid, const Chunk& ch, cudaStream_t st) {
    const LaunchShape s = make_shape(ch.count, p.indexing, p.width, p.block, sgrid);
    fn<<<static_cast<unsigned>(s.grid), static_cast<unsigned>(s.block), 0, st>>>(
        da.data() + ch.begin, db.data() + ch.begin, dc.data() + ch.begin, ch.count);
    BS_CUDA_CHECK_LAUNCH();
  }

  // Enqueues one run and waits for it. Per chunk, depth first: H2D of a and b, kernel, D2H of c, on the
  // chunk's stream. Each operation also waits for the same operation of the previous chunk (on another
  // stream): each engine (host-to-device copies, the SMs, device-to-host copies) then works through the
  // chunks in order, as it would anyway, and the event before each operation marks when it really started
  // instead of when it was queued behind the previous chunk's. Throughput is unchanged: the link, not the
  // ordering, is the limit.
  std::vector<Chunk> issue(const Params& p) {
    const std::vector<Chunk> chunks = make_chunks(p.n, p.chunk_count(), p.streams);
    ensure_streams(p.streams);
    ensure_events(chunks.size());
    const KernelFn fn = pick_kernel(p.op, p.indexing, p.width);
    const int64_t sgrid = p.indexing == Indexing::GridStride ? stride_grid(p) : 0;
    start.record(streams[0].get());
    for (int s = 1; s < p.streams; ++s)
      BS_CUDA_CHECK(cudaStreamWaitEvent(streams[s].get(), start.get(), 0));
    for (size_t k = 0; k < chunks.size(); ++k) {
      const Chunk& ch = chunks[k];
      cudaStream_t st = streams[ch.stream].get();
      ChunkEvents& ev = events[k];
      const ChunkEvents* prev = k > 0 ? &events[k - 1] : nullptr;
      const bool other_stream = prev && chunks[k - 1].stream != ch.stream;
      const size_t bytes = static_cast<size_t>(ch.count) * sizeof(float);

      if (other_stream) BS_CUDA_CHECK(cudaStreamWaitEvent(st, prev->e[1].get(), 0));
      ev.e[0].record(st);
      BS_CUDA_CHECK(
          cudaMemcpyAsync(da.data() + ch.begin, ha() + ch.begin, bytes, cudaMemcpyHostToDevice, st));
      BS_CUDA_CHECK(
          cudaMemcpyAsync(db.data() + ch.begin, hb() + ch.begin, bytes, cudaMemcpyHostToDevice, st));
      ev.e[1].record(st);

      if (other_stream) BS_CUDA_CHECK(cudaStreamWaitEvent(st, prev->e[3].get(), 0));
      ev.e[2].record(st);
      launch_chunk(fn, p, sgrid, ch, st);
      ev.e[3].record(st);

      if (other_stream) BS_CUDA_CHECK(cudaStreamWaitEvent(st, prev->e[5].get(), 0));
      ev.e[4].record(st);
      BS_CUDA_CHECK(
          cudaMemcpyAsync(hc() + ch.begin, dc.data() + ch.begin, bytes, cudaMemcpyDeviceToHost, st));
      ev.e[5].record(st);
    }
    for (int s = 0; s < p.streams; ++s)
      BS_CUDA_CHECK(cudaStreamSynchronize(streams[s].get()));
    last_n = p.n;
    on_device = p.n;
    return chunks;
  }

  // issue() without the copies: each chunk's kernel on its stream, then wait.
  void issue_kernels(const Params& p) {
    const std::vector<Chunk> chunks = make_chunks(p.n, p.chunk_count(), p.streams);
    ensure_streams(p.streams);
    const KernelFn fn = pick_kernel(p.op, p.indexing, p.width);
    const int64_t sgrid = p.indexing == Indexing::GridStride ? stride_grid(p) : 0;
    for (const Chunk& ch : chunks)
      launch_chunk(fn, p, sgrid, ch, streams[ch.stream].get());
    for (int s = 0; s < p.streams; ++s)
      BS_CUDA_CHECK(cudaStreamSynchronize(streams[s].get()));
  }

  Timeline collect(const Params& p, const std::vector<Chunk>& chunks) {
    std::vector<TimelineOp> ops;
    ops.reserve(chunks.size() * 3);
    for (size_t k = 0; k < chunks.size(); ++k) {
      const ChunkEvents& ev = events[k];
      double t[6];
      for (int j = 0; j < 6; ++j)
        t[j] = elapsed_ms(start, ev.e[j]);
      const int64_t n = chunks[k].count;
      const int s = chunks[k].stream, c = static_cast<int>(k);
      ops.push_back({OpKind::H2D, s, c, t[0], t[1], 8 * n});
      ops.push_back({OpKind::Kernel, s, c, t[2], t[3], k_bytes_per_element * n});
      ops.push_back({OpKind::D2H, s, c, t[4], t[5], 4 * n});
    }
    return analyze_timeline(std::move(ops), p.streams, static_cast<int>(chunks.size()));
  }
};

GpuRunner::GpuRunner() : m(std::make_unique<Impl>(device())) {
  int integrated = 0, host_tables = 0;
  if (cudaDeviceGetAttribute(&integrated, cudaDevAttrIntegrated, m->info.index) != cudaSuccess)
    integrated = 0;
  if (cudaDeviceGetAttribute(&host_tables, cudaDevAttrPageableMemoryAccessUsesHostPageTables,
                             m->info.index) != cudaSuccess)
    host_tables = 0;
  (void)cudaGetLastError();
  m->link = nominal_link(m->info.cc_major, m->info.cc_minor, integrated != 0, host_tables != 0);
  m->ensure_streams(1);
}

GpuRunner::~GpuRunner() = default;

NominalLink GpuRunner::link() const {
  return m->link;
}

int64_t GpuRunner::stride_grid(const Params& p) const {
  if (auto err = validate(p)) throw InvalidRequest(*err);
  return m->stride_grid(p);
}

LaunchShape GpuRunner::shape(const Params& p) const {
  const auto chunks = make_chunks(p.n, p.chunk_count(), p.streams);
  const int64_t first = chunks.empty() ? 0 : chunks.front().count;
  return make_shape(first, p.indexing, p.width, p.block, stride_grid(p));
}

void GpuRunner::prepare(const Params& p) {
  m->prepare(p);
}

RunResult GpuRunner::run(const Params& p, int repetitions, bool check) {
  repetitions = std::max(repetitions, 1);
  m->prepare(p);
  m->poison_output(p.n);
  RunResult r;
  r.params = p;
  r.variant =
      std::string("GPU ") + to_string(p.op) + ", " + to_string(p.width) + ", " + short_name(p.indexing);
  r.shape = shape(p);

  const NvtxRange range("vector/" + r.variant);
  (void)m->issue(p);  // warm-up: module load, first touches of the copy paths, clocks ramping up
  std::vector<Timeline> runs;
  std::vector<double> h2d, kernel, d2h, total;
  for (int i = 0; i < repetitions; ++i) {
    const std::vector<Chunk> chunks = m->issue(p);
    runs.push_back(m->collect(p, chunks));
    const Timeline& t = runs.back();
    h2d.push_back(t.h2d_sum_ms);
    kernel.push_back(t.kernel_sum_ms);
    d2h.push_back(t.d2h_sum_ms);
    total.push_back(t.total_ms);
  }
  r.h2d_ms = summarize(h2d);
  r.kernel_ms = summarize(kernel);
  r.d2h_ms = summarize(d2h);
  r.total_ms = summarize(total);
  // The timeline to show: the repetition whose total is closest to the median.
  size_t pick = 0;
  for (size_t i = 1; i < runs.size(); ++i)
    if (std::abs(total[i] - r.total_ms.median) < std::abs(total[pick] - r.total_ms.median)) pick = i;
  r.timeline = runs[pick];
  r.chunks_used = r.timeline.chunks;

  BenchRow& row = r.row;
  row.variant = std::string("GPU ") + to_string(p.width) + ", " + short_name(p.indexing);
  if (p.streams > 1 || r.chunks_used > 1)
    row.variant +=
        ", " + std::to_string(p.streams) + " streams x " + std::to_string(r.chunks_used) + " chunks";
  row.device = m->info.name;
  row.gpu = true;
  row.pinned = p.pinned;
  row.h2d_ms = r.h2d_ms.median;
  row.kernel_ms = r.kernel_ms.median;
  row.d2h_ms = r.d2h_ms.median;
  row.total_ms = r.total_ms.median;
  row.total_p10 = r.total_ms.p10;
  row.total_p90 = r.total_ms.p90;
  const double n = static_cast<double>(p.n);
  auto gbs = [](double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0.0; };
  row.kernel_gbs = gbs(k_bytes_per_element * n, row.kernel_ms);
  row.total_gbs = gbs(k_bytes_per_element * n, row.total_ms);
  row.h2d_gbs = gbs(8 * n, row.h2d_ms);
  row.d2h_gbs = gbs(4 * n, row.d2h_ms);
  row.repetitions = repetitions;
  row.note = "block " + std::to_string(r.shape.block) + ", grid " + std::to_string(r.shape.grid) +
             (r.shape.passes > 1 ? ", " + std::to_string(r.shape.passes) + " passes" : "") +
             (p.pinned ? ", pinned" : ", pageable");
  if (check) {
    const Check c = check_result(p.op, m->ha(), m->hb(), m->hc(), p.n);
    row.check = c.text;
    row.check_passed = c.passed;
  }
  return r;
}

std::span<const float> GpuRunner::input_a() const {
  return {m->ha(), static_cast<size_t>(m->filled)};
}
std::span<const float> GpuRunner::input_b() const {
  return {m->hb(), static_cast<size_t>(m->filled)};
}
std::span<const float> GpuRunner::output() const {
  return {m->hc(), static_cast<size_t>(m->last_n)};
}

std::vector<float> GpuRunner::compute(const Params& p, std::span<const float> a, std::span<const float> b) {
  if (auto err = validate(p)) throw InvalidRequest(*err);
  if (a.size() != static_cast<size_t>(p.n) || b.size() != static_cast<size_t>(p.n))
    throw InvalidRequest("compute: a and b must hold n = " + std::to_string(p.n) + " elements each (got " +
                         std::to_string(a.size()) + " and " + std::to_string(b.size()) + ")");
  m->ensure_device(p.n);
  m->ensure_host(p.n, p.pinned);
  std::copy(a.begin(), a.end(), m->ha());
  std::copy(b.begin(), b.end(), m->hb());
  m->filled = 0;  // the host inputs are the caller's now
  std::fill(m->hc(), m->hc() + p.n, -1.0f);
  m->poison_output(p.n);
  (void)m->issue(p);
  return {m->hc(), m->hc() + p.n};
}

void GpuRunner::launch_kernels(const Params& p) {
  if (auto err = validate(p)) throw InvalidRequest(*err);
  if (m->on_device < p.n)
    throw InvalidRequest("launch_kernels: the device holds inputs for " + std::to_string(m->on_device) +
                         " elements, n = " + std::to_string(p.n) + " (run or compute first)");
  m->issue_kernels(p);
}

CopyKernel GpuRunner::copy_kernel(int64_t n, int repetitions) {
  CopyKernel out;
  out.n = n;
  const int64_t n4 = n / 4;
  if (n4 <= 0) return out;
  m->ensure_device(n);
  cudaStream_t s = m->streams[0].get();
  BS_CUDA_CHECK(cudaMemsetAsync(m->da.data(), 0x3f, static_cast<size_t>(n4) * 16, s));  // 0x3f3f3f3f = 0.75f
  const int block = 256;
  const int64_t waves = 2;
  const int64_t grid = std::clamp<int64_t>(
      static_cast<int64_t>(m->info.sm_count) *
          resident_blocks_per_sm(reinterpret_cast<const void*>(copy_float4), block) * waves,
      1, ceil_div(n4, block));
  const auto* in = reinterpret_cast<const float4*>(m->da.data());
  auto* dst = reinterpret_cast<float4*>(m->dc.data());
  Event e0, e1;
  std::vector<double> ms;
  const NvtxRange range("vector/copy kernel");
  for (int r = 0; r < repetitions + 2; ++r) {  // the first two are warm-up
    e0.record(s);
    copy_float4<<<static_cast<unsigned>(grid), block, 0, s>>>(in, dst, n4);
    BS_CUDA_CHECK_LAUNCH();
    e1.record(s);
    BS_CUDA_CHECK(cudaEventSynchronize(e1.get()));
    if (r >= 2) ms.push_back(elapsed_ms(e0, e1));
  }
  out.ms = median_of(ms);
  out.gbs = out.ms > 0 ? 2.0 * static_cast<double>(n4) * 16 / (out.ms * 1e-3) / 1e9 : 0.0;
  return out;
}

CopyRates GpuRunner::copy_rates(int64_t bytes, int repetitions) {
  CopyRates out;
  bytes = std::max<int64_t>(bytes / 4 * 4, 4);
  out.bytes = bytes;
  const size_t count = static_cast<size_t>(bytes / 4);
  if (auto err = check_host_memory(static_cast<int64_t>(count), 2, available_host_bytes()))
    throw InvalidRequest(*err);
  DeviceBuffer<float> dev(count);
  PinnedBuffer<float> pinned(count);
  std::unique_ptr<float[]> pageable = new_host_array(static_cast<int64_t>(count));
  if (!pageable)
    throw InvalidRequest("could not allocate " + mib(static_cast<uint64_t>(bytes)) + " of host memory");
  std::fill(pinned.data(), pinned.data() + count, 0.75f);
  std::fill(pageable.get(), pageable.get() + count, 0.75f);
  cudaStream_t s = m->streams[0].get();
  Event e0, e1;
  const NvtxRange range("vector/copy rates");
  auto rate = [&](void* dst, const void* src, cudaMemcpyKind kind) {
    std::vector<double> ms;
    for (int r = 0; r < repetitions + 1; ++r) {  // the first is warm-up
      e0.record(s);
      BS_CUDA_CHECK(cudaMemcpyAsync(dst, src, static_cast<size_t>(bytes), kind, s));
      e1.record(s);
      BS_CUDA_CHECK(cudaEventSynchronize(e1.get()));
      if (r >= 1) ms.push_back(elapsed_ms(e0, e1));
    }
    const double med = median_of(ms);
    return med > 0 ? static_cast<double>(bytes) / (med * 1e-3) / 1e9 : 0.0;
  };
  out.pinned_h2d_gbs = rate(dev.data(), pinned.data(), cudaMemcpyHostToDevice);
  out.pageable_h2d_gbs = rate(dev.data(), pageable.get(), cudaMemcpyHostToDevice);
  out.pinned_d2h_gbs = rate(pinned.data(), dev.data(), cudaMemcpyDeviceToHost);
  out.pageable_d2h_gbs = rate(pageable.get(), dev.data(), cudaMemcpyDeviceToHost);
  return out;
}

LaunchOverhead GpuRunner::launch_overhead(int repetitions) {
  LaunchOverhead out;
  cudaStream_t s = m->streams[0].get();
  Event e0, e1;
  const NvtxRange range("vector/launch overhead");
  for (int i = 0; i < 3; ++i)
    empty_kernel<<<1, 1, 0, s>>>();  // warm-up
  BS_CUDA_CHECK_LAUNCH();
  BS_CUDA_CHECK(cudaStreamSynchronize(s));
  std::vector<double> ev, rt;
  for (int r = 0; r < repetitions; ++r) {
    e0.record(s);
    empty_kernel<<<1, 1, 0, s>>>();
    BS_CUDA_CHECK_LAUNCH();
    e1.record(s);
    BS_CUDA_CHECK(cudaEventSynchronize(e1.get()));
    ev.push_back(elapsed_ms(e0, e1) * 1e3);
  }
  const int burst = 1000;
  std::vector<double> b2b;
  for (int r = 0; r < 5; ++r) {
    e0.record(s);
    for (int i = 0; i < burst; ++i)
      empty_kernel<<<1, 1, 0, s>>>();
    BS_CUDA_CHECK_LAUNCH();
    e1.record(s);
    BS_CUDA_CHECK(cudaEventSynchronize(e1.get()));
    b2b.push_back(elapsed_ms(e0, e1) * 1e3 / burst);
  }
  // A launch and the wait for it, as a host program that runs one tiny kernel experiences it: host clock.
  for (int r = 0; r < repetitions; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    empty_kernel<<<1, 1, 0, s>>>();
    BS_CUDA_CHECK_LAUNCH();
    BS_CUDA_CHECK(cudaStreamSynchronize(s));
    rt.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  out.event_us = median_of(ev);
  out.back_to_back_us = median_of(b2b);
  out.round_trip_us = median_of(rt);
  return out;
}

void GpuRunner::abandon() noexcept {
  m->da.abandon();
  m->db.abandon();
  m->dc.abandon();
  m->pa.abandon();
  m->pb.abandon();
  m->pc.abandon();
  for (auto& s : m->streams)
    s.abandon();
  for (auto& ev : m->events)
    for (auto& e : ev.e)
      e.abandon();
  m->start.abandon();
  m->dev_cap = 0;
  m->host_cap = 0;
  m->filled = 0;
  m->last_n = 0;
  m->on_device = 0;
}

// --- Size sweep
// ----------------------------------------------------------------------------------------------------

SweepResult run_sweep(const SweepOptions& o, JobControl* ctl) {
  SweepResult r;
  r.options = o;
  for (const int64_t v : {o.min_n, o.max_n}) {
    Params check;
    check.n = v;
    if (auto err = validate(check)) throw InvalidRequest("sweep: " + *err);
  }
  if (o.max_n < o.min_n)
    throw InvalidRequest("sweep: the largest size (" + std::to_string(o.max_n) +
                         ") is smaller than the smallest (" + std::to_string(o.min_n) + ")");
  const std::vector<int64_t> sizes = sweep_sizes(o.min_n, o.max_n);
  r.cpu_all_label = cpu_mode_label(CpuMode::AllThreads);

  std::unique_ptr<GpuRunner> gpu;
  Params gp;
  gp.op = o.op;
  gp.indexing = o.indexing;
  gp.width = o.width;
  gp.block = o.block;
  gp.pinned = true;
  gp.n = o.max_n;
  if (o.gpu) {
    const DeviceInfo info = query_device();
    if (info.available) {
      gpu = std::make_unique<GpuRunner>();
      gpu->prepare(gp);  // allocate once at the largest size
      r.gpu_ran = true;
      r.gpu_name = info.name;
    } else {
      r.gpu_skipped_reason = "no CUDA device: " + info.reason;
    }
  }
  std::unique_ptr<float[]> a, b, c;
  if (o.cpu) {
    if (auto err = check_host_memory(o.max_n, 3, available_host_bytes()))
      throw InvalidRequest("sweep: " + *err);
    a = new_host_array(o.max_n);
    b = new_host_array(o.max_n);
    c = new_host_array(o.max_n);
    if (!a || !b || !c) throw InvalidRequest("sweep: could not allocate the CPU arrays");
    fill_inputs(a.get(), b.get(), o.max_n);
  }

  // Repetitions per point from the previous point's time (sizes double, so times roughly double).
  auto reps_for = [&](double prev_ms, int lo, int hi) {
    if (!(prev_ms > 0)) return hi;
    return static_cast<int>(std::clamp(o.budget_ms_per_point / (2.0 * prev_ms), double(lo), double(hi)));
  };
  double prev_gpu = 0, prev_cpu1 = 0, prev_cpu_all = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (ctl && ctl->cancelled()) throw JobCancelled{};
    SweepPoint pt;
    pt.n = sizes[i];
    if (gpu) {
      gp.n = pt.n;
      pt.gpu_reps = reps_for(prev_gpu, 3, 30);
      const RunResult rr = gpu->run(gp, pt.gpu_reps, false);
      pt.gpu_kernel_ms = rr.kernel_ms.median;
      pt.gpu_total_ms = rr.total_ms.median;
      prev_gpu = pt.gpu_total_ms;
    }
    if (o.cpu) {
      if (ctl && ctl->cancelled()) throw JobCancelled{};
      pt.cpu_reps = reps_for(std::max(prev_cpu1, prev_cpu_all), 3, 15);
      pt.cpu1_ms = time_cpu(o.op, a.get(), b.get(), c.get(), pt.n, CpuMode::OneThread, pt.cpu_reps).median;
      if (ctl && ctl->cancelled()) throw JobCancelled{};
      pt.cpu_all_ms =
          time_cpu(o.op, a.get(), b.get(), c.get(), pt.n, CpuMode::AllThreads, pt.cpu_reps).median;
      prev_cpu1 = pt.cpu1_ms;
      prev_cpu_all = pt.cpu_all_ms;
    }
    r.points.push_back(pt);
    if (ctl) ctl->set_progress(static_cast<double>(i + 1) / static_cast<double>(sizes.size()));
  }
  compute_crossovers(r);
  return r;
}

}  // namespace bs::vector
