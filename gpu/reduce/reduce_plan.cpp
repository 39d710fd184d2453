// reduce_plan.cpp: the reduction lab's pure logic: names and descriptions, validation and memory checks, the
// launch plan and summation depth of each variant, the float tolerance, the tree and scan-step model of the
// pictures, the inputs, the exact reference and the checks.
#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <vector>

#include "gpu/reduce/reduce.h"
#include "gpu/reduce/reduce_inputs.h"

namespace bs::reduce {

namespace {

constexpr int k_scan_items = 32;  // elements per thread of the tile scans (scan-then-propagate, look-back)

int64_t ceil_div64(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}
int ceil_log2(int64_t v) {  // ceil(log2 v) for v >= 1
  int r = 0;
  while ((int64_t{1} << r) < v)
    ++r;
  return r;
}
bool is_pow2(int64_t v) {
  return v > 0 && (v & (v - 1)) == 0;
}
std::string gib_text(uint64_t bytes) {
  char buf[64];
  if (bytes >= (uint64_t{1} << 30))
    std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / (1u << 30));
  else
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1u << 20));
  return buf;
}
const char* op_verb(Op op) {
  return op == Op::Reduce ? "reduce" : "scan";
}
int64_t cub_depth(int64_t n) {
  return ceil_div64(n, 512) + std::min<int64_t>(n, 512) + 10;
}
// Elements one block handles per level of the multi-pass ladder kernels (1: one per thread; 2: add during
// load).
int elements_per_thread(ReduceVariant v) {
  switch (v) {
    case ReduceVariant::InterleavedDivergent:
    case ReduceVariant::InterleavedBankConflicts:
    case ReduceVariant::Sequential:
      return 1;
    default:
      return 2;
  }
}
bool multi_pass(ReduceVariant v) {
  return v <= ReduceVariant::CompleteUnroll;
}

}  // namespace

const char* description(ReduceVariant v) {
  switch (v) {
    case ReduceVariant::InterleavedDivergent:
      return "interleaved addressing, if (tid % (2s) == 0): the active threads are scattered, so every warp "
             "diverges and stays busy while most of its lanes idle";
    case ReduceVariant::InterleavedBankConflicts:
      return "interleaved addressing, index = 2 s tid: active threads are contiguous (no divergence), but "
             "their shared-memory strides collide in the same banks";
    case ReduceVariant::Sequential:
      return "sequential addressing, stride s halves each step: conflict-free, but half the threads idle "
             "from the first step";
    case ReduceVariant::FirstAddDuringLoad:
      return "first add during load: each thread adds two elements while loading, half as many blocks";
    case ReduceVariant::UnrollLastWarp:
      return "unroll the last warp: the last 6 steps run in one warp with __syncwarp, no __syncthreads";
    case ReduceVariant::CompleteUnroll:
      return "complete unroll: the block size is a template parameter, every step unrolled at compile time";
    case ReduceVariant::GridStride:
      return "several elements per thread: a fixed grid strides over the array, summing in registers first";
    case ReduceVariant::WarpShuffle:
      return "warp shuffles (__shfl_down_sync) instead of shared memory, float4 loads, two kernels";
    case ReduceVariant::AtomicPerBlock:
      return "as warp shuffles, then one atomicAdd per block instead of a second kernel";
    case ReduceVariant::Cub:
      return "cub::DeviceReduce::Sum, the library (CUDA toolkit's CCCL)";
  }
  return "?";
}

const char* description(ScanVariant v) {
  switch (v) {
    case ScanVariant::HillisSteeleBlock:
      return "Hillis-Steele in one block (n <= block): log2 n steps, every thread adds at each step "
             "(n log n adds)";
    case ScanVariant::BlellochBlock:
      return "Blelloch in one block (n <= 2 x block): up-sweep then down-sweep, 2n adds, padded against "
             "bank conflicts";
    case ScanVariant::ScanThenPropagate:
      return "scan-then-propagate: scan each tile, scan the tile sums, add each tile's offset (3 kernels, "
             "4 array passes)";
    case ScanVariant::DecoupledLookback:
      return "decoupled look-back, one pass: each tile publishes its sum and looks back at its "
             "predecessors' (2 array passes)";
    case ScanVariant::Cub:
      return "cub::DeviceScan::InclusiveSum / ExclusiveSum, the library (CUDA toolkit's CCCL)";
  }
  return "?";
}

