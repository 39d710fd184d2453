// ceiling_readout.cpp: see ceiling_readout.h.
#include "app/shell/ceiling_readout.h"

#include "core/clock.h"
#include "core/text.h"

namespace bs {

namespace {

// "14:03:12" local time; "" for a run without a time stamp.
std::string clock_of(std::chrono::system_clock::time_point at) {
  if (at == std::chrono::system_clock::time_point{}) return {};
  return clock_text(at);
}

}  // namespace

std::optional<CeilingReadout> ceiling_readout(const roofline::Chart& ch, const std::string& lab) {
  const work::RunRecord* newest = nullptr;
  for (const work::RunRecord& r : ch.runs)
    if (r.lab == lab && (!newest || r.at >= newest->at)) newest = &r;
  if (!newest) return std::nullopt;
  const work::RunRecord* const it = newest;
  const bool gpu = it->where == work::Where::Gpu;
  const std::optional<roofline::Ceilings>& c = gpu ? ch.gpu : ch.cpu;
  const roofline::Roof roof = roofline::roof_for(ch, *it);
  if (!c || !roof.valid()) return std::nullopt;
  const roofline::Placement p = roofline::place(roof, *it);
  CeilingReadout r;
  r.pct = fmt_fixed(p.pct, p.pct < 10 ? 1 : 0);
  const std::string clock = clock_of(it->at);
  const std::string prefix = it->lab + ": ";
  r.run = it->label.starts_with(prefix) ? it->label.substr(prefix.size()) : it->label;
  if (!clock.empty()) r.run += ", " + clock;
  r.text = "roofline " + r.pct + "% (" + r.run + ")";
  r.short_text = "roofline " + r.pct + "%" + (clock.empty() ? "" : " (" + clock + ")");
  const bool bandwidth = p.no_flops || p.bound == roofline::Bound::Memory;
  const std::string ceiling =
      bandwidth ? std::string(gpu ? "DRAM copy " : "memory copy ") + fmt_fixed(c->dram_gbs, 0) + " GB/s"
                : "FP32 " + fmt_fixed(c->fp32_gflops, 0) + " GFLOP/s";
  r.tooltip = it->label + " (" + it->device + (clock.empty() ? "" : ", " + clock) + "): " + p.text() +
              "\nceiling: " + (gpu ? "GPU " : "CPU ") + ceiling + ", measured " + c->measured_utc + " on " +
              c->device;
  return r;
}

}  // namespace bs
