// memory_sim.cpp: see memory_sim.h.
#include "app/memory/memory_sim.h"

#include "gpu/kernel/builtin_source.h"
#include "gpu/kernel/compiler.h"
#include "gpu/memory/memory_index.h"
#include "gpu/memory/memory_model.h"

namespace bs::memory {

namespace {

constexpr const char* k_instantiations = R"(
namespace bs::memory::kernels {
#define BS_TILES(DY)                                                                                        \
  template __global__ void copy_kernel<DY>(const float* __restrict__, float* __restrict__, int64_t, int64_t); \
  template __global__ void tiled_kernel<DY, 33>(const float* __restrict__, float* __restrict__, int64_t, int64_t);
BS_TILES(1) BS_TILES(2) BS_TILES(4) BS_TILES(8) BS_TILES(16) BS_TILES(32)
template __global__ void tiled_kernel<32, 32>(const float* __restrict__, float* __restrict__, int64_t, int64_t);
template __global__ void particles_kernel<false>(const float* __restrict__, float* __restrict__, int64_t);
template __global__ void particles_kernel<true>(const float* __restrict__, float* __restrict__, int64_t);
}
)";

// Threads times the iterations of the kernel's longest loop: the banks kernel loads k_bank_iterations times.
uint64_t thread_work(const MemoryLaunch& l, Variant v) {
  const uint64_t threads = l.cfg.grid.count() * l.cfg.block.count();
  return v == Variant::BanksPlain || v == Variant::BanksPadded ? threads * k_bank_iterations : threads;
}

}  // namespace

std::string sim_source() {
  return kernel::builtin_nvrtc_source("memory_kernels.cuh", k_instantiations);
}

MemoryLaunch sim_launch(const Params& p, Variant v) {
  MemoryLaunch l;
  const bool padded = v == Variant::TiledPadded || v == Variant::TiledPaddedMulti;
  switch (v) {
    case Variant::Naive: l.entry_part = "naive_kernel"; break;
    case Variant::Copy: l.entry_part = "copy_kernelILi" + std::to_string(p.block.y) + "E"; break;
    case Variant::Tiled:
    case Variant::TiledPadded:
    case Variant::TiledPaddedMulti:
      l.entry_part = "tiled_kernelILi" + std::to_string(v == Variant::TiledPaddedMulti ? p.block.y : 32) + "ELi" +
                     (padded ? "33" : "32") + "E";
      break;
    case Variant::Strided: l.entry_part = "strided_kernel"; break;
    case Variant::Random: l.entry_part = "random_kernel"; break;
    case Variant::BanksPlain:
    case Variant::BanksPadded: l.entry_part = "banks_kernel"; break;
    case Variant::Aos: l.entry_part = "particles_kernelILb0E"; break;
    case Variant::Soa: l.entry_part = "particles_kernelILb1E"; break;
  }
  l.data = {make_input(p, v), std::vector<float>(static_cast<size_t>(output_length(p, v)), 0.0f)};
  const Dim2 g = grid_of(p, v), b = p.block_of(v);
  l.cfg.grid = {static_cast<uint32_t>(g.x), static_cast<uint32_t>(g.y), 1};
  l.cfg.block = {static_cast<uint32_t>(b.x), static_cast<uint32_t>(b.y), 1};
  // The particle step writes 6 of a particle's 8 floats (the runner zeroes the rest): not an output every
  // element of which must be written.
  const bool whole_output = v != Variant::Aos && v != Variant::Soa;
  l.cfg.buffers = {sim::buffer_over("in", l.data[0]), sim::buffer_over("out", l.data[1], whole_output)};
  l.cfg.args = {sim::Arg::pointer(0), sim::Arg::pointer(1)};
  const auto i64 = [](int64_t x) { return sim::Arg::value<long long>(x); };
  switch (v) {  // the arguments memory_gpu.cu's launch() passes
    case Variant::Strided:
      l.cfg.args.insert(l.cfg.args.end(),
                        {i64(p.n), sim::Arg::value<int>(p.stride), i64(stride_rows(p.n, p.stride))});
      break;
    case Variant::Random: {
      const int k = random_bits(p.n);
      l.cfg.args.insert(l.cfg.args.end(), {i64(p.n), sim::Arg::value<int>(k),
                                           sim::Arg::value<unsigned long long>((uint64_t{1} << k) - 1),
                                           sim::Arg::value<uint32_t>(p.seed)});
      break;
    }
    case Variant::BanksPlain:
    case Variant::BanksPadded:
      l.cfg.args.insert(l.cfg.args.end(), {i64(p.n), sim::Arg::value<int>(p.bank_stride),
                                           sim::Arg::value<bool>(v == Variant::BanksPadded)});
      break;
    case Variant::Aos:
    case Variant::Soa: l.cfg.args.push_back(i64(p.n)); break;
    default: l.cfg.args.insert(l.cfg.args.end(), {i64(p.rows), i64(p.cols)}); break;
  }
  return l;
}

std::string entry_of(const sim::Module& m, const std::string& part) {
  for (const sim::Function& f : m.functions)
    if (f.entry && f.name.find(part) != std::string::npos) return f.name;
  return {};
}

SimulatedCounterValues simulated_values(const Params& p, Variant v) {
  SimulatedCounterValues out;
  const SimulatedCounts s = simulate_counts({{p, v}}).front();
  if (!s.counts) {
    out.note = s.message;
    return out;
  }
  const sim::MemoryCounts& c = *s.counts;
  if (c.ld_requests) out.ld_sectors_per_request = double(c.ld_sectors) / double(c.ld_requests);
  if (c.st_requests) out.st_sectors_per_request = double(c.st_sectors) / double(c.st_requests);
  out.shared_conflicts = double(c.shared_ld_conflicts + c.shared_st_conflicts);
  return out;
}

std::vector<SimulatedCounts> simulate_counts(const std::vector<std::pair<Params, Variant>>& launches) {
  std::vector<SimulatedCounts> out(launches.size());
  kernel::CompileRequest req;
  req.source = sim_source();
  const kernel::CompileResult cr = kernel::compile_kernel(req);
  if (!cr.ok()) {
    for (SimulatedCounts& s : out) s.message = "the kernels did not compile for the simulator: " + cr.message;
    return out;
  }
  const sim::Module m = sim::parse_ptx(cr.ptx);
  for (size_t i = 0; i < launches.size(); ++i) {
    const auto& [p, v] = launches[i];
    if (auto e = validate(p, v)) {
      out[i].message = *e;
      continue;
    }
    MemoryLaunch l = sim_launch(p, v);
    if (thread_work(l, v) > k_sim_max_thread_work) {
      out[i].message = "not simulated: " + std::to_string(thread_work(l, v)) +
                       " thread-iterations are above the simulator's " + std::to_string(k_sim_max_thread_work) +
                       " here (give a smaller size)";
      continue;
    }
    l.cfg.diagnostics = false;
    l.cfg.thread_stats = false;
    const sim::LaunchResult r = sim::launch(m, entry_of(m, l.entry_part), l.cfg);
    out[i].seconds = r.seconds;
    if (!r.ok) {
      out[i].message = r.failure.message;
      continue;
    }
    out[i].counts = sim::memory_counts(m, r);
  }
  return out;
}

}  // namespace bs::memory
