// sweep_window.h: the "Sweep" window: set up a sweep of any lab, run it on a worker thread (progress, ETA,
// cancel; the UI stays live), see the figure, export CSV / JSON / SVG / PNG with record.json next to them.
// The app owns one; it calls draw() inside the ImGui frame and after_render() after ImGui::Render (PNG export
// renders through ImGui and must run outside a frame).
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>

#include "app/lab.h"
#include "gpu/roofline/ceilings.h"
#include "ui/figure.h"

namespace bs {

class SweepWindow {
 public:
  explicit SweepWindow(const LabEnv& env);
  ~SweepWindow();  // cancels and joins a running sweep
  SweepWindow(const SweepWindow&) = delete;
  SweepWindow& operator=(const SweepWindow&) = delete;

  // Call every frame, open or not: it also collects a finished sweep (and its sticky error) while closed.
  void draw(bool* open);
  // Runs queued exports (needs the app's GL context current, outside any ImGui frame).
  void after_render();
  // A sweep definition (the shared JSON form, e.g. a session's "sweep") into the form; run_now starts it.
  // Throws bs::InvalidRequest on a malformed definition.
  void load_definition(const nlohmann::json& definition, bool run_now);

  // Queues an export of every file of the last result into `dir` (written by the next after_render()).
  // False when there is no result yet.
  bool queue_export_all(const std::string& dir);
  // Queues an export of some of the files (as the panel's CSV / JSON / SVG / PNG buttons do).
  bool queue_export(const std::string& dir, bool csv, bool json, bool svg, bool png);
  // "wrote sweep.csv, ... into DIR" or the first error of the last export.
  std::string export_message() const;
  bool has_result() const;

  bool busy() const;      // a sweep is running
  bool gpu_busy() const;  // a sweep that times GPU series is running
  // The live lab must not run while any timed sweep runs, GPU or CPU: it would compete for the device or the
  // cores and disturb the timings. The app skips the live lab's update while this is true.
  bool pauses_live_lab() const;
  // A sweep whose estimate is above sweep::k_confirm_above_s waits for "Run anyway": the question shown, or
  // "" when none is pending. confirm_run(true) starts it, confirm_run(false) drops it.
  std::string pending_confirmation() const;
  void confirm_run(bool run);
  // Set when a sticky CUDA error stopped the last sweep (the device needs a reset); the app triggers recovery
  // and then calls clear_sticky_error().
  const std::string& sticky_error() const;
  void clear_sticky_error();
  // The current form as a sweep definition (for sessions); throws bs::InvalidRequest on bad input.
  nlohmann::json definition_json() const;

  // The roofline figure: wants_ceilings() while it is chosen (the app then has them measured, as the
  // Roofline window does); set_ceilings() hands over the ones known (absent: the figure says they are
  // missing). Cheap when nothing changed.
  bool wants_ceilings() const;
  void set_ceilings(const std::optional<roofline::Ceilings>& gpu,
                    const std::optional<roofline::Ceilings>& cpu);
  // 0 time, 1 throughput, 2 roofline (as the panel's buttons); tests and sessions.
  void set_metric(int metric);
  const fig::Figure* figure() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m;
};

}  // namespace bs