int rung(ReduceVariant v) {
  return static_cast<int>(v) + 1;
}
int rung(ScanVariant v) {
  return static_cast<int>(v) + 1;
}

std::string variant_name(const Params& p) {
  return std::string(p.op == Op::Reduce ? k_reduce_variant_names.name_of(p.reduce_variant)
                                        : k_scan_variant_names.name_of(p.scan_variant));
}

std::string describe(const Params& p) {
  std::string s =
      std::string(op_verb(p.op)) + " " + std::string(k_type_names.name_of(p.type)) + " " + format_count(p.n);
  if (p.op == Op::Scan) s += " (" + std::string(k_scan_kind_names.name_of(p.scan_kind)) + ")";
  s += ", " + variant_name(p);
  const bool cub =
      p.op == Op::Reduce ? p.reduce_variant == ReduceVariant::Cub : p.scan_variant == ScanVariant::Cub;
  if (!cub) s += ", block " + std::to_string(p.block);
  return s;
}

bool needs_power_of_two_block(ReduceVariant v) {
  return v != ReduceVariant::WarpShuffle && v != ReduceVariant::AtomicPerBlock && v != ReduceVariant::Cub;
}
bool needs_power_of_two_block(ScanVariant v) {
  return v != ScanVariant::Cub;
}
int min_block(ReduceVariant v) {
  return v == ReduceVariant::UnrollLastWarp || v == ReduceVariant::CompleteUnroll ||
                 v == ReduceVariant::GridStride
             ? 64
             : k_min_block;
}
int64_t single_block_max_n(ScanVariant v, int block) {
  if (v == ScanVariant::HillisSteeleBlock) return block;
  if (v == ScanVariant::BlellochBlock) return int64_t{2} * block;
  return 0;
}

std::optional<std::string> validate(const Params& p) {
  const char* verb = op_verb(p.op);
  if (p.n < k_min_n) return "n = " + std::to_string(p.n) + ": nothing to " + verb + " (n must be at least 1)";
  if (p.n > k_max_n)
    return "n = " + std::to_string(p.n) + " is more than " + format_count(k_max_n) + " = " +
           std::to_string(k_max_n) + " elements, the largest count this lab accepts";
  const bool cub =
      p.op == Op::Reduce ? p.reduce_variant == ReduceVariant::Cub : p.scan_variant == ScanVariant::Cub;
  if (cub) return std::nullopt;  // CUB picks its own block
  const std::string name = variant_name(p);
  if (p.block < k_min_block || p.block > k_max_block)
    return "block " + std::to_string(p.block) + ": choose " + std::to_string(k_min_block) + " to " +
           std::to_string(k_max_block) + " threads per block";
  if (p.op == Op::Reduce) {
    if (needs_power_of_two_block(p.reduce_variant) && !is_pow2(p.block))
      return "block " + std::to_string(p.block) + " is not a power of two: " + name +
             " halves the active threads at every step of its tree (use 32, 64, 128, 256, 512 or 1024)";
    if (p.block % 32 != 0)
      return "block " + std::to_string(p.block) + " is not a multiple of 32: " + name +
             " reduces whole warps with shuffles";
    if (p.block < min_block(p.reduce_variant))
      return "block " + std::to_string(p.block) + ": " + name + " needs at least " +
             std::to_string(min_block(p.reduce_variant)) +
             " threads (its unrolled last warp reads the second 32 values of the block)";
    return std::nullopt;
  }
  if (needs_power_of_two_block(p.scan_variant) && !is_pow2(p.block))
    return "block " + std::to_string(p.block) + " is not a power of two: " + name +
           " builds its tree on powers of two (use 32, 64, 128, 256, 512 or 1024)";
  const int64_t one_block = single_block_max_n(p.scan_variant, p.block);
  if (one_block > 0 && p.n > one_block)
    return name + " scans a single block of at most " +
           (p.scan_variant == ScanVariant::BlellochBlock ? "2 x " + std::to_string(p.block) + " = " : "") +
           std::to_string(one_block) + " elements, n = " + std::to_string(p.n) +
           ": use scan-then-propagate, decoupled-lookback or cub for larger n (or a larger block)";
  return std::nullopt;
}

