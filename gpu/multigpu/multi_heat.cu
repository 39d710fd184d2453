// multi_heat.cu: the heat field across slabs (see multi_heat.h): the slab step kernel, the halo exchange (NCCL
// or device copies) and the overlap of the exchange with the interior update.
#include <cmath>
#include <limits>
#include <utility>

#include "core/error.h"
#include "gpu/common/cuda_check.h"
#include "gpu/common/device_buffer.h"
#include "gpu/common/device_info.h"
#include "gpu/common/nvtx_range.h"
#include "gpu/heat/stencil.h"
#include "gpu/multigpu/multi_heat.h"
#include "gpu/multigpu/nccl_api.h"

namespace bs::multigpu {

namespace {

// Rows [y_begin, y_end) (global) of a slab whose local row 0 is global row `origin`; thread (x, t) updates
// the C cells of column x from row y_begin + t * C. Loads and boundary cases are gpu/heat's stencil_column
// with the slab's row limit: an off-field neighbour is the fixed temperature (Dirichlet) or the cell itself
// (insulated), and the arithmetic is heat::stencil_update, so every cell is bitwise the one-GPU cell.
template <bool Fixed, int C>
__global__ void slab_step_kernel(const float* __restrict__ in, float* __restrict__ out, int nx, int ny,
                                 int origin, int local_rows, int y_begin, int y_end, float r, float bt) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y0 = y_begin + (blockIdx.y * blockDim.y + threadIdx.y) * C;
  if (x >= nx || y0 >= y_end) return;
  float col[C + 2];  // rows y0 - 1 .. y0 + C of column x
#pragma unroll
  for (int k = 0; k < C + 2; ++k) {
    const int yy = y0 - 1 + k;
    const int ly = yy - origin;
    // Rows beyond the slab's local rows are never a neighbour of a computed cell (step_rows keeps to them).
    col[k] = (yy >= 0 && yy < ny) ? (ly >= 0 && ly < local_rows ? __ldg(in + static_cast<size_t>(ly) * nx + x) : 0.f)
                                  : bt;
  }
#pragma unroll
  for (int k = 0; k < C; ++k) {
    const int y = y0 + k;
    if (y >= y_end) break;
    const size_t i = static_cast<size_t>(y - origin) * nx + x;
    const float c = col[k + 1];
    const float n = y > 0 ? col[k] : (Fixed ? bt : c);
    const float s = y + 1 < ny ? col[k + 2] : (Fixed ? bt : c);
    const float w = x > 0 ? __ldg(in + i - 1) : (Fixed ? bt : c);
    const float e = x + 1 < nx ? __ldg(in + i + 1) : (Fixed ? bt : c);
    out[i] = heat::stencil_update(c, w, e, n, s, r);
  }
}

template <bool Fixed>
void launch_slab(int cpt, dim3 g, dim3 b, cudaStream_t st, const float* in, float* out, int nx, int ny, int origin,
                 int local_rows, int y0, int y1, float r, float bt) {
  switch (cpt) {
    case 1:
      slab_step_kernel<Fixed, 1><<<g, b, 0, st>>>(in, out, nx, ny, origin, local_rows, y0, y1, r, bt);
      break;
    case 2:
      slab_step_kernel<Fixed, 2><<<g, b, 0, st>>>(in, out, nx, ny, origin, local_rows, y0, y1, r, bt);
      break;
    case 4:
      slab_step_kernel<Fixed, 4><<<g, b, 0, st>>>(in, out, nx, ny, origin, local_rows, y0, y1, r, bt);
      break;
    default:
      slab_step_kernel<Fixed, 8><<<g, b, 0, st>>>(in, out, nx, ny, origin, local_rows, y0, y1, r, bt);
      break;
  }
}

struct EventPair {
  Event a, b;
};

// A stream at the device's highest priority: the halo exchange's kernels (NCCL's) and copies are scheduled
// ahead of the interior update's blocks waiting for an SM, so the exchange runs alongside the interior
// instead of after it.
class PriorityStream {
 public:
  PriorityStream() {
    int least = 0, greatest = 0;
    BS_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    BS_CUDA_CHECK(cudaStreamCreateWithPriority(&m_stream, cudaStreamNonBlocking, greatest));
  }
  ~PriorityStream() {
    if (m_stream) BS_CUDA_LOG(cudaStreamDestroy(m_stream));
  }
  PriorityStream(const PriorityStream&) = delete;
  PriorityStream& operator=(const PriorityStream&) = delete;
  PriorityStream(PriorityStream&& o) noexcept : m_stream(std::exchange(o.m_stream, nullptr)) {}
  PriorityStream& operator=(PriorityStream&&) = delete;
  cudaStream_t get() const { return m_stream; }
  void sync() const { BS_CUDA_CHECK(cudaStreamSynchronize(m_stream)); }

