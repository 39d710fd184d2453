// memory_trace.cpp: the picture's details of a warp's instructions (see memory_trace.h).
#include "ui/memory/memory_trace.h"

#include <algorithm>
#include <map>
#include <set>

namespace bs::memory {

double GlobalDetail::efficiency() const {
  return bytes_moved > 0 ? static_cast<double>(bytes_used) / static_cast<double>(bytes_moved) : 0.0;
}

GlobalDetail global_detail(const WarpAccess& a) {
  GlobalDetail d;
  std::set<int64_t> sectors, lines;
  for (const LaneAccess& l : a.lanes) {
    if (!l.active) continue;
    ++d.active_lanes;
    d.bytes_used += 4;  // every access of the lab's kernels is one float
    sectors.insert(sector_of(l));
    lines.insert(line_of(l));
  }
  d.sectors.assign(sectors.begin(), sectors.end());
  d.lines.assign(lines.begin(), lines.end());
  d.bytes_moved = static_cast<int64_t>(d.sectors.size()) * k_sector_bytes;
  for (size_t i = 0; i < a.lanes.size(); ++i) {
    const LaneAccess& l = a.lanes[i];
    d.lane_sector[i] = d.lane_line[i] = -1;
    if (!l.active) continue;
    d.lane_sector[i] = static_cast<int>(std::lower_bound(d.sectors.begin(), d.sectors.end(), sector_of(l)) -
                                        d.sectors.begin());
    d.lane_line[i] =
        static_cast<int>(std::lower_bound(d.lines.begin(), d.lines.end(), line_of(l)) - d.lines.begin());
  }
  return d;
}

SharedDetail shared_detail(const WarpAccess& a) {
  SharedDetail d;
  d.lane_bank.fill(-1);
  d.words_in_bank.fill(0);
  std::array<std::set<int64_t>, k_banks> words;
  std::map<int64_t, int> readers;
  for (size_t i = 0; i < a.lanes.size(); ++i) {
    const LaneAccess& l = a.lanes[i];
    if (!l.active) continue;
    ++d.active_lanes;
    const int b = bank_of_word(l.element);
    d.lane_bank[i] = b;
    words[static_cast<size_t>(b)].insert(l.element);
    ++readers[l.element];
  }
  for (int b = 0; b < k_banks; ++b) {
    d.words_in_bank[static_cast<size_t>(b)] = static_cast<int>(words[static_cast<size_t>(b)].size());
    d.conflict_degree = std::max(d.conflict_degree, d.words_in_bank[static_cast<size_t>(b)]);
  }
  d.wavefronts = d.conflict_degree;
  for (const auto& [word, n] : readers)
    if (n > 1) d.broadcast = true;
  return d;
}

namespace {
std::string plural(int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}
}  // namespace

OpSummary summarize(const WarpAccess& a) {
  OpSummary s;
  for (const LaneAccess& l : a.lanes)
    s.active_lanes += l.active ? 1 : 0;
  if (s.active_lanes == 0) {
    s.text = "no active lane: this warp skips the instruction (its indices are past the end of the data)";
    return s;
  }
  if (a.space == Space::Global) {
    const GlobalDetail g = global_detail(a);
    s.sectors = static_cast<int>(g.sectors.size());
    s.lines = static_cast<int>(g.lines.size());
    s.efficiency = g.efficiency();
    s.text = plural(s.sectors, "sector", "sectors") + " in " + plural(s.lines, "line", "lines") + ": " +
             std::to_string(static_cast<int>(s.efficiency * 100 + 0.5)) + "% of the moved bytes used";
  } else {
    const SharedDetail sh = shared_detail(a);
    s.conflict_degree = sh.conflict_degree;
    s.wavefronts = sh.wavefronts;
    if (sh.conflict_degree <= 1)
      s.text = std::string("no bank conflict: 1 pass") +
               (sh.broadcast ? " (lanes reading the same word share it: a broadcast)" : "");
    else
      s.text = std::to_string(sh.conflict_degree) +
               "-way bank conflict: " + plural(sh.wavefronts, "pass", "passes") +
               " through the banks instead of 1";
  }
  if (s.active_lanes < k_warp)
    s.text += "; " + plural(k_warp - s.active_lanes, "lane", "lanes") + " inactive";
  return s;
}

const char* buffer_name(Buffer b) {
  switch (b) {
    case Buffer::In:
      return "in";
    case Buffer::Out:
      return "out";
    case Buffer::Tile:
      return "shared";
  }
  return "?";
}

std::string op_title(const WarpAccess& a) {
  return std::string(a.space == Space::Global ? "global " : "shared ") + (a.store ? "store " : "load ") +
         a.text;
}

BufferView buffer_view(const Params& p, Variant v, Buffer b) {
  BufferView bv;
  bv.buffer = b;
  const Kernel k = kernel_of(v);
  if (b == Buffer::Tile) {
    bv.length = k == Kernel::Banks ? bank_words(p.bank_stride, v == Variant::BanksPadded)
                                   : static_cast<int64_t>(k_tile) * tile_pitch(v != Variant::Tiled);
    bv.width = k_banks;
    bv.title =
        "shared array: " + std::to_string(bv.length) + " words, 32 banks side by side (a column is a bank)";
    return bv;
  }
  bv.length = b == Buffer::In ? input_length(p, v) : output_length(p, v);
  if (k == Kernel::Transpose) {
    const int64_t r = b == Buffer::In ? p.rows : p.cols, c = b == Buffer::In ? p.cols : p.rows;
    bv.width = c;
    bv.title = std::string(buffer_name(b)) + ": " + shape_text(r, c) + " floats";
  } else {
    bv.width = 32;
    bv.title =
        std::string(buffer_name(b)) + ": " + format_count(bv.length) + " floats, a row is one 128-byte line";
  }
  return bv;
}

namespace {
WarpId warp_of_thread(const Params& p, int64_t t) {
  WarpId w;
  w.bx = t / p.threads;
  w.warp = static_cast<int>((t % p.threads) / k_warp);
  return w;
}
}  // namespace

std::optional<WarpId> warp_at(const Params& p, Variant v, Buffer b, int64_t e) {
  const BufferView bv = buffer_view(p, v, b);
  if (e < 0 || e >= bv.length || b == Buffer::Tile) return std::nullopt;
  switch (kernel_of(v)) {
    case Kernel::Transpose:
      if (b == Buffer::In) return warp_reading(p, v, e);
      return warp_reading(p, v, (e % p.rows) * p.cols + e / p.rows);  // out[c][r] is in[r][c]
    case Kernel::Stride:
      if (b == Buffer::In) return warp_reading(p, v, e);
      if (v == Variant::Random) return warp_of_thread(p, e);  // out[t] by thread t
      {
        // out[col * rows + row] is written by the thread of grid row `col`, element row `row`.
        const int64_t rows = stride_rows(p.n, p.stride);
        WarpId w;
        w.bx = (e % rows) / p.threads;
        w.by = e / rows;
        w.warp = static_cast<int>(((e % rows) % p.threads) / k_warp);
        return w;
      }
    case Kernel::Banks:
      return b == Buffer::Out ? std::optional<WarpId>(warp_of_thread(p, e)) : std::nullopt;
    case Kernel::Aos:
      return warp_reading(p, v, v == Variant::Aos ? e / k_particle_fields : e % std::max<int64_t>(p.n, 1));
  }
  return std::nullopt;
}

WarpId clamp_warp(const Params& p, Variant v, WarpId w) {
  const Dim2 g = grid_of(p, v);
  w.bx = std::clamp<int64_t>(w.bx, 0, std::max<int64_t>(g.x - 1, 0));
  w.by = std::clamp<int64_t>(w.by, 0, std::max<int64_t>(g.y - 1, 0));
  w.warp = std::clamp(w.warp, 0, std::max(warps_per_block(p, v) - 1, 0));
  return w;
}

WarpTrace trace_warp(const Params& p, Variant v, WarpId w) {
  WarpTrace t;
  t.params = p;
  t.variant = v;
  t.warp = clamp_warp(p, v, w);
  const Dim2 block = p.block_of(v);
  const int64_t first = static_cast<int64_t>(t.warp.warp) * k_warp;
  const int64_t last = std::min(first + k_warp, block.count()) - 1;
  std::string threads;
  if (block.y == 1) {
    threads = "threads " + std::to_string(first) + ".." + std::to_string(last);
  } else {
    const int64_t y0 = first / block.x, y1 = last / block.x;
    threads = "threads x " + std::to_string(first % block.x) + ".." +
              std::to_string(std::min(block.x - 1, last)) + ", y " + std::to_string(y0) +
              (y1 != y0 ? ".." + std::to_string(y1) : "");
  }
  t.warp_text = "block (" + std::to_string(t.warp.bx) + ", " + std::to_string(t.warp.by) + "), warp " +
                std::to_string(t.warp.warp) + " of " + std::to_string(warps_per_block(p, v)) + ": " + threads;
  t.ops = warp_accesses(p, v, t.warp, kernel_of(v) == Kernel::Banks ? k_trace_max_steps : -1);
  t.cut_short = kernel_of(v) == Kernel::Banks && k_trace_max_steps < k_bank_iterations;
  return t;
}

}  // namespace bs::memory
