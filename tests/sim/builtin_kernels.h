// builtin_kernels.h: the labs' own kernels compiled through NVRTC for the simulator's tests. A built-in kernel
// file (device code only: gpu/memory/memory_kernels.cuh, gpu/reduce/reduce_bodies.cuh) becomes one NVRTC source
// (gpu/kernel/builtin_source.h: the embedded files, includes inlined), plus the template instantiations the lab
// launches. Each case is one launch exactly as the lab's runner makes it (grid,
// block, arguments, the output zeroed as the runner's memset does) on the lab's inputs at sizes that are not
// multiples of the block, with the lab's CPU reference output and tolerance. sim_builtin_test.cpp runs them in
// the simulator against the reference; sim_gpu_test.cpp on the GPU against the simulator, bit for bit.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "app/memory/memory_sim.h"
#include "assets/embedded.h"
#include "gpu/kernel/builtin_source.h"
#include "gpu/memory/memory.h"
#include "gpu/memory/memory_index.h"
#include "gpu/memory/memory_model.h"
#include "gpu/reduce/reduce.h"
#include "sim/ptx.h"
#include "sim/sim.h"

namespace bs::sim::test {

// The .entry of `m` whose (mangled) name contains every part; empty when none does.
inline std::string entry_named(const Module& m, std::initializer_list<std::string_view> parts) {
  for (const Function& f : m.functions) {
    if (!f.entry) continue;
    bool all = true;
    for (std::string_view p : parts) all = all && f.name.find(p) != std::string::npos;
    if (all) return f.name;
  }
  return {};
}

// --- The memory lab -------------------------------------------------------------------------------------

inline std::string memory_source() { return memory::sim_source(); }

// One launch of a built-in kernel on its buffers (4-byte words: floats or ints).
struct BuiltinCase {
  std::string label;                         // "memory tiled-padded-multi"
  std::vector<std::string> entry_parts;      // for entry_named
  std::vector<std::vector<uint32_t>> data;   // the buffers (cfg.buffers point here; moved, never copied)
  LaunchConfig cfg;
  std::vector<float> want;  // memory: the lab's CPU reference output
  double rel_tol = 0;       // 0: exact
  BuiltinCase() = default;
  BuiltinCase(BuiltinCase&&) = default;
  BuiltinCase& operator=(BuiltinCase&&) = default;
  // Adds a buffer holding `v`'s bits (float or int32) and returns its index.
  template <class T>
  int add(const char* name, const std::vector<T>& v, bool output = false) {
    static_assert(sizeof(T) == 4);
    data.emplace_back(v.size());
    std::memcpy(data.back().data(), v.data(), v.size() * 4);
    Buffer b;
    b.name = name;
    b.data = data.back().data();
    b.bytes = v.size() * 4;
    b.elem_bytes = 4;
    b.output = output;
    cfg.buffers.push_back(b);
    return static_cast<int>(cfg.buffers.size()) - 1;
  }
  // Buffer i as T.
  template <class T>
  std::vector<T> as(size_t i) const {
    std::vector<T> v(data[i].size());
    std::memcpy(v.data(), data[i].data(), v.size() * 4);
    return v;
  }
};

// One launch of memory variant v for p, as GpuRunner launches it (memory::sim_launch), with the lab's CPU
// reference output and tolerance.
inline BuiltinCase memory_case(memory::Variant v, const memory::Params& p) {
  using memory::Variant;
  BuiltinCase c;
  c.label = std::string("memory ") + memory::to_string(v);
  if (auto e = memory::validate(p, v)) ADD_FAILURE() << c.label << ": " << *e;
  memory::MemoryLaunch l = memory::sim_launch(p, v);
  c.entry_parts = {l.entry_part};
  c.cfg = l.cfg;
  c.cfg.buffers.clear();
  c.add("in", l.data[0]);
  c.add("out", l.data[1], l.cfg.buffers[1].output);
  c.want = memory::reference_output(p, v, l.data[0]);
  c.rel_tol = v == Variant::Aos || v == Variant::Soa ? memory::k_aos_rel_tol : 0.0;
  return c;
}

// Every memory variant at sizes that are not multiples of the block: a 45 x 70 transpose (block 32 x 8),
// 1001 elements strided by 3 and gathered, 501 particles, 300 threads on banks at strides 32, 2, 1, 8 and 31.
struct MemoryCase {
  memory::Variant v;
  memory::Params p;
};
inline std::vector<MemoryCase> memory_case_params() {
  using memory::Variant;
  std::vector<MemoryCase> out;
  memory::Params p;
  p.rows = 45;
  p.cols = 70;
  p.block = {32, 8};
  p.n = 1001;
  p.stride = 3;
  p.threads = 128;
  p.seed = 7;
  for (Variant v : {Variant::Copy, Variant::Naive, Variant::Tiled, Variant::TiledPadded, Variant::TiledPaddedMulti,
                    Variant::Strided, Variant::Random, Variant::Aos, Variant::Soa})
    out.push_back({v, p});
  p.n = 300;
  for (int s : {32, 2, 1, 8, 31}) {
    p.bank_stride = s;
    for (Variant v : {Variant::BanksPlain, Variant::BanksPadded}) out.push_back({v, p});
  }
  return out;
}

inline std::vector<BuiltinCase> memory_cases() {
  std::vector<BuiltinCase> out;
  for (const MemoryCase& mc : memory_case_params()) {
    out.push_back(memory_case(mc.v, mc.p));
    if (mc.v == memory::Variant::BanksPlain || mc.v == memory::Variant::BanksPadded)
      out.back().label += ", stride " + std::to_string(mc.p.bank_stride);
  }
  return out;
}

// --- The reduction lab ----------------------------------------------------------------------------------

// reduce_bodies.cuh's kernels for int32 and float, as reduce_gpu.cu instantiates them by launching them.
inline const char* k_reduce_instantiations = R"(
namespace bs::reduce::kernels {
#define BS_IN const T* __restrict__ in, T* __restrict__ out
#define BS_ALL(T)                                                                                     \
  template __global__ void k_interleaved_divergent<T>(BS_IN, int64_t);                               \
  template __global__ void k_interleaved_bank<T>(BS_IN, int64_t);                                    \
  template __global__ void k_sequential<T>(BS_IN, int64_t);                                          \
  template __global__ void k_first_add<T>(BS_IN, int64_t);                                           \
  template __global__ void k_unroll_last_warp<T>(BS_IN, int64_t);                                    \
  template __global__ void k_complete_unroll<256u, T>(BS_IN, int64_t);                               \
  template __global__ void k_grid_stride<256u, T>(BS_IN, int64_t);                                   \
  template __global__ void k_shuffle<T, false>(BS_IN, int64_t);                                      \
  template __global__ void k_hillis_steele<T>(BS_IN, int, bool);                                     \
  template __global__ void k_blelloch<T>(BS_IN, int, int, bool);                                     \
  template __global__ void k_tile_scan<T>(BS_IN, int64_t, T* __restrict__, bool, bool);              \
  template __global__ void k_add_offsets<T>(T* __restrict__, int64_t, const T* __restrict__);
#define T int32_t
BS_ALL(int32_t)
#undef T
#define T float
BS_ALL(float)
#undef T
}
)";