uint64_t device_bytes_needed(const Params& p, int sm_count) {
  const uint64_t n = static_cast<uint64_t>(std::max<int64_t>(p.n, 0));
  const uint64_t in = n * 4;
  // Partial sums (at most 2 x n / 32 for 32-thread blocks), tile states, CUB's temporary storage.
  const uint64_t aux = n / 4 + (uint64_t{16} << 20);
  (void)sm_count;
  return p.op == Op::Reduce ? in + aux : 2 * in + aux;
}

std::optional<std::string> check_device_memory(const Params& p, int sm_count, uint64_t free_bytes,
                                               uint64_t total_bytes) {
  const uint64_t need = device_bytes_needed(p, sm_count);
  if (need <= free_bytes) return std::nullopt;
  const uint64_t array = static_cast<uint64_t>(p.n) * 4;
  const char* what = p.type == ElemType::F32 ? "floats" : "ints";
  return "n = " + std::to_string(p.n) + " (" + format_count(p.n) + ") " + what + " need " + gib_text(need) +
         " of device memory (" +
         (p.op == Op::Reduce ? "input " + gib_text(array)
                             : "input " + gib_text(array) + " + output " + gib_text(array)) +
         " + " + gib_text(need - (p.op == Op::Reduce ? 1 : 2) * array) +
         " partial sums and scratch); the device has " + gib_text(free_bytes) + " free of " +
         gib_text(total_bytes);
}

std::optional<std::string> check_host_memory(const Params& p, uint64_t available_bytes) {
  // A CPU run holds the input and (scans) the output; a GPU scan's check holds the copied-back output.
  const int arrays = p.op == Op::Reduce ? 1 : 2;
  return bs::check_host_memory(p.n, arrays, available_bytes);
}


// --- Plan
// ------------------------------------------------------------------------------------------------------------

