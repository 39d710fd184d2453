// array_map.cpp: see array_map.h.
#include "gpu/anatomy/array_map.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/error.h"

namespace bs::anatomy {

const char* array_map_mode_label(ArrayMapMode m) {
  switch (m) {
    case ArrayMapMode::Block:
      return "blockIdx";
    case ArrayMapMode::Sm:
      return "SM that ran it";
    case ArrayMapMode::StartTime:
      return "block start time";
    case ArrayMapMode::BlockTime:
      return "block run time";
  }
  return "?";
}

ArrayMapMode next_array_map_mode(ArrayMapMode m) {
  return static_cast<ArrayMapMode>((static_cast<int>(m) + 1) % k_array_map_mode_count);
}

bool array_map_needs_record(ArrayMapMode m) {
  return m != ArrayMapMode::Block;
}

ArrayLayout array_layout(const ArrayLaunch& s, int64_t n, int64_t max_texels) {
  if (!s.known || s.chunk < 1) throw InvalidRequest("the library picks its own kernels: no launch to map");
  if (n < 1) throw InvalidRequest("n = " + std::to_string(n) + ": nothing to map");
  ArrayLayout l;
  l.n = n;
  l.chunks = (n + s.chunk - 1) / s.chunk;
  max_texels = std::max<int64_t>(max_texels, 1);
  l.chunks_per_texel = (l.chunks + max_texels - 1) / max_texels;
  const int64_t texels = (l.chunks + l.chunks_per_texel - 1) / l.chunks_per_texel;
  // Grid-stride: the largest divisor of the grid that fits (the grid itself where it does): each column
  // then always holds the same blocks, one row per trip of the loop (or per part of one).
  int64_t divisor = 0;
  if (s.grid_stride && l.chunks_per_texel == 1 && s.grid <= k_max_grid_columns) divisor = s.grid;
  if (s.grid_stride && l.chunks_per_texel == 1 && s.grid > k_max_grid_columns)
    for (int64_t d = k_max_grid_columns; d >= k_max_grid_columns / 8 && !divisor; --d)
      if (s.grid % d == 0) divisor = d;
  if (divisor > 0) {
    l.cols = std::min(divisor, l.chunks);
  } else {
    // About four times as wide as high: a strip read like text.
    l.cols =
        std::max<int64_t>(1, static_cast<int64_t>(std::ceil(std::sqrt(4.0 * static_cast<double>(texels)))));
    l.cols = std::min(l.cols, texels);
  }
  l.rows = (texels + l.cols - 1) / l.cols;
  return l;
}

int64_t chunk_at(const ArrayLayout& l, int64_t col, int64_t row) {
  if (col < 0 || row < 0 || col >= l.cols || row >= l.rows) return -1;
  const int64_t c = (row * l.cols + col) * l.chunks_per_texel;
  return c < l.chunks ? c : -1;
}

ElementRange chunk_elements(const ArrayLaunch& s, const ArrayLayout& l, int64_t chunk) {
  ElementRange r;
  r.first = std::min(chunk * s.chunk, l.n);
  r.last = std::min((chunk + l.chunks_per_texel) * s.chunk, l.n);
  return r;
}

OverlayImage make_array_map(ArrayMapMode mode, const ArrayLaunch& s, int64_t n,
                            std::span<const BlockRecord> record, const std::array<uint32_t, 256>& ramp,
                            int64_t max_texels) {
  OverlayImage img;
  ArrayLayout l;
  try {
    l = array_layout(s, n, max_texels);
  } catch (const InvalidRequest& e) {
    img.error = e.what();
    return img;
  }
  // Block index -> record entry.
  std::vector<const BlockRecord*> by_block;
  uint64_t t0 = UINT64_MAX;
  if (array_map_needs_record(mode)) {
    if (record.empty()) {
      img.error = "needs a GPU: instrumented run (none recorded for this launch)";
      return img;
    }
    by_block.assign(static_cast<size_t>(s.grid), nullptr);
    for (const BlockRecord& r : record)
      if (r.block_x < static_cast<uint64_t>(s.grid)) by_block[r.block_x] = &r;
    uint64_t lo = UINT64_MAX, hi = 0, last_start = 0;
    for (const BlockRecord& r : record) {
      t0 = std::min(t0, r.start_ns);
      last_start = std::max(last_start, r.start_ns);
      const uint64_t d = r.end_ns >= r.start_ns ? r.end_ns - r.start_ns : 0;
      lo = std::min(lo, d);
      hi = std::max(hi, d);
    }
    if (mode == ArrayMapMode::BlockTime) {
      img.lo_us = static_cast<double>(lo) * 1e-3;
      img.hi_us = static_cast<double>(std::max(hi, lo)) * 1e-3;
    } else {
      img.lo_us = 0;
      img.hi_us = static_cast<double>(last_start - t0) * 1e-3;
    }
  }
  char buf[200];
  switch (mode) {
    case ArrayMapMode::Block:
      img.period = categorical_period(l.cols);
      img.legend = "colour = blockIdx.x mod " + std::to_string(img.period);
      break;
    case ArrayMapMode::Sm:
      img.legend = "colour = SM id (%smid) mod 12; black: block missing from the record";
      break;
    case ArrayMapMode::StartTime:
      std::snprintf(buf, sizeof buf, "colour = when the block started, 0 .. %.2f us after the first",
                    img.hi_us);
      img.legend = buf;
      break;
    case ArrayMapMode::BlockTime:
      std::snprintf(buf, sizeof buf, "colour = block run time (end - start), %.2f .. %.2f us", img.lo_us,
                    img.hi_us);
      img.legend = buf;
      break;
  }
  std::snprintf(buf, sizeof buf, "; one texel = %lld element%s",
                static_cast<long long>(s.chunk * l.chunks_per_texel),
                s.chunk * l.chunks_per_texel > 1 ? "s" : "");
  img.legend += buf;
  if (l.chunks_per_texel > 1)
    img.legend += " (" + std::to_string(l.chunks_per_texel) + " blocks' chunks: coloured by the first)";
  img.w = static_cast<int>(l.cols);
  img.h = static_cast<int>(l.rows);
  img.rgba.assign(static_cast<size_t>(l.cols * l.rows), 0u);
  const auto& pal = categorical_palette();
  const double span = std::max(img.hi_us - img.lo_us, 1e-9);
  for (int64_t row = 0; row < l.rows; ++row) {
    for (int64_t col = 0; col < l.cols; ++col) {
      const int64_t c = chunk_at(l, col, row);
      if (c < 0) continue;
      const int64_t b = block_of_element(s, c * s.chunk);
      if (b < 0) continue;
      uint32_t colour = 0xff000000u;
      if (mode == ArrayMapMode::Block) {
        colour = pal[static_cast<size_t>(b % img.period)];
      } else if (const BlockRecord* r = by_block[static_cast<size_t>(b)]) {
        if (mode == ArrayMapMode::Sm) {
          colour = pal[r->sm % 12];
        } else {
          const uint64_t v = mode == ArrayMapMode::StartTime
                                 ? r->start_ns - t0
                                 : (r->end_ns >= r->start_ns ? r->end_ns - r->start_ns : 0);
          const double us = static_cast<double>(v) * 1e-3;
          const int k = std::clamp(static_cast<int>((us - img.lo_us) / span * 255.0 + 0.5), 0, 255);
          colour = ramp[static_cast<size_t>(k)] | 0xff000000u;
        }
      }
      img.rgba[static_cast<size_t>(row * l.cols + col)] = colour;
    }
  }
  return img;
}

}  // namespace bs::anatomy
