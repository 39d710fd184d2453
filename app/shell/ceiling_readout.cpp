// ceiling_readout.cpp: see ceiling_readout.h.
#include "app/shell/ceiling_readout.h"

#include "core/text.h"

namespace bs {

std::optional<CeilingReadout> ceiling_readout(const roofline::Chart& ch, const std::string& lab) {
  for (auto it = ch.runs.rbegin(); it != ch.runs.rend(); ++it) {
    if (it->lab != lab) continue;
    const bool gpu = it->where == work::Where::Gpu;
    const std::optional<roofline::Ceilings>& c = gpu ? ch.gpu : ch.cpu;
    const roofline::Roof roof = roofline::roof_for(ch, *it);
    if (!c || !roof.valid()) return std::nullopt;
    const roofline::Placement p = roofline::place(roof, *it);
    CeilingReadout r;
    r.pct = fmt_fixed(p.pct, p.pct < 10 ? 1 : 0);
    r.text = "roofline " + r.pct + "%";
    const bool bandwidth = p.no_flops || p.bound == roofline::Bound::Memory;
    const std::string ceiling =
        bandwidth ? std::string(gpu ? "DRAM copy " : "memory copy ") + fmt_fixed(c->dram_gbs, 0) + " GB/s"
                  : "FP32 " + fmt_fixed(c->fp32_gflops, 0) + " GFLOP/s";
    r.tooltip = it->label + " (" + it->device + "): " + p.text() + "\nceiling: " + (gpu ? "GPU " : "CPU ") +
                ceiling + ", measured " + c->measured_utc + " on " + c->device;
    return r;
  }
  return std::nullopt;
}

}  // namespace bs
