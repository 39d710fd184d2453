// builtin_kernels.h: the labs' own kernels compiled through NVRTC for the simulator's tests. A built-in kernel
// file (device code only: gpu/memory/memory_kernels.cuh) becomes one NVRTC source: its project includes
// inlined once each, <cstdint> replaced by the integer types (NVRTC has no C++ standard headers), plus the
// template instantiations the lab launches. Each case is one launch exactly as the lab's runner makes it (grid,
// block, arguments, the output zeroed as the runner's memset does) on the lab's inputs at sizes that are not
// multiples of the block, with the lab's CPU reference output and tolerance. sim_builtin_test.cpp runs them in
// the simulator against the reference; sim_gpu_test.cpp on the GPU against the simulator, bit for bit.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "gpu/memory/memory.h"
#include "gpu/memory/memory_index.h"
#include "gpu/memory/memory_model.h"
#include "sim/ptx.h"
#include "sim/sim.h"

namespace bs::sim::test {

// What <cstdint> gives the kernels (NVRTC's targets: long is 64 bits, as on the host).
inline constexpr const char* k_nvrtc_int_types =
    "typedef signed char int8_t;\ntypedef short int16_t;\ntypedef int int32_t;\ntypedef long long int64_t;\n"
    "typedef unsigned char uint8_t;\ntypedef unsigned short uint16_t;\ntypedef unsigned int uint32_t;\n"
    "typedef unsigned long long uint64_t;\n";

namespace detail {
inline void inline_file(const std::filesystem::path& root, const std::string& rel, std::set<std::string>& seen,
                        std::string& out) {
  if (!seen.insert(rel).second) return;  // #pragma once
  std::ifstream f(root / rel);
  if (!f) {
    ADD_FAILURE() << "cannot read " << (root / rel);
    return;
  }
  std::string line;
  while (std::getline(f, line)) {
    const size_t h = line.find_first_not_of(" \t");
    if (h != std::string::npos && line.compare(h, 12, "#pragma once") == 0) continue;
    if (h != std::string::npos && line.compare(h, 8, "#include") == 0) {
      const size_t q = line.find('"');
      if (q != std::string::npos) {
        inline_file(root, line.substr(q + 1, line.find('"', q + 1) - q - 1), seen, out);
      } else if (line.find("<cstdint>") != std::string::npos) {
        if (seen.insert("<cstdint>").second) out += k_nvrtc_int_types;
      } else {
        ADD_FAILURE() << rel << ": NVRTC has no " << line;
      }
      continue;
    }
    out += line + "\n";
  }
}
}  // namespace detail

// The project file `rel` (under BS_SOURCE_DIR) as one NVRTC source, then `extra`.
inline std::string nvrtc_source(const std::string& rel, const std::string& extra = {}) {
  std::set<std::string> seen;
  std::string out;
  detail::inline_file(BS_SOURCE_DIR, rel, seen, out);
  return out + extra;
}

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

// The launches memory_gpu.cu makes that are templates: instantiated here (the runner instantiates them by
// launching them).
inline const char* k_memory_instantiations = R"(
namespace bs::memory::kernels {
template __global__ void copy_kernel<8>(const float* __restrict__, float* __restrict__, int64_t, int64_t);
template __global__ void tiled_kernel<32, 32>(const float* __restrict__, float* __restrict__, int64_t, int64_t);
template __global__ void tiled_kernel<32, 33>(const float* __restrict__, float* __restrict__, int64_t, int64_t);
template __global__ void tiled_kernel<8, 33>(const float* __restrict__, float* __restrict__, int64_t, int64_t);
template __global__ void particles_kernel<false>(const float* __restrict__, float* __restrict__, int64_t);
template __global__ void particles_kernel<true>(const float* __restrict__, float* __restrict__, int64_t);
}
)";

inline std::string memory_source() {
  return nvrtc_source("gpu/memory/memory_kernels.cuh", k_memory_instantiations);
}

struct BuiltinCase {
  std::string label;                      // "memory tiled-padded-multi"
  std::vector<std::string> entry_parts;   // for entry_named
  std::vector<std::vector<float>> data;   // in, out (cfg.buffers point here; a case is moved, never copied)
  LaunchConfig cfg;
  std::vector<float> want;  // the lab's CPU reference output
  double rel_tol = 0;       // 0: exact
  BuiltinCase() = default;
  BuiltinCase(BuiltinCase&&) = default;
  BuiltinCase& operator=(BuiltinCase&&) = default;
};

