// definition.cpp: see definition.h.
#include "app/sweep/definition.h"

#include <cmath>
#include <cstdint>
#include <set>

#include "app/sweep/targets.h"
#include "app/sweep/util.h"
#include "core/error.h"

namespace bs::sweep {

using nlohmann::json;
using util::format_int;
using util::invalid;
using util::join;
using util::parse_double;
using util::split;
using util::strings;
using util::suffix_shift;
using util::trim;
using util::value_text;

nlohmann::json to_json(const Definition& d) {
  json params = json::array();
  for (const Param& p : d.params)
    params.push_back({{"name", p.name}, {"values", p.values}});
  json fixed = json::object();
  for (const auto& [k, v] : d.fixed)
    fixed[k] = v;
  return {{"lab", d.lab},
          {"params", params},
          {"fixed", fixed},
          {"warmup", d.warmup},
          {"repetitions", d.repetitions},
          {"device", to_string(d.device)}};
}

Definition definition_from_json(const nlohmann::json& j) {
  if (!j.is_object()) invalid("sweep definition: expected a JSON object");
  Definition d;
  if (!j.contains("lab") || !j["lab"].is_string()) invalid("sweep definition: \"lab\" (a string) is missing");
  d.lab = j["lab"].get<std::string>();
  if (!j.contains("params") || !j["params"].is_array())
    invalid("sweep definition: \"params\" (an array) is missing");
  for (const auto& p : j["params"]) {
    if (!p.is_object() || !p.contains("name") || !p["name"].is_string() || !p.contains("values"))
      invalid("sweep definition: each entry of \"params\" needs \"name\" and \"values\"");
    d.params.push_back({p["name"].get<std::string>(), strings(p["values"], "sweep definition: values")});
  }
  if (j.contains("fixed")) {
    if (!j["fixed"].is_object()) invalid("sweep definition: \"fixed\" must be an object");
    for (const auto& [k, v] : j["fixed"].items())
      d.fixed[k] = value_text(v, "sweep definition: fixed." + k);
  }
  // Counts are read wide and range-checked before narrowing: 4294967297 repetitions must be refused, not
  // wrap to 1.
  auto integer = [&](const char* key, int fallback, int lo, int hi) {
    if (!j.contains(key)) return fallback;
    const json& x = j[key];
    if (!x.is_number_integer())
      invalid(std::string("sweep definition: \"") + key + "\" must be a whole number");
    // (JSON's non-negative integers read as unsigned: compare those unsigned first, so 2^64 - 1 is no -1.)
    const bool in_range = x.is_number_unsigned()
                              ? x.get<uint64_t>() <= static_cast<uint64_t>(hi) && x.get<int64_t>() >= lo
                              : x.get<int64_t>() >= lo && x.get<int64_t>() <= hi;
    if (!in_range)
      invalid(std::string("sweep definition: \"") + key + "\" = " + x.dump() + " is outside " +
              std::to_string(lo) + ".." + std::to_string(hi));
    return static_cast<int>(x.get<int64_t>());
  };
  d.warmup = integer("warmup", d.warmup, 0, k_max_warmup);
  d.repetitions = integer("repetitions", d.repetitions, 1, k_max_repetitions);
  if (j.contains("device")) {
    const auto dev = j["device"].is_string() ? parse_device(j["device"].get<std::string>()) : std::nullopt;
    if (!dev) invalid("sweep definition: \"device\" must be \"auto\", \"gpu\", \"cpu\" or \"all\"");
    d.device = *dev;
  }
  return d;
}

Param parse_param(std::string_view text) {
  const std::string shown(text);
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos)
    invalid("--param '" + shown + "': expected NAME=V1,V2,... (e.g. block.x=32,64,128) or NAME=A..B");
  Param p{trim(text.substr(0, eq)), {}};
  if (p.name.empty()) invalid("--param '" + shown + "': the parameter name is missing before '='");
  const std::string rest = trim(text.substr(eq + 1));
  const size_t dots = rest.find("..");
  if (dots != std::string::npos && rest.find(',') == std::string::npos) {
    const std::string a = trim(std::string_view(rest).substr(0, dots)),
                      b = trim(std::string_view(rest).substr(dots + 2));
    const auto lo = numeric_value(a), hi = numeric_value(b);
    if (!lo || !hi || *lo <= 0 || *lo != std::floor(*lo) || *hi != std::floor(*hi))
      invalid("--param '" + shown +
              "': a range A..B needs two positive whole numbers (e.g. 2^10..2^20, 1K..1M)");
    if (*hi < *lo) invalid("--param '" + shown + "': the range ends below its start");
    const bool suffix = suffix_shift(a.back()) != 0 || suffix_shift(b.back()) != 0;
    for (double v = *lo; v <= *hi; v *= 2) {
      p.values.push_back(format_int(v, suffix));
      if (p.values.size() > k_max_points) invalid("--param '" + shown + "': the range has too many values");
    }
    return p;
  }
  for (const std::string& v : split(rest, ','))
    if (v.empty())
      invalid("--param '" + shown + "': an empty value (check for a stray comma)");
    else
      p.values.push_back(v);
  if (p.values.empty()) invalid("--param '" + shown + "': no values after '='");
  return p;
}

