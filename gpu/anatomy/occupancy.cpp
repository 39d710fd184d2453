// occupancy.cpp: the occupancy model (the rules of NVIDIA's occupancy calculator, cuda_occupancy.h) and its
// architecture table. Numbers come from the CUDA C++ Programming Guide's "technical specifications per
// compute capability" table and from cuda_occupancy.h (allocation granularities, carve-out sizes).
#include "gpu/anatomy/occupancy.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <sstream>

#include "core/error.h"

namespace bs::anatomy {

namespace {

constexpr int64_t KiB = 1024;

int64_t round_up(int64_t x, int64_t unit) {
  return unit > 0 ? (x + unit - 1) / unit * unit : x;
}

std::vector<int64_t> kib_list(std::initializer_list<int64_t> kib) {
  std::vector<int64_t> out;
  for (int64_t k : kib)
    out.push_back(k * KiB);
  return out;
}

ArchSpec make_arch(const char* name, const char* family, int major, int minor, int max_threads_per_sm,
                   int max_blocks_per_sm, int64_t smem_per_sm_kib,
                   std::initializer_list<int64_t> carveouts_kib) {
  ArchSpec a;
  a.name = name;
  a.family = family;
  a.cc_major = major;
  a.cc_minor = minor;
  a.max_threads_per_sm = max_threads_per_sm;
  a.max_warps_per_sm = max_threads_per_sm / a.warp_size;
  a.max_blocks_per_sm = max_blocks_per_sm;
  a.smem_per_sm = smem_per_sm_kib * KiB;
  a.smem_carveouts = kib_list(carveouts_kib);
  if (major >= 8) {
    // Ampere on: 128-byte granularity, 1 KiB reserved per block, opt-in up to the SM's size less the
    // reservation.
    a.smem_alloc_granularity = 128;
    a.smem_reserved_per_block = 1 * KiB;
    a.smem_per_block_optin = a.smem_per_sm - a.smem_reserved_per_block;
  } else {
    // Turing: 256-byte granularity, nothing reserved, a block may opt in to the whole 64 KiB.
    a.smem_alloc_granularity = 256;
    a.smem_reserved_per_block = 0;
    a.smem_per_block_optin = a.smem_per_sm;
  }
  return a;
}

// The smallest carve-out that holds `bytes` (the largest when none does).
int64_t align_to_carveout(const ArchSpec& arch, int64_t bytes) {
  for (int64_t c : arch.smem_carveouts)
    if (c >= bytes) return c;
  return arch.smem_carveouts.empty() ? arch.smem_per_sm : arch.smem_carveouts.back();
}

std::string bytes_text(int64_t b) {
  if (b >= KiB && b % KiB == 0) return std::to_string(b / KiB) + " KiB";
  return std::to_string(b) + " B";
}

std::string limit_text(int v) {
  return v >= k_no_limit ? "no limit" : std::to_string(v);
}

std::string percent(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * f);
  return buf;
}

}  // namespace

const std::vector<ArchSpec>& arch_table() {
  // Per SM: max threads, max blocks, largest shared-memory carve-out, and the carve-outs the SM can run with.
  static const std::vector<ArchSpec> table = {
      make_arch("sm_75", "Turing", 7, 5, 1024, 16, 64, {32, 64}),
      make_arch("sm_80", "Ampere (A100)", 8, 0, 2048, 32, 164, {0, 8, 16, 32, 64, 100, 132, 164}),
      make_arch("sm_86", "Ampere (GA10x)", 8, 6, 1536, 16, 100, {0, 8, 16, 32, 64, 100}),
      make_arch("sm_89", "Ada Lovelace", 8, 9, 1536, 24, 100, {0, 8, 16, 32, 64, 100}),
      make_arch("sm_90", "Hopper", 9, 0, 2048, 32, 228, {0, 8, 16, 32, 64, 100, 132, 164, 196, 228}),
  };
  return table;
}

std::optional<ArchSpec> find_arch(std::string_view name) {
  std::string s(name);
  for (auto& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::string_view prefix : {"sm_", "compute_", "sm"})
    if (s.rfind(prefix, 0) == 0) {
      s.erase(0, prefix.size());
      break;
    }
  s.erase(std::remove(s.begin(), s.end(), '.'), s.end());
  for (const auto& a : arch_table())
    if (s == std::to_string(a.cc_major) + std::to_string(a.cc_minor)) return a;
  return std::nullopt;
}

