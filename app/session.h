// session.h: saving and loading the whole app state as JSON (the active lab, the open labs, UI scale and
// presenter mode, every lab's parameters, an optional sweep definition), and the presets shipped in
// assets/presets/ (session files embedded into the binary). Loading validates everything before anything is
// applied, so a bad file leaves the running state as it was.
//
//   {"blockscope_session": 1, "description": "...", "active_lab": "heat", "open_labs": ["heat"],
//    "ui": {"scale": 1.0, "presenter": false, "readouts": false, "theme": "dark"},
//    "labs": {"heat": {...}, "matmul": {...}}, "sweep": {...}, "kernel": {...}}
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/params.h"

namespace bs {

// Version 2 (2026-11-27): the memory lab's "size" pair is x first, [cols, rows], as every other size. Version 1
// files still load: their memory size ([rows, cols]) is turned x first, and SessionResult::note says so.
constexpr int k_session_version = 2;

struct SessionUi {
  float scale = 1.0f;  // ui::k_min_ui_scale .. ui::k_max_ui_scale
  bool presenter = false;
  bool readouts = false;  // the big-readouts window (presenter mode shows it too)
  std::string theme;      // "dark" | "light" (View > Theme); empty (not in the file): keep the one in force
};

struct Session {
  std::string description;
  std::string active_lab;
  std::vector<std::string> open_labs;  // includes active_lab
  SessionUi ui;
  nlohmann::json labs = nlohmann::json::object();  // lab id -> that lab's save_state()
  nlohmann::json sweep;                            // null when the session has no sweep
  nlohmann::json kernel;  // the kernel editor (app/kernel/kernel_workbench.h); null when the session has none
};

struct SessionResult {
  std::optional<Session> session;
  std::string error;  // when !session: what is wrong, naming the field
  std::string note;   // when a session loaded from an older version: what was migrated
};

// Parses and validates a session: the version, the labs named, the UI settings and every lab's state (through
// check_lab_state). `source` names the file in messages.
SessionResult parse_session(std::string_view text, std::string_view source);
SessionResult load_session_file(const std::string& path);
nlohmann::json to_json(const Session& s);
// Writes the session (creating the folder); false with `error` on failure.
bool save_session(const Session& s, const std::string& path, std::string* error);

// Where sessions are saved by default: $XDG_CONFIG_HOME/blockscope/sessions (or ~/.config/...); empty when
// neither is set. Not created here.
std::string session_dir();
// A file name for a new session or capture: "<prefix>-YYYYMMDD-HHMMSS<ext>", local time.
std::string timestamped_name(std::string_view prefix, std::string_view ext);

// The name of builtin colormap `index` (clamped), for save_state.
std::string colormap_name(int index);

// --- Presets: the sessions in assets/presets/, embedded at build time -------------------------------------
struct Preset {
  std::string name;  // file name without ".json": "matmul-coalescing"
  std::string description;
  std::string lab;  // the lab it opens (its active_lab): a lab's presets are found by its id, not listed
  std::string_view text;
};
std::vector<Preset> presets();
// The preset called `name` (with or without ".json"), parsed and validated.
SessionResult load_preset(std::string_view name);

// --- Lab states -----------------------------------------------------------------------------------------
// A lab's saved state is checked by check_lab_state (app/labs.h): its schema, then its own rules.

// Reads the members of one JSON object into existing values, checking each: an absent member leaves its
// value as it was; the first bad one stops the reading and error() names it ("labs.heat.block: ...").
class StateReader {
 public:
  StateReader(const nlohmann::json& j, std::string where);

  bool ok() const { return !m_error; }
  const std::optional<std::string>& error() const { return m_error; }
  bool has(const char* key) const;
  // Records an error about `key` (the first one wins).
  void fail(const char* key, const std::string& message);

  void integer(const char* key, int& out, int64_t lo, int64_t hi);
  void integer(const char* key, int64_t& out, int64_t lo, int64_t hi);
  void number(const char* key, double& out, double lo, double hi);
  void number(const char* key, float& out, double lo, double hi);
  void boolean(const char* key, bool& out);
  void text(const char* key, std::string& out);
  // A string from `names`, stored as its index.
  void choice(const char* key, int& out, std::span<const std::string_view> names);
  // Two whole numbers, [x, y].
  void pair(const char* key, int (&out)[2], int64_t lo, int64_t hi);
  // A colormap by name (builtin_colormaps(): "inferno", "viridis", ...), stored as its index.
  void colormap(const char* key, int& out);
  // Fails on members not in `known` (typos in hand-written presets would otherwise be ignored silently).
  void only(std::initializer_list<std::string_view> known);
  // Where this reader reads ("labs.heat"), for messages from the caller's own checks.
  const std::string& where() const { return m_where; }

 private:
  const nlohmann::json* get(const char* key);
  // The member `key` checked as `p` (params::check_value): true with *v set when present and valid; an error
  // is recorded otherwise.
  bool check(const char* key, const params::Param& p, const nlohmann::json** v);
  const nlohmann::json& m_j;
  std::string m_where;
  std::optional<std::string> m_error;
};

}  // namespace bs