inline std::string reduce_source() {
  return kernel::builtin_nvrtc_source("reduce_bodies.cuh", k_reduce_instantiations);
}

// The lab's inputs (reduce.h: ints in -7..7, floats in [0.5, 1.5), seed 1).
template <class T>
std::vector<T> reduce_input(int64_t n) {
  std::vector<T> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, float>)
      v[static_cast<size_t>(i)] = reduce::input_f32(i);
    else
      v[static_cast<size_t>(i)] = reduce::input_i32(i);
  }
  return v;
}

template <class T>
std::string type_code() {
  return std::is_same_v<T, float> ? "f" : "i";
}

// The reduction ladder, one pass as the runner launches it: each block's partial sum in out[blockIdx.x].
struct LadderKernel {
  const char* name;       // the mangled prefix; the type code follows
  const char* after;      // what follows the type code in the mangled name
  int per_thread;         // elements per thread of a covering grid
  bool dynamic_smem;      // launched with blockDim.x * sizeof(T) of dynamic shared memory
  int fixed_grid;         // 0: covering grid
};
inline constexpr LadderKernel k_ladder[] = {
    {"k_interleaved_divergentI", "E", 1, true, 0}, {"k_interleaved_bankI", "E", 1, true, 0},
    {"k_sequentialI", "E", 1, true, 0},            {"k_first_addI", "E", 2, true, 0},
    {"k_unroll_last_warpI", "E", 2, true, 0},      {"k_complete_unrollILj256E", "E", 2, false, 0},
    {"k_grid_strideILj256E", "E", 2, false, 7},    {"k_shuffleI", "Lb0EE", 1, false, 7},
};

