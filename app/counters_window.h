// counters_window.h: View > Hardware counters. For the active lab's current run (Lab::counter_target) it
// collects the curated CUPTI counters on a worker thread (the UI never blocks; the live lab pauses meanwhile,
// since counters see every kernel of the context), shows each next to the models' prediction, hands the
// result to the lab (the memory lab's "measured" column) and the measured DRAM bytes to the run log's
// matching record (the roofline's measured point).
#pragma once

#include <chrono>
#include <future>
#include <optional>
#include <vector>

#include "app/counters_target.h"
#include "app/lab.h"
#include "ui/counters/counters_panel.h"

namespace bs {

// The panel's rows for a target and, once collected, its result (nullptr: not yet). Pure (tests).
// sim: the simulator's values of the same launch (the "simulator" column; null: "-").
std::vector<ui::CounterRow> counter_rows(const CounterTarget& t, const counters::Result* r,
                                         const SimulatedCounterValues* sim = nullptr);
// Whether the target has any model value to show (the status says "the model values stay" only then).
bool has_model_values(const CounterTarget& t);

class CountersWindow {
 public:
  explicit CountersWindow(LabEnv& env) : m_env(env) {}
  ~CountersWindow();  // waits for a collection in flight
  CountersWindow(const CountersWindow&) = delete;
  CountersWindow& operator=(const CountersWindow&) = delete;

  bool& open() { return m_open; }
  bool busy() const { return m_future.valid(); }
  // Every frame: collects a finished result (open or not), and draws the window when open.
  void draw(Lab& active);
  // Starts a collection for `active`'s current run (the button; tests). False, with the panel's status
  // saying why, where there is nothing to collect.
  bool start(Lab& active);
  // Waits for a collection in flight and takes its result (tests, headless captures).
  void wait(Lab& active);
  const ui::CountersPanelModel& model() const { return m_model; }

 private:
  void poll(bool block);
  void refresh(Lab& active);

  LabEnv& m_env;
  bool m_open = false;
  std::optional<CounterTarget> m_target;  // of the collection in flight or last shown
  std::optional<counters::Result> m_result;
  std::future<counters::Result> m_future;
  // The simulator's values of the collection in flight (written by its worker before the future is ready).
  std::shared_ptr<std::optional<SimulatedCounterValues>> m_sim_pending, m_simulated;
  std::chrono::steady_clock::time_point m_started;
  const Lab* m_result_lab = nullptr;  // the lab m_result belongs to
  ui::CountersPanelModel m_model;
};

}  // namespace bs