// One launch of memory variant v for p, as GpuRunner launches it (memory_gpu.cu's launch()).
inline BuiltinCase memory_case(memory::Variant v, const memory::Params& p) {
  using memory::Variant;
  BuiltinCase c;
  c.label = std::string("memory ") + memory::to_string(v);
  if (auto e = memory::validate(p, v)) ADD_FAILURE() << c.label << ": " << *e;
  const bool padded = v == Variant::TiledPadded || v == Variant::TiledPaddedMulti;
  switch (v) {
    case Variant::Naive: c.entry_parts = {"naive_kernel"}; break;
    case Variant::Copy: c.entry_parts = {"copy_kernelILi" + std::to_string(p.block.y) + "E"}; break;
    case Variant::Tiled:
    case Variant::TiledPadded:
    case Variant::TiledPaddedMulti:
      c.entry_parts = {"tiled_kernelILi" + std::to_string(v == Variant::TiledPaddedMulti ? p.block.y : 32) +
                       "ELi" + (padded ? "33" : "32") + "E"};
      break;
    case Variant::Strided: c.entry_parts = {"strided_kernel"}; break;
    case Variant::Random: c.entry_parts = {"random_kernel"}; break;
    case Variant::BanksPlain:
    case Variant::BanksPadded: c.entry_parts = {"banks_kernel"}; break;
    case Variant::Aos: c.entry_parts = {"particles_kernelILb0E"}; break;
    case Variant::Soa: c.entry_parts = {"particles_kernelILb1E"}; break;
  }
  c.data = {memory::make_input(p, v), std::vector<float>(static_cast<size_t>(memory::output_length(p, v)), 0.0f)};
  c.want = memory::reference_output(p, v, c.data[0]);
  c.rel_tol = v == Variant::Aos || v == Variant::Soa ? memory::k_aos_rel_tol : 0.0;
  const Dim2 g = memory::grid_of(p, v), b = p.block_of(v);
  c.cfg.grid = {static_cast<uint32_t>(g.x), static_cast<uint32_t>(g.y), 1};
  c.cfg.block = {static_cast<uint32_t>(b.x), static_cast<uint32_t>(b.y), 1};
  for (int i = 0; i < 2; ++i) {
    Buffer buf;
    buf.name = i == 0 ? "in" : "out";
    buf.data = c.data[static_cast<size_t>(i)].data();
    buf.bytes = c.data[static_cast<size_t>(i)].size() * sizeof(float);
    buf.elem_bytes = sizeof(float);
    c.cfg.buffers.push_back(buf);
  }
  c.cfg.args = {Arg::pointer(0), Arg::pointer(1)};
  const auto i64 = [](int64_t x) { return Arg::value<long long>(x); };
  switch (v) {
    case Variant::Strided:
      c.cfg.args.insert(c.cfg.args.end(),
                        {i64(p.n), Arg::value<int>(p.stride), i64(memory::stride_rows(p.n, p.stride))});
      break;
    case Variant::Random: {
      const int k = memory::random_bits(p.n);
      c.cfg.args.insert(c.cfg.args.end(), {i64(p.n), Arg::value<int>(k),
                                           Arg::value<unsigned long long>((uint64_t{1} << k) - 1),
                                           Arg::value<uint32_t>(p.seed)});
      break;
    }
    case Variant::BanksPlain:
    case Variant::BanksPadded:
      c.cfg.args.insert(c.cfg.args.end(),
                        {i64(p.n), Arg::value<int>(p.bank_stride), Arg::value<bool>(v == Variant::BanksPadded)});
      break;
    case Variant::Aos:
    case Variant::Soa: c.cfg.args.push_back(i64(p.n)); break;
    default: c.cfg.args.insert(c.cfg.args.end(), {i64(p.rows), i64(p.cols)}); break;
  }
  return c;
}

// Every memory variant at sizes that are not multiples of the block: a 45 x 70 transpose (block 32 x 8),
// 1001 elements strided by 3 and gathered, 300 threads on banks at strides 32 and 2, 501 particles.
inline std::vector<BuiltinCase> memory_cases() {
  using memory::Variant;
  std::vector<BuiltinCase> out;
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
    out.push_back(memory_case(v, p));
  p.n = 300;
  for (int s : {32, 2}) {
    p.bank_stride = s;
    for (Variant v : {Variant::BanksPlain, Variant::BanksPadded}) {
      out.push_back(memory_case(v, p));
      out.back().label += ", stride " + std::to_string(s);
    }
  }
  return out;
}

}  // namespace bs::sim::test