LaunchPlan make_plan(const Params& p, int sm_count, int blocks_per_sm) {
  LaunchPlan pl;
  const int64_t n = std::max<int64_t>(p.n, 1);
  const int64_t B = p.block;
  const int64_t resident = std::max<int64_t>(1, int64_t{sm_count} * std::max(blocks_per_sm, 1));
  const int lg_b = ceil_log2(B);
  const int lg_warps = ceil_log2(std::max<int64_t>(1, B / 32));
  pl.block = static_cast<int>(B);
  char buf[256];
  if (p.op == Op::Reduce) {
    const ReduceVariant v = p.reduce_variant;
    if (v == ReduceVariant::Cub) {
      pl.block = 0;
      pl.depth = cub_depth(n);
      pl.text = "cub::DeviceReduce::Sum chooses its own grid and passes";
      return pl;
    }
    if (multi_pass(v)) {
      const int ept = elements_per_thread(v);
      int64_t count = n;
      pl.grid = ceil_div64(n, B * ept);
      pl.per_thread = ept;
      int levels = 0;
      do {
        count = ceil_div64(count, B * ept);
        ++levels;
      } while (count > 1);
      pl.kernels = levels;
      pl.depth = int64_t{levels} * (ept - 1 + lg_b);
      std::snprintf(buf, sizeof buf,
                    "%d kernel%s (one per level): %lld blocks x %lld threads, %d element%s "
                    "per thread, then the partial sums again",
                    levels, levels > 1 ? "s" : "", static_cast<long long>(pl.grid), static_cast<long long>(B),
                    ept, ept > 1 ? "s" : "");
      pl.text = buf;
      if (levels == 1) pl.text = "1 kernel: 1 block x " + std::to_string(B) + " threads";
      return pl;
    }
    const bool shuffle = v == ReduceVariant::WarpShuffle || v == ReduceVariant::AtomicPerBlock;
    // grid-stride: 2 elements per iteration (reduce6); shuffles: one float4 per iteration.
    const int64_t per_iter = shuffle ? 4 : 2;
    pl.grid = std::max<int64_t>(1, std::min(resident, ceil_div64(n, B * per_iter)));
    pl.per_thread = ceil_div64(n, pl.grid * B);
    const int64_t tree = shuffle ? 5 + lg_warps : lg_b;
    pl.depth = pl.per_thread + tree;
    if (v == ReduceVariant::AtomicPerBlock) {
      pl.kernels = 1;
      pl.depth += pl.grid;
      std::snprintf(buf, sizeof buf,
                    "1 kernel: %lld block%s x %lld threads, %lld elements per thread, one "
                    "atomicAdd per block",
                    static_cast<long long>(pl.grid), pl.grid > 1 ? "s" : "", static_cast<long long>(B),
                    static_cast<long long>(pl.per_thread));
    } else {
      pl.kernels = pl.grid > 1 ? 2 : 1;
      if (pl.grid > 1) pl.depth += ceil_div64(pl.grid, B) + tree;
      std::snprintf(buf, sizeof buf, "%d kernel%s: %lld block%s x %lld threads, %lld elements per thread%s",
                    pl.kernels, pl.kernels > 1 ? "s" : "", static_cast<long long>(pl.grid),
                    pl.grid > 1 ? "s" : "", static_cast<long long>(B), static_cast<long long>(pl.per_thread),
                    pl.grid > 1 ? ", then 1 block over the partial sums" : "");
    }
    pl.text = buf;
    return pl;
  }
  const ScanVariant v = p.scan_variant;
  switch (v) {
    case ScanVariant::HillisSteeleBlock:
      pl.grid = 1;
      pl.per_thread = 1;
      pl.tiles = 1;
      pl.kernels = 1;
      pl.depth = ceil_log2(n);
      pl.text =
          "1 kernel: 1 block x " + std::to_string(B) + " threads, " + std::to_string(ceil_log2(n)) + " steps";
      return pl;
    case ScanVariant::BlellochBlock:
      pl.grid = 1;
      pl.per_thread = 2;
      pl.tiles = 1;
      pl.kernels = 1;
      pl.depth = 2 * int64_t{ceil_log2(n)} + 1;
      pl.text = "1 kernel: 1 block x " + std::to_string(B) + " threads, 2 elements each, up-sweep and " +
                "down-sweep of " + std::to_string(ceil_log2(n)) + " steps each";
      return pl;
    case ScanVariant::ScanThenPropagate: {
      const int64_t tile = B * k_scan_items;
      pl.per_thread = k_scan_items;
      pl.tiles = ceil_div64(n, tile);
      pl.grid = pl.tiles;
      int levels = 1;
      for (int64_t c = pl.tiles; c > 1; c = ceil_div64(c, tile))
        ++levels;
      pl.kernels = 2 * levels - 1;
      pl.depth = int64_t{levels} * (k_scan_items + 5 + lg_warps + 1);
      std::snprintf(buf, sizeof buf,
                    "%d kernels: %lld tiles of %lld x %d elements, their sums scanned "
                    "(%d level%s), offsets added",
                    pl.kernels, static_cast<long long>(pl.tiles), static_cast<long long>(B), k_scan_items,
                    levels - 1, levels == 2 ? "" : "s");
      pl.text = pl.kernels == 1 ? "1 kernel: 1 tile of " + std::to_string(B) + " x " +
                                      std::to_string(k_scan_items) + " elements"
                                : std::string(buf);
      return pl;
    }
    case ScanVariant::DecoupledLookback: {
      const int64_t tile = B * k_scan_items;
      pl.per_thread = k_scan_items;
      pl.tiles = ceil_div64(n, tile);
      pl.grid = pl.tiles;
      pl.kernels = 1;
      pl.depth = k_scan_items + 5 + lg_warps + pl.tiles + 1;
      std::snprintf(buf, sizeof buf,
                    "1 kernel: %lld tile%s of %lld x %d elements, each looking back at its "
                    "predecessors' published sums",
                    static_cast<long long>(pl.tiles), pl.tiles > 1 ? "s" : "", static_cast<long long>(B),
                    k_scan_items);
      pl.text = buf;
      return pl;
    }
    case ScanVariant::Cub:
      pl.block = 0;
      pl.depth = cub_depth(n);
      pl.text = "cub::DeviceScan chooses its own tiles (a single-pass look-back scan)";
      return pl;
  }
  return pl;
}

int64_t tile_scan_smem_bytes(int block) {
  const int64_t words = int64_t{block} * k_scan_items / 4;
  return (words + words / 8 + 1) * 16;
}