std::string arch_names() {
  std::string out;
  for (const auto& a : arch_table())
    out += (out.empty() ? "" : ", ") + a.name;
  return out;
}

const char* limiter_label(Limiter l) {
  switch (l) {
    case Limiter::Warps:
      return "threads/warps";
    case Limiter::Registers:
      return "registers";
    case Limiter::SharedMemory:
      return "shared memory";
    case Limiter::Blocks:
      return "blocks per SM";
  }
  return "?";
}

Occupancy compute_occupancy(const ArchSpec& arch, const KernelUsage& u) {
  const int ws = arch.warp_size;
  if (u.threads_per_block < 1 || u.threads_per_block > arch.max_threads_per_block)
    throw InvalidRequest("threads per block must be 1.." + std::to_string(arch.max_threads_per_block) +
                         " on " + arch.name + " (got " + std::to_string(u.threads_per_block) + ")");
  if (u.regs_per_thread < 0 || u.regs_per_thread > arch.max_regs_per_thread)
    throw InvalidRequest("registers per thread must be 0.." + std::to_string(arch.max_regs_per_thread) +
                         " (got " + std::to_string(u.regs_per_thread) + "); the compiler never assigns more");
  if (u.static_smem < 0 || u.dynamic_smem < 0)
    throw InvalidRequest("shared memory per block cannot be negative");
  if (u.static_smem > arch.smem_per_block_default)
    throw InvalidRequest("static shared memory (__shared__ arrays) is limited to " +
                         bytes_text(arch.smem_per_block_default) + " per block (got " +
                         bytes_text(u.static_smem) + "); larger buffers must be dynamic shared memory");
  if (u.carveout_percent < -1 || u.carveout_percent > 100)
    throw InvalidRequest("the shared-memory carve-out is a percentage 0..100, or -1 for the default (got " +
                         std::to_string(u.carveout_percent) + ")");

  Occupancy o;
  const int threads = u.threads_per_block;
  o.warps_per_block = (threads + ws - 1) / ws;
  if (threads % ws != 0)
    o.notes.push_back(std::to_string(threads) + " threads is not a multiple of " + std::to_string(ws) +
                      ": the last warp has " + std::to_string(threads % ws) +
                      " active threads but takes a whole warp's slot and registers");

  // Threads/warps: whole warps are allocated, so a 48-thread block costs 2 warp slots.
  o.limit_warps = arch.max_warps_per_sm / o.warps_per_block;

  // Registers: per warp, rounded up to the allocation unit; each of the 4 sub-partitions holds a quarter of
  // the register file and whole warps only.
  o.regs_per_warp =
      static_cast<int>(round_up(static_cast<int64_t>(u.regs_per_thread) * ws, arch.reg_alloc_unit));
  o.regs_per_block = o.regs_per_warp * o.warps_per_block;
  const int subs = arch.warp_alloc_granularity;
  const int64_t regs_checked = static_cast<int64_t>(o.regs_per_warp) *
                               round_up(o.warps_per_block, subs);  // the hardware's launch check
  if (regs_checked > arch.regs_per_block || o.regs_per_block > arch.regs_per_block) {
    o.limit_regs = 0;
    o.reason = std::to_string(u.regs_per_thread) + " registers x " + std::to_string(threads) +
               " threads needs " + std::to_string(regs_checked) + " registers for one block (" +
               std::to_string(o.regs_per_warp) + " per warp x " +
               std::to_string(round_up(o.warps_per_block, subs)) + " warps, rounded up to a multiple of " +
               std::to_string(subs) + "); a block may hold at most " + std::to_string(arch.regs_per_block) +
               ": use fewer threads or limit registers (__launch_bounds__)";
  } else if (o.regs_per_warp == 0) {
    o.limit_regs = k_no_limit;
  } else {
    const int warps_per_sub = arch.regs_per_sm / subs / o.regs_per_warp;
    o.limit_regs = warps_per_sub * subs / o.warps_per_block;
  }

  // Shared memory: static + dynamic + the driver's reservation, rounded up to the granularity. The SM runs
  // with the preferred carve-out when a block fits into it, otherwise with the smallest carve-out that holds
  // a block. A block above the default 48 KiB is assumed to have opted in (as cudaOccupancy* sees it once it
  // has).
  const int64_t requested = u.static_smem + u.dynamic_smem;
  o.smem_per_block = round_up(requested + arch.smem_reserved_per_block, arch.smem_alloc_granularity);
  const int64_t preferred = u.carveout_percent < 0
                                ? align_to_carveout(arch, arch.smem_per_sm)
                                : align_to_carveout(arch, u.carveout_percent * arch.smem_per_sm / 100);
  if (o.smem_per_block > arch.smem_per_block_optin + arch.smem_reserved_per_block) {
    o.limit_smem = 0;
    o.smem_config = arch.smem_per_sm;
    const std::string r = "a block asks for " + bytes_text(requested) + " of shared memory; " + arch.name +
                          " allows at most " + bytes_text(arch.smem_per_block_optin) +
                          " per block (with opt-in)";
    if (o.reason.empty()) o.reason = r;
  } else {
    o.smem_config = preferred >= o.smem_per_block ? preferred : align_to_carveout(arch, o.smem_per_block);
    o.limit_smem = o.smem_per_block > 0 ? static_cast<int>(o.smem_config / o.smem_per_block) : k_no_limit;
    if (requested > arch.smem_per_block_default)
      o.notes.push_back(bytes_text(requested) + " of shared memory per block is above the default " +
                        bytes_text(arch.smem_per_block_default) +
                        ": the kernel must opt in with cudaFuncSetAttribute(kernel, "
                        "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)");
    if (u.carveout_percent >= 0 && o.smem_config != preferred)
      o.notes.push_back("the preferred carve-out (" + bytes_text(preferred) +
                        ") holds no block; the SM runs with " + bytes_text(o.smem_config));
  }

  o.limit_blocks = arch.max_blocks_per_sm;

  o.blocks_per_sm = std::min({o.limit_warps, o.limit_regs, o.limit_smem, o.limit_blocks});
  // Ties go to the first in the order threads/warps, registers, shared memory, blocks.
  if (o.blocks_per_sm == o.limit_warps)
    o.limiter = Limiter::Warps;
  else if (o.blocks_per_sm == o.limit_regs)
    o.limiter = Limiter::Registers;
  else if (o.blocks_per_sm == o.limit_smem)
    o.limiter = Limiter::SharedMemory;
  else
    o.limiter = Limiter::Blocks;
  o.warps_per_sm = o.blocks_per_sm * o.warps_per_block;
  o.threads_per_sm = o.blocks_per_sm * threads;
  o.occupancy = static_cast<double>(o.warps_per_sm) / arch.max_warps_per_sm;
  return o;
}

