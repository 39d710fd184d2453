// target.cpp: see target.h.
#include "app/sweep/target.h"

namespace bs::sweep {

std::vector<double> collect_samples(int warmup, int reps, JobControl& ctl,
                                    const std::function<double()>& sample) {
  std::vector<double> kept;
  for (int i = 0; i < warmup + reps; ++i) {
    if (ctl.cancelled()) throw JobCancelled{};
    const double v = sample();
    if (i >= warmup) kept.push_back(v);
  }
  return kept;
}

Values default_values(const Target& t, const std::map<std::string, std::string>& fixed) {
  Values v;
  for (const ParamSpec& p : t.params())
    v[p.name] = p.default_value;
  for (const auto& [k, val] : fixed)
    v[k] = val;
  return v;
}

std::string param_names(const Target& t) {
  std::string s;
  for (const ParamSpec& p : t.params())
    s += (s.empty() ? "" : ", ") + std::string(p.name);
  return s;
}

const ParamSpec* find_param(const Target& t, std::string_view name) {
  for (const ParamSpec& p : t.params())
    if (name == p.name) return &p;
  return nullptr;
}

}  // namespace bs::sweep