KernelShape first_kernel_shape(const Params& p, const LaunchPlan& plan, int64_t smem_optin) {
  KernelShape s;
  const int64_t B = p.block, n = std::max<int64_t>(p.n, 1), word = 4;  // float and int are 4 bytes
  s.threads = p.block;
  s.grid = std::max<int64_t>(plan.grid, 1);
  s.known = true;
  char buf[200];
  if (p.op == Op::Reduce) {
    switch (p.reduce_variant) {
      case ReduceVariant::InterleavedDivergent:
      case ReduceVariant::InterleavedBankConflicts:
      case ReduceVariant::Sequential:
        s.kernel = p.reduce_variant == ReduceVariant::InterleavedDivergent       ? "k_interleaved_divergent"
                   : p.reduce_variant == ReduceVariant::InterleavedBankConflicts ? "k_interleaved_bank"
                                                                                 : "k_sequential";
        s.dynamic_smem = B * word;
        s.chunk = B;
        break;
      case ReduceVariant::FirstAddDuringLoad:
      case ReduceVariant::UnrollLastWarp:
        s.kernel =
            p.reduce_variant == ReduceVariant::FirstAddDuringLoad ? "k_first_add" : "k_unroll_last_warp";
        s.dynamic_smem = B * word;
        s.chunk = 2 * B;
        break;
      case ReduceVariant::CompleteUnroll:
        s.kernel = "k_complete_unroll<" + std::to_string(B) + ">";
        s.static_smem = B * word;
        s.chunk = 2 * B;
        break;
      case ReduceVariant::GridStride:
        s.kernel = "k_grid_stride<" + std::to_string(B) + ">";
        s.static_smem = B * word;
        s.chunk = 2 * B;
        s.grid_stride = true;
        break;
      case ReduceVariant::WarpShuffle:
      case ReduceVariant::AtomicPerBlock:
        s.kernel = p.reduce_variant == ReduceVariant::WarpShuffle ? "k_shuffle" : "k_shuffle<atomic>";
        s.static_smem = 32 * word;  // one sum per warp
        s.chunk = 4 * B;            // B float4 (int4) words per block and pass
        s.grid_stride = true;
        s.tail_from = n / 4 * 4;
        break;
      case ReduceVariant::Cub:
        return KernelShape{.note = "cub::DeviceReduce picks its own kernels and launches"};
    }
  } else {
    switch (p.scan_variant) {
      case ScanVariant::HillisSteeleBlock:
        s.kernel = "k_hillis_steele";
        s.dynamic_smem = 2 * B * word;  // double buffer
        s.chunk = n;
        s.grid = 1;
        break;
      case ScanVariant::BlellochBlock: {
        const int64_t m = std::max<int64_t>(2, std::bit_ceil(static_cast<uint64_t>(n)));
        s.kernel = "k_blelloch";
        s.dynamic_smem = (m + m / 32 + 1) * word;  // one padding word per 32
        s.chunk = n;
        s.grid = 1;
        break;
      }
      case ScanVariant::ScanThenPropagate:
      case ScanVariant::DecoupledLookback: {
        const bool lookback = p.scan_variant == ScanVariant::DecoupledLookback;
        s.kernel = lookback ? "k_lookback" : "k_tile_scan";
        // The block scan's 32 warp totals; the look-back adds its tile number and prefix.
        s.static_smem = 32 * word + (lookback ? 2 * word : 0);
        const int64_t bytes = tile_scan_smem_bytes(p.block);
        const int64_t margin = 1024;  // as the runner: room for the kernels' own __shared__ variables
        s.transposed = bytes <= 48 * 1024 - margin || bytes + margin <= smem_optin;
        s.dynamic_smem = s.transposed ? bytes : 0;
        s.chunk = B * k_scan_items;
        break;
      }
      case ScanVariant::Cub:
        return KernelShape{.note = "cub::DeviceScan picks its own kernels and launches"};
    }
  }
  if (s.grid_stride)
    std::snprintf(buf, sizeof buf,
                  "%lld blocks stride over the input: block b sums chunks b, b + %lld, ... of %lld elements",
                  static_cast<long long>(s.grid), static_cast<long long>(s.grid),
                  static_cast<long long>(s.chunk));
  else if (s.grid == 1)
    std::snprintf(buf, sizeof buf, "one block scans all %lld elements", static_cast<long long>(n));
  else
    std::snprintf(buf, sizeof buf, "block b takes elements b x %lld .. b x %lld + %lld (%lld blocks)",
                  static_cast<long long>(s.chunk), static_cast<long long>(s.chunk),
                  static_cast<long long>(s.chunk - 1), static_cast<long long>(s.grid));
  s.note = buf;
  if (p.op == Op::Scan && p.scan_variant == ScanVariant::DecoupledLookback)
    s.note += "; tiles are handed out in launch order, so the block that scans tile t is the t-th to start";
  return s;
}