std::vector<CurvePoint> occupancy_curve(const ArchSpec& arch, const KernelUsage& usage, int step) {
  if (step < 1) throw InvalidRequest("the block-size step must be at least 1");
  std::vector<CurvePoint> out;
  KernelUsage u = usage;
  for (int t = step; t <= arch.max_threads_per_block; t += step) {
    u.threads_per_block = t;
    out.push_back({t, compute_occupancy(arch, u)});
  }
  return out;
}

std::string describe_arch(const ArchSpec& a) {
  std::ostringstream s;
  s << a.name << " (" << a.family << ", compute capability " << a.cc_major << "." << a.cc_minor
    << "): per SM " << a.max_threads_per_sm << " threads (" << a.max_warps_per_sm << " warps), "
    << a.max_blocks_per_sm << " blocks, " << a.regs_per_sm << " registers, " << bytes_text(a.smem_per_sm)
    << " shared memory (carve-outs";
  for (size_t i = 0; i < a.smem_carveouts.size(); ++i)
    s << (i ? ", " : " ") << a.smem_carveouts[i] / KiB;
  s << " KiB); per block " << bytes_text(a.smem_per_block_default) << " shared memory by default, "
    << bytes_text(a.smem_per_block_optin) << " with opt-in";
  if (a.smem_reserved_per_block)
    s << ", " << bytes_text(a.smem_reserved_per_block) << " reserved by the driver";
  return s.str();
}

