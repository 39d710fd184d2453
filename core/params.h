// params.h: a lab's parameters, described once. A Schema lists every user-visible parameter of a lab with its
// type, default, range or allowed names and help text. From it come the panel's defaults, the checks of a
// saved session (app/session.cpp), the sweep's parameters (app/sweep/) and the bench and CLI flags, so the
// five places that once spelled a lab's parameters out now read them here. Pure C++ (no ImGui, no CUDA).
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/launch.h"

namespace bs::params {

struct StateBinding;  // core/param_binding.h

enum class Kind {
  Int,         // a whole number in lo..hi
  Number,      // a finite number in lo..hi
  Bool,        // true / false
  Choice,      // one of `names` (stored as the name)
  Pair,        // two whole numbers in lo..hi: [64, 4] (text: "64x4"; for sizes "1024" means 1024x1024)
  NumberPair,  // two numbers in lo..hi: [0.0, 1.0]
  // An element count: a whole number, or text with a K, M or G suffix ("16M", kept as written). Only the form
  // is checked here; the lab checks the range (its message names the count: "n = 0 ...").
  Count,
};

struct Param {
  std::string name;  // the session's key; the CLI flag is --name with '_' as '-'
  Kind kind = Kind::Int;
  nlohmann::json default_value;  // as a session stores it: 8, 0.2, "inferno", [64, 4], "auto"
  double lo = 0, hi = 0;         // Int, Number, Pair, NumberPair: the range of each number
  std::vector<std::string>
      names;         // Choice: the allowed names; Pair/NumberPair: words allowed instead ("auto")
  std::string help;  // one line: "threads per block, x by y (x * y <= 1024)"
  // True: the app offers the parameter as its own flag (`blockscope --size 512`: --name with '_' as '-', the
  // help above, the lab's short title before it), and the value given becomes part of the lab's start state
  // (app/lab_start_flags.h). A flag two labs offer belongs to the first in the registry's order.
  bool start_flag = false;
  // Sweeps: the name(s) a sweep uses ("block.x,block.y" for a pair swept by component; empty: the
  // parameter's own name), the values the Sweep window prefills ("" : not a sweep axis), and whether only the
  // GPU series depend on it (block shape, launch layout).
  std::string sweep_names;
  std::string sweep_example;  // a pair swept by component: one list per component, split by ';'
  bool gpu_only = false;
  bool square = false;  // Pair: a single number N means N x N (grid sizes)
  // False: a measurement setting of the sweep and the bench only (steps per timed sample), not part of a
  // lab's saved state.
  bool saved = true;
  // False: read from a session but never written by one, a shorthand for others (matmul's size sets m, n
  // and k).
  bool written = true;
  // The bench's own default where a measurement needs another size than the live view (null: the default):
  // e.g. a heat field of 1024^2 floats fits in the L2 cache, so the bench measures 4096^2 unless told.
  nlohmann::json bench_default;
  // A rule the range cannot say (a block's x * y <= 1024), checked after the type and before the range:
  // nullopt when the value passes, else why not.
  std::function<std::optional<std::string>(const nlohmann::json&)> rule;
  // Where the value lives in the lab's state struct (core/param_binding.h: bind(&State::member)). Sessions,
  // their checks and undo read and write the parameter through it (params::save_bound / load_bound), so a
  // bound parameter added to the schema needs no other code. Null: the lab reads and writes it itself.
  std::shared_ptr<const StateBinding> bind;

  // Typed access to the default, for code that fills its model from the schema. Each throws
  // std::logic_error when the kind does not match (a programming error, caught by the schema tests).
  int64_t default_int() const;
  double default_number() const;
  bool default_bool() const;
  int default_choice() const;  // the index into names
  Dim2 default_pair() const;
  // Choice: the index of `v` (a checked value) in names; 0 when it is not there.
  int index_of(const nlohmann::json& v) const;
};

// A value parsed from text (a CLI flag, a sweep value): the JSON a session would store, or why not.
struct TextValue {
  std::optional<nlohmann::json> value;
  std::string error;  // "--block: '0x4': ..." style, prefixed by the caller's `what`
};

class Schema {
 public:
  Schema(std::string lab, std::vector<Param> params);

  const std::string& lab() const { return m_lab; }
  const std::vector<Param>& params() const { return m_params; }
  const Param* find(std::string_view name) const;
  // The parameter called `name`; throws std::logic_error when there is none (lab code asking for its own).
  const Param& at(std::string_view name) const;
  // Every default as one object: what a lab with nothing changed saves.
  nlohmann::json defaults() const;
  // "size, block, cells_per_thread, ..."
  std::string names_text() const;

 private:
  std::string m_lab;
  std::vector<Param> m_params;
};

// Checks one value against its parameter: nullopt when it is valid, else the message without the field's name
// ("expected a whole number, got \"x\"", "0 is outside 1..1024", "'magma2' is not one of inferno, viridis").
std::optional<std::string> check_value(const Param& p, const nlohmann::json& v);
// Checks a saved state: an object whose members are parameters of `s` (each optional); the first problem is
// returned as "<where>.<name>: <message>". `extra` names members that are not parameters but are read by the
// lab itself (the anatomy overlay).
std::optional<std::string> check_state(const Schema& s, const nlohmann::json& state, const std::string& where,
                                       const std::vector<std::string>& extra = {});
// Parses text as a value of `p` ("64x4", "2^20", "64K", "on", "inferno", "auto"); `what` names the source in
// the message ("--block", "sweep block.x").
TextValue from_text(const Param& p, std::string_view text, std::string_view what);
// The value as text, the way from_text reads it back: [64, 4] -> "64x4", 0.2 -> "0.2", true -> "true".
std::string to_text(const Param& p, const nlohmann::json& v);

// An enum table's names (core/enum_names.h) as a Choice's names.
std::vector<std::string> names_of(std::span<const std::string_view> names);

// A value as a message shows it: JSON in ASCII, cut to 80 characters.
std::string shown(const nlohmann::json& v);
// A string as a message shows it between its own quotes.
std::string shown_text(const std::string& text);

}  // namespace bs::params