int64_t summation_depth(const Params& p, int sm_count, int blocks_per_sm) {
  return make_plan(p, sm_count, blocks_per_sm).depth;
}

int64_t cpu_summation_depth(int64_t n, CpuMode mode, int threads) {
  if (mode == CpuMode::OneThread || threads <= 1) return std::max<int64_t>(n, 1);
  return ceil_div64(n, threads) + threads;
}

double float_tolerance(int64_t depth) {
  return k_tolerance_lambda * std::sqrt(static_cast<double>(std::max<int64_t>(depth, 1))) *
         std::ldexp(1.0, -24);
}

// --- Inputs, reference, checks
// ------------------------------------------------------------------------------------------------------------

float input_f32(int64_t i, uint32_t seed) {
  return detail::input_f32(i, seed);
}
int32_t input_i32(int64_t i, uint32_t seed) {
  return detail::input_i32(i, seed);
}

void fill_inputs(float* x, int64_t n, uint32_t seed) {
#pragma omp parallel for schedule(static) if (n > 65536)
  for (int64_t i = 0; i < n; ++i)
    x[i] = detail::input_f32(i, seed);
}
void fill_inputs(int32_t* x, int64_t n, uint32_t seed) {
#pragma omp parallel for schedule(static) if (n > 65536)
  for (int64_t i = 0; i < n; ++i)
    x[i] = detail::input_i32(i, seed);
}

// Every input is a multiple of 2^-24 below 2, so a double sums up to 2^28 of them exactly, in any order.
double reference_sum_f32(int64_t n, uint32_t seed) {
  double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s) if (n > 65536)
  for (int64_t i = 0; i < n; ++i)
    s += static_cast<double>(detail::input_f32(i, seed));
  return s;
}
int64_t reference_sum_i32(int64_t n, uint32_t seed) {
  int64_t s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s) if (n > 65536)
  for (int64_t i = 0; i < n; ++i)
    s += detail::input_i32(i, seed);
  return s;
}

namespace {

std::string sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1e", v);
  return buf;
}

int32_t wrap32(int64_t v) {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
}

// The reference prefix sums (inclusive) of the first n inputs, computed by all threads: chunk totals, then
// each chunk's running sum from its offset. T is double or int64_t.
template <class T, class Input>
std::vector<T> reference_prefix(int64_t n, Input input) {
  std::vector<T> out(static_cast<size_t>(n));
  const int nt = std::max(1, std::min<int>(omp_get_max_threads(), static_cast<int>(n / 65536) + 1));
  std::vector<T> totals(static_cast<size_t>(nt) + 1, T{});
#pragma omp parallel num_threads(nt)
  {
    const int t = omp_get_thread_num();
    const int64_t lo = n * t / nt, hi = n * (t + 1) / nt;
    T s{};
    for (int64_t i = lo; i < hi; ++i) {
      s += static_cast<T>(input(i));
      out[static_cast<size_t>(i)] = s;
    }
    totals[static_cast<size_t>(t) + 1] = s;
#pragma omp barrier
#pragma omp single
    for (int k = 1; k <= nt; ++k)
      totals[static_cast<size_t>(k)] += totals[static_cast<size_t>(k) - 1];
    const T off = totals[static_cast<size_t>(t)];
    for (int64_t i = lo; i < hi; ++i)
      out[static_cast<size_t>(i)] += off;
  }
  return out;
}

}  // namespace

Check check_sum(double computed, int64_t n, int64_t depth) {
  Check c;
  const double ref = reference_sum_f32(n);
  c.depth = depth;
  c.tolerance = float_tolerance(depth);
  c.max_err = std::isfinite(computed) ? std::abs(computed - ref) / ref : INFINITY;
  c.passed = c.max_err <= c.tolerance;
  c.mismatches = c.passed ? 0 : 1;
  c.text = "rel err " + sci(c.max_err) + (c.passed ? " <= " : " > TOLERANCE ") + sci(c.tolerance) +
           " (depth " + std::to_string(depth) + ")";
  return c;
}

