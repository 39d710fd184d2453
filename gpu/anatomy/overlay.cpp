// overlay.cpp: see overlay.h. Pure arithmetic on launch shapes; no GPU needed except for the record that the
// SM and block-time modes read.
#include "gpu/anatomy/overlay.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/error.h"

namespace bs::anatomy {

CellOwner cell_owner(const CellMapping& m, int64_t x, int64_t y) {
  CellOwner o;
  if (x < 0 || y < 0 || m.tile.x < 1 || m.tile.y < 1) return o;
  // In "launch" coordinates: u along blockIdx.x / threadIdx.x, v along .y.
  const int64_t u = m.swap_xy ? y : x, v = m.swap_xy ? x : y;
  const int64_t tu = m.swap_xy ? m.tile.y : m.tile.x, tv = m.swap_xy ? m.tile.x : m.tile.y;
  const int per_u = m.swap_xy ? m.thread_rows : m.thread_cols,
            per_v = m.swap_xy ? m.thread_cols : m.thread_rows;
  o.bx = u / tu;
  o.by = v / tv;
  if (o.bx >= m.grid.x || o.by >= m.grid.y) return o;
  o.covered = true;
  o.block_linear = o.by * m.grid.x + o.bx;
  if (!m.threads_known) return o;
  const int64_t lu = (u % tu) / std::max(per_u, 1), lv = (v % tv) / std::max(per_v, 1);
  const int64_t across = std::max<int64_t>(tu / std::max(per_u, 1), 1);
  o.thread_linear = lv * across + lu;
  o.tx = o.thread_linear % std::max<int64_t>(m.block.x, 1);
  o.ty = o.thread_linear / std::max<int64_t>(m.block.x, 1);
  o.warp = o.thread_linear / 32;
  return o;
}

const char* overlay_mode_label(OverlayMode m) {
  switch (m) {
    case OverlayMode::Off:
      return "off";
    case OverlayMode::BlockIdx:
      return "blockIdx";
    case OverlayMode::ThreadIdx:
      return "threadIdx";
    case OverlayMode::Warp:
      return "warp in block";
    case OverlayMode::Sm:
      return "SM that ran the block";
    case OverlayMode::BlockTime:
      return "block run time";
  }
  return "?";
}

OverlayMode next_overlay_mode(OverlayMode m) {
  return static_cast<OverlayMode>((static_cast<int>(m) + 1) % k_overlay_mode_count);
}

std::optional<OverlayMode> parse_overlay_mode(std::string_view name) {
  return k_overlay_mode_names.parse(name);
}

const char* overlay_mode_name(OverlayMode m) {
  return k_overlay_mode_names.c_name(m);
}

bool overlay_needs_record(OverlayMode m) {
  return m == OverlayMode::Sm || m == OverlayMode::BlockTime;
}

const std::array<uint32_t, 12>& categorical_palette() {
  // Tableau 10 plus two, as 0xAABBGGRR.
  static const std::array<uint32_t, 12> p = {0xffa7794e, 0xff2b8ef2, 0xff5957e1, 0xffb2b776,
                                             0xff4fa159, 0xff48c9ed, 0xffa17ab0, 0xffa79dff,
                                             0xff5f759c, 0xffacb0ba, 0xff8c3c1f, 0xff00c8ff};
  return p;
}

int categorical_period(int64_t row_stride) {
  return row_stride > 0 && row_stride % 12 == 0 ? 11 : 12;
}

BlockLookup::BlockLookup(std::span<const BlockRecord> record, Dim2 grid)
    : m_record(record.begin(), record.end()), m_grid(grid) {
  if (grid.x < 1 || grid.y < 1) return;
  m_index.assign(static_cast<size_t>(grid.count()), -1);
  for (size_t i = 0; i < m_record.size(); ++i) {
    const auto& r = m_record[i];
    if (r.block_x < grid.x && r.block_y < grid.y)
      m_index[static_cast<size_t>(r.block_y * grid.x + r.block_x)] = static_cast<int64_t>(i);
  }
}

const BlockRecord* BlockLookup::find(int64_t bx, int64_t by) const {
  if (m_index.empty() || bx < 0 || by < 0 || bx >= m_grid.x || by >= m_grid.y) return nullptr;
  const int64_t i = m_index[static_cast<size_t>(by * m_grid.x + bx)];
  return i < 0 ? nullptr : &m_record[static_cast<size_t>(i)];
}

OverlayImage make_overlay(OverlayMode mode, const CellMapping& m, int64_t nx, int64_t ny,
                          std::span<const BlockRecord> record, const std::array<uint32_t, 256>& ramp,
                          int max_w, int max_h) {
  OverlayImage img;
  if (mode == OverlayMode::Off) return img;
  if (nx < 1 || ny < 1) {
    img.error = "empty field";
    return img;
  }
  if ((mode == OverlayMode::ThreadIdx || mode == OverlayMode::Warp) && !m.threads_known) {
    img.error = m.why_threads_unknown;
    return img;
  }
  BlockLookup lookup;
  if (overlay_needs_record(mode)) {
    if (record.empty()) {
      img.error = "needs a GPU: instrumented run (none recorded for this launch)";
      return img;
    }
    lookup = BlockLookup(record, m.grid);
    uint64_t lo = UINT64_MAX, hi = 0;
    for (const auto& r : record) {
      const uint64_t d = r.end_ns >= r.start_ns ? r.end_ns - r.start_ns : 0;
      lo = std::min(lo, d);
      hi = std::max(hi, d);
    }
    img.lo_us = static_cast<double>(lo) * 1e-3;
    img.hi_us = static_cast<double>(std::max(hi, lo)) * 1e-3;
  }
  switch (mode) {
    case OverlayMode::BlockIdx:
      img.period = categorical_period(m.grid.x);
      img.legend = "colour = (blockIdx.x + blockIdx.y * gridDim.x) mod " + std::to_string(img.period);
      break;
    case OverlayMode::ThreadIdx:
      img.period = categorical_period(m.block.x);
      img.legend = "colour = (threadIdx.x + threadIdx.y * blockDim.x) mod " + std::to_string(img.period);
      break;
    case OverlayMode::Warp:
      img.legend = "colour = warp in block = (threadIdx.x + threadIdx.y * blockDim.x) / 32, mod 12";
      break;
    case OverlayMode::Sm:
      img.legend = "colour = SM id (%smid) mod 12; black: block missing from the record";
      break;
    case OverlayMode::BlockTime: {
      char buf[160];
      std::snprintf(buf, sizeof buf, "colour = block run time (end - start), %.2f .. %.2f us", img.lo_us,
                    img.hi_us);
      img.legend = buf;
      break;
    }
    case OverlayMode::Off:
      break;
  }
  const int64_t sx = (nx + max_w - 1) / max_w, sy = (ny + max_h - 1) / max_h;  // cells per texel
  img.w = static_cast<int>((nx + sx - 1) / sx);
  img.h = static_cast<int>((ny + sy - 1) / sy);
  if (sx > 1 || sy > 1)
    img.legend += " (sampled: one texel per " + std::to_string(sx) + "x" + std::to_string(sy) + " cells)";
  img.rgba.assign(static_cast<size_t>(img.w) * static_cast<size_t>(img.h), 0u);
  const auto& pal = categorical_palette();
  const double span = std::max(img.hi_us - img.lo_us, 1e-9);
  for (int j = 0; j < img.h; ++j) {
    const int64_t y = std::min<int64_t>(static_cast<int64_t>(j) * sy + sy / 2, ny - 1);
    for (int i = 0; i < img.w; ++i) {
      const int64_t x = std::min<int64_t>(static_cast<int64_t>(i) * sx + sx / 2, nx - 1);
      const CellOwner o = cell_owner(m, x, y);
      if (!o.covered) continue;
      uint32_t c = 0;
      switch (mode) {
        case OverlayMode::BlockIdx:
          c = pal[static_cast<size_t>(o.block_linear % img.period)];
          break;
        case OverlayMode::ThreadIdx:
          c = pal[static_cast<size_t>(o.thread_linear % img.period)];
          break;
        case OverlayMode::Warp:
          c = pal[static_cast<size_t>(o.warp % 12)];
          break;
        case OverlayMode::Sm:
        case OverlayMode::BlockTime: {
          const BlockRecord* r = lookup.find(o.bx, o.by);
          if (!r) {
            c = 0xff000000u;
          } else if (mode == OverlayMode::Sm) {
            c = pal[r->sm % 12];
          } else {
            const double us =
                static_cast<double>(r->end_ns >= r->start_ns ? r->end_ns - r->start_ns : 0) * 1e-3;
            const int k = std::clamp(static_cast<int>((us - img.lo_us) / span * 255.0 + 0.5), 0, 255);
            c = ramp[static_cast<size_t>(k)] | 0xff000000u;
          }
          break;
        }
        case OverlayMode::Off:
          break;
      }
      img.rgba[static_cast<size_t>(j) * static_cast<size_t>(img.w) + static_cast<size_t>(i)] = c;
    }
  }
  return img;
}

}  // namespace bs::anatomy
