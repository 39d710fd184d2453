// session.cpp: see session.h.
#include "app/session.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <sstream>

#include "app/json_file.h"
#include "core/params.h"
#include "app/labs.h"
#include "app/kernel/kernel_workbench.h"
#include "app/sweep/definition.h"
#include "core/error.h"
#include "core/text.h"
#include "ui/colormap.h"
#include "assets/embedded.h"
#include "ui/presenter.h"

namespace bs {

using nlohmann::json;

// --- StateReader ------------------------------------------------------------------------------------------

StateReader::StateReader(const json& j, std::string where) : m_j(j), m_where(std::move(where)) {
  if (!m_j.is_object()) m_error = m_where + ": expected a JSON object {...}";
}

bool StateReader::has(const char* key) const {
  return m_j.is_object() && m_j.contains(key);
}

void StateReader::fail(const char* key, const std::string& message) {
  if (!m_error) m_error = m_where + "." + key + ": " + message;
}

const json* StateReader::get(const char* key) {
  if (m_error || !has(key)) return nullptr;
  return &m_j.at(key);
}

using params::shown;
using params::shown_text;

namespace {

// A parameter of `kind` in lo..hi for one read: the checks and their messages are the schema's
// (params::check_value), so a session's messages read the same whichever way a lab reads its state.
params::Param param_of(params::Kind kind, double lo = 0, double hi = 0, std::vector<std::string> names = {}) {
  params::Param p;
  p.kind = kind;
  p.lo = lo;
  p.hi = hi;
  p.names = std::move(names);
  return p;
}

}  // namespace

bool StateReader::check(const char* key, const params::Param& p, const json** v) {
  *v = get(key);
  if (!*v) return false;
  if (auto err = params::check_value(p, **v)) {
    fail(key, *err);
    return false;
  }
  return true;
}

void StateReader::integer(const char* key, int64_t& out, int64_t lo, int64_t hi) {
  const json* v = nullptr;
  if (check(key, param_of(params::Kind::Int, static_cast<double>(lo), static_cast<double>(hi)), &v))
    out = v->get<int64_t>();
}

void StateReader::integer(const char* key, int& out, int64_t lo, int64_t hi) {
  // The range never reaches beyond int, whatever the caller asks: the value is narrowed after the check.
  int64_t x = out;
  integer(key, x, std::max<int64_t>(lo, INT_MIN), std::min<int64_t>(hi, INT_MAX));
  if (ok()) out = static_cast<int>(x);
}

void StateReader::number(const char* key, double& out, double lo, double hi) {
  const json* v = nullptr;
  if (check(key, param_of(params::Kind::Number, lo, hi), &v)) out = v->get<double>();
}

void StateReader::number(const char* key, float& out, double lo, double hi) {
  double x = out;
  number(key, x, lo, hi);
  if (ok()) out = static_cast<float>(x);
}

void StateReader::boolean(const char* key, bool& out) {
  const json* v = nullptr;
  if (check(key, param_of(params::Kind::Bool), &v)) out = v->get<bool>();
}

void StateReader::text(const char* key, std::string& out) {
  const json* v = get(key);
  if (!v) return;
  if (!v->is_string()) {
    fail(key, "expected a string, got " + shown(*v));
    return;
  }
  out = v->get<std::string>();
}

void StateReader::choice(const char* key, int& out, std::span<const std::string_view> names) {
  const json* v = nullptr;
  if (check(key, param_of(params::Kind::Choice, 0, 0, {names.begin(), names.end()}), &v))
    for (size_t i = 0; i < names.size(); ++i)
      if (*v == names[i]) out = static_cast<int>(i);
}

void StateReader::pair(const char* key, int (&out)[2], int64_t lo, int64_t hi) {
  const json* v = nullptr;
  lo = std::max<int64_t>(lo, INT_MIN);
  hi = std::min<int64_t>(hi, INT_MAX);
  if (check(key, param_of(params::Kind::Pair, static_cast<double>(lo), static_cast<double>(hi)), &v)) {
    out[0] = (*v)[0].get<int>();
    out[1] = (*v)[1].get<int>();
  }
}

void StateReader::colormap(const char* key, int& out) {
  std::vector<std::string_view> names;
  for (const Colormap& c : builtin_colormaps())
    names.push_back(c.name);
  choice(key, out, names);
}

std::string colormap_name(int index) {
  const auto& maps = builtin_colormaps();
  if (maps.empty()) return {};
  return maps[static_cast<size_t>(std::clamp(index, 0, static_cast<int>(maps.size()) - 1))].name;
}

void StateReader::only(std::initializer_list<std::string_view> known) {
  if (m_error) return;
  for (const auto& [k, v] : m_j.items())
    if (std::find(known.begin(), known.end(), k) == known.end()) {
      std::string list;
      for (std::string_view n : known)
        list += (list.empty() ? "" : ", ") + std::string(n);
      m_error = m_where + "." + shown_text(k) + ": unknown setting (known: " + list + ")";
      return;
    }
}

// --- Lab states -------------------------------------------------------------------------------------------

// --- Sessions ---------------------------------------------------------------------------------------------

namespace {

std::string known_labs() {
  return lab_ids_text();
}

SessionResult failed(std::string_view source, const std::string& msg) {
  SessionResult r;
  r.error = std::string(source) + ": " + msg;
  return r;
}

SessionResult failed_read(const JsonRead& r) {
  SessionResult out;
  out.error = r.error;
  return out;
}

SessionResult session_from_json(const json& j, std::string_view source);

}  // namespace

SessionResult parse_session(std::string_view text, std::string_view source) {
  const JsonRead r = parse_json_text(text, source);
  return r.value ? session_from_json(*r.value, source) : failed_read(r);
}

SessionResult load_session_file(const std::string& path) {
  const JsonRead r = read_json_file(path);
  return r.value ? session_from_json(*r.value, path) : failed_read(r);
}

namespace {

SessionResult session_from_json(const json& j, std::string_view source) {
  if (!j.is_object()) return failed(source, "expected a JSON object {...} at the top");
  if (!j.contains("blockscope_session"))
    return failed(source, "blockscope_session: missing (is this a blockscope session file?)");
  const json& ver = j["blockscope_session"];
  if (!ver.is_number_integer() || ver.get<int64_t>() < 1 || ver.get<int64_t>() > k_session_version)
    return failed(source, "blockscope_session: version " + shown(ver) +
                              " is not supported (this blockscope "
                              "reads versions 1 to " +
                              std::to_string(k_session_version) + ")");
  if (const int64_t from = ver.get<int64_t>(); from < k_session_version) {
    // An older version: each lab rewrites its own saved state (its descriptor's migrate_state), then the file
    // is read as the current version, with a note of what changed.
    json migrated = j;
    migrated["blockscope_session"] = k_session_version;
    std::string changes;
    if (migrated.contains("labs") && migrated["labs"].is_object()) {
      for (const LabDescriptor& lab : lab_entries()) {
        if (!lab.migrate_state || !migrated["labs"].contains(lab.id)) continue;
        if (auto what = lab.migrate_state(from, migrated["labs"][lab.id]))
          changes += (changes.empty() ? "" : "; ") + *what;
      }
    }
    SessionResult r = session_from_json(migrated, source);
    if (r.session && !changes.empty())
      r.note = std::string(source) + ": a version " + std::to_string(from) + " session: " + changes +
               "; saving writes version " + std::to_string(k_session_version);
    return r;
  }
  Session s;
  StateReader top(j, "session");
  top.only({"blockscope_session", "description", "active_lab", "open_labs", "ui", "labs", "sweep", "kernel"});
  top.text("description", s.description);
  if (!top.has("active_lab")) top.fail("active_lab", "missing (the lab to show: " + known_labs() + ")");
  top.text("active_lab", s.active_lab);
  if (!top.ok()) return failed(source, *top.error());
  if (!is_lab(s.active_lab))
    return failed(source,
                  "active_lab: unknown lab '" + shown_text(s.active_lab) + "' (known: " + known_labs() + ")");

  if (j.contains("open_labs")) {
    const json& open = j["open_labs"];
    if (!open.is_array()) return failed(source, "open_labs: expected a list of lab names");
    for (const json& id : open) {
      if (!id.is_string() || !is_lab(id.get<std::string>()))
        return failed(source, "open_labs: " + shown(id) + " is not a lab (known: " + known_labs() + ")");
      if (std::find(s.open_labs.begin(), s.open_labs.end(), id.get<std::string>()) == s.open_labs.end())
        s.open_labs.push_back(id.get<std::string>());
    }
  }
  if (std::find(s.open_labs.begin(), s.open_labs.end(), s.active_lab) == s.open_labs.end())
    s.open_labs.push_back(s.active_lab);

  if (j.contains("ui")) {
    StateReader ui(j["ui"], "ui");
    ui.only({"scale", "presenter", "readouts", "theme"});
    ui.number("scale", s.ui.scale, ui::k_min_ui_scale, ui::k_max_ui_scale);
    ui.boolean("presenter", s.ui.presenter);
    ui.boolean("readouts", s.ui.readouts);
    int theme = -1;
    ui.choice("theme", theme, ui::k_theme_names.names());
    if (theme >= 0) s.ui.theme = ui::k_theme_names.names()[static_cast<size_t>(theme)];
    if (!ui.ok()) return failed(source, *ui.error());
  }

  if (j.contains("labs")) {
    const json& labs = j["labs"];
    if (!labs.is_object()) return failed(source, "labs: expected an object {\"heat\": {...}, ...}");
    for (const auto& [id, state] : labs.items()) {
      if (!is_lab(id))
        return failed(source, "labs." + shown_text(id) + ": unknown lab (known: " + known_labs() + ")");
      if (auto err = check_lab_state(id, state)) return failed(source, *err);
      s.labs[id] = state;
      if (std::find(s.open_labs.begin(), s.open_labs.end(), id) == s.open_labs.end())
        s.open_labs.push_back(id);
    }
  }

  if (j.contains("sweep")) {
    // The definition in full (names and every point's values), as the sweep window will.
    const json& sw = j["sweep"];
    if (!sw.is_object()) return failed(source, "sweep: expected a sweep definition object");
    if (!sw.contains("lab") || !sw["lab"].is_string() || !is_lab(sw["lab"].get<std::string>()))
      return failed(source, "sweep.lab: missing or not a lab (known: " + known_labs() + ")");
    if (!sw.contains("params") || !sw["params"].is_array())
      return failed(source, "sweep.params: missing (a list of {\"name\": ..., \"values\": [...]})");
    try {
      sweep::validate(sweep::definition_from_json(sw));
    } catch (const InvalidRequest& e) {
      return failed(source, std::string("sweep: ") + e.what());
    } catch (const json::exception& e) {
      return failed(source, std::string("sweep: a field has the wrong type (") + e.what() + ")");
    }
    s.sweep = sw;
  }
  if (j.contains("kernel")) {
    // The kernel editor's sources and options (checked in full: a bad member is refused, naming it).
    if (auto err = KernelWorkbench::check_state(j["kernel"])) return failed(source, *err);
    s.kernel = j["kernel"];
  }
  SessionResult r;
  r.session = std::move(s);
  return r;
}

}  // namespace

json to_json(const Session& s) {
  json j;
  j["blockscope_session"] = k_session_version;
  if (!s.description.empty()) j["description"] = s.description;
  j["active_lab"] = s.active_lab;
  j["open_labs"] = s.open_labs;
  // Scales are kept to two decimals: 1.75, not 1.7500000476837158.
  j["ui"] = {{"scale", std::round(static_cast<double>(s.ui.scale) * 100.0) / 100.0},
             {"presenter", s.ui.presenter},
             {"readouts", s.ui.readouts},
             {"theme", s.ui.theme.empty() ? std::string(ui::to_string(ui::Theme::Dark)) : s.ui.theme}};
  j["labs"] = s.labs.is_object() ? s.labs : json::object();
  if (!s.sweep.is_null()) j["sweep"] = s.sweep;
  if (!s.kernel.is_null()) j["kernel"] = s.kernel;
  return j;
}

bool save_session(const Session& s, const std::string& path, std::string* error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p(path);
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  if (ec) {
    if (error) *error = "cannot create " + p.parent_path().string() + ": " + ec.message();
    return false;
  }
  // Atomic: a crash or a full disk mid-write never leaves half a session behind.
  std::string err;
  if (!write_text_file(path, to_json(s).dump(2) + "\n", &err)) {
    if (error) *error = err;
    return false;
  }
  return true;
}

std::string session_dir() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  std::filesystem::path p = xdg && *xdg     ? std::filesystem::path(xdg)
                            : home && *home ? std::filesystem::path(home) / ".config"
                                            : std::filesystem::path();
  if (p.empty()) return {};
  return (p / "blockscope" / "sessions").string();
}