 private:
  cudaStream_t m_stream = nullptr;
};

}  // namespace

std::optional<std::string> validate(const HeatConfig& c, int slabs) {
  if (c.params.nx < 1 || c.params.ny < 1) return "the field needs at least one cell each way";
  if (c.params.nx > (int64_t{1} << 30) || c.params.ny > (int64_t{1} << 30)) return "the field is too large";
  heat::Params q = c.params;
  q.nx = std::min(q.nx, heat::k_max_size);  // the size limit here is memory, checked per slab
  q.ny = std::min(q.ny, heat::k_max_size);
  if (auto err = heat::validate(q)) return err;
  if (auto err = heat::validate_cells_per_thread(c.cells_per_thread)) return err;
  return validate_decomposition(c.params.ny, slabs, c.halo);
}

struct LocalSlab {
  Slab slab;
  int device = 0;
  int local_index = 0;
  DeviceBuffer<float> buf[2];
  Stream compute;
  // comm: the exchange (NCCL's group, or the copy into the top halo); comm_down: the copy into the bottom
  // halo with peer copies (a stream per neighbour, so both halos travel at once); joined back into comm.
  PriorityStream comm, comm_down;
  Event ready, done, fork, join;
  Event t0, t1;
  std::vector<EventPair> exchanges;  // timed exchanges since the last timings()
  size_t exchanges_used = 0;
  int steps_timed = 0;
  bool timing = false;
};

struct MultiHeat::Impl {
  Communicator* comm = nullptr;
  HeatConfig cfg;
  std::vector<Slab> slabs;
  std::vector<LocalSlab> local;
  int cur = 0;

  LocalSlab* find_local(int global) {
    for (auto& l : local)
      if (l.slab.index == global) return &l;
    return nullptr;
  }

  void launch(LocalSlab& l, RowRange rows, const float* in, float* out) {
    if (rows.empty()) return;
    const heat::Params& p = cfg.params;
    const int c = cfg.cells_per_thread;
    const dim3 b(static_cast<unsigned>(cfg.block.x), static_cast<unsigned>(cfg.block.y));
    const dim3 g(static_cast<unsigned>(ceil_div(p.nx, cfg.block.x)),
                 static_cast<unsigned>(ceil_div(rows.size(), cfg.block.y * c)));
    const int nx = static_cast<int>(p.nx), ny = static_cast<int>(p.ny);
    const int origin = static_cast<int>(l.slab.origin()), lr = static_cast<int>(l.slab.local_rows());
    if (p.boundary == heat::Boundary::Fixed)
      launch_slab<true>(c, g, b, l.compute.get(), in, out, nx, ny, origin, lr, static_cast<int>(rows.begin),
                        static_cast<int>(rows.end), p.r(), p.boundary_temp);
    else
      launch_slab<false>(c, g, b, l.compute.get(), in, out, nx, ny, origin, lr, static_cast<int>(rows.begin),
                         static_cast<int>(rows.end), p.r(), p.boundary_temp);
    BS_CUDA_CHECK_LAUNCH();
  }

