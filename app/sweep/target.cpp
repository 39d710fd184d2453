// target.cpp: see target.h.
#include "app/sweep/target.h"

#include <algorithm>

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

namespace {
std::vector<std::string> split_on(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}
}  // namespace

SchemaParams::SchemaParams(const params::Schema& schema) {
  const auto keep = [&](std::string text) { return m_text.emplace_back(std::move(text)).c_str(); };
  for (const params::Param& p : schema.params()) {
    if (p.sweep_example.empty()) continue;
    const std::vector<std::string> names = split_on(p.sweep_names.empty() ? p.name : p.sweep_names, ',');
    const std::vector<std::string> examples = split_on(p.sweep_example, ';');
    const bool by_component = names.size() == 2 && p.kind == params::Kind::Pair;
    for (size_t i = 0; i < names.size(); ++i) {
      std::string def = params::to_text(p, p.default_value);
      std::string help = p.help;
      if (by_component) {
        def = std::to_string(p.default_value[i].get<int64_t>());
        help += i == 0 ? ": x" : ": y";
      }
      m_specs.push_back(
          {keep(names[i]), keep(def), keep(examples[std::min(i, examples.size() - 1)]), keep(help)});
      if (p.gpu_only) m_gpu_only.push_back(names[i]);
    }
  }
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
