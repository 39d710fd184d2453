// lab_start_flags.cpp: see lab_start_flags.h.
#include "app/lab_start_flags.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <set>

#include "app/bench.h"
#include "app/labs.h"
#include "app/param_flags.h"

namespace bs::cli {

namespace {
// The state member that keeps a lab's anatomy overlay (LabDescriptor::state_extras).
constexpr const char* k_overlay_key = "anatomy_overlay";

bool keeps_overlay(const LabDescriptor& d) {
  return std::find(d.state_extras.begin(), d.state_extras.end(), k_overlay_key) != d.state_extras.end();
}
}  // namespace

struct LabStartFlags::LabFlags {
  const LabDescriptor* lab = nullptr;
  std::vector<std::string> names;
  std::unique_ptr<ParamFlags> flags;
};

LabStartFlags::LabStartFlags(CLI::App& app) {
  std::set<std::string> taken;
  std::string overlay_labs;
  for (const LabDescriptor& d : lab_entries()) {
    if (keeps_overlay(d)) overlay_labs += (overlay_labs.empty() ? "" : ", ") + std::string(d.short_title);
    if (!d.schema) continue;
    auto l = std::make_unique<LabFlags>();
    l->lab = &d;
    for (const params::Param& p : d.schema->params())
      if (p.start_flag && taken.insert(p.name).second) l->names.push_back(p.name);
    if (l->names.empty()) continue;
    l->flags = std::make_unique<ParamFlags>(app, *d.schema, l->names, std::string(d.short_title) + ": ");
    m_labs.push_back(std::move(l));
  }
  if (!overlay_labs.empty())
    m_overlay_option =
        app.add_option("--overlay", m_overlay,
                       "Anatomy overlay at start (" + overlay_labs + "): " + anatomy::k_overlay_mode_names.list("|"))
            ->transform(cli::enum_choice(anatomy::k_overlay_mode_names));
}

LabStartFlags::~LabStartFlags() = default;

std::optional<std::string> LabStartFlags::read(std::map<std::string, nlohmann::json>& states) const {
  for (const auto& l : m_labs) {
    if (auto err = l->flags->read()) return err;
    nlohmann::json state = nlohmann::json::object();
    for (const std::string& name : l->names)
      if (l->flags->given(name)) state[name] = l->flags->value(name);
    if (state.empty()) continue;
    // A session's checks, with the flag's name where the message names a member ("labs.heat.block: ...").
    if (auto err = check_lab_state(l->lab->id, state)) {
      const std::string where = "labs." + std::string(l->lab->id) + ".";
      for (const std::string& name : l->names)
        if (err->rfind(where + name + ": ", 0) == 0) return ParamFlags::flag_of(name) + err->substr(where.size() + name.size());
      return err;
    }
    states[l->lab->id] = std::move(state);
  }
  if (m_overlay_option && m_overlay_option->count() > 0)
    for (const LabDescriptor& d : lab_entries())
      if (keeps_overlay(d)) states[d.id][k_overlay_key] = anatomy::overlay_mode_name(m_overlay);
  return std::nullopt;
}

}  // namespace bs::cli