  float* row_ptr(LocalSlab& l, int which, int64_t global_row) {
    return l.buf[which].data() + static_cast<size_t>(global_row - l.slab.origin()) * cfg.params.nx;
  }

  // Fills every local slab's halos of buffer `cur` from its neighbours' owned rows, on the comm streams; each
  // comm stream first waits for the `ready` events (the owned rows are final).
  void exchange() {
    const size_t row_bytes = static_cast<size_t>(cfg.params.nx) * sizeof(float);
    for (auto& l : local) {
      BS_CUDA_CHECK(cudaSetDevice(l.device));
      if (l.exchanges_used == l.exchanges.size()) l.exchanges.emplace_back();
      l.exchanges[l.exchanges_used].a.record(l.comm.get());
    }
    if (comm->kind() == TransportKind::Virtual) {
      for (auto& l : local) {
        BS_CUDA_CHECK(cudaSetDevice(l.device));
        l.fork.record(l.comm.get());
        BS_CUDA_CHECK(cudaStreamWaitEvent(l.comm_down.get(), l.fork.get(), 0));
        for (const auto& msg : halo_messages(slabs)) {
          if (msg.to != l.slab.index) continue;
          LocalSlab* src = find_local(msg.from);
          const cudaStream_t st = msg.from < msg.to ? l.comm.get() : l.comm_down.get();
          BS_CUDA_CHECK(cudaStreamWaitEvent(st, src->ready.get(), 0));
          BS_CUDA_CHECK(cudaMemcpyPeerAsync(row_ptr(l, cur, msg.row), l.device, row_ptr(*src, cur, msg.row),
                                            src->device, msg.rows * row_bytes, st));
        }
        l.join.record(l.comm_down.get());
        BS_CUDA_CHECK(cudaStreamWaitEvent(l.comm.get(), l.join.get(), 0));
      }
    } else {
      const NcclApi& api = nccl();
      BS_NCCL_CHECK(GroupStart());
      for (auto& l : local) {
        auto c = static_cast<ncclComm_t>(comm->nccl_comm(l.local_index));
        for (const auto& msg : halo_messages(slabs)) {
          // Each slab receives its halos and sends its owned rows to the neighbour whose halo they are.
          if (msg.to == l.slab.index)
            nccl_check(api.Recv(row_ptr(l, cur, msg.row), msg.rows * cfg.params.nx, ncclFloat, msg.from, c,
                                l.comm.get()),
                       "ncclRecv");
          if (msg.from == l.slab.index)
            nccl_check(api.Send(row_ptr(l, cur, msg.row), msg.rows * cfg.params.nx, ncclFloat, msg.to, c,
                                l.comm.get()),
                       "ncclSend");
        }
      }
      BS_NCCL_CHECK(GroupEnd());
    }
    for (auto& l : local) {
      BS_CUDA_CHECK(cudaSetDevice(l.device));
      l.exchanges[l.exchanges_used++].b.record(l.comm.get());
      l.done.record(l.comm.get());
    }
  }

  // The compute stream of l waits until its halos arrived and (virtual) its neighbours finished reading its rows.
  void wait_exchange(LocalSlab& l) {
    BS_CUDA_CHECK(cudaStreamWaitEvent(l.compute.get(), l.done.get(), 0));
    if (comm->kind() != TransportKind::Virtual) return;
    for (const auto& msg : halo_messages(slabs))
      if (msg.from == l.slab.index)
        BS_CUDA_CHECK(cudaStreamWaitEvent(l.compute.get(), find_local(msg.to)->done.get(), 0));
  }