template <class T>
BuiltinCase ladder_case(const LadderKernel& k, int64_t n) {
  constexpr int b = 256;
  BuiltinCase c;
  c.label = std::string("reduce ") + k.name + type_code<T>();
  c.entry_parts = {k.name + type_code<T>() + k.after};
  const int64_t grid = k.fixed_grid ? k.fixed_grid : (n + b * k.per_thread - 1) / (b * k.per_thread);
  c.cfg.grid = {static_cast<uint32_t>(grid), 1, 1};
  c.cfg.block = {b, 1, 1};
  c.cfg.dynamic_shared_bytes = k.dynamic_smem ? b * sizeof(T) : 0;
  c.add("in", reduce_input<T>(n));
  c.add("out", std::vector<T>(static_cast<size_t>(grid), T(0)), true);
  c.cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::value<long long>(n)};
  return c;
}

// A block scan of n elements: Hillis-Steele (block 256, two buffers of it in shared memory) or Blelloch (m the
// power of two >= n, block m / 2, m + m/32 + 1 padded words).
template <class T>
BuiltinCase block_scan_case(bool blelloch, int n, bool exclusive) {
  BuiltinCase c;
  c.label = std::string("reduce ") + (blelloch ? "blelloch" : "hillis-steele") + type_code<T>() +
            (exclusive ? " exclusive" : " inclusive");
  c.entry_parts = {std::string(blelloch ? "k_blellochI" : "k_hillis_steeleI") + type_code<T>() + "E"};
  int m = 2;
  while (m < n) m *= 2;
  const int b = blelloch ? m / 2 : 256;
  c.cfg.grid = {1, 1, 1};
  c.cfg.block = {static_cast<uint32_t>(b), 1, 1};
  c.cfg.dynamic_shared_bytes = static_cast<uint32_t>((blelloch ? m + m / 32 + 1 : 2 * b) * sizeof(T));
  c.add("in", reduce_input<T>(n));
  c.add("out", std::vector<T>(static_cast<size_t>(n), T(0)), true);
  c.cfg.args = {Arg::pointer(0), Arg::pointer(1), Arg::value<int>(n)};
  if (blelloch) c.cfg.args.push_back(Arg::value<int>(m));
  c.cfg.args.push_back(Arg::value<bool>(exclusive));
  return c;
}

// The launch shared by the tile scan and the look-back scan: one block of b threads per tile of b x 32
// elements, shared memory for the transposed load where `transpose`, buffers "in" (0) and "out" (1). Returns the
// number of tiles.
template <class T>
int64_t add_scan_tiles(BuiltinCase& c, int64_t n, int b, bool transpose) {
  const int64_t tile = int64_t{b} * 32, tiles = (n + tile - 1) / tile;
  c.cfg.grid = {static_cast<uint32_t>(tiles), 1, 1};
  c.cfg.block = {static_cast<uint32_t>(b), 1, 1};
  c.cfg.dynamic_shared_bytes = transpose ? static_cast<uint32_t>(reduce::tile_scan_smem_bytes(b)) : 0;
  c.add("in", reduce_input<T>(n));
  c.add("out", std::vector<T>(static_cast<size_t>(n), T(0)), true);
  return tiles;
}

// The tile scan's first pass: each block scans its tile of blockDim.x * 32 elements and writes the tile's total
// to sums (transpose: through shared memory, tile_scan_smem_bytes).
template <class T>
BuiltinCase tile_scan_case(int64_t n, int b, bool exclusive, bool transpose) {
  BuiltinCase c;
  c.label = std::string("reduce tile scan ") + type_code<T>() + (transpose ? " transposed" : "");
  // NVRTC writes the first 16 bytes of each thread's vec4 stores as four st.global.f32 at +0..+12 of one
  // register (the other seven as st.global.v4); ptxas makes them one STG.128, as the v4 stores at +16...
  // prove the alignment. The simulator counts them so (fuse_adjacent_stores), and the counts equal CUPTI's.
  c.entry_parts = {"k_tile_scanI" + type_code<T>() + "E"};
  const int64_t tiles = add_scan_tiles<T>(c, n, b, transpose);
  c.add("sums", std::vector<T>(static_cast<size_t>(tiles), T(0)), true);
  c.cfg.args = {Arg::pointer(0), Arg::pointer(1),       Arg::value<long long>(n),
                Arg::pointer(2), Arg::value<bool>(exclusive), Arg::value<bool>(transpose)};
  return c;
}