Check check_sum(int64_t computed, int64_t n) {
  Check c;
  const int64_t ref = reference_sum_i32(n);
  c.passed = wrap32(computed) == wrap32(ref);
  c.mismatches = c.passed ? 0 : 1;
  c.max_err = c.passed ? 0 : static_cast<double>(std::abs(int64_t{wrap32(computed)} - wrap32(ref)));
  c.text = c.passed
               ? "exact"
               : "WRONG: " + std::to_string(wrap32(computed)) + ", expected " + std::to_string(wrap32(ref));
  return c;
}

Check check_scan(std::span<const float> out, ScanKind kind, int64_t depth) {
  Check c;
  const int64_t n = static_cast<int64_t>(out.size());
  c.depth = depth;
  c.tolerance = float_tolerance(depth);
  const std::vector<double> incl =
      reference_prefix<double>(n, [](int64_t i) { return detail::input_f32(i, 1); });
  double worst = 0;
  int64_t bad = 0, first = -1;
#pragma omp parallel for schedule(static) reduction(max : worst) reduction(+ : bad) if (n > 65536)
  for (int64_t i = 0; i < n; ++i) {
    const double ref = kind == ScanKind::Inclusive ? incl[static_cast<size_t>(i)]
                                                   : (i > 0 ? incl[static_cast<size_t>(i) - 1] : 0.0);
    const double scale = incl[static_cast<size_t>(i)];  // sum of |x_j| for j <= i (every input is positive)
    const double v = out[static_cast<size_t>(i)];
    const double e = std::isfinite(v) ? std::abs(v - ref) / scale : INFINITY;
    worst = std::max(worst, e);
    if (!(e <= c.tolerance)) ++bad;
  }
  if (bad > 0)
    for (int64_t i = 0; i < n; ++i) {
      const double ref = kind == ScanKind::Inclusive ? incl[static_cast<size_t>(i)]
                                                     : (i > 0 ? incl[static_cast<size_t>(i) - 1] : 0.0);
      const double v = out[static_cast<size_t>(i)];
      if (!(std::abs(v - ref) / incl[static_cast<size_t>(i)] <= c.tolerance)) {
        first = i;
        c.text = std::to_string(bad) + " of " + std::to_string(n) + " outside rel " + sci(c.tolerance) +
                 " (depth " + std::to_string(depth) + "), first at i = " + std::to_string(i) + ": " +
                 std::to_string(v) + ", expected " + std::to_string(ref);
        break;
      }
    }
  c.max_err = worst;
  c.mismatches = bad;
  c.first_bad = first;
  c.passed = bad == 0;
  if (c.passed)
    c.text =
        "max rel err " + sci(worst) + " <= " + sci(c.tolerance) + " (depth " + std::to_string(depth) + ")";
  return c;
}

Check check_scan(std::span<const int32_t> out, ScanKind kind) {
  Check c;
  const int64_t n = static_cast<int64_t>(out.size());
  const std::vector<int64_t> incl =
      reference_prefix<int64_t>(n, [](int64_t i) { return detail::input_i32(i, 1); });
  int64_t bad = 0;
#pragma omp parallel for schedule(static) reduction(+ : bad) if (n > 65536)
  for (int64_t i = 0; i < n; ++i) {
    const int64_t ref = kind == ScanKind::Inclusive ? incl[static_cast<size_t>(i)]
                                                    : (i > 0 ? incl[static_cast<size_t>(i) - 1] : 0);
    if (out[static_cast<size_t>(i)] != wrap32(ref)) ++bad;
  }
  c.mismatches = bad;
  c.passed = bad == 0;
  c.text = "exact";
  if (bad > 0)
    for (int64_t i = 0; i < n; ++i) {
      const int64_t ref = kind == ScanKind::Inclusive ? incl[static_cast<size_t>(i)]
                                                      : (i > 0 ? incl[static_cast<size_t>(i) - 1] : 0);
      if (out[static_cast<size_t>(i)] != wrap32(ref)) {
        c.first_bad = i;
        c.text = std::to_string(bad) + " of " + std::to_string(n) +
                 " WRONG, first at i = " + std::to_string(i) + ": " +
                 std::to_string(out[static_cast<size_t>(i)]) + ", expected " + std::to_string(wrap32(ref));
        break;
      }
    }
  c.max_err = static_cast<double>(bad);
  return c;
}

}  // namespace bs::reduce
