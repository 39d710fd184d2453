// memory_trace.cpp: sector, line and bank arithmetic of one warp instruction (see memory_trace.h).
#include "ui/memory/memory_trace.h"

#include <algorithm>
#include <map>
#include <set>

namespace bs::memory {

int MemoryOp::active_lanes() const {
  int n = 0;
  for (const LaneAccess& l : lanes)
    n += l.active ? 1 : 0;
  return n;
}

double GlobalCount::efficiency() const {
  return bytes_moved > 0 ? static_cast<double>(bytes_used) / static_cast<double>(bytes_moved) : 0.0;
}

GlobalCount count_global(const MemoryOp& op) {
  GlobalCount c;
  std::set<uint64_t> sectors, lines;
  const uint64_t width = static_cast<uint64_t>(std::max(op.bytes, 1));
  for (const LaneAccess& l : op.lanes) {
    if (!l.active) continue;
    ++c.active_lanes;
    c.bytes_used += static_cast<int64_t>(width);
    // A lane's access may straddle sectors (a misaligned 16-byte access); every sector it touches counts.
    for (uint64_t s = l.address / k_sector_bytes; s <= (l.address + width - 1) / k_sector_bytes; ++s)
      sectors.insert(s);
    for (uint64_t s = l.address / k_line_bytes; s <= (l.address + width - 1) / k_line_bytes; ++s)
      lines.insert(s);
  }
  c.sectors.assign(sectors.begin(), sectors.end());
  c.lines.assign(lines.begin(), lines.end());
  c.bytes_moved = static_cast<int64_t>(c.sectors.size()) * k_sector_bytes;
  for (int i = 0; i < k_warp_size; ++i) {
    const LaneAccess& l = op.lanes[static_cast<size_t>(i)];
    c.lane_sector[static_cast<size_t>(i)] = -1;
    c.lane_line[static_cast<size_t>(i)] = -1;
    if (!l.active) continue;
    c.lane_sector[static_cast<size_t>(i)] = static_cast<int>(
        std::lower_bound(c.sectors.begin(), c.sectors.end(), l.address / k_sector_bytes) - c.sectors.begin());
    c.lane_line[static_cast<size_t>(i)] = static_cast<int>(
        std::lower_bound(c.lines.begin(), c.lines.end(), l.address / k_line_bytes) - c.lines.begin());
  }
  return c;
}

SharedCount count_shared(const MemoryOp& op) {
  SharedCount c;
  c.lane_bank.fill(-1);
  c.words_in_bank.fill(0);
  const int width = std::clamp(op.bytes, 1, 16);
  const int words_per_lane = std::max(1, (width + k_bank_bytes - 1) / k_bank_bytes);
  // A warp's request is served in phases so that one phase asks for at most 128 bytes (32 banks x 4 bytes):
  // 4-byte accesses in one phase, 8-byte ones per half-warp, 16-byte ones per quarter-warp.
  const int phases = words_per_lane >= 4 ? 4 : words_per_lane >= 2 ? 2 : 1;
  const int lanes_per_phase = k_warp_size / phases;
  std::map<uint64_t, int> readers;  // word -> lanes asking for it (across the warp)
  for (int p = 0; p < phases; ++p) {
    std::array<std::set<uint64_t>, k_bank_count> words;  // distinct words per bank in this phase
    bool any = false;
    for (int i = p * lanes_per_phase; i < (p + 1) * lanes_per_phase; ++i) {
      const LaneAccess& l = op.lanes[static_cast<size_t>(i)];
      if (!l.active) continue;
      any = true;
      if (p == 0 || c.lane_bank[static_cast<size_t>(i)] < 0)
        c.lane_bank[static_cast<size_t>(i)] = bank_of(l.address);
      for (int w = 0; w < words_per_lane; ++w) {
        const uint64_t word = l.address / k_bank_bytes + static_cast<uint64_t>(w);
        words[static_cast<size_t>(word % k_bank_count)].insert(word);
        ++readers[word];
      }
    }
    int degree = 0;
    for (int b = 0; b < k_bank_count; ++b) {
      const int n = static_cast<int>(words[static_cast<size_t>(b)].size());
      degree = std::max(degree, n);
      c.words_in_bank[static_cast<size_t>(b)] = std::max(c.words_in_bank[static_cast<size_t>(b)], n);
    }
    c.conflict_degree = std::max(c.conflict_degree, degree);
    if (any) {
      c.wavefronts += degree;
      c.extra_wavefronts += degree - 1;
    }
  }
  for (const LaneAccess& l : op.lanes)
    c.active_lanes += l.active ? 1 : 0;
  for (const auto& [word, n] : readers)
    if (n > 1) c.broadcast = true;
  return c;
}

namespace {
std::string plural(int n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}
}  // namespace

OpSummary summarize(const MemoryOp& op) {
  OpSummary s;
  s.active_lanes = op.active_lanes();
  if (s.active_lanes == 0) {
    s.text = "no active lanes: this warp does not run this instruction";
    return s;
  }
  if (op.space == Space::Global) {
    const GlobalCount g = count_global(op);
    s.sectors = static_cast<int>(g.sectors.size());
    s.lines = static_cast<int>(g.lines.size());
    s.efficiency = g.efficiency();
    s.text = plural(s.sectors, "sector", "sectors") + ", " + plural(s.lines, "line", "lines") + ", " +
             std::to_string(static_cast<int>(s.efficiency * 100 + 0.5)) + "% of the moved bytes used";
  } else {
    const SharedCount sh = count_shared(op);
    s.conflict_degree = sh.conflict_degree;
    s.wavefronts = sh.wavefronts;
    if (sh.conflict_degree <= 1)
      s.text = std::string("no bank conflict") + (sh.broadcast ? " (shared words broadcast)" : "") + ": " +
               plural(sh.wavefronts, "pass", "passes");
    else
      s.text = std::to_string(sh.conflict_degree) +
               "-way bank conflict: " + plural(sh.wavefronts, "pass", "passes") + " instead of " +
               std::to_string(sh.wavefronts - sh.extra_wavefronts);
  }
  return s;
}

}  // namespace bs::memory
