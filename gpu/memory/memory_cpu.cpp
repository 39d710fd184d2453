// memory_cpu.cpp: the memory lab's CPU side: deterministic inputs, the references the GPU results are checked
// against, and the timed CPU versions of the transpose, the strided read / random gather and the particle
// step (one thread; all threads with OpenMP) with progress and cancel. The addresses come from
// memory_index.h, as in the kernels.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <string>

#include "core/clock.h"
#include "core/error.h"
#include "gpu/common/input_hash.h"
#include "gpu/memory/memory.h"

namespace bs::memory {

namespace {

// [lo, lo + width): the input hash's fraction, scaled.
inline float unit(int64_t i, uint32_t salt, float lo, float width) {
  return lo + width * unit_fraction(i, salt);
}

int threads_for(CpuMode mode) {
  return mode == CpuMode::OneThread ? 1 : omp_get_max_threads();
}

// Runs f(lo, hi) over [0, count) in chunks of `chunk`, on one thread or all (static split), looking at the
// cancel flag between chunks and reporting progress; throws JobCancelled when cancelled.
template <class F>
void for_chunks(int64_t count, int64_t chunk, CpuMode mode, JobControl* ctl, F&& f) {
  if (count <= 0) return;
  const int64_t chunks = count / chunk + (count % chunk != 0 ? 1 : 0);
  std::atomic<int64_t> done{0};
#pragma omp parallel for schedule(static) num_threads(threads_for(mode))
  for (int64_t k = 0; k < chunks; ++k) {
    if (ctl && ctl->cancelled()) continue;
    const int64_t lo = k * chunk, hi = std::min(count, lo + chunk);
    f(lo, hi);
    if (ctl) {
      const int64_t d = done.fetch_add(1, std::memory_order_relaxed) + 1;
      ctl->set_progress(static_cast<double>(d) / static_cast<double>(chunks));
    }
  }
  if (ctl && ctl->cancelled()) throw JobCancelled{};
}

}  // namespace

void fill_floats(float* a, int64_t n, uint32_t seed) {
  const uint32_t salt = mix32(seed * 4 + 1);
#pragma omp parallel for schedule(static) if (n > 65536)
  for (int64_t i = 0; i < n; ++i)
    a[i] = unit(i, salt, 0.5f, 1.0f);
}

namespace {
// Field f of particle i: positions and velocities in [0.5, 1.5), mass in [1, 2), charge in [-1, 1).
inline float particle_value(int64_t i, int f, uint32_t seed) {
  const uint32_t salt = mix32(seed * 16 + 3 + static_cast<uint32_t>(f));
  if (f == FMASS) return unit(i, salt, 1.0f, 1.0f);
  if (f == FCHARGE) return unit(i, salt, -1.0f, 2.0f);
  return unit(i, salt, 0.5f, 1.0f);
}
}  // namespace

void fill_particles_aos(float* p, int64_t n, uint32_t seed) {
#pragma omp parallel for schedule(static) if (n > 16384)
  for (int64_t i = 0; i < n; ++i)
    for (int f = 0; f < k_particle_fields; ++f)
      p[aos_index(i, f)] = particle_value(i, f, seed);
}

void fill_particles_soa(float* p, int64_t n, uint32_t seed) {
#pragma omp parallel for schedule(static) if (n > 16384)
  for (int64_t i = 0; i < n; ++i)
    for (int f = 0; f < k_particle_fields; ++f)
      p[soa_index(i, f, n)] = particle_value(i, f, seed);
}

std::vector<float> make_input(const Params& p, Variant v) {
  std::vector<float> in(static_cast<size_t>(input_length(p, v)));
  if (v == Variant::Aos)
    fill_particles_aos(in.data(), p.n, p.seed);
  else if (v == Variant::Soa)
    fill_particles_soa(in.data(), p.n, p.seed);
  else
    fill_floats(in.data(), static_cast<int64_t>(in.size()), p.seed);
  return in;
}

void transpose_cpu(Variant v, const float* in, float* out, int64_t rows, int64_t cols, CpuMode mode,
                   JobControl* ctl) {
  switch (v) {
    case Variant::Copy:
      // Row by row: both sides sequential.
      for_chunks(rows, 16, mode, ctl, [&](int64_t lo, int64_t hi) {
        std::memcpy(out + lo * cols, in + lo * cols, static_cast<size_t>((hi - lo) * cols) * sizeof(float));
      });
      return;
    case Variant::Naive:
      // Reads along a row, writes down a column: every write lands on another cache line, `rows` floats on.
      for_chunks(rows, 16, mode, ctl, [&](int64_t lo, int64_t hi) {
        for (int64_t r = lo; r < hi; ++r)
          for (int64_t c = 0; c < cols; ++c) {
            const Cell e{r, c};
            out[out_index(e, rows)] = in[in_index(e, cols)];
          }
      });
      return;
    case Variant::Tiled: {
      // 32 x 32 blocks: the 32 lines read and the 32 lines written stay in the L1 cache while a block is
      // done.
      const int64_t tile_rows = rows / k_tile + (rows % k_tile != 0 ? 1 : 0);
      for_chunks(tile_rows, 1, mode, ctl, [&](int64_t lo, int64_t hi) {
        for (int64_t tr = lo; tr < hi; ++tr)
          for (int64_t c0 = 0; c0 < cols; c0 += k_tile) {
            // Inside a block the writes run along a row of `out` (sequential); the reads step down 32 rows of
            // `in`, 32 cache lines that stay in L1 until the block is done.
            const int64_t r0 = tr * k_tile, r1 = std::min(rows, r0 + k_tile),
                          c1 = std::min(cols, c0 + k_tile);
            for (int64_t c = c0; c < c1; ++c)
              for (int64_t r = r0; r < r1; ++r) {
                const Cell e{r, c};
                out[out_index(e, rows)] = in[in_index(e, cols)];
              }
          }
      });
      return;
    }
    default:
      throw InvalidRequest(std::string("the CPU transpose has the variants copy, naive and tiled, not ") +
                           to_string(v));
  }
}

void gather_cpu(Variant v, const float* in, float* out, int64_t n, int stride, uint32_t seed, CpuMode mode,
                JobControl* ctl) {
  if (v == Variant::Strided) {
    const int64_t s = stride, rows = stride_rows(n, s);
    // In the kernel's order: column by column of the rows x s view, down the rows (reads s floats apart).
    for_chunks(rows * s, int64_t{1} << 16, mode, ctl, [&](int64_t lo, int64_t hi) {
      int64_t col = lo / rows, row = lo % rows;
      for (int64_t t = lo; t < hi; ++t) {
        const int64_t i = strided_element(row, col, s);
        out[strided_out(row, col, rows)] = i < n ? in[i] : 0.0f;
        if (++row == rows) {
          row = 0;
          ++col;
        }
      }
    });
    return;
  }
  if (v == Variant::Random) {
    const int k = random_bits(n);
    const uint64_t mask = (uint64_t{1} << k) - 1;
    for_chunks(n, int64_t{1} << 16, mode, ctl, [&](int64_t lo, int64_t hi) {
      for (int64_t t = lo; t < hi; ++t)
        out[t] = in[random_index(t, n, k, mask, seed)];
    });
    return;
  }
  throw InvalidRequest(std::string("the CPU gather has the variants strided and random, not ") +
                       to_string(v));
}

void particles_cpu(Variant v, const float* in, float* out, int64_t n, CpuMode mode, JobControl* ctl) {
  if (v != Variant::Aos && v != Variant::Soa)
    throw InvalidRequest(std::string("the CPU particle step has the variants aos and soa, not ") +
                         to_string(v));
  const bool soa = v == Variant::Soa;
  for_chunks(n, int64_t{1} << 15, mode, ctl, [&](int64_t lo, int64_t hi) {
    float r[k_fields_read], w[k_fields_written];
    for (int64_t i = lo; i < hi; ++i) {
      for (int f = 0; f < k_fields_read; ++f)
        r[f] = in[soa ? soa_index(i, f, n) : aos_index(i, f)];
      particle_step(r, w);
      for (int f = 0; f < k_fields_written; ++f)
        out[soa ? soa_index(i, f, n) : aos_index(i, f)] = w[f];
    }
  });
}

void banks_cpu(const Params& p, Variant v, const float* shared_init, float* out, JobControl* ctl) {
  const bool padded = v == Variant::BanksPadded;
  const int s = p.bank_stride;
  // A thread's sum depends only on its lane (threadIdx.x % 32): its word added k_bank_iterations times, in
  // order, as the kernel's loop does.
  float lane_sum[k_warp];
  for (int lane = 0; lane < k_warp; ++lane) {
    const float x = shared_init[bank_word(lane, s, padded)];
    float acc = 0.0f;
    for (int it = 0; it < k_bank_iterations; ++it)
      acc += x;
    lane_sum[lane] = acc;
  }
  const int64_t threads = p.threads;
  for_chunks(p.n, int64_t{1} << 18, CpuMode::AllThreads, ctl, [&](int64_t lo, int64_t hi) {
    for (int64_t t = lo; t < hi; ++t)
      out[t] = lane_sum[(t % threads) % k_warp];
  });
}

std::vector<float> reference_output(const Params& p, Variant v, JobControl* ctl) {
  const std::vector<float> in = make_input(p, v);
  return reference_output(p, v, in, ctl);
}

std::vector<float> reference_output(const Params& p, Variant v, std::span<const float> in, JobControl* ctl) {
  if (auto err = validate(p, v)) throw InvalidRequest(*err);
  if (static_cast<int64_t>(in.size()) != input_length(p, v))
    throw InvalidRequest("reference: the input has " + std::to_string(in.size()) + " floats; " +
                         to_string(v) + " reads " + std::to_string(input_length(p, v)));
  std::vector<float> out(static_cast<size_t>(output_length(p, v)), 0.0f);
  switch (kernel_of(v)) {
    case Kernel::Transpose:
      transpose_cpu(v == Variant::Copy ? Variant::Copy : Variant::Tiled, in.data(), out.data(), p.rows,
                    p.cols, CpuMode::AllThreads, ctl);
      break;
    case Kernel::Stride:
      gather_cpu(v, in.data(), out.data(), p.n, p.stride, p.seed, CpuMode::AllThreads, ctl);
      break;
    case Kernel::Banks:
      banks_cpu(p, v, in.data(), out.data(), ctl);
      break;
    case Kernel::Aos:
      particles_cpu(v, in.data(), out.data(), p.n, CpuMode::AllThreads, ctl);
      break;
  }
  return out;
}

Summary time_cpu(const Params& p, Variant v, CpuMode mode, int repetitions, JobControl* ctl) {
  if (auto err = validate(p, v)) throw InvalidRequest(*err);
  const std::vector<Variant> allowed = cpu_variants_of(kernel_of(v));
  if (std::find(allowed.begin(), allowed.end(), v) == allowed.end())
    throw InvalidRequest(std::string("no CPU version of ") + to_string(v) +
                         " (shared-memory banks exist only on the GPU)");
  if (auto err = check_host_memory(p, v, available_host_bytes())) throw InvalidRequest(*err);
  repetitions = std::max(repetitions, 1);
  const std::vector<float> in = make_input(p, v);
  std::vector<float> out(static_cast<size_t>(output_length(p, v)), 0.0f);
  const auto once = [&] {
    switch (kernel_of(v)) {
      case Kernel::Transpose:
        transpose_cpu(v, in.data(), out.data(), p.rows, p.cols, mode);
        break;
      case Kernel::Stride:
        gather_cpu(v, in.data(), out.data(), p.n, p.stride, p.seed, mode);
        break;
      default:
        particles_cpu(v, in.data(), out.data(), p.n, mode);
        break;
    }
  };
  once();  // warm-up: page faults, OpenMP thread start, caches
  auto t0 = std::chrono::steady_clock::now();
  once();
  const double one = std::max(ms_since(t0), 1e-6);
  // Tiny problems are timed in batches so that a sample lasts at least ~0.2 ms of clock.
  const int batch = static_cast<int>(std::clamp(0.2 / one, 1.0, 100000.0));
  std::vector<double> per_call;
  for (int r = 0; r < repetitions; ++r) {
    if (ctl && ctl->cancelled()) throw JobCancelled{};
    t0 = std::chrono::steady_clock::now();
    for (int b = 0; b < batch; ++b)
      once();
    per_call.push_back(ms_since(t0) / batch);
    if (ctl) ctl->set_progress(static_cast<double>(r + 1) / repetitions);
  }
  return summarize(per_call);
}

}  // namespace bs::memory
