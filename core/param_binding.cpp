// param_binding.cpp: see param_binding.h.
#include "core/param_binding.h"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace bs::params {

double float_as_typed(float v) {
  if (!std::isfinite(v)) return static_cast<double>(v);
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);  // the shortest form that reads back as v
  if (ec != std::errc()) return static_cast<double>(v);
  double d = 0;
  if (std::from_chars(buf, end, d).ec != std::errc()) return static_cast<double>(v);
  return d;
}

namespace {

const StateBinding& binding_of(const Schema& schema, const Param& p, std::type_index type) {
  if (p.bind->state != type)
    throw std::logic_error(schema.lab() + "." + p.name + " is bound to another state struct");
  return *p.bind;
}

}  // namespace

nlohmann::json save_bound(const Schema& schema, std::type_index type, const void* state) {
  nlohmann::json j = nlohmann::json::object();
  for (const Param& p : schema.params())
    if (p.bind && p.saved && p.written) j[p.name] = binding_of(schema, p, type).get(p, state);
  return j;
}

void load_bound(const Schema& schema, std::type_index type, void* state, const nlohmann::json& checked) {
  if (!checked.is_object()) return;
  for (const Param& p : schema.params())
    if (p.bind && checked.contains(p.name)) binding_of(schema, p, type).set(p, state, checked[p.name]);
}

std::string unbound_names(const Schema& schema) {
  std::string out;
  for (const Param& p : schema.params())
    if (p.saved && p.written && !p.bind) out += (out.empty() ? "" : ", ") + p.name;
  return out;
}

}  // namespace bs::params