  void round(int steps) {
    const int h = cfg.halo;
    const bool exchanging = slabs.size() > 1;
    if (exchanging) {
      for (auto& l : local) {
        BS_CUDA_CHECK(cudaSetDevice(l.device));
        l.ready.record(l.compute.get());
        BS_CUDA_CHECK(cudaStreamWaitEvent(l.comm.get(), l.ready.get(), 0));
      }
      if (!cfg.overlap) {
        exchange();
        for (auto& l : local) {
          BS_CUDA_CHECK(cudaSetDevice(l.device));
          wait_exchange(l);
        }
      }
    }
    // Step 0: the exchange is issued first (its stream has the higher priority, so its kernels and copies
    // start at once), then the interior, which needs no halo; the edges after the halos arrive.
    if (exchanging && cfg.overlap) exchange();
    for (auto& l : local) {
      BS_CUDA_CHECK(cudaSetDevice(l.device));
      const StepSplit split = split_first_step(l.slab, h);
      launch(l, split.interior, l.buf[cur].data(), l.buf[cur ^ 1].data());
    }
    for (auto& l : local) {
      BS_CUDA_CHECK(cudaSetDevice(l.device));
      if (exchanging && cfg.overlap) wait_exchange(l);
      const StepSplit split = split_first_step(l.slab, h);
      launch(l, split.top, l.buf[cur].data(), l.buf[cur ^ 1].data());
      launch(l, split.bottom, l.buf[cur].data(), l.buf[cur ^ 1].data());
    }
    cur ^= 1;
    for (int j = 1; j < steps; ++j) {
      for (auto& l : local) {
        BS_CUDA_CHECK(cudaSetDevice(l.device));
        launch(l, step_rows(l.slab, h, j), l.buf[cur].data(), l.buf[cur ^ 1].data());
      }
      cur ^= 1;
    }
  }
};

MultiHeat::MultiHeat(Communicator& comm, const HeatConfig& c) : m(std::make_unique<Impl>()) {
  if (auto err = validate(c, comm.size())) throw InvalidRequest(*err);
  m->comm = &comm;
  m->cfg = c;
  m->slabs = decompose(c.params.ny, comm.size(), c.halo);
  // Memory: both buffers of every local slab, summed per device (the virtual transport shares one GPU).
  std::vector<std::pair<int, size_t>> need;
  for (size_t i = 0; i < comm.local().size(); ++i) {
    const Slab& s = m->slabs.at(static_cast<size_t>(comm.local()[i]));
    const size_t bytes = 2 * static_cast<size_t>(s.local_rows()) * static_cast<size_t>(c.params.nx) * sizeof(float);
    bool found = false;
    for (auto& [d, b] : need)
      if (d == comm.device(static_cast<int>(i))) b += bytes, found = true;
    if (!found) need.push_back({comm.device(static_cast<int>(i)), bytes});
  }
  for (auto& [d, bytes] : need) {
    BS_CUDA_CHECK(cudaSetDevice(d));
    if (auto err = validate_block(c.block, current_device_limits())) throw InvalidRequest(*err);
    size_t free_b = 0, total_b = 0;
    BS_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (bytes > free_b)
      throw InvalidRequest("the slabs of a " + std::to_string(c.params.nx) + "x" + std::to_string(c.params.ny) +
                           " field need " + std::to_string(bytes >> 20) + " MiB on GPU " + std::to_string(d) + "; " +
                           std::to_string(free_b >> 20) + " MiB are free");
  }
  m->local.reserve(comm.local().size());
  for (size_t i = 0; i < comm.local().size(); ++i) {
    const int dev = comm.device(static_cast<int>(i));
    BS_CUDA_CHECK(cudaSetDevice(dev));
    LocalSlab& l = m->local.emplace_back();
    l.slab = m->slabs.at(static_cast<size_t>(comm.local()[i]));
    l.device = dev;
    l.local_index = static_cast<int>(i);
    const size_t n = static_cast<size_t>(l.slab.local_rows()) * static_cast<size_t>(c.params.nx);
    l.buf[0].resize(n);
    l.buf[1].resize(n);
  }
}

MultiHeat::~MultiHeat() {
  try {
    sync();
  } catch (...) {
  }
}

