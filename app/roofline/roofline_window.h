// roofline_window.h: the Roofline window (View menu): every timed run of every lab this session as a point
// under the ceilings measured on this machine (GPU and CPU), hover naming the run, the ceilings with the date
// they were measured and the datasheet figures beside them, and a table of runs with their % of the nearer
// ceiling. The ceilings are measured in the background the first time the window opens (then cached per
// device). Exports (right-click the plot) like every figure: PNG at any size, SVG, CSV, JSON.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "app/lab.h"
#include "app/layout.h"
#include "app/roofline/roofline_figure.h"
#include "core/cpu_job.h"

namespace bs {

class RooflineWindow {
 public:
  explicit RooflineWindow(LabEnv& env);
  // Every frame; draws only while `open`. Starts measuring the ceilings the first time it is open.
  void draw(Layout& layout, bool* open);
  // The % of the nearer ceiling of a lab's newest run, for read-outs ("" when there is none or no ceilings).
  std::string readout_for(const std::string& lab) const;
  const roofline::Chart& chart() const { return m_chart; }
  // Has the ceilings measured (from the cache, else measured in the background) even while the window is
  // closed: the Sweep window's roofline figure asks for them.
  void request_ceilings();
  bool measuring() const { return m_job.running(); }

 private:
  void start_measuring(bool force);
  void collect();
  void read_cached();

  struct Measured {
    std::optional<roofline::Ceilings> gpu, cpu;
    std::string message;
  };
  LabEnv& m_env;
  CpuJob m_job;
  std::shared_ptr<Measured> m_result;
  bool m_started = false;
  bool m_cache_read = false;
  bool m_collected = true;
  std::string m_status;
  roofline::Chart m_chart;
  uint64_t m_version = ~uint64_t{0};
  fig::Figure m_figure;
};

}  // namespace bs
