// memory_plan.cpp: the memory lab's plain arithmetic: names, validation, sizes and bytes, the comparison of
// outputs. No CUDA.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "gpu/memory/memory.h"

namespace bs::memory {

namespace {

std::string mib(uint64_t bytes) {
  return std::to_string((bytes + (uint64_t{1} << 20) - 1) >> 20) + " MiB";
}

std::string dims(const Params& p) {
  return shape_text(p.rows, p.cols);
}

std::string block_text(Dim2 b) {
  return std::to_string(b.x) + "x" + std::to_string(b.y);
}

}  // namespace

const char* to_string(Kernel k) {
  return k_kernel_names.c_name(k);
}
const char* to_string(Variant v) {
  return k_variant_names.c_name(v);
}

const char* title(Kernel k) {
  switch (k) {
    case Kernel::Transpose:
      return "matrix transpose";
    case Kernel::Stride:
      return "strided read";
    case Kernel::Banks:
      return "shared-memory banks";
    case Kernel::Aos:
    default:
      return "AoS vs SoA";
  }
}

Kernel kernel_of(Variant v) {
  switch (v) {
    case Variant::Copy:
    case Variant::Naive:
    case Variant::Tiled:
    case Variant::TiledPadded:
    case Variant::TiledPaddedMulti:
      return Kernel::Transpose;
    case Variant::Strided:
    case Variant::Random:
      return Kernel::Stride;
    case Variant::BanksPlain:
    case Variant::BanksPadded:
      return Kernel::Banks;
    case Variant::Aos:
    case Variant::Soa:
    default:
      return Kernel::Aos;
  }
}

std::vector<Variant> variants_of(Kernel k) {
  std::vector<Variant> out;
  for (Variant v : k_variant_names.values())
    if (kernel_of(v) == k) out.push_back(v);
  return out;
}

bool uses_shared_memory(Variant v) {
  return v == Variant::Tiled || v == Variant::TiledPadded || v == Variant::TiledPaddedMulti ||
         v == Variant::BanksPlain || v == Variant::BanksPadded;
}

std::string describe(Variant v, const Params& p) {
  switch (v) {
    case Variant::Copy:
      return "copy (same bytes, " + std::to_string(tile_steps(static_cast<int>(p.block.y))) + " per thread)";
    case Variant::Naive:
      return "naive (strided write)";
    case Variant::Tiled:
      return "tiled (32x32 tile)";
    case Variant::TiledPadded:
      return "tiled, padded (32x33)";
    case Variant::TiledPaddedMulti:
      return "tiled, padded, " + std::to_string(tile_steps(static_cast<int>(p.block.y))) + " per thread";
    case Variant::Strided:
      return "stride " + std::to_string(p.stride);
    case Variant::Random:
      return "random gather";
    case Variant::BanksPlain:
      return "bank stride " + std::to_string(p.bank_stride);
    case Variant::BanksPadded:
      return "bank stride " + std::to_string(p.bank_stride) + ", padded";
    case Variant::Aos:
      return "array of structures";
    case Variant::Soa:
    default:
      return "structure of arrays";
  }
}

Variant Params::variant() const {
  switch (kernel) {
    case Kernel::Transpose:
      return transpose;
    case Kernel::Stride:
      return stride_pattern;
    case Kernel::Banks:
      return banks;
    case Kernel::Aos:
    default:
      return aos;
  }
}

Dim2 Params::block_of(Variant v) const {
  if (v == Variant::Tiled || v == Variant::TiledPadded) return Dim2{k_tile, k_tile};
  if (kernel_of(v) == Kernel::Transpose) return block;
  return Dim2{threads, 1};
}

int64_t Params::elements() const {
  return kernel == Kernel::Transpose ? rows * cols : n;
}

std::optional<std::string> validate(const Params& p) {
  return validate(p, p.variant());
}

std::optional<std::string> validate(const Params& p, Variant v) {
  const Kernel k = kernel_of(v);
  if (k == Kernel::Transpose) {
    if (p.rows < 1 || p.rows > k_max_dim || p.cols < 1 || p.cols > k_max_dim)
      return "size " + dims(p) + ": cols and rows must each be 1.." + std::to_string(k_max_dim) +
             " (a 16384 x 16384 matrix of floats is 1 GiB)";
    const Dim2 b = p.block_of(v);
    if (auto err = validate_block(b, DeviceLimits{})) return "block: " + *err;
    if (v == Variant::Copy || v == Variant::TiledPaddedMulti) {
      if (b.x != k_tile || k_tile % b.y != 0)
        return "block " + block_text(b) + ": the " + std::string(to_string(v)) +
               " kernel walks 32 x 32 tiles, so it needs block.x = 32 (the tile's width) and block.y "
               "dividing "
               "32 (1, 2, 4, 8, 16 or 32; each thread then handles 32 / block.y elements)";
    }
    return std::nullopt;
  }
  if (p.n < k_min_n || p.n > k_max_n)
    return "n = " + std::to_string(p.n) + ": choose 1 to " + std::to_string(k_max_n) + " (" +
           format_count(k_max_n) + ")" +
           (k == Kernel::Banks ? " threads"
            : k == Kernel::Aos ? " particles"
                               : " floats");
  if (p.threads < 1 || p.threads > 1024)
    return "threads = " + std::to_string(p.threads) + ": a block holds 1 to 1024 threads";
  if (v == Variant::Strided && (p.stride < 1 || p.stride > k_max_stride))
    return "stride = " + std::to_string(p.stride) + ": choose 1 to " + std::to_string(k_max_stride) +
           " floats between neighbouring lanes";
  if (k == Kernel::Banks && (p.bank_stride < 1 || p.bank_stride > k_max_bank_stride))
    return "bank stride = " + std::to_string(p.bank_stride) + ": choose 1 to " +
           std::to_string(k_max_bank_stride) + " words between neighbouring lanes";
  return std::nullopt;
}

int64_t output_length(const Params& p, Variant v) {
  switch (kernel_of(v)) {
    case Kernel::Transpose:
      return p.rows * p.cols;
    case Kernel::Stride:
      return v == Variant::Strided ? stride_outputs(p.n, p.stride) : p.n;
    case Kernel::Banks:
      return p.n;
    case Kernel::Aos:
    default:
      return p.n * k_particle_fields;
  }
}

int64_t input_length(const Params& p, Variant v) {
  switch (kernel_of(v)) {
    case Kernel::Transpose:
      return p.rows * p.cols;
    case Kernel::Stride:
      return p.n;
    case Kernel::Banks:
      return bank_words(p.bank_stride, v == Variant::BanksPadded);
    case Kernel::Aos:
    default:
      return p.n * k_particle_fields;
  }
}

int64_t device_bytes(const Params& p, Variant v) {
  return 4 * (input_length(p, v) + output_length(p, v));
}

int64_t counted_bytes(const Params& p, Variant v) {
  switch (kernel_of(v)) {
    case Kernel::Transpose:
      return 2 * 4 * p.rows * p.cols;
    case Kernel::Stride:
      return 2 * 4 * p.n;
    case Kernel::Banks:
      return 4 * p.n * k_bank_iterations;
    case Kernel::Aos:
    default:
      return 4 * p.n * (k_fields_read + k_fields_written);
  }
}

const char* counted_bytes_text(Variant v) {
  switch (kernel_of(v)) {
    case Kernel::Transpose:
      return "bytes read + written: 2 x 4 x rows x cols";
    case Kernel::Stride:
      return "bytes read + written: 2 x 4 x n (every element read once, written once)";
    case Kernel::Banks:
      return "shared-memory bytes loaded: 4 x n x 256 (threads x loop)";
    case Kernel::Aos:
    default:
      return "bytes the step needs: 4 x n x (7 read + 6 written), not the 32 bytes a particle occupies";
  }
}

std::optional<std::string> check_device_memory(const Params& p, Variant v, uint64_t free_bytes) {
  constexpr uint64_t margin = uint64_t{64} << 20;
  const uint64_t need = static_cast<uint64_t>(device_bytes(p, v));
  if (free_bytes == 0 || need + margin <= free_bytes) return std::nullopt;
  return std::string("the ") + to_string(v) + " run " +
         (kernel_of(v) == Kernel::Transpose ? "of " + dims(p) : "of n = " + format_count(p.n)) + " needs " +
         mib(need) + " of device memory (input and output); " + mib(free_bytes) +
         " are free (64 MiB are kept for the CUDA context): choose a smaller size";
}

std::optional<std::string> check_host_memory(const Params& p, Variant v, uint64_t available_bytes) {
  const uint64_t need = static_cast<uint64_t>(device_bytes(p, v));
  if (available_bytes == 0 || need <= available_bytes) return std::nullopt;
  return std::string("the CPU ") + to_string(v) + " run " +
         (kernel_of(v) == Kernel::Transpose ? "of " + dims(p) : "of n = " + format_count(p.n)) + " needs " +
         mib(need) + " of host memory (input and output); " + mib(available_bytes) +
         " are available (MemAvailable, ulimit and cgroup headroom): choose a smaller size";
}

std::vector<Variant> cpu_variants_of(Kernel k) {
  switch (k) {
    case Kernel::Transpose:
      return {Variant::Copy, Variant::Naive, Variant::Tiled};
    case Kernel::Stride:
      return {Variant::Strided, Variant::Random};
    case Kernel::Aos:
      return {Variant::Aos, Variant::Soa};
    case Kernel::Banks:
    default:
      return {};
  }
}

Check compare(std::span<const float> got, std::span<const float> want, double rel_tol) {
  Check c;
  if (got.size() != want.size()) {
    c.text = "output has " + std::to_string(got.size()) + " values, expected " + std::to_string(want.size());
    c.mismatches = static_cast<int64_t>(std::max(got.size(), want.size()));
    return c;
  }
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], w = want[i];
    bool bad;
    if (rel_tol == 0) {
      bad = !(g == w);
    } else {
      const double err = std::abs(g - w) / std::max(std::abs(w), 1e-30);
      if (err > c.max_rel_err || std::isnan(err)) c.max_rel_err = std::isnan(err) ? INFINITY : err;
      bad = !(err <= rel_tol);
    }
    if (bad) {
      if (c.mismatches == 0) c.first_bad = static_cast<int64_t>(i);
      ++c.mismatches;
    }
  }
  c.passed = c.mismatches == 0;
  char buf[200];
  if (!c.passed) {
    std::snprintf(buf, sizeof buf, "MISMATCH: %lld of %lld values, first at %lld: got %.9g, want %.9g",
                  static_cast<long long>(c.mismatches), static_cast<long long>(got.size()),
                  static_cast<long long>(c.first_bad),
                  static_cast<double>(got[static_cast<size_t>(c.first_bad)]),
                  static_cast<double>(want[static_cast<size_t>(c.first_bad)]));
    c.text = buf;
  } else if (rel_tol == 0) {
    c.text = "exact";
  } else {
    std::snprintf(buf, sizeof buf, "max rel err %.1e <= %.0e", c.max_rel_err, rel_tol);
    c.text = buf;
  }
  return c;
}

std::string shape_text(int64_t rows, int64_t cols) {
  return std::to_string(cols) + " x " + std::to_string(rows);
}

}  // namespace bs::memory