const std::vector<Slab>& MultiHeat::slabs() const {
  return m->slabs;
}
const HeatConfig& MultiHeat::config() const {
  return m->cfg;
}

void MultiHeat::upload(const std::vector<float>& field) {
  const size_t nx = static_cast<size_t>(m->cfg.params.nx);
  if (field.size() != nx * static_cast<size_t>(m->cfg.params.ny))
    throw InvalidRequest("field size does not match the decomposed grid");
  for (auto& l : m->local) {
    BS_CUDA_CHECK(cudaSetDevice(l.device));
    const float* src = field.data() + static_cast<size_t>(l.slab.origin()) * nx;
    for (auto& b : l.buf)
      BS_CUDA_CHECK(cudaMemcpyAsync(b.data(), src, b.bytes(), cudaMemcpyHostToDevice, l.compute.get()));
    l.compute.sync();
  }
  m->cur = 0;
}

std::vector<float> MultiHeat::download() {
  const size_t nx = static_cast<size_t>(m->cfg.params.nx);
  std::vector<float> out(nx * static_cast<size_t>(m->cfg.params.ny), std::numeric_limits<float>::quiet_NaN());
  for (auto& l : m->local) {
    BS_CUDA_CHECK(cudaSetDevice(l.device));
    BS_CUDA_CHECK(cudaMemcpyAsync(out.data() + static_cast<size_t>(l.slab.row0) * nx,
                                  m->row_ptr(l, m->cur, l.slab.row0), static_cast<size_t>(l.slab.rows) * nx * 4,
                                  cudaMemcpyDeviceToHost, l.compute.get()));
    l.compute.sync();
  }
  return out;
}

void MultiHeat::step(int steps) {
  if (steps <= 0) return;
  const NvtxRange range("multigpu/heat " + std::to_string(m->local.size()) + " slabs, " + std::to_string(steps) +
                        " steps");
  for (auto& l : m->local) {
    BS_CUDA_CHECK(cudaSetDevice(l.device));
    if (!l.timing) l.t0.record(l.compute.get()), l.timing = true;
  }
  for (int done = 0; done < steps; done += m->cfg.halo)
    m->round(std::min(m->cfg.halo, steps - done));
  for (auto& l : m->local) {
    BS_CUDA_CHECK(cudaSetDevice(l.device));
    l.t1.record(l.compute.get());
    l.steps_timed += steps;
  }
}

void MultiHeat::sync() {
  for (auto& l : m->local) {
    BS_CUDA_CHECK(cudaSetDevice(l.device));
    l.compute.sync();
    l.comm.sync();
    l.comm_down.sync();
  }
}

std::vector<SlabTiming> MultiHeat::timings() {
  sync();
  std::vector<SlabTiming> out;
  for (auto& l : m->local) {
    SlabTiming t{l.slab.index, l.device, 0, 0};
    if (l.timing && l.steps_timed > 0) t.step_ms = elapsed_ms(l.t0, l.t1) / l.steps_timed;
    double ex = 0;
    for (size_t i = 0; i < l.exchanges_used; ++i)
      ex += elapsed_ms(l.exchanges[i].a, l.exchanges[i].b);
    if (l.exchanges_used > 0) t.exchange_ms = ex / static_cast<double>(l.exchanges_used);
    l.exchanges_used = 0;
    l.steps_timed = 0;
    l.timing = false;
    out.push_back(t);
  }
  return out;
}

double MultiHeat::total_heat() {
  const std::vector<float> f = download();
  std::vector<std::vector<double>> sums;
  const size_t nx = static_cast<size_t>(m->cfg.params.nx);
  for (auto& l : m->local) {
    double s = 0;
    for (size_t i = static_cast<size_t>(l.slab.row0) * nx; i < static_cast<size_t>(l.slab.row1()) * nx; ++i)
      s += f[i];
    sums.push_back({s});
  }
  m->comm->allreduce_sum(sums);
  return sums.empty() ? 0.0 : sums[0][0];
}

}  // namespace bs::multigpu
