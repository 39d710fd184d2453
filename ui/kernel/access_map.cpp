// access_map.cpp: see access_map.h.
#include "ui/kernel/access_map.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <unordered_map>

namespace bs::ui {

namespace {

std::string dim_of(sim::Dim3 d) {
  return sim::dim_text(d);
}

// Calls f(buffer, first_element, last_element) for a global lane address; false when outside every buffer.
template <class F>
bool for_elements(const SimTrace& t, uint64_t addr, uint8_t bytes, F&& f) {
  uint64_t off = 0;
  const int b = t.result.locate(addr, &off);
  if (b < 0 || static_cast<size_t>(b) >= t.buffers.size()) return false;
  const sim::Buffer& buf = t.buffers[static_cast<size_t>(b)];
  const uint64_t eb = std::max<uint32_t>(1, buf.elem_bytes);
  const uint64_t n = buf.bytes / eb;
  const uint64_t first = off / eb;
  const uint64_t last = std::min<uint64_t>((off + std::max<uint8_t>(1, bytes) - 1) / eb, n ? n - 1 : 0);
  if (first >= n) return false;
  f(b, first, last);
  return true;
}

bool in_selection(const SimTrace& t, const Selection& s, const sim::RecordedAccess& a, int lane) {
  switch (s.scope) {
    case Scope::Launch:
      return true;
    case Scope::Block:
      return a.block == s.block;
    case Scope::Warp:
      return a.block == s.block && a.warp == s.thread / 32;
    case Scope::Thread:
      return a.block == s.block && a.warp * 32 + static_cast<uint32_t>(lane) == s.thread;
  }
  (void)t;
  return false;
}

BufferMap empty_map(const sim::Buffer& b, int index) {
  BufferMap m;
  m.buffer = index;
  m.name = b.name;
  m.elements = b.bytes / std::max<uint32_t>(1, b.elem_bytes);
  m.two_d = b.cols > 0;
  m.cols = b.cols > 0 ? b.cols : 32;
  m.rows = static_cast<uint32_t>((m.elements + m.cols - 1) / m.cols);
  m.output = b.output;
  m.cells.assign(m.elements, 0);
  return m;
}

// The launch's problem cells: diagnostics' elements, and (every block recorded) output elements no thread or
// several threads wrote.
void mark_launch_problems(const SimTrace& t, std::vector<BufferMap>& maps) {
  for (const sim::Diagnostic& d : t.result.diagnostics) {
    if (d.buffer < 0 || static_cast<size_t>(d.buffer) >= maps.size()) continue;
    BufferMap& m = maps[static_cast<size_t>(d.buffer)];
    if (d.element < m.elements && d.kind != sim::DiagKind::UnwrittenOutput &&
        d.kind != sim::DiagKind::MultipleWriters)
      m.cells[d.element] |= k_cell_flagged;
  }
  if (!t.all_blocks) return;
  // First writer (global thread id + 1) per output element; ~0: several.
  std::vector<std::vector<uint64_t>> writer(maps.size());
  for (size_t i = 0; i < maps.size(); ++i)
    if (maps[i].output) writer[i].assign(maps[i].elements, 0);
  constexpr uint64_t k_many = ~uint64_t{0};
  for (const sim::RecordedAccess& a : t.accesses) {
    if (a.space != sim::Space::Global || a.access == sim::Access::Read) continue;
    for (uint32_t mask = a.mask; mask; mask &= mask - 1) {
      const int l = std::countr_zero(mask);
      const uint64_t who = a.block * t.threads_per_block() + a.warp * 32 + static_cast<uint64_t>(l) + 1;
      for_elements(t, a.addr[l], a.bytes, [&](int b, uint64_t e0, uint64_t e1) {
        if (writer[static_cast<size_t>(b)].empty()) return;
        for (uint64_t e = e0; e <= e1; ++e) {
          uint64_t& w = writer[static_cast<size_t>(b)][e];
          if (a.access == sim::Access::Atomic)
            w = w == 0 ? who : w;  // atomics never make a second writer
          else if (w == 0)
            w = who;
          else if (w != who)
            w = k_many;
        }
      });
    }
  }
  for (size_t i = 0; i < maps.size(); ++i)
    for (uint64_t e = 0; e < writer[i].size(); ++e) {
      if (writer[i][e] == 0) maps[i].cells[e] |= k_cell_unwritten;
      if (writer[i][e] == k_many) maps[i].cells[e] |= k_cell_multi;
    }
}

bool block_recorded(const SimTrace& t, uint64_t block) {
  auto it = std::lower_bound(t.accesses.begin(), t.accesses.end(), block,
                             [](const sim::RecordedAccess& a, uint64_t b) { return a.block < b; });
  return it != t.accesses.end() && it->block == block;
}

}  // namespace

sim::Dim3 SimTrace::block_coords(uint64_t linear) const {
  const uint64_t gx = std::max<uint32_t>(1, grid.x), gy = std::max<uint32_t>(1, grid.y);
  return {static_cast<uint32_t>(linear % gx), static_cast<uint32_t>((linear / gx) % gy),
          static_cast<uint32_t>(linear / (gx * gy))};
}

sim::Dim3 SimTrace::thread_coords(uint32_t linear) const {
  const uint32_t bx = std::max<uint32_t>(1, block.x), by = std::max<uint32_t>(1, block.y);
  return {linear % bx, (linear / bx) % by, linear / (bx * by)};
}

int SimTrace::line_of(uint32_t pc) const {
  return module && pc < module->code.size() ? module->code[pc].line : 0;
}

SimTrace make_trace(std::shared_ptr<const sim::Module> m, std::string kernel, const sim::LaunchConfig& cfg,
                    sim::LaunchResult result, const sim::Recorder& rec) {
  SimTrace t;
  t.module = std::move(m);
  t.kernel = std::move(kernel);
  t.grid = cfg.grid;
  t.block = cfg.block;
  t.buffers = cfg.buffers;
  for (sim::Buffer& b : t.buffers) b.data = nullptr;
  t.result = std::move(result);
  t.accesses = rec.accesses();
  t.sampled = rec.sampled();
  t.all_blocks = rec.recorded_blocks() == cfg.grid.count() && !rec.truncated();
  return t;
}

std::string selection_text(const SimTrace& t, const Selection& s) {
  const std::string blk = "block " + dim_of(t.block_coords(s.block));
  switch (s.scope) {
    case Scope::Thread:
      return "thread " + dim_of(t.thread_coords(s.thread)) + " of " + blk;
    case Scope::Warp: {
      const uint32_t w = s.thread / 32;
      const uint64_t last = std::min<uint64_t>(uint64_t{w} * 32 + 31, t.threads_per_block() - 1);
      return "warp " + std::to_string(w) + " of " + blk + " (threads " + std::to_string(w * 32) + ".." +
             std::to_string(last) + ")";
    }
    case Scope::Block:
      return blk;
    case Scope::Launch:
      return "the whole launch";
  }
  return {};
}

std::string selection_slug(const SimTrace& t, const Selection& s) {
  auto d = [](sim::Dim3 v) {
    return std::to_string(v.x) + "_" + std::to_string(v.y) + "_" + std::to_string(v.z);
  };
  const std::string blk = "block_" + d(t.block_coords(s.block));
  switch (s.scope) {
    case Scope::Thread:
      return "thread_" + d(t.thread_coords(s.thread)) + "-" + blk;
    case Scope::Warp:
      return "warp" + std::to_string(s.thread / 32) + "-" + blk;
    case Scope::Block:
      return blk;
    case Scope::Launch:
      return "launch";
  }
  return "map";
}

Selection clamp_selection(const SimTrace& t, Selection s) {
  const uint64_t blocks = std::max<uint64_t>(1, t.grid.count());
  const uint64_t threads = std::max<uint64_t>(1, t.threads_per_block());
  s.block = std::min(s.block, blocks - 1);
  s.thread = static_cast<uint32_t>(std::min<uint64_t>(s.thread, threads - 1));
  return s;
}

std::string BufferMap::caption() const {
  std::string s = name + ": ";
  s += two_d ? std::to_string(rows) + " x " + std::to_string(cols) : std::to_string(elements);
  s += " elements; read " + std::to_string(read_elements) + ", wrote " + std::to_string(write_elements);
  if (flagged) s += "; " + std::to_string(flagged) + " flagged";
  if (unwritten) s += "; " + std::to_string(unwritten) + " never written";
  if (multi) s += "; " + std::to_string(multi) + " written by several threads";
  return s;
}

AccessMaps access_maps(const SimTrace& t, const Selection& sel) {
  AccessMaps out;
  const Selection s = clamp_selection(t, sel);
  out.title = selection_text(t, s);
  for (size_t i = 0; i < t.buffers.size(); ++i) out.maps.push_back(empty_map(t.buffers[i], static_cast<int>(i)));
  mark_launch_problems(t, out.maps);
  if (s.scope != Scope::Launch && !block_recorded(t, s.block)) {
    out.recorded = false;
    out.note = "block " + dim_of(t.block_coords(s.block)) + " made no global or shared access that was recorded (" +
               t.sampled + ")";
  }
  for (const sim::RecordedAccess& a : t.accesses) {
    if (a.space != sim::Space::Global) continue;
    if (s.scope != Scope::Launch && a.block != s.block) continue;
    const uint8_t bits = a.access == sim::Access::Read    ? k_cell_read
                         : a.access == sim::Access::Write ? k_cell_write
                                                          : k_cell_read | k_cell_write;
    for (uint32_t mask = a.mask; mask; mask &= mask - 1) {
      const int l = std::countr_zero(mask);
      if (!in_selection(t, s, a, l)) continue;
      const bool inside = for_elements(t, a.addr[l], a.bytes, [&](int b, uint64_t e0, uint64_t e1) {
        for (uint64_t e = e0; e <= e1; ++e) out.maps[static_cast<size_t>(b)].cells[e] |= bits;
      });
      if (!inside) ++out.outside;
    }
  }
  for (BufferMap& m : out.maps)
    for (uint8_t c : m.cells) {
      m.read_elements += (c & k_cell_read) != 0;
      m.write_elements += (c & k_cell_write) != 0;
      m.flagged += (c & k_cell_flagged) != 0;
      m.unwritten += (c & k_cell_unwritten) != 0;
      m.multi += (c & k_cell_multi) != 0;
    }
  if (out.outside > 0)
    out.note += std::string(out.note.empty() ? "" : "; ") + std::to_string(out.outside) +
                " accesses fell outside every buffer (see the diagnostics)";
  if (!t.all_blocks && s.scope == Scope::Launch)
    out.note += std::string(out.note.empty() ? "" : "; ") + "only " + t.sampled + " were recorded";
  return out;
}

std::optional<uint64_t> element_at(const BufferMap& m, int64_t row, int64_t col) {
  if (row < 0 || col < 0 || col >= m.cols) return std::nullopt;
  const uint64_t e = static_cast<uint64_t>(row) * m.cols + static_cast<uint64_t>(col);
  if (e >= m.elements) return std::nullopt;
  return e;
}

std::string element_name(const sim::Buffer& b, uint64_t element) {
  if (b.cols > 0)
    return b.name + "[" + std::to_string(element / b.cols) + "][" + std::to_string(element % b.cols) + "]";
  return b.name + "[" + std::to_string(element) + "]";
}

std::vector<ProblemElements> problem_elements(const SimTrace& t, size_t max) {
  std::vector<BufferMap> maps;
  for (size_t i = 0; i < t.buffers.size(); ++i) maps.push_back(empty_map(t.buffers[i], static_cast<int>(i)));
  mark_launch_problems(t, maps);
  std::vector<ProblemElements> out;
  for (const BufferMap& m : maps) {
    ProblemElements p;
    for (uint64_t e = 0; e < m.cells.size(); ++e) {
      const uint8_t bits = m.cells[e] & (k_cell_flagged | k_cell_unwritten | k_cell_multi);
      if (!bits) continue;
      ++p.total;
      if (p.elements.size() < max) {
        p.elements.push_back(e);
        p.bits.push_back(bits);
      }
    }
    if (p.total == 0) continue;
    p.buffer = m.buffer;
    p.name = m.name;
    p.cols = m.two_d ? m.cols : 0;
    p.exact = t.all_blocks;
    out.push_back(std::move(p));
  }
  return out;
}

std::string ProblemElements::line(const SimTrace& t, size_t i) const {
  const uint8_t b = bits[i];
  std::string why;
  const auto add = [&](const char* w) { why += (why.empty() ? "" : ", ") + std::string(w); };
  if (b & k_cell_unwritten) add("no thread wrote it");
  if (b & k_cell_multi) add("several threads wrote it");
  if (b & k_cell_flagged) add("a diagnostic names it");
  return element_name(t.buffers[static_cast<size_t>(buffer)], elements[i]) + ": " + why;
}

ElementTouches who_touched(const SimTrace& t, int buffer, uint64_t element, size_t max) {
  ElementTouches out;
  if (buffer < 0 || static_cast<size_t>(buffer) >= t.buffers.size()) return out;
  const sim::Buffer& b = t.buffers[static_cast<size_t>(buffer)];
  out.element_text = element_name(b, element);
  if (b.cols > 0) out.element_text += " (element " + std::to_string(element) + ")";
  for (const sim::RecordedAccess& a : t.accesses) {
    if (a.space != sim::Space::Global) continue;
    for (uint32_t mask = a.mask; mask; mask &= mask - 1) {
      const int l = std::countr_zero(mask);
      for_elements(t, a.addr[l], a.bytes, [&](int bi, uint64_t e0, uint64_t e1) {
        if (bi != buffer || element < e0 || element > e1) return;
        if (a.access != sim::Access::Write) ++out.reads;
        if (a.access != sim::Access::Read) ++out.writes;
        if (out.list.size() < max)
          out.list.push_back({a.block, a.warp * 32 + static_cast<uint32_t>(l), a.access, a.pc});
        else
          out.truncated = true;
      });
    }
  }
  return out;
}

std::vector<std::string> ElementTouches::lines(const SimTrace& t) const {
  std::vector<std::string> out;
  for (const Touch& w : list) {
    const char* verb = w.access == sim::Access::Read ? "read" : w.access == sim::Access::Write ? "wrote" : "atomically updated";
    std::string s = "thread " + dim_of(t.thread_coords(w.thread)) + " of block " + dim_of(t.block_coords(w.block)) +
                    " " + verb;
    if (const int line = t.line_of(w.pc); line > 0) s += " (line " + std::to_string(line) + ")";
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<ThreadScore> thread_scores(const SimTrace& t, uint64_t block) {
  std::vector<ThreadScore> out;
  const uint64_t n = t.threads_per_block();
  if (t.result.threads.size() < (block + 1) * n) return out;
  for (uint64_t i = 0; i < n; ++i) {
    const sim::ThreadStats& s = t.result.threads[block * n + i];
    out.push_back({static_cast<uint32_t>(i), s.instructions, s.global_reads, s.global_writes});
  }
  return out;
}

std::vector<InstrRow> instruction_rows(const SimTrace& t) {
  std::vector<InstrRow> out;
  if (!t.module) return out;
  for (size_t pc = 0; pc < t.result.instr.size() && pc < t.module->code.size(); ++pc) {
    const sim::InstrStats& s = t.result.instr[pc];
    if (s.warp_execs == 0) continue;
    const sim::Instr& in = t.module->code[pc];
    InstrRow r;
    r.pc = static_cast<uint32_t>(pc);
    r.line = in.line;
    r.text = pc < t.module->text.size() ? t.module->text[pc] : std::string();
    r.warp_execs = s.warp_execs;
    r.thread_execs = s.thread_execs;
    r.active_lanes = double(s.thread_execs) / double(s.warp_execs);
    r.memory = s.requests > 0;
    r.space = in.space;
    r.requests = s.requests;
    r.sectors = s.sectors;
    r.wavefronts = s.wavefronts;
    r.conflicts = s.conflicts;
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<double> line_activity(const SimTrace& t) {
  std::vector<uint64_t> lanes, slots;
  for (const InstrRow& r : instruction_rows(t)) {
    if (r.line <= 0) continue;
    const size_t l = static_cast<size_t>(r.line);
    if (lanes.size() <= l) {
      lanes.resize(l + 1, 0);
      slots.resize(l + 1, 0);
    }
    lanes[l] += r.thread_execs;
    slots[l] += r.warp_execs * 32;
  }
  std::vector<double> out(lanes.size(), -1.0);
  for (size_t l = 0; l < lanes.size(); ++l)
    if (slots[l] > 0) out[l] = double(lanes[l]) / double(slots[l]);
  return out;
}

std::vector<MemoryInstr> memory_instructions(const SimTrace& t) {
  std::vector<MemoryInstr> out;
  if (!t.module) return out;
  std::vector<bool> seen(t.module->code.size(), false);
  std::vector<sim::Space> space(t.module->code.size(), sim::Space::Global);
  std::vector<bool> store(t.module->code.size(), false);
  for (const sim::RecordedAccess& a : t.accesses) {
    if (a.space != sim::Space::Global && a.space != sim::Space::Shared) continue;
    if (a.pc >= seen.size() || seen[a.pc]) continue;
    seen[a.pc] = true;
    space[a.pc] = a.space;
    store[a.pc] = a.access != sim::Access::Read;
  }
  for (uint32_t pc = 0; pc < seen.size(); ++pc) {
    if (!seen[pc]) continue;
    MemoryInstr m;
    m.pc = pc;
    m.line = t.line_of(pc);
    m.space = space[pc];
    m.store = store[pc];
    m.label = (m.line > 0 ? "line " + std::to_string(m.line) : "no line") + ": " +
              (pc < t.module->text.size() ? t.module->text[pc] : std::string());
    out.push_back(std::move(m));
  }
  std::stable_sort(out.begin(), out.end(), [](const MemoryInstr& a, const MemoryInstr& b) { return a.line < b.line; });
  return out;
}

std::optional<WarpMemoryView> warp_memory_view(const SimTrace& t, uint32_t pc, uint64_t block, uint32_t warp,
                                               int occurrence, int* executions) {
  std::optional<WarpMemoryView> out;
  int seen = 0;
  for (const sim::RecordedAccess& a : t.accesses) {
    if (a.block != block || a.warp != warp || a.pc != pc) continue;
    if (seen++ != occurrence) continue;
    WarpMemoryView v;
    v.access.space = a.space == sim::Space::Shared ? memory::Space::Shared : memory::Space::Global;
    v.access.store = a.access != sim::Access::Read;
    v.access.step = occurrence;
    int buffer = -1;
    for (int l = 0; l < 32; ++l) {
      if (!((a.mask >> l) & 1)) continue;
      uint64_t off = a.addr[l];
      if (a.space == sim::Space::Global) {
        const int b = t.result.locate(a.addr[l], &off);
        if (b < 0) continue;  // outside every buffer: the diagnostics name it
        if (buffer < 0) buffer = b;
        if (b != buffer) continue;  // one buffer per picture (a gather across buffers is rare)
      }
      v.access.lanes[static_cast<size_t>(l)] = {true, static_cast<int64_t>(off / 4)};
    }
    if (a.space == sim::Space::Global && buffer >= 0) {
      const sim::Buffer& b = t.buffers[static_cast<size_t>(buffer)];
      v.buffer = b.name;
      v.row_width = b.elem_bytes == 4 ? b.cols : 0;
      v.access.buffer = b.output ? memory::Buffer::Out : memory::Buffer::In;
    } else {
      v.buffer = "shared";
      v.access.buffer = memory::Buffer::Tile;
    }
    v.access.text = pc < t.module->text.size() ? t.module->text[pc] : std::string();
    if (a.bytes != 4)
      v.note = "each lane " + std::string(v.access.store ? "writes " : "reads ") + std::to_string(a.bytes) +
               " bytes; the picture places each lane by its first 4 (the counts below are the simulator's, "
               "for the whole width)";
    out = std::move(v);
  }
  if (executions) *executions = seen;
  return out;
}

}  // namespace bs::ui
