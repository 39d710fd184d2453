// heat_gpu.cu: the heat stencil on the GPU (one thread per cell, as the launch panel shows), the brush, the
// copy kernel used as the bandwidth ceiling, and the GpuSolver host interface.
#include <algorithm>
#include <cmath>

#include "gpu/common/device_buffer.h"
#include "gpu/common/device_info.h"
#include "gpu/common/gpu_timer.h"
#include "gpu/common/nvtx_range.h"
#include "core/stats.h"
#include "gpu/heat/brush.h"
#include "gpu/heat/heat.h"
#include "gpu/heat/stencil.h"
#include "gpu/heat/stencil_column.cuh"
#include "gpu/heat/temporal.h"

namespace bs::heat {

namespace {

// Thread (x, y) updates the C cells (x, y*C) .. (x, y*C + C - 1): with C = 1 this is the textbook kernel, one
// thread per cell; the textbook kernel's one 4-byte load per thread is too little to cover memory latency on
// a large GPU (see stencil_column). Out-of-domain threads (the ragged edge of a covering grid) return at
// once.
template <bool Fixed, int C>
__global__ void step_kernel(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, float r,
                            float bt) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * C;
  if (x >= nx || y0 >= ny) return;
  stencil_column<Fixed, C>(in, out, x, y0, nx, ny, r, bt);
}

template <bool Fixed>
void launch_stencil(int cells_per_thread, dim3 g, dim3 b, cudaStream_t st, const float* in, float* out,
                    int nx, int ny, float r, float bt) {
  switch (cells_per_thread) {
    case 1:
      step_kernel<Fixed, 1><<<g, b, 0, st>>>(in, out, nx, ny, r, bt);
      break;
    case 2:
      step_kernel<Fixed, 2><<<g, b, 0, st>>>(in, out, nx, ny, r, bt);
      break;
    case 4:
      step_kernel<Fixed, 4><<<g, b, 0, st>>>(in, out, nx, ny, r, bt);
      break;
    default:
      step_kernel<Fixed, 8><<<g, b, 0, st>>>(in, out, nx, ny, r, bt);
      break;
  }
}

// Temporal blocking (temporal.h): one block takes `steps` steps on its tile in shared memory. Thread
// (tx, ty) owns column tx, rows ty*S .. ty*S + S - 1 of the tile; per step it reads its column (plus the rows
// above and below) into registers and its west and east neighbours from shared memory. The update and the
// boundary rule are stencil_column's, expression for expression, so the result equals `steps` one-step
// launches bit for bit. Edge: the tile reaches past the field, so every cell checks the field's edges; tiles
// wholly inside (nearly all at 8192^2) skip those checks.
template <bool Fixed, bool Edge, int S>
__device__ __forceinline__ void fused_tile(const float* __restrict__ in, float* __restrict__ out, int nx,
                                           int ny, float r, float bt, int steps, int ox, int oy, float* sm) {
  const int W = static_cast<int>(blockDim.x), H = static_cast<int>(blockDim.y) * S;
  const int tx = static_cast<int>(threadIdx.x), ty0 = static_cast<int>(threadIdx.y) * S;
  const int x = ox + tx;
  const bool col_in = !Edge || (x >= 0 && x < nx);
  float* src = sm;
  float* dst = sm + W * H;
  // Both buffers get the tile, so that every shared cell a thread reads holds a value.
#pragma unroll
  for (int k = 0; k < S; ++k) {
    const int y = oy + ty0 + k;
    const float v =
        (col_in && (!Edge || (y >= 0 && y < ny))) ? __ldg(in + static_cast<size_t>(y) * nx + x) : bt;
    src[(ty0 + k) * W + tx] = v;
    dst[(ty0 + k) * W + tx] = v;
  }
  __syncthreads();
  for (int s = 1; s <= steps; ++s) {
    if (col_in && in_step_region(tx, W, s)) {
      float col[S + 2];  // tile rows ty0 - 1 .. ty0 + S of column tx
#pragma unroll
      for (int k = 0; k < S + 2; ++k) {
        const int row = ty0 - 1 + k;
        col[k] = (row >= 0 && row < H) ? src[row * W + tx] : bt;  // rows 0 and H-1 are never updated
      }
#pragma unroll
      for (int k = 0; k < S; ++k) {
        const int row = ty0 + k;
        const int y = oy + row;
        if (!in_step_region(row, H, s) || (Edge && (y < 0 || y >= ny))) continue;
        const float c = col[k + 1];
        const float n = (!Edge || y > 0) ? col[k] : (Fixed ? bt : c);
        const float so = (!Edge || y + 1 < ny) ? col[k + 2] : (Fixed ? bt : c);
        const float w = (!Edge || x > 0) ? src[row * W + tx - 1] : (Fixed ? bt : c);
        const float e = (!Edge || x + 1 < nx) ? src[row * W + tx + 1] : (Fixed ? bt : c);
        const float v = stencil_update(c, w, e, n, so, r);
        if (s < steps)
          dst[row * W + tx] = v;
        else
          out[static_cast<size_t>(y) * nx + x] = v;  // the last step's region is the tile's output region
      }
    }
    if (s < steps) {
      __syncthreads();
      float* t = src;
      src = dst;
      dst = t;
    }
  }
}

// At most 1024 threads and 64 registers each, so that two 512-thread blocks share an SM.
template <bool Fixed, int S>
__global__ void __launch_bounds__(1024, 1) fused_kernel(const float* __restrict__ in, float* __restrict__ out,
                                                        int nx, int ny, float r, float bt, int steps) {
  extern __shared__ float sm[];
  const int W = static_cast<int>(blockDim.x), H = static_cast<int>(blockDim.y) * S;
  const int ox = tile_origin(static_cast<int>(blockIdx.x), W - 2 * steps, steps);
  const int oy = tile_origin(static_cast<int>(blockIdx.y), H - 2 * steps, steps);
  if (ox >= 0 && oy >= 0 && ox + W <= nx && oy + H <= ny)
    fused_tile<Fixed, false, S>(in, out, nx, ny, r, bt, steps, ox, oy, sm);
  else
    fused_tile<Fixed, true, S>(in, out, nx, ny, r, bt, steps, ox, oy, sm);
}

// Lets the kernels of this tile shape use its shared memory (more than the 48 KiB default).
template <int S>
void allow_shared(int bytes) {
  BS_CUDA_CHECK(
      cudaFuncSetAttribute(fused_kernel<true, S>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  BS_CUDA_CHECK(
      cudaFuncSetAttribute(fused_kernel<false, S>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
}
void allow_shared(const TileShape& shape) {
  const auto bytes = static_cast<int>(TemporalTile{shape, 1}.shared_bytes());
  if (shape.rows_per_thread == 8)
    allow_shared<8>(bytes);
  else
    allow_shared<16>(bytes);
}

template <bool Fixed, int S>
void launch_fused_s(const TemporalTile& t, cudaStream_t st, const float* in, float* out, int nx, int ny,
                    float r, float bt) {
  const Dim2 g = temporal_grid(t, nx, ny);
  const dim3 grid(static_cast<unsigned>(g.x), static_cast<unsigned>(g.y));
  const dim3 block(static_cast<unsigned>(t.shape.width), static_cast<unsigned>(t.shape.threads_y));
  fused_kernel<Fixed, S>
      <<<grid, block, static_cast<size_t>(t.shared_bytes()), st>>>(in, out, nx, ny, r, bt, t.steps);
}

void launch_fused(const TemporalTile& t, bool fixed, cudaStream_t st, const float* in, float* out, int nx,
                  int ny, float r, float bt) {
  if (t.shape.rows_per_thread == 8) {
    if (fixed)
      launch_fused_s<true, 8>(t, st, in, out, nx, ny, r, bt);
    else
      launch_fused_s<false, 8>(t, st, in, out, nx, ny, r, bt);
  } else {
    if (fixed)
      launch_fused_s<true, 16>(t, st, in, out, nx, ny, r, bt);
    else
      launch_fused_s<false, 16>(t, st, in, out, nx, ny, r, bt);
  }
}

// Sets the cells of the box (x0, y0) + (w, h) whose centres lie within the stroke's capsule (brush.h).
__global__ void stroke_kernel(float* field, int nx, int ny, int x0, int y0, int w, int h, float sx0,
                              float sy0, float sx1, float sy1, float r2, float value) {
  const int x = x0 + static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = y0 + static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= x0 + w || y >= y0 + h || x >= nx || y >= ny) return;
  if (segment_dist2(x + 0.5f, y + 0.5f, sx0, sy0, sx1, sy1) <= r2)
    field[static_cast<size_t>(y) * nx + x] = value;
}

// Grid-stride float4 copy: the practical DRAM ceiling for a kernel that reads and writes each byte once.
__global__ void copy_kernel(const float4* __restrict__ in, float4* __restrict__ out, size_t n4) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n4;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

}  // namespace

struct GpuSolver::Impl {
  Params params;
  DeviceBuffer<float> buf[2];
  int cur = 0;
  Stream stream;
  EventTimer timer;
  Dim2 block = k_default_block;
  Dim2 grid{};
  int cells_per_thread = k_default_cells_per_thread;
  DeviceLimits limits;
  int64_t shared_optin = 0;
  StepOverride step_override;
  TemporalTile fused{k_default_tile, 1};  // steps 1: the one-step kernel

  // One pass of `steps` fused steps (the last pass of a batch may fuse fewer than the tile's).
  void launch_pass(int steps) {
    const TemporalTile t{fused.shape, steps};
    launch_fused(t, params.boundary == Boundary::Fixed, stream.get(), buf[cur].data(), buf[cur ^ 1].data(),
                 static_cast<int>(params.nx), static_cast<int>(params.ny), params.r(), params.boundary_temp);
    BS_CUDA_CHECK_LAUNCH();
    cur ^= 1;
  }

  void launch_step() {
    const float* in = buf[cur].data();
    float* out = buf[cur ^ 1].data();
    if (step_override) {
      step_override(in, out, grid, block, stream.get());
      cur ^= 1;
      return;
    }
    const dim3 b(static_cast<unsigned>(block.x), static_cast<unsigned>(block.y));
    const dim3 g(static_cast<unsigned>(grid.x), static_cast<unsigned>(grid.y));
    const int nx = static_cast<int>(params.nx), ny = static_cast<int>(params.ny);
    if (params.boundary == Boundary::Fixed)
      launch_stencil<true>(cells_per_thread, g, b, stream.get(), in, out, nx, ny, params.r(),
                           params.boundary_temp);
    else
      launch_stencil<false>(cells_per_thread, g, b, stream.get(), in, out, nx, ny, params.r(),
                            params.boundary_temp);
    BS_CUDA_CHECK_LAUNCH();
    cur ^= 1;
  }
};

GpuSolver::GpuSolver(const Params& p) : m(std::make_unique<Impl>()) {
  if (auto err = validate(p)) throw InvalidRequest(*err);
  m->params = p;
  // Errors here go through BS_CUDA_CHECK, so a poisoned context is reported as such (sticky).
  m->limits = current_device_limits();
  int dev = 0, optin = 0;
  BS_CUDA_CHECK(cudaGetDevice(&dev));
  BS_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  m->shared_optin = optin;
  size_t free_b = 0, total_b = 0;
  BS_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  const size_t n = static_cast<size_t>(p.cells());
  if (2 * n * sizeof(float) > free_b)
    throw InvalidRequest("a " + std::to_string(p.nx) + "x" + std::to_string(p.ny) + " field needs " +
                         std::to_string(2 * n * sizeof(float) >> 20) + " MiB of device memory; " +
                         std::to_string(free_b >> 20) + " MiB are free");
  m->buf[0].resize(n);
  m->buf[1].resize(n);
  m->grid = covering_grid(cells_of(m->block, 1), {p.nx, p.ny});
}

GpuSolver::~GpuSolver() = default;

const Params& GpuSolver::params() const {
  return m->params;
}

void GpuSolver::set_physics(const Params& p) {
  if (p.nx != m->params.nx || p.ny != m->params.ny)
    throw InvalidRequest("set_physics cannot change the grid size");
  if (auto err = validate(p)) throw InvalidRequest(*err);
  m->params = p;
}

void GpuSolver::upload(const std::vector<float>& field) {
  if (field.size() != m->buf[0].size()) throw InvalidRequest("field size does not match the solver's grid");
  // Both buffers get the field, so that cells a too-small grid never writes hold the same value in each.
  for (auto& b : m->buf)
    BS_CUDA_CHECK(
        cudaMemcpyAsync(b.data(), field.data(), b.bytes(), cudaMemcpyHostToDevice, m->stream.get()));
  BS_CUDA_CHECK(cudaStreamSynchronize(m->stream.get()));
}

std::vector<float> GpuSolver::download() {
  std::vector<float> out(m->buf[m->cur].size());
  BS_CUDA_CHECK(cudaMemcpyAsync(out.data(), m->buf[m->cur].data(), m->buf[m->cur].bytes(),
                                cudaMemcpyDeviceToHost, m->stream.get()));
  BS_CUDA_CHECK(cudaStreamSynchronize(m->stream.get()));
  return out;
}

void GpuSolver::set_launch(Dim2 block, std::optional<Dim2> grid, int cells_per_thread) {
  if (auto err = validate_block(block, m->limits)) throw InvalidRequest(*err);
  if (auto err = validate_cells_per_thread(cells_per_thread)) throw InvalidRequest(*err);
  const Dim2 g =
      grid.value_or(covering_grid(cells_of(block, cells_per_thread), {m->params.nx, m->params.ny}));
  if (auto err = validate_grid(g, m->limits)) throw InvalidRequest(*err);
  // Batches still in flight ran the old launch: let them finish and drop their times.
  m->stream.sync();
  (void)m->timer.poll();
  m->block = block;
  m->grid = g;
  m->cells_per_thread = cells_per_thread;
}

void GpuSolver::set_step_override(StepOverride step) {
  m->stream.sync();
  (void)m->timer.poll();
  m->step_override = std::move(step);
}

bool GpuSolver::has_step_override() const {
  return static_cast<bool>(m->step_override);
}

void GpuSolver::set_fused_steps(int steps, const TileShape& shape) {
  const TemporalTile t{shape, steps};
  if (auto err = validate_tile(t, m->limits, m->shared_optin)) throw InvalidRequest(*err);
  if (steps > 1) {
    // The remainder passes of a batch use the same shape with fewer steps: each must have output cells.
    allow_shared(shape);
  }
  m->stream.sync();
  (void)m->timer.poll();
  m->fused = t;
}

bool GpuSolver::fused_active() const {
  return m->fused.steps > 1 && !m->step_override;
}

int GpuSolver::fused_steps() const {
  return m->fused.steps;
}
TileShape GpuSolver::tile_shape() const {
  return m->fused.shape;
}

Dim2 GpuSolver::block() const {
  return m->block;
}
Dim2 GpuSolver::grid() const {
  return m->grid;
}
int GpuSolver::cells_per_thread() const {
  return m->cells_per_thread;
}
Coverage GpuSolver::coverage() const {
  if (fused_active()) return coverage_of({1, 1}, {m->params.nx, m->params.ny}, {m->params.nx, m->params.ny});
  return coverage_of(m->grid, cells_of(m->block, m->cells_per_thread), {m->params.nx, m->params.ny});
}

void GpuSolver::step(int steps) {
  if (steps <= 0) return;
  m->timer.begin(m->stream.get());
  int done = 0;
  try {
    if (fused_active()) {
      for (; done < steps; done += std::min(m->fused.steps, steps - done))
        m->launch_pass(std::min(m->fused.steps, steps - done));
    } else {
      for (; done < steps; ++done)
        m->launch_step();
    }
  } catch (...) {
    // A replacement kernel's launch failed: close the bracket over the steps that were issued.
    m->timer.end(m->stream.get(), std::max(done, 1));
    throw;
  }
  m->timer.end(m->stream.get(), steps);
}

void GpuSolver::paint(const Brush& b) {
  paint(Stroke{b.cx, b.cy, b.cx, b.cy, b.radius, b.value});
}

void GpuSolver::paint(const Stroke& s) {
  const CellBox box = stroke_box(s, m->params.nx, m->params.ny);
  if (box.empty()) return;
  const int nx = static_cast<int>(m->params.nx), ny = static_cast<int>(m->params.ny);
  const int x0 = static_cast<int>(box.x0), y0 = static_cast<int>(box.y0);
  const int w = static_cast<int>(box.x1 - box.x0 + 1), h = static_cast<int>(box.y1 - box.y0 + 1);
  const dim3 blk(16, 16), grd(static_cast<unsigned>(ceil_div(w, 16)), static_cast<unsigned>(ceil_div(h, 16)));
  // Both buffers, so that the painted value survives in cells a too-small grid leaves unwritten.
  for (auto& buf : m->buf) {
    stroke_kernel<<<grd, blk, 0, m->stream.get()>>>(
        buf.data(), nx, ny, x0, y0, w, h, static_cast<float>(s.x0), static_cast<float>(s.y0),
        static_cast<float>(s.x1), static_cast<float>(s.y1), static_cast<float>(s.radius * s.radius), s.value);
    BS_CUDA_CHECK_LAUNCH();
  }
}

float GpuSolver::read_cell(int64_t x, int64_t y) {
  if (x < 0 || y < 0 || x >= m->params.nx || y >= m->params.ny)
    throw InvalidRequest("cell (" + std::to_string(x) + ", " + std::to_string(y) + ") is outside the " +
                         std::to_string(m->params.nx) + "x" + std::to_string(m->params.ny) + " field");
  float v = 0;
  BS_CUDA_CHECK(cudaMemcpyAsync(&v, m->buf[m->cur].data() + y * m->params.nx + x, sizeof v,
                                cudaMemcpyDeviceToHost, m->stream.get()));
  BS_CUDA_CHECK(cudaStreamSynchronize(m->stream.get()));
  return v;
}

std::vector<double> GpuSolver::poll_step_ms() {
  std::vector<double> out;
  for (const auto& s : m->timer.poll())
    out.push_back(s.ms / s.work_units);
  return out;
}

void GpuSolver::sync() {
  m->stream.sync();
}
const float* GpuSolver::device_field() const {
  return m->buf[m->cur].data();
}
void* GpuSolver::stream_handle() const {
  return m->stream.get();
}

void GpuSolver::abandon() noexcept {
  for (auto& b : m->buf)
    b.abandon();
  m->stream.abandon();
  m->timer.abandon();
}

namespace {

// Times `steps` steps per repetition after a warm-up, and fills the row's timing and rates (8 bytes per
// useful cell update, the one-step kernel's traffic: for fused passes an equivalent, not what DRAM sees).
void time_solver(GpuSolver& solver, const Params& p, int steps, int repetitions, BenchRow& row) {
  cudaStream_t s = static_cast<cudaStream_t>(solver.stream_handle());
  Event e0, e1;
  // Warm-up: module load, first launches, clocks ramping up.
  solver.step(std::max(steps / 4, 3));
  solver.sync();
  std::vector<double> per_step;
  for (int r = 0; r < repetitions; ++r) {
    e0.record(s);
    if (solver.fused_active()) {
      solver.step(steps);
    } else {
      for (int i = 0; i < steps; ++i)
        solver.step(1);
    }
    e1.record(s);
    BS_CUDA_CHECK(cudaEventSynchronize(e1.get()));
    per_step.push_back(elapsed_ms(e0, e1) / steps);
  }
  (void)solver.poll_step_ms();
  const Summary sum = summarize(per_step);
  row.device = query_device().name;
  row.steps = steps;
  row.ms_per_step = sum.median;
  row.p10 = sum.p10;
  row.p90 = sum.p90;
  row.mcells_per_s = p.cells() / (sum.median * 1e-3) / 1e6;
  row.gb_per_s = 8.0 * p.cells() / (sum.median * 1e-3) / 1e9;
}

}  // namespace

GpuBench bench_gpu(const Params& p, Dim2 block, int steps, int repetitions, int cells_per_thread) {
  GpuBench out;
  GpuSolver solver(p);
  solver.set_launch(block, std::nullopt, cells_per_thread);
  solver.upload(make_initial(p, InitialPattern::HotSpots));
  const DeviceInfo info = query_device();
  cudaStream_t s = static_cast<cudaStream_t>(solver.stream_handle());
  Event e0, e1;
  BenchRow& row = out.stencil;
  {
    const NvtxRange range("heat/stencil block " + to_string(block) + " cells/thread " +
                          std::to_string(cells_per_thread));
    time_solver(solver, p, steps, repetitions, row);
  }
  row.variant = "GPU stencil, block " + to_string(block) + ", " + std::to_string(cells_per_thread) +
                (cells_per_thread == 1 ? " cell/thread" : " cells/thread");

  // Copy kernel over the same footprint (one read and one write of nx*ny floats), same stream, same run.
  const size_t n4 = static_cast<size_t>(ceil_div(p.cells(), 4));
  DeviceBuffer<float4> a(n4), b(n4);
  BS_CUDA_CHECK(cudaMemsetAsync(a.data(), 0x3f, a.bytes(), s));  // 0x3f3f3f3f: 0.75f, not zero
  const int threads = 256;
  const int blocks = info.sm_count * 8;
  std::vector<double> copy_ms;
  const NvtxRange copy_range("heat/copy kernel");
  for (int r = 0; r < repetitions + 2; ++r) {
    e0.record(s);
    for (int i = 0; i < steps; ++i) {
      copy_kernel<<<blocks, threads, 0, s>>>(a.data(), b.data(), n4);
      BS_CUDA_CHECK_LAUNCH();
    }
    e1.record(s);
    BS_CUDA_CHECK(cudaEventSynchronize(e1.get()));
    if (r >= 2) copy_ms.push_back(elapsed_ms(e0, e1) / steps);
  }
  const Summary cs = summarize(copy_ms);
  out.copy_ms = cs.median;
  out.copy_gb_per_s = 2.0 * a.bytes() / (cs.median * 1e-3) / 1e9;
  return out;
}

TemporalBench bench_temporal(const Params& p, const TemporalTile& t, int steps, int repetitions) {
  TemporalBench out;
  out.tile = t;
  out.cost = temporal_cost(t, p.nx, p.ny);
  GpuSolver solver(p);
  solver.set_fused_steps(t.steps, t.shape);
  solver.upload(make_initial(p, InitialPattern::HotSpots));
  // Whole passes only: a batch's shorter last pass would be timed with them.
  const int n = std::max(t.steps, steps / t.steps * t.steps);
  const NvtxRange range("heat/temporal " + std::to_string(t.steps) + " steps/pass " + to_string(t.shape));
  time_solver(solver, p, n, repetitions, out.row);
  out.row.variant = "GPU temporal, " + std::to_string(t.steps) + " steps/pass, " + to_string(t.shape);
  return out;
}

}  // namespace bs::heat
