// ceiling_readout.h: the shell's one-line roofline read-out for the active lab: its newest timed run's % of
// the nearer ceiling, shown at the right of the menu bar (next to the render path) in every mode, and as
// presenter mode's big "roofline" read-out. Only when the ceilings of that run's side are known; the tooltip
// names the run and the ceiling. Pure C++ (no ImGui): the menu bar draws it.
#pragma once

#include <optional>
#include <string>

#include "app/roofline/roofline_figure.h"

namespace bs {

// Every form names the run it is about, so a stale run is never read as the live configuration.
struct CeilingReadout {
  std::string pct;         // "42" (presenter mode's big number)
  std::string run;         // "warptile_db 4096x4096x4096, 14:03:12": the run's label (lab prefix dropped), when
  std::string text;        // "roofline 42% (<run>)" (the menu bar, where it fits)
  std::string short_text;  // "roofline 42% (14:03:12)" (the menu bar when the long form does not fit)
  std::string tooltip;     // "<run label> (<device>), <when>: 42% of the DRAM bandwidth ceiling (...)\nceiling: ..."
};

// The newest run of `lab` in ch.runs (by its time stamp; the later one in the log on a tie) placed under its
// side's ceilings; nullopt when the lab has no run or that side's ceilings are not known.
std::optional<CeilingReadout> ceiling_readout(const roofline::Chart& ch, const std::string& lab);

}  // namespace bs
