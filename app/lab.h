// lab.h: what the frame loop needs from a lab (heat, and later matmul, Monte Carlo, vector). A lab owns its
// workload (GPU or CPU), its GL resources and its UI model; app/ wires it to ui/ panels and gpu/ interfaces.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "app/counters_target.h"
#include "app/render_path.h"
#include "core/work_model.h"
#include "gpu/common/device_info.h"
#include "ui/gl/context.h"
#include "ui/presenter.h"

namespace bs {

class UserKernels;  // app/kernel/user_kernels.h

// Shared, explicit state every lab sees (owned by App; passed by reference).
struct LabEnv {
  DeviceInfo device;
  gl::Context* gl = nullptr;
  PathRequest request = PathRequest::Auto;
  PathDecision path;  // the path in force; a lab may step it down (interop -> host copy) and say why
  UserKernels* user_kernels = nullptr;  // the user's compiled kernels (kernel lab); set by App, may be null
  work::RunLog* runs = nullptr;  // every timed run, for the roofline (app/roofline/roofline_report.h); set by App, may be null
};

class Lab {
 public:
  virtual ~Lab() = default;
  virtual const char* id() const = 0;
  virtual const char* title() const = 0;
  // Builds the lab's windows (called between ImGui::NewFrame and ImGui::Render).
  virtual void draw_ui() = 0;
  // Simulates and writes the field into GL (after the UI changed parameters, before ImGui renders).
  virtual void update() = 0;
  // Device-reset support: forget GPU handles (the reset freed them), then rebuild on the current path.
  virtual void abandon_gpu() noexcept = 0;
  virtual void rebuild() = 0;

  // Sessions (app/session.h): every user-visible parameter as JSON, and back. load_state validates the whole
  // object first and changes nothing on error (the message names the field, e.g. "labs.heat.block: ...");
  // members left out keep their current value. Called between frames, never inside one.
  virtual nlohmann::json save_state() const { return nlohmann::json::object(); }
  virtual std::optional<std::string> load_state(const nlohmann::json&) { return std::nullopt; }
  // Presenter mode: a few big numbers the lab already measured (speedup vs CPU, GB/s, GFLOP/s, ms).
  virtual std::vector<ui::Readout> readouts() const { return {}; }
  // The ImGui window that shows the lab's field or view (Shift+F12 captures just that window).
  virtual const char* view_window() const { return nullptr; }
  // Hardware counters (View > Hardware counters): the lab's current run as a launch to collect counters for,
  // with the models' predictions. nullopt: nothing to measure here (no GPU kernel for the current choice).
  virtual std::optional<CounterTarget> counter_target() { return std::nullopt; }
};

}  // namespace bs

namespace bs {

// Where a lab's windows start the first time they appear (a layout the user can then change): the view on the
// left, the panel on the right, both below the lab bar.
struct LabArea {
  float x, y, w, h;
};
LabArea lab_view_area();
LabArea lab_panel_area();

}  // namespace bs