std::pair<std::string, std::string> parse_fixed(std::string_view text) {
  const std::string shown(text);
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos) invalid("--fixed '" + shown + "': expected NAME=VALUE (e.g. size=2048)");
  std::string name = trim(text.substr(0, eq)), value = trim(text.substr(eq + 1));
  if (name.empty()) invalid("--fixed '" + shown + "': the parameter name is missing before '='");
  if (value.empty()) invalid("--fixed '" + shown + "': the value is missing after '='");
  if (value.find(',') != std::string::npos)
    invalid("--fixed '" + shown + "': one value only (sweep several with --param)");
  return {name, value};
}

std::vector<std::vector<std::string>> points_of(const Definition& d) {
  std::vector<std::vector<std::string>> pts{{}};
  for (const Param& p : d.params) {
    std::vector<std::vector<std::string>> next;
    for (const auto& prefix : pts)
      for (const std::string& v : p.values) {
        next.push_back(prefix);
        next.back().push_back(v);
      }
    pts = std::move(next);
  }
  if (d.params.empty()) return {};
  return pts;
}

void validate(const Definition& d) {
  validate_with(target_of(d.lab), d);
}

void validate_with(const Target& target, const Definition& d) {
  const Target* t = &target;
  if (d.params.empty()) invalid("sweep at least one parameter of " + d.lab + " (" + param_names(*t) + ")");
  if (d.params.size() > 2)
    invalid("a sweep takes one or two parameters, not " + std::to_string(d.params.size()));
  std::set<std::string> seen;
  size_t count = 1;
  for (const Param& p : d.params) {
    if (!find_param(*t, p.name))
      invalid("unknown parameter '" + p.name + "' for lab " + d.lab + " (valid: " + param_names(*t) + ")");
    if (!seen.insert(p.name).second) invalid("parameter '" + p.name + "' is swept twice");
    if (d.fixed.count(p.name)) invalid("parameter '" + p.name + "' is both swept and fixed");
    if (p.values.empty()) invalid("parameter '" + p.name + "' has no values");
    if (p.values.size() > k_max_points)  // checked before the product, which could otherwise wrap
      invalid("parameter '" + p.name + "' has " + std::to_string(p.values.size()) +
              " values: a sweep runs at most " + std::to_string(k_max_points) + " points");
    count *= p.values.size();
  }
  for (const auto& [k, v] : d.fixed)
    if (!find_param(*t, k))
      invalid("unknown fixed parameter '" + k + "' for lab " + d.lab + " (valid: " + param_names(*t) + ")");
  if (d.warmup < 0 || d.warmup > k_max_warmup)
    invalid("warmup = " + std::to_string(d.warmup) + ": choose 0.." + std::to_string(k_max_warmup) +
            " warm-up runs");
  if (d.repetitions < 1 || d.repetitions > k_max_repetitions)
    invalid("repetitions = " + std::to_string(d.repetitions) + ": choose 1.." +
            std::to_string(k_max_repetitions) + " timed runs per point");
  if (count > k_max_points)
    invalid(std::to_string(count) + " points: a sweep runs at most " + std::to_string(k_max_points));
  // Every point is checked. A value no point can run with is an error (the message names it); with two
  // parameters, single combinations that cannot run (block 256 x 8 = 2048 threads) are skipped at run time
  // with a note instead, so a grid of shapes can be swept as typed.
  const Values base = default_values(*t, d.fixed);
  const auto pts = points_of(d);
  std::vector<std::string> errors(pts.size());
  for (size_t i = 0; i < pts.size(); ++i) {
    Values vals = base;
    for (size_t k = 0; k < pts[i].size(); ++k)
      vals[d.params[k].name] = pts[i][k];
    try {
      t->validate(vals);
    } catch (const InvalidRequest& e) {
      errors[i] = e.what();
      if (errors[i].empty()) errors[i] = "invalid";
    }
  }
  for (size_t k = 0; k < d.params.size(); ++k)
    for (const std::string& v : d.params[k].values) {
      std::string first;
      bool any_ok = false;
      for (size_t i = 0; i < pts.size(); ++i)
        if (pts[i][k] == v) {
          if (errors[i].empty())
            any_ok = true;
          else if (first.empty())
            first = errors[i];
        }
      if (!any_ok) invalid(first);
    }
}

}  // namespace bs::sweep