std::string format_occupancy(const ArchSpec& a, const KernelUsage& u, const Occupancy& o) {
  std::ostringstream s;
  s << "Occupancy of " << a.name << " (" << a.family << ")"
    << (a.from_device ? ", limits read from the device" : ", limits from the architecture table") << "\n";
  if (!a.note.empty()) s << "  note: " << a.note << "\n";
  s << "  block: " << u.threads_per_block << " threads = " << o.warps_per_block << " warps, "
    << u.regs_per_thread << " registers/thread, shared memory " << bytes_text(u.static_smem) << " static + "
    << bytes_text(u.dynamic_smem) << " dynamic\n";
  s << "  allocated per block: " << o.regs_per_block << " registers (" << o.regs_per_warp << " per warp), "
    << bytes_text(o.smem_per_block) << " shared memory";
  if (a.smem_reserved_per_block) s << " (incl. " << bytes_text(a.smem_reserved_per_block) << " reserved)";
  s << "\n  blocks per SM allowed by\n";
  s << "    threads/warps:  " << limit_text(o.limit_warps) << "  (" << a.max_warps_per_sm
    << " warps per SM / " << o.warps_per_block << " per block)\n";
  s << "    registers:      " << limit_text(o.limit_regs);
  if (o.regs_per_warp > 0 && o.limit_regs > 0) {
    const int subs = a.warp_alloc_granularity;
    s << "  (" << a.regs_per_sm / subs << " per sub-partition / " << o.regs_per_warp
      << " per warp = " << a.regs_per_sm / subs / o.regs_per_warp << " warps x " << subs
      << " sub-partitions / " << o.warps_per_block << " per block)";
  }
  s << "\n    shared memory:  " << limit_text(o.limit_smem);
  if (o.smem_per_block > 0 && o.limit_smem > 0)
    s << "  (" << bytes_text(o.smem_config) << " carve-out / " << bytes_text(o.smem_per_block)
      << " per block)";
  s << "\n    blocks per SM:  " << o.limit_blocks << "\n";
  s << "  resident per SM: " << o.blocks_per_sm << (o.blocks_per_sm == 1 ? " block, " : " blocks, ")
    << o.warps_per_sm << " of " << a.max_warps_per_sm << " warps (" << o.threads_per_sm << " threads)\n";
  s << "  theoretical occupancy: " << percent(o.occupancy) << "\n";
  s << "  limited by: " << limiter_label(o.limiter) << "\n";
  if (o.blocks_per_sm == 0) s << "  cannot launch: " << o.reason << "\n";
  for (const auto& n : o.notes)
    s << "  note: " << n << "\n";
  if (!a.from_device)
    s << "  (a model of the occupancy calculator's rules, not a measurement; run with --arch device on a "
         "GPU)\n";
  return s.str();
}

std::string format_curve(const ArchSpec& a, const KernelUsage& u, const std::vector<CurvePoint>& curve) {
  std::ostringstream s;
  s << "Occupancy vs block size on " << a.name << ", " << u.regs_per_thread << " registers/thread, "
    << bytes_text(u.static_smem + u.dynamic_smem) << " shared memory/block\n";
  char line[128];
  std::snprintf(line, sizeof line, "%8s %6s %10s %9s %10s  %s\n", "threads", "warps", "blocks/SM", "warps/SM",
                "occupancy", "limited by");
  s << line;
  for (const auto& p : curve) {
    std::snprintf(line, sizeof line, "%8d %6d %10d %9d %10s  %s\n", p.threads, p.occ.warps_per_block,
                  p.occ.blocks_per_sm, p.occ.warps_per_sm, percent(p.occ.occupancy).c_str(),
                  limiter_label(p.occ.limiter));
    s << line;
  }
  return s.str();
}

std::optional<int64_t> parse_bytes(std::string_view text) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || v < 0) return std::nullopt;
  std::string_view suffix(p, static_cast<size_t>(end - p));
  if (suffix.empty() || suffix == "B" || suffix == "b") return v;
  if (suffix == "K" || suffix == "k" || suffix == "KiB" || suffix == "KB" || suffix == "kB") {
    if (v > (int64_t{1} << 40)) return std::nullopt;
    return v * KiB;
  }
  return std::nullopt;
}

}  // namespace bs::anatomy