std::string timestamped_name(std::string_view prefix, std::string_view ext) {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
  return std::string(prefix) + "-" + buf + std::string(ext);
}

// --- Presets ----------------------------------------------------------------------------------------------

std::vector<Preset> presets() {
  std::vector<Preset> out;
  for (const embedded::File& f : embedded::files()) {
    if (f.name.size() <= 5 || f.name.substr(f.name.size() - 5) != ".json") continue;
    Preset p;
    p.name = std::string(f.name.substr(0, f.name.size() - 5));
    p.text = f.content;
    const JsonRead r = parse_json_text(f.content, "preset " + p.name);
    const auto text_member = [&](const char* key) {
      const nlohmann::json& v = *r.value;
      return v.is_object() && v.contains(key) && v[key].is_string() ? v[key].get<std::string>() : std::string();
    };
    // Other embedded JSON (the kernels' contracts, gpu/*/*.contract.json) is not a session: not a preset.
    if (r.value && !(r.value->is_object() && r.value->contains("blockscope_session"))) continue;
    if (!r.value) {
      p.description = "(not valid JSON)";
    } else {
      p.description = text_member("description");
      p.lab = text_member("active_lab");
    }
    out.push_back(std::move(p));
  }
  std::sort(out.begin(), out.end(), [](const Preset& a, const Preset& b) { return a.name < b.name; });
  return out;
}

SessionResult load_preset(std::string_view name) {
  if (name.size() > 5 && name.substr(name.size() - 5) == ".json") name.remove_suffix(5);
  std::string known;
  for (const Preset& p : presets()) {
    if (p.name == name) return parse_session(p.text, "preset " + p.name);
    known += (known.empty() ? "" : ", ") + p.name;
  }
  return failed("--preset", "no preset called '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace bs
