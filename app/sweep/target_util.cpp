// target_util.cpp: see target_util.h.
#include "app/sweep/target_util.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "app/sweep/definition.h"
#include "core/error.h"

namespace bs::sweep {

void bad(const std::string& name, const std::string& value, const std::string& why) {
  throw InvalidRequest(name + " = '" + value + "': " + why);
}

const std::string& get(const Values& v, const std::string& name) {
  static const std::string empty;
  auto it = v.find(name);
  return it == v.end() ? empty : it->second;
}

int64_t get_int(const Values& v, const std::string& name, int64_t lo, int64_t hi) {
  const std::string& s = get(v, name);
  const auto d = numeric_value(s);
  if (!d || *d != std::floor(*d)) bad(name, s, "not a whole number (e.g. 256, 64K, 2^20)");
  if (*d < static_cast<double>(lo) || *d > static_cast<double>(hi))
    bad(name, s, "outside " + std::to_string(lo) + ".." + std::to_string(hi));
  return static_cast<int64_t>(*d);
}

void check_cancel(const JobControl& ctl) {
  if (ctl.cancelled()) throw JobCancelled{};
}

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

std::vector<double> time_host(int warmup, int reps, JobControl& ctl, const std::function<void()>& fn,
                              double per_sample) {
  return collect_samples(warmup, reps, ctl, [&] {
    const double t0 = now_ms();
    fn();
    return (now_ms() - t0) / per_sample;
  });
}

std::vector<double> time_host_batched(int warmup, int reps, JobControl& ctl, const std::function<void()>& once,
                                      double min_sample_ms) {
  const double t0 = now_ms();
  once();
  const double one = std::max(now_ms() - t0, 1e-4);
  const int batch = static_cast<int>(std::clamp(std::ceil(min_sample_ms / one), 1.0, 1e5));
  return time_host(
      warmup, reps, ctl,
      [&] {
        for (int i = 0; i < batch; ++i)
          once();
      },
      batch);
}

std::vector<double> rates(const std::vector<double>& ms, double amount) {
  std::vector<double> r;
  for (double t : ms)
    r.push_back(t > 0 ? amount / (t * 1e-3) : 0.0);
  return r;
}

double samples_of(const RunSettings& s) {
  return static_cast<double>(s.warmup) + static_cast<double>(s.repetitions);
}

}  // namespace bs::sweep
