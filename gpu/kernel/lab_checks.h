// lab_checks.h: the checks a user kernel's output gets, shared by the GPU runs (lab_runs.h) and the simulated
// ones (sim_runs.h), so both say the same thing in the same words. Plain C++.
#pragma once

#include <span>
#include <string>
#include <utility>

namespace bs::kernel {

// "max rel err 1.20e-07 <= 1.00e-06: pass"
std::string check_text(double err, double tol, bool pass, const char* what);

// The heat check: max |out - ref| / max |ref| after `steps` steps against heat_tolerance(steps) (lab_runs.h).
struct HeatCheck {
  double error = 0, tolerance = 0;  // error NaN when out holds NaN or Inf
  bool passed = false;
  std::string text;  // "max rel err ... vs the CPU step"
};
HeatCheck heat_check(std::span<const float> out, std::span<const float> ref, int steps);

// Records a check in a run's result (UserRun on the GPU, SimRun in the simulator), so both report it alike.
template <class Run>
void record_check(Run& out, double error, double tolerance, bool passed, std::string text) {
  out.error = error;
  out.tolerance = tolerance;
  out.passed = passed;
  out.check = std::move(text);
}
template <class Run>
void record_check(Run& out, const HeatCheck& c, const std::string& suffix = "") {
  record_check(out, c.error, c.tolerance, c.passed, c.text + suffix);
}

}  // namespace bs::kernel
