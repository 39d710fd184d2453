// memory_gpu.cu: the memory lab's GPU runner: it launches the kernels of memory_kernels.cuh, whose addresses
// come from the functions of memory_index.h, the same ones the access model (memory_model.cpp) and the CPU
// references use.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/error.h"
#include "gpu/common/cuda_check.h"
#include "gpu/common/device_buffer.h"
#include "gpu/common/nvtx_range.h"
#include "gpu/memory/memory.h"
#include "gpu/memory/memory_kernels.cuh"
#include "gpu/memory/memory_model.h"

namespace bs::memory {

namespace {

using namespace kernels;  // memory_kernels.cuh

template <int DY>
void launch_tiles(Variant v, const float* in, float* out, const Params& p, dim3 grid, cudaStream_t st) {
  const dim3 block(k_tile, DY);
  if (v == Variant::Copy)
    copy_kernel<DY><<<grid, block, 0, st>>>(in, out, p.rows, p.cols);
  else
    tiled_kernel<DY, k_tile + 1><<<grid, block, 0, st>>>(in, out, p.rows, p.cols);
}

dim3 to_dim3(Dim2 d) {
  return dim3(static_cast<unsigned>(d.x), static_cast<unsigned>(d.y));
}

// One launch of variant v (p validated).
void launch(const Params& p, Variant v, const float* in, float* out, cudaStream_t st) {
  const dim3 grid = to_dim3(grid_of(p, v));
  const dim3 block = to_dim3(p.block_of(v));
  switch (v) {
    case Variant::Naive:
      naive_kernel<<<grid, block, 0, st>>>(in, out, p.rows, p.cols);
      break;
    case Variant::Tiled:
      tiled_kernel<k_tile, k_tile><<<grid, block, 0, st>>>(in, out, p.rows, p.cols);
      break;
    case Variant::TiledPadded:
      tiled_kernel<k_tile, k_tile + 1><<<grid, block, 0, st>>>(in, out, p.rows, p.cols);
      break;
    case Variant::Copy:
    case Variant::TiledPaddedMulti:
      switch (p.block.y) {
        case 1:
          launch_tiles<1>(v, in, out, p, grid, st);
          break;
        case 2:
          launch_tiles<2>(v, in, out, p, grid, st);
          break;
        case 4:
          launch_tiles<4>(v, in, out, p, grid, st);
          break;
        case 8:
          launch_tiles<8>(v, in, out, p, grid, st);
          break;
        case 16:
          launch_tiles<16>(v, in, out, p, grid, st);
          break;
        default:
          launch_tiles<32>(v, in, out, p, grid, st);
          break;
      }
      break;
    case Variant::Strided:
      strided_kernel<<<grid, block, 0, st>>>(in, out, p.n, p.stride, stride_rows(p.n, p.stride));
      break;
    case Variant::Random: {
      const int k = random_bits(p.n);
      random_kernel<<<grid, block, 0, st>>>(in, out, p.n, k, (uint64_t{1} << k) - 1, p.seed);
      break;
    }
    case Variant::BanksPlain:
    case Variant::BanksPadded:
      banks_kernel<<<grid, block, 0, st>>>(in, out, p.n, p.bank_stride, v == Variant::BanksPadded);
      break;
    case Variant::Aos:
      particles_kernel<false><<<grid, block, 0, st>>>(in, out, p.n);
      break;
    case Variant::Soa:
    default:
      particles_kernel<true><<<grid, block, 0, st>>>(in, out, p.n);
      break;
  }
  BS_CUDA_CHECK_LAUNCH();
}

// What decides a variant's input: a new key means a new upload.
struct InputKey {
  int kind = -1;  // 0 floats, 1 AoS particles, 2 SoA particles
  int64_t length = 0;
  uint32_t seed = 0;
  bool operator==(const InputKey&) const = default;
};
InputKey key_of(const Params& p, Variant v) {
  return {v == Variant::Aos ? 1 : v == Variant::Soa ? 2 : 0, input_length(p, v), p.seed};
}

}  // namespace

struct GpuRunner::Impl {
  DeviceBuffer<float> in, out;
  InputKey uploaded;
  Stream stream;
  Event start, stop;

