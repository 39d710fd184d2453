// lab_checks.cpp: see lab_checks.h.
#include "gpu/kernel/lab_checks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace bs::kernel {

std::string check_text(double err, double tol, bool pass, const char* what) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s %.2e %s %.2e: %s", what, err, pass ? "<=" : ">", tol, pass ? "pass" : "FAIL");
  return buf;
}

HeatCheck heat_check(std::span<const float> out, std::span<const float> ref, int steps) {
  HeatCheck c;
  double max_diff = 0, max_ref = 0;
  bool finite = true;
  for (size_t i = 0; i < ref.size() && i < out.size(); ++i) {
    if (!std::isfinite(out[i])) finite = false;
    max_diff = std::max(max_diff, std::fabs(double(out[i]) - ref[i]));
    max_ref = std::max(max_ref, std::fabs(double(ref[i])));
  }
  c.error = finite ? max_diff / std::max(max_ref, 1e-30) : NAN;
  c.tolerance = std::max(1e-6, 4e-7 * steps);
  c.passed = finite && c.error <= c.tolerance;
  c.text = check_text(c.error, c.tolerance, c.passed, "max rel err") + (finite ? "" : " (the field holds NaN or Inf)") +
           " vs the CPU step";
  return c;
}

}  // namespace bs::kernel
