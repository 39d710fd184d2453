// trace.cpp: see trace.h.
#include "sim/trace.h"

#include <algorithm>
#include <bit>
#include <sstream>

namespace bs::sim {

Recorder::Recorder(uint64_t total_blocks, Options o) : m_total(total_blocks), m_opt(o) {
  m_stride = (m_opt.max_blocks == 0 || m_total <= m_opt.max_blocks)
                 ? 1
                 : (m_total + m_opt.max_blocks - 2) / std::max<uint64_t>(1, m_opt.max_blocks - 1);
  for (uint64_t b = 0; b < m_total; ++b)
    if (b % m_stride == 0 || b + 1 == m_total) ++m_recorded;
}

bool Recorder::wants_block(uint64_t block) { return block % m_stride == 0 || block + 1 == m_total; }

void Recorder::on_start(int workers) { m_stores.assign(static_cast<size_t>(std::max(1, workers)), Store{}); }

void Recorder::on_access(int worker, const WarpAccess& a) {
  Store& s = m_stores[static_cast<size_t>(worker)];
  if (s.full) return;
  const uint64_t per_store = m_opt.max_bytes / m_stores.size();
  if (s.bytes + sizeof(RecordedAccess) > per_store) {
    s.full = true;
    return;
  }
  RecordedAccess r;
  r.block = a.block;
  r.warp = a.warp;
  r.pc = a.pc;
  r.mask = a.mask;
  r.space = a.space;
  r.access = a.access;
  r.bytes = a.bytes;
  for (int l = 0; l < 32; ++l) r.addr[l] = (a.mask >> l) & 1 ? a.addr[l] : 0;
  s.acc.push_back(r);
  s.bytes += sizeof(RecordedAccess);
}

void Recorder::on_barrier(int worker, uint64_t block, uint32_t pc, uint64_t epoch) {
  Store& s = m_stores[static_cast<size_t>(worker)];
  if (s.full) return;
  s.bar.push_back(RecordedBarrier{block, pc, epoch});
  s.bytes += sizeof(RecordedBarrier);
}

std::vector<RecordedAccess> Recorder::accesses() const {
  std::vector<RecordedAccess> out;
  for (const Store& s : m_stores) out.insert(out.end(), s.acc.begin(), s.acc.end());
  std::stable_sort(out.begin(), out.end(),
                   [](const RecordedAccess& a, const RecordedAccess& b) { return a.block < b.block; });
  return out;
}

std::vector<RecordedBarrier> Recorder::barriers() const {
  std::vector<RecordedBarrier> out;
  for (const Store& s : m_stores) out.insert(out.end(), s.bar.begin(), s.bar.end());
  std::stable_sort(out.begin(), out.end(),
                   [](const RecordedBarrier& a, const RecordedBarrier& b) { return a.block < b.block; });
  return out;
}

bool Recorder::truncated() const {
  return std::any_of(m_stores.begin(), m_stores.end(), [](const Store& s) { return s.full; });
}

std::string Recorder::sampled() const {
  std::string s = m_stride == 1 ? "all " + std::to_string(m_total) + " blocks"
                                : std::to_string(m_recorded) + " of " + std::to_string(m_total) +
                                      " blocks (every " + std::to_string(m_stride) + "th, and the last)";
  if (truncated()) s += "; recording stopped at " + std::to_string(m_opt.max_bytes >> 20) + " MiB";
  return s;
}

namespace {
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) {
    if (c == '"') o += '"';
    o += c == '\n' ? ' ' : c;
  }
  return o + "\"";
}
}  // namespace

std::string access_csv(const Recorder& rec, const Module& m, const LaunchConfig& cfg, const LaunchResult& r) {
  std::ostringstream out;
  out << "block_x,block_y,block_z,thread_x,thread_y,thread_z,warp,lane,space,access,buffer,element,offset,bytes,"
         "file,line,instruction\n";
  const Dim3 g = cfg.grid, bd = cfg.block;
  for (const RecordedAccess& a : rec.accesses()) {
    const Dim3 blk{static_cast<uint32_t>(a.block % g.x), static_cast<uint32_t>((a.block / g.x) % g.y),
                   static_cast<uint32_t>(a.block / (uint64_t{g.x} * g.y))};
    const Instr& in = m.code[a.pc];
    const std::string file =
        in.file > 0 && static_cast<size_t>(in.file) < m.files.size() ? m.files[static_cast<size_t>(in.file)] : "";
    const std::string text = csv_field(m.text[a.pc]);
    const char* acc = a.access == Access::Read ? "read" : a.access == Access::Write ? "write" : "atomic";
    for (uint32_t mask = a.mask; mask; mask &= mask - 1) {
      const int l = std::countr_zero(mask);
      const uint32_t t = a.warp * 32 + static_cast<uint32_t>(l);
      std::string buf, elem;
      uint64_t off = a.addr[l];
      if (a.space == Space::Global) {
        const int bi = r.locate(a.addr[l], &off);
        if (bi >= 0) {
          buf = csv_field(cfg.buffers[static_cast<size_t>(bi)].name);
          elem = std::to_string(off / std::max<uint32_t>(1, cfg.buffers[static_cast<size_t>(bi)].elem_bytes));
        } else {
          buf = "(none)";
        }
      }
      out << blk.x << ',' << blk.y << ',' << blk.z << ',' << t % bd.x << ',' << (t / bd.x) % bd.y << ','
          << t / (bd.x * bd.y) << ',' << a.warp << ',' << l << ',' << space_name(a.space) << ',' << acc << ','
          << buf << ',' << elem << ',' << off << ',' << int(a.bytes) << ',' << csv_field(file) << ',' << in.line
          << ',' << text << '\n';
    }
  }
  return out.str();
}

}  // namespace bs::sim