  void ensure(const Params& p, Variant v) {
    if (auto err = validate(p, v)) throw InvalidRequest(*err);
    size_t free_b = 0, total_b = 0;
    BS_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    // Memory this runner already holds is available to it again.
    const uint64_t held = in.bytes() + out.bytes();
    if (auto err = check_device_memory(p, v, free_b + held)) throw InvalidRequest(*err);
    const auto in_len = static_cast<size_t>(input_length(p, v));
    const auto out_len = static_cast<size_t>(output_length(p, v));
    const InputKey key = key_of(p, v);
    if (in.size() < in_len || !(key == uploaded)) {
      if (in.size() < in_len) {
        in.release();
        in.resize(in_len);
      }
      const std::vector<float> h = make_input(p, v);
      BS_CUDA_CHECK(cudaMemcpy(in.data(), h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
      uploaded = key;
    }
    if (out.size() < out_len) {
      out.release();
      out.resize(out_len);
    }
    // Places a kernel never writes (the AoS mass and charge) read back as 0, as in the reference.
    BS_CUDA_CHECK(cudaMemsetAsync(out.data(), 0, out_len * sizeof(float), stream.get()));
  }

  std::vector<float> download(const Params& p, Variant v) {
    std::vector<float> h(static_cast<size_t>(output_length(p, v)));
    BS_CUDA_CHECK(cudaMemcpyAsync(h.data(), out.data(), h.size() * sizeof(float), cudaMemcpyDeviceToHost,
                                  stream.get()));
    stream.sync();
    return h;
  }
};

GpuRunner::GpuRunner() : m(std::make_unique<Impl>()) {}

GpuRunner::~GpuRunner() = default;

Dim2 GpuRunner::grid_of(const Params& p, Variant v) const {
  if (auto err = validate(p, v)) throw InvalidRequest(*err);
  return memory::grid_of(p, v);
}

RunResult GpuRunner::run(const Params& p, Variant v, int repetitions, bool check) {
  repetitions = std::max(repetitions, 1);
  m->ensure(p, v);
  const cudaStream_t st = m->stream.get();
  const NvtxRange range("memory/" + std::string(k_variant_names.name_of(v)));
  launch(p, v, m->in.data(), m->out.data(), st);  // warm-up: first-launch costs stay out of the figures
  std::vector<double> ms;
  ms.reserve(static_cast<size_t>(repetitions));
  for (int r = 0; r < repetitions; ++r) {
    m->start.record(st);
    launch(p, v, m->in.data(), m->out.data(), st);
    m->stop.record(st);
    BS_CUDA_CHECK(cudaEventSynchronize(m->stop.get()));
    ms.push_back(elapsed_ms(m->start, m->stop));
  }
  RunResult r;
  r.variant = v;
  r.label = describe(v, p);
  r.device = device().name;
  r.gpu = true;
  r.block = p.block_of(v);
  r.grid = memory::grid_of(p, v);
  r.ms = summarize(ms);
  r.bytes = counted_bytes(p, v);
  r.gbs = r.ms.median > 0 ? static_cast<double>(r.bytes) / (r.ms.median * 1e6) : 0;
  if (check) {
    const std::vector<float> got = m->download(p, v);
    const std::vector<float> want = reference_output(p, v);
    r.check = compare(got, want, v == Variant::Aos || v == Variant::Soa ? k_aos_rel_tol : 0.0);
  } else {
    r.check.passed = true;
    r.check.text = "not checked";
  }
  return r;
}

std::vector<RunResult> GpuRunner::run_ladder(const Params& p, std::optional<Variant> only, int repetitions,
                                             bool check) {
  const Kernel k = p.kernel;
  if (only && kernel_of(*only) != k)
    throw InvalidRequest(std::string("variant ") + to_string(*only) + " belongs to the " +
                         to_string(kernel_of(*only)) + " kernel, not " + to_string(k) + " (choose one of " +
                         [&] {
                           std::string s;
                           for (Variant x : variants_of(k))
                             s += (s.empty() ? "" : ", ") + std::string(to_string(x));
                           return s;
                         }() +
                         ")");
  // The reference row every % is taken against, measured in this same call.
  Params ref = p;
  Variant ref_v = Variant::Copy;
  std::string ref_note;
  switch (k) {
    case Kernel::Transpose:
      ref_v = Variant::Copy;
      break;
    case Kernel::Stride:
      ref_v = Variant::Strided;
      ref.stride = 1;
      break;
    case Kernel::Banks:
      ref_v = Variant::BanksPlain;
      ref.bank_stride = 1;
      break;
    case Kernel::Aos:
      ref_v = Variant::Soa;
      break;
  }
  std::vector<RunResult> rows;
  const RunResult ref_row = run(ref, ref_v, repetitions, check);
  const auto is_ref = [&](Variant v) {
    return v == ref_v &&
           (k == Kernel::Transpose || k == Kernel::Aos || (k == Kernel::Stride && p.stride == 1) ||
            (k == Kernel::Banks && p.bank_stride == 1));
  };
  bool ref_listed = false;
  for (Variant v : variants_of(k)) {
    if (only && v != *only) continue;
    if (is_ref(v)) {
      rows.push_back(ref_row);
      ref_listed = true;
    } else {
      rows.push_back(run(p, v, repetitions, check));
    }
  }
  if (!ref_listed) {
    RunResult r = ref_row;
    r.label += " (reference)";
    rows.insert(rows.begin(), r);
  }
  for (RunResult& r : rows)
    r.pct_of_copy = ref_row.gbs > 0 ? 100.0 * r.gbs / ref_row.gbs : 0;
  return rows;
}

std::vector<float> GpuRunner::compute(const Params& p, Variant v, std::span<const float> in) {
  if (auto err = validate(p, v)) throw InvalidRequest(*err);
  if (static_cast<int64_t>(in.size()) != input_length(p, v))
    throw InvalidRequest("compute: the input has " + std::to_string(in.size()) + " floats; " + to_string(v) +
                         " reads " + std::to_string(input_length(p, v)));
  m->ensure(p, v);
  BS_CUDA_CHECK(cudaMemcpy(m->in.data(), in.data(), in.size_bytes(), cudaMemcpyHostToDevice));
  m->uploaded = InputKey{};  // the buffer no longer holds fill_* data
  launch(p, v, m->in.data(), m->out.data(), m->stream.get());
  return m->download(p, v);
}

void GpuRunner::abandon() noexcept {
  m->in.abandon();
  m->out.abandon();
  m->uploaded = InputKey{};
  m->stream.abandon();
  m->start.abandon();
  m->stop.abandon();
}

}  // namespace bs::memory
