// timeline.cpp: what the host derives from a block record, without a GPU: per-cell maps (blockIdx, threadIdx,
// warp, SM, block run time), the per-SM timeline with predicted and observed waves, and its CSV and SVG
// forms.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "core/text.h"
#include "gpu/anatomy/anatomy.h"
#include "core/error.h"

namespace bs::anatomy {

namespace {

// Index of each block's record entry by linear block id; throws when the record is not one entry per block.
std::vector<int64_t> index_record(std::span<const BlockRecord> record, Dim2 grid) {
  const int64_t n = grid.count();
  if (static_cast<int64_t>(record.size()) != n)
    throw InvalidRequest("the block record has " + std::to_string(record.size()) + " entries but the grid " +
                         to_string(grid) + " has " + std::to_string(n) + " blocks: record the same launch");
  std::vector<int64_t> idx(static_cast<size_t>(n), -1);
  for (size_t i = 0; i < record.size(); ++i) {
    const auto& r = record[i];
    if (r.block_x >= grid.x || r.block_y >= grid.y)
      throw InvalidRequest("the block record names block (" + std::to_string(r.block_x) + ", " +
                           std::to_string(r.block_y) + "), outside the grid " + to_string(grid));
    int64_t& slot = idx[static_cast<size_t>(r.block_y * grid.x + r.block_x)];
    if (slot >= 0)
      throw InvalidRequest("the block record holds block (" + std::to_string(r.block_x) + ", " +
                           std::to_string(r.block_y) + ") twice");
    slot = static_cast<int64_t>(i);
  }
  return idx;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// A tick step of 1, 2 or 5 times a power of ten that gives about `target` ticks over `span`.
double nice_step(double span, int target) {
  const double raw = span / std::max(1, target);
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= raw) return m * p;
  return 10 * p;
}

}  // namespace

const char* cell_mode_label(CellMode m) {
  switch (m) {
    case CellMode::BlockLinear:
      return "blockIdx (linear)";
    case CellMode::ThreadLinear:
      return "threadIdx (linear)";
    case CellMode::WarpInBlock:
      return "warp within block";
    case CellMode::SmId:
      return "SM id";
    case CellMode::BlockRunTime:
      return "block run time (ns)";
  }
  return "?";
}

std::vector<float> cell_values(CellMode mode, int64_t nx, int64_t ny, Dim2 block, Dim2 grid,
                               std::span<const BlockRecord> record) {
  if (nx < 1 || ny < 1)
    throw InvalidRequest("the field must be at least 1x1 (got " + to_string({nx, ny}) + ")");
  if (nx * ny > (int64_t{1} << 28))
    throw InvalidRequest("the field " + to_string({nx, ny}) + " is too large");
  if (block.x < 1 || block.y < 1) throw InvalidRequest("block " + to_string(block) + " must be at least 1x1");
  if (grid.x < 0 || grid.y < 0) throw InvalidRequest("grid " + to_string(grid) + " cannot be negative");
  const bool needs_record = mode == CellMode::SmId || mode == CellMode::BlockRunTime;
  std::vector<int64_t> idx;
  if (needs_record) {
    if (record.empty())
      throw InvalidRequest(std::string("colouring by ") + cell_mode_label(mode) +
                           " needs a block record from the GPU");
    idx = index_record(record, grid);
  }
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const int64_t cover_x = grid.x * block.x, cover_y = grid.y * block.y;
  std::vector<float> out(static_cast<size_t>(nx * ny));
  for (int64_t y = 0; y < ny; ++y) {
    for (int64_t x = 0; x < nx; ++x) {
      float v = nan;
      if (x < cover_x && y < cover_y) {
        const int64_t bx = x / block.x, by = y / block.y, tx = x % block.x, ty = y % block.y;
        const int64_t thread = ty * block.x + tx;
        switch (mode) {
          case CellMode::BlockLinear:
            v = static_cast<float>(by * grid.x + bx);
            break;
          case CellMode::ThreadLinear:
            v = static_cast<float>(thread);
            break;
          case CellMode::WarpInBlock:
            v = static_cast<float>(thread / 32);
            break;
          case CellMode::SmId:
          case CellMode::BlockRunTime: {
            const BlockRecord& r = record[static_cast<size_t>(idx[static_cast<size_t>(by * grid.x + bx)])];
            v = mode == CellMode::SmId
                    ? static_cast<float>(r.sm)
                    : static_cast<float>(r.end_ns >= r.start_ns ? r.end_ns - r.start_ns : 0);
            break;
          }
        }
      }
      out[static_cast<size_t>(y * nx + x)] = v;
    }
  }
  return out;
}

int64_t predicted_waves(int64_t blocks, int sm_count, int blocks_per_sm) {
  if (sm_count < 1 || blocks_per_sm < 1) return 0;
  return ceil_div(blocks, static_cast<int64_t>(sm_count) * blocks_per_sm);
}

Timeline build_timeline(std::span<const BlockRecord> record, int sm_count, int blocks_per_sm) {
  if (sm_count < 1) throw InvalidRequest("the SM count must be at least 1");
  if (blocks_per_sm < 1) throw InvalidRequest("resident blocks per SM must be at least 1 to count waves");
  Timeline t;
  t.sm_count = sm_count;
  t.blocks_per_sm = blocks_per_sm;
  t.block_count = static_cast<int64_t>(record.size());
  t.predicted_waves = predicted_waves(t.block_count, sm_count, blocks_per_sm);

  uint32_t max_sm = 0;
  uint64_t t0 = std::numeric_limits<uint64_t>::max(), t1 = 0;
  for (const auto& r : record) {
    max_sm = std::max(max_sm, r.sm);
    t0 = std::min(t0, r.start_ns);
    t1 = std::max(t1, std::max(r.end_ns, r.start_ns));
  }
  if (record.empty()) t0 = 0;
  t.t0_ns = t0;
  t.span_ns = static_cast<int64_t>(t1 - t0);

  const size_t lanes =
      std::max<size_t>(static_cast<size_t>(sm_count), record.empty() ? 0 : max_sm + size_t{1});
  t.lanes.resize(lanes);
  for (size_t i = 0; i < lanes; ++i)
    t.lanes[i].sm = static_cast<uint32_t>(i);
  for (const auto& r : record)
    t.lanes[r.sm].blocks.push_back({r.block_x, r.block_y, static_cast<int64_t>(r.start_ns - t0),
                                    static_cast<int64_t>(std::max(r.end_ns, r.start_ns) - t0), 0});

  t.min_blocks_on_sm = std::numeric_limits<int>::max();
  for (size_t i = 0; i < lanes; ++i) {
    auto& b = t.lanes[i].blocks;
    std::sort(b.begin(), b.end(), [](const TimelineBlock& a, const TimelineBlock& c) {
      if (a.start_ns != c.start_ns) return a.start_ns < c.start_ns;
      if (a.end_ns != c.end_ns) return a.end_ns < c.end_ns;
      return a.block_y != c.block_y ? a.block_y < c.block_y : a.block_x < c.block_x;
    });
    for (size_t k = 0; k < b.size(); ++k)
      b[k].wave = static_cast<int>(k / static_cast<size_t>(blocks_per_sm));
    // Greedy interval partitioning (blocks sorted by start): the first sub-row free at the block's start.
    std::vector<int64_t> slot_end;
    for (auto& blk : b) {
      size_t k = 0;
      while (k < slot_end.size() && slot_end[k] > blk.start_ns)
        ++k;
      if (k == slot_end.size()) slot_end.push_back(0);
      slot_end[k] = blk.end_ns;
      blk.slot = static_cast<int>(k);
    }
    t.lanes[i].slots = static_cast<int>(slot_end.size());
    const int n = static_cast<int>(b.size());
    t.observed_waves = std::max<int64_t>(t.observed_waves, ceil_div(n, blocks_per_sm));
    if (i < static_cast<size_t>(sm_count)) {
      if (n == 0) ++t.idle_sms;
      t.min_blocks_on_sm = std::min(t.min_blocks_on_sm, n);
    }
    t.max_blocks_on_sm = std::max(t.max_blocks_on_sm, n);
  }

  if (!record.empty()) {
    std::vector<int64_t> dur;
    std::vector<uint64_t> stamps;
    dur.reserve(record.size());
    stamps.reserve(2 * record.size());
    for (const auto& r : record) {
      dur.push_back(r.end_ns >= r.start_ns ? static_cast<int64_t>(r.end_ns - r.start_ns) : 0);
      stamps.push_back(r.start_ns);
      stamps.push_back(r.end_ns);
    }
    std::nth_element(dur.begin(), dur.begin() + static_cast<ptrdiff_t>(dur.size() / 2), dur.end());
    t.median_block_ns = dur[dur.size() / 2];
    std::sort(stamps.begin(), stamps.end());
    stamps.erase(std::unique(stamps.begin(), stamps.end()), stamps.end());
    for (size_t i = 1; i < stamps.size(); ++i) {
      const auto gap = static_cast<int64_t>(stamps[i] - stamps[i - 1]);
      if (t.timer_tick_ns == 0 || gap < t.timer_tick_ns) t.timer_tick_ns = gap;
    }
  }
  return t;
}

std::string blocks_csv(std::span<const BlockRecord> record) {
  std::vector<BlockRecord> rows(record.begin(), record.end());
  std::sort(rows.begin(), rows.end(), [](const BlockRecord& a, const BlockRecord& b) {
    return a.block_y != b.block_y ? a.block_y < b.block_y : a.block_x < b.block_x;
  });
  uint64_t t0 = std::numeric_limits<uint64_t>::max();
  for (const auto& r : rows)
    t0 = std::min(t0, r.start_ns);
  std::ostringstream s;
  s << "block_x,block_y,sm,start_ns,end_ns\n";
  for (const auto& r : rows)
    s << r.block_x << ',' << r.block_y << ',' << r.sm << ',' << (r.start_ns - t0) << ',' << (r.end_ns - t0)
      << '\n';
  return s.str();
}

std::string timeline_svg(const Timeline& t, std::string_view title) {
  const double left = 64, right = 16, top = 48, bottom = 40, plot_w = 1000;
  const size_t lanes = std::max<size_t>(t.lanes.size(), 1);
  const double row_h = std::clamp(720.0 / static_cast<double>(lanes), 3.0, 14.0);
  const double plot_h = row_h * static_cast<double>(lanes);
  const double width = left + plot_w + right, height = top + plot_h + bottom;
  const double span = static_cast<double>(std::max<int64_t>(t.span_ns, 1));
  const bool titles = t.block_count <= 20000;  // hover text; left out for huge grids to keep the file small
  // Waves alternate through four colours, so that the rounds of residency on each SM stand out.
  const char* colours[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759"};

  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(width) << "\" height=\"" << num(height)
    << "\" viewBox=\"0 0 " << num(width) << ' ' << num(height)
    << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  s << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s << "<text x=\"" << num(left) << "\" y=\"18\" font-size=\"14\">" << xml_escape(title) << "</text>\n";
  s << "<text x=\"" << num(left) << "\" y=\"36\">" << t.block_count << " blocks on " << t.sm_count << " SMs, "
    << t.blocks_per_sm << " resident per SM: waves predicted " << t.predicted_waves << ", observed "
    << t.observed_waves << ", idle SMs " << t.idle_sms
    << "; colour = wave on that SM (instrumented run: not a timing)</text>\n";

  // Time axis in microseconds.
  const double step = nice_step(span / 1000.0, 8);
  for (double us = 0; us * 1000.0 <= span + 1e-9; us += step) {
    const double x = left + us * 1000.0 / span * plot_w;
    s << "<line x1=\"" << num(x) << "\" y1=\"" << num(top) << "\" x2=\"" << num(x) << "\" y2=\""
      << num(top + plot_h) << "\" stroke=\"#ddd\"/>\n";
    s << "<text x=\"" << num(x) << "\" y=\"" << num(top + plot_h + 14) << "\" text-anchor=\"middle\">"
      << num(us) << "</text>\n";
  }
  s << "<text x=\"" << num(left + plot_w / 2) << "\" y=\"" << num(top + plot_h + 32)
    << "\" text-anchor=\"middle\">time since the first block started (us)</text>\n";

  const size_t label_every = static_cast<size_t>(std::ceil(12.0 / row_h));
  for (size_t i = 0; i < t.lanes.size(); ++i) {
    const double y = top + row_h * static_cast<double>(i);
    if (i % label_every == 0)
      s << "<text x=\"" << num(left - 6) << "\" y=\"" << num(y + row_h * 0.5 + 4)
        << "\" text-anchor=\"end\">SM " << t.lanes[i].sm << "</text>\n";
    if (t.lanes[i].blocks.empty() && i < static_cast<size_t>(t.sm_count))
      s << "<rect x=\"" << num(left) << "\" y=\"" << num(y) << "\" width=\"" << num(plot_w) << "\" height=\""
        << num(row_h) << "\" fill=\"#f6f6f6\"/>\n";
    for (const auto& b : t.lanes[i].blocks) {
      const double x0 = left + static_cast<double>(b.start_ns) / span * plot_w;
      const double w = std::max(0.5, static_cast<double>(b.end_ns - b.start_ns) / span * plot_w);
      // Blocks resident at the same time on this SM share its row in sub-rows (slots).
      const double sub = row_h / std::max(t.lanes[i].slots, 1);
      const double sy = y + sub * b.slot;
      s << "<rect x=\"" << num(x0) << "\" y=\"" << num(sy + (sub >= 4 ? 0.5 : 0.0)) << "\" width=\"" << num(w)
        << "\" height=\"" << num(std::max(0.5, sub >= 4 ? sub - 1 : sub)) << "\" fill=\""
        << colours[b.wave % 4] << "\" fill-opacity=\"0.8\"";
      if (titles)
        s << "><title>block (" << b.block_x << ", " << b.block_y << ") on SM " << t.lanes[i].sm << ": "
          << b.start_ns << " .. " << b.end_ns << " ns, wave " << b.wave << "</title></rect>\n";
      else
        s << "/>\n";
    }
  }
  s << "<rect x=\"" << num(left) << "\" y=\"" << num(top) << "\" width=\"" << num(plot_w) << "\" height=\""
    << num(plot_h) << "\" fill=\"none\" stroke=\"#888\"/>\n";
  s << "</svg>\n";
  return s.str();
}

}  // namespace bs::anatomy