// Its second pass: tile t's elements plus offsets[t] (the exclusive scan of the tiles' totals).
template <class T>
BuiltinCase add_offsets_case(std::vector<T> out, int b, std::vector<T> offsets) {
  BuiltinCase c;
  c.label = "reduce add offsets " + type_code<T>();
  c.entry_parts = {"k_add_offsetsI" + type_code<T>() + "E"};
  c.cfg.grid = {static_cast<uint32_t>(offsets.size()), 1, 1};
  c.cfg.block = {static_cast<uint32_t>(b), 1, 1};
  const auto n = static_cast<long long>(out.size());
  c.add("out", out);  // updated in place, tile 0 untouched: not an output the simulator checks for writes
  c.add("offsets", offsets);
  c.cfg.args = {Arg::pointer(0), Arg::value<long long>(n), Arg::pointer(1)};
  return c;
}

// The decoupled look-back scan (gpu/reduce/reduce_kernels.cuh's lookback_body, as embedded: the lab's own text)
// through NVRTC with the toolkit's libcu++ headers (<cuda/atomic>: cuda::atomic_ref's relaxed loads and stores
// become ld/st.relaxed.gpu), wrapped as reduce_gpu.cu wraps it. Empty (and a test failure) where the embedded
// file has lost its markers.
inline std::string lookback_source() {
  const std::string_view text = embedded::find("reduce_kernels.cuh");
  const size_t a = text.find("// The decoupled look-back scan");
  const size_t b = text.rfind("}  // namespace bs::reduce::kernels");
  if (a == std::string_view::npos || b == std::string_view::npos || b < a) {
    ADD_FAILURE() << "reduce_kernels.cuh: the look-back scan's text was not found";
    return {};
  }
  return "#include <cuda/atomic>\n" + kernel::builtin_nvrtc_source("reduce_bodies.cuh") +
         "namespace bs::reduce::kernels {\n" + std::string(text.substr(a, b - a)) +
         R"(template <class T>
__global__ void __launch_bounds__(1024)
    k_lookback(const T* __restrict__ in, T* __restrict__ out, int64_t n, bool exclusive, bool transpose,
               unsigned long long* __restrict__ state, unsigned* __restrict__ counter) {
  lookback_body<T>(in, out, n, exclusive, transpose, state, counter);
}
template __global__ void k_lookback<int32_t>(const int32_t* __restrict__, int32_t* __restrict__, int64_t, bool,
                                             bool, unsigned long long* __restrict__, unsigned* __restrict__);
template __global__ void k_lookback<float>(const float* __restrict__, float* __restrict__, int64_t, bool, bool,
                                           unsigned long long* __restrict__, unsigned* __restrict__);
}
)";
}

// One look-back launch as the runner launches it: a tile of b x k_items elements per block, the tiles' states
// and the tile counter zeroed, shared memory for the transposed load where `transpose`.
template <class T>
BuiltinCase lookback_case(int64_t n, int b, bool exclusive, bool transpose) {
  BuiltinCase c;
  c.label = std::string("reduce look-back ") + type_code<T>() + (exclusive ? " exclusive" : " inclusive") +
            (transpose ? " transposed" : "");
  c.entry_parts = {"k_lookbackI" + type_code<T>() + "E"};
  const int64_t tiles = add_scan_tiles<T>(c, n, b, transpose);
  c.add("state", std::vector<uint32_t>(static_cast<size_t>(2 * tiles), 0u));  // unsigned long long per tile
  c.add("counter", std::vector<uint32_t>(1, 0u));
  c.cfg.args = {Arg::pointer(0),           Arg::pointer(1),           Arg::value<long long>(n),
                Arg::value<bool>(exclusive), Arg::value<bool>(transpose), Arg::pointer(2),
                Arg::pointer(3)};
  return c;
}

}  // namespace bs::sim::test
