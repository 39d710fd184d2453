// param_flags.cpp: see param_flags.h.
#include "app/param_flags.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <stdexcept>

namespace bs::cli {

namespace {
const nlohmann::json& default_of(const params::Param& p, ParamFlags::Defaults d) {
  return d == ParamFlags::Defaults::Bench && !p.bench_default.is_null() ? p.bench_default : p.default_value;
}
}  // namespace

std::string ParamFlags::flag_of(const std::string& name) {
  std::string f = "--" + name;
  std::replace(f.begin(), f.end(), '_', '-');
  return f;
}

ParamFlags::ParamFlags(CLI::App& app, const params::Schema& schema, const std::vector<std::string>& names,
                       const std::string& help_prefix, Defaults defaults)
    : m_defaults(defaults) {
  for (const std::string& name : names) {
    auto f = std::make_unique<Flag>();
    f->param = &schema.at(name);
    const std::string def = params::to_text(*f->param, default_of(*f->param, defaults));
    f->option =
        app.add_option(flag_of(name), f->text, help_prefix + f->param->help + " (default " + def + ")");
    f->value = default_of(*f->param, defaults);
    m_flags[name] = std::move(f);
  }
}

std::optional<std::string> ParamFlags::read() {
  for (auto& [name, f] : m_flags) {
    if (f->option->count() == 0) continue;
    const params::TextValue v = params::from_text(*f->param, f->text, flag_of(name));
    if (!v.value) return v.error;
    f->value = *v.value;
  }
  return std::nullopt;
}

const nlohmann::json& ParamFlags::value(const std::string& name) const {
  const auto it = m_flags.find(name);
  if (it == m_flags.end()) throw std::logic_error("no flag for parameter " + name);
  return it->second->value;
}

bool ParamFlags::given(const std::string& name) const {
  const auto it = m_flags.find(name);
  return it != m_flags.end() && it->second->option->count() > 0;
}

std::string ParamFlags::text(const std::string& name) const {
  const auto it = m_flags.find(name);
  return it != m_flags.end() && it->second->option->count() > 0 ? it->second->text : std::string();
}

}  // namespace bs::cli
