// params.cpp: see params.h.
#include "core/params.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "core/text.h"

namespace bs::params {

using nlohmann::json;

std::vector<std::string> names_of(std::span<const std::string_view> names) {
  return {names.begin(), names.end()};
}

std::string shown(const json& v) {
  std::string s = v.dump(-1, ' ', true, json::error_handler_t::replace);
  if (s.size() > 80) s = s.substr(0, 77) + "...";
  return s;
}

std::string shown_text(const std::string& text) {
  const std::string d = json(text).dump(-1, ' ', true, json::error_handler_t::replace);
  std::string s = d.substr(1, d.size() - 2);
  if (s.size() > 80) s = s.substr(0, 77) + "...";
  return s;
}

namespace {

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names)
    out += (out.empty() ? "" : ", ") + n;
  return out;
}

// A JSON whole number within lo..hi, compared as 64-bit (unsigned ones above INT64_MAX are out of any range):
// never narrowed before the check, so 4294967297 is not read as 1.
bool whole_in_range(const json& v, int64_t lo, int64_t hi) {
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    return u <= static_cast<uint64_t>(INT64_MAX) && static_cast<int64_t>(u) >= lo &&
           static_cast<int64_t>(u) <= hi;
  }
  const int64_t x = v.get<int64_t>();
  return x >= lo && x <= hi;
}

int64_t whole_lo(const Param& p) {
  return p.lo <= static_cast<double>(INT64_MIN) ? INT64_MIN : static_cast<int64_t>(std::ceil(p.lo));
}
int64_t whole_hi(const Param& p) {
  return p.hi >= static_cast<double>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(std::floor(p.hi));
}

std::string range_text(const Param& p) {
  return std::to_string(whole_lo(p)) + ".." + std::to_string(whole_hi(p));
}

std::string number_range_text(double x, const Param& p) {
  std::ostringstream os;
  os << x << " is outside " << p.lo << ".." << p.hi;
  return os.str();
}

bool is_word(const Param& p, const json& v) {
  return v.is_string() && std::find(p.names.begin(), p.names.end(), v.get<std::string>()) != p.names.end();
}

// Kind::Count: why `text` is not a whole number with an optional K, M or G suffix ("256M"), or nullopt.
// Values beyond int64 after the suffix saturate (the lab's range check reports them).
std::optional<std::string> count_text_error(const Param& p, const std::string& text) {
  const std::string not_count = p.name + ": '" + shown_text(text) +
                                "' is not an element count (a whole number, optionally with K, M or G: 1000, "
                                "64K, 256M)";
  std::string_view t = text;
  while (!t.empty() && t.front() == ' ')
    t.remove_prefix(1);
  while (!t.empty() && t.back() == ' ')
    t.remove_suffix(1);
  if (!t.empty() && std::string_view("kKmMgG").find(t.back()) != std::string_view::npos) t.remove_suffix(1);
  if (t.empty()) return not_count;
  int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec == std::errc::result_out_of_range) return p.name + ": '" + shown_text(text) + "' is far too large";
  if (ec != std::errc() || ptr != t.data() + t.size()) return not_count;
  return std::nullopt;
}

[[noreturn]] void wrong_kind(const Param& p, const char* want) {
  throw std::logic_error("parameter " + p.name + ": its default is not " + want);
}

}  // namespace

std::optional<std::string> check_value(const Param& p, const json& v) {
  switch (p.kind) {
    case Kind::Int:
      if (!v.is_number_integer()) return "expected a whole number, got " + shown(v);
      if (!whole_in_range(v, whole_lo(p), whole_hi(p))) return shown(v) + " is outside " + range_text(p);
      return std::nullopt;
    case Kind::Number: {
      if (!v.is_number()) return "expected a number, got " + shown(v);
      const double x = v.get<double>();
      if (!std::isfinite(x) || x < p.lo || x > p.hi) return number_range_text(x, p);
      return std::nullopt;
    }
    case Kind::Bool:
      if (!v.is_boolean()) return "expected true or false, got " + shown(v);
      return std::nullopt;
    case Kind::Choice:
      if (!v.is_string()) return "expected one of " + join(p.names) + ", got " + shown(v);
      if (!is_word(p, v)) return "'" + shown_text(v.get<std::string>()) + "' is not one of " + join(p.names);
      return std::nullopt;
    case Kind::Pair:
      if (is_word(p, v)) return std::nullopt;
      if (!v.is_array() || v.size() != 2 || !v[0].is_number_integer() || !v[1].is_number_integer())
        return "expected two whole numbers like [64, 4], got " + shown(v);
      if (p.rule)
        if (auto err = p.rule(v)) return err;
      if (!whole_in_range(v[0], whole_lo(p), whole_hi(p)) || !whole_in_range(v[1], whole_lo(p), whole_hi(p)))
        return shown(v) + " is outside " + range_text(p);
      return std::nullopt;
    case Kind::NumberPair: {
      if (is_word(p, v)) return std::nullopt;
      const std::string words = p.names.empty() ? std::string() : "\"" + p.names.front() + "\" or ";
      if (!v.is_array() || v.size() != 2 || !v[0].is_number() || !v[1].is_number() ||
          !(v[0].get<double>() < v[1].get<double>()))
        return "expected " + words + "[low, high] with low < high, got " + v.dump();
      for (const json& x : v)
        if (!std::isfinite(x.get<double>()) || x.get<double>() < p.lo || x.get<double>() > p.hi)
          return number_range_text(x.get<double>(), p);
      return std::nullopt;
    }
    case Kind::Count:
      if (v.is_number_integer()) return std::nullopt;
      if (!v.is_string()) return "expected an element count like 16777216 or \"16M\", got " + shown(v);
      return count_text_error(p, v.get<std::string>());
  }
  return std::nullopt;
}

std::optional<std::string> check_state(const Schema& s, const json& state, const std::string& where,
                                       const std::vector<std::string>& extra) {
  if (!state.is_object()) return where + ": expected a JSON object {...}";
  for (const auto& [key, value] : state.items()) {
    const Param* p = s.find(key);
    if (p && !p->saved) p = nullptr;
    if (!p) {
      if (std::find(extra.begin(), extra.end(), key) != extra.end()) continue;
      std::vector<std::string> known;
      for (const Param& q : s.params())
        if (q.saved) known.push_back(q.name);
      known.insert(known.end(), extra.begin(), extra.end());
      return where + "." + shown_text(key) + ": unknown setting (known: " + join(known) + ")";
    }
    if (auto err = check_value(*p, value)) return where + "." + key + ": " + *err;
  }
  return std::nullopt;
}

TextValue from_text(const Param& p, std::string_view text, std::string_view what) {
  TextValue out;
  const std::string t(text);
  auto fail = [&](const std::string& why) {
    out.error = std::string(what) + ": '" + shown_text(t) + "': " + why;
    return out;
  };
  json v;
  switch (p.kind) {
    case Kind::Int: {
      const auto d = numeric_value(t);
      if (!d || *d != std::floor(*d)) return fail("not a whole number (e.g. 256, 64K, 2^20)");
      if (*d < p.lo || *d > p.hi) return fail("outside " + range_text(p));
      v = static_cast<int64_t>(*d);
      break;
    }
    case Kind::Number: {
      const auto d = numeric_value(t);
      if (!d) return fail("not a number");
      v = *d;
      break;
    }
    case Kind::Bool:
      if (t == "1" || t == "true" || t == "on" || t == "yes")
        v = true;
      else if (t == "0" || t == "false" || t == "off" || t == "no")
        v = false;
      else
        return fail("expected true or false (1/0, on/off)");
      break;
    case Kind::Choice:
    case Kind::Count:
      v = t;
      break;
    case Kind::Pair: {
      if (std::find(p.names.begin(), p.names.end(), t) != p.names.end()) {
        v = t;
        break;
      }
      const ParsedDim2 d = p.square ? parse_size2(t, std::string(what)) : parse_dim2(t, std::string(what));
      if (!d.value) {
        out.error = d.error;
        return out;
      }
      v = json::array({d.value->x, d.value->y});
      break;
    }
    case Kind::NumberPair: {
      if (std::find(p.names.begin(), p.names.end(), t) != p.names.end()) {
        v = t;
        break;
      }
      const size_t cut = t.find(',');
      const auto a = cut == std::string::npos ? std::nullopt : numeric_value(t.substr(0, cut));
      const auto b = cut == std::string::npos ? std::nullopt : numeric_value(t.substr(cut + 1));
      if (!a || !b) return fail("expected LOW,HIGH");
      v = json::array({*a, *b});
      break;
    }
  }
  if (auto err = check_value(p, v)) return fail(*err);
  out.value = std::move(v);
  return out;
}

std::string to_text(const Param& p, const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if ((p.kind == Kind::Pair || p.kind == Kind::NumberPair) && v.is_array() && v.size() == 2) {
    if (p.kind == Kind::Pair && p.square && v[0] == v[1]) return std::to_string(v[0].get<int64_t>());
    if (p.kind == Kind::Pair)
      return std::to_string(v[0].get<int64_t>()) + "x" + std::to_string(v[1].get<int64_t>());
    return shortest_number(v[0].get<double>()) + "," + shortest_number(v[1].get<double>());
  }
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_float()) return shortest_number(v.get<double>());
  return v.dump();
}

// --- Param defaults ----------------------------------------------------------------------------------------

int64_t Param::default_int() const {
  if (kind != Kind::Int || !default_value.is_number_integer()) wrong_kind(*this, "a whole number");
  return default_value.get<int64_t>();
}

double Param::default_number() const {
  if (kind != Kind::Number || !default_value.is_number()) wrong_kind(*this, "a number");
  return default_value.get<double>();
}

bool Param::default_bool() const {
  if (kind != Kind::Bool || !default_value.is_boolean()) wrong_kind(*this, "true or false");
  return default_value.get<bool>();
}

int Param::default_choice() const {
  if (kind != Kind::Choice || !default_value.is_string()) wrong_kind(*this, "a name");
  const auto it = std::find(names.begin(), names.end(), default_value.get<std::string>());
  if (it == names.end()) wrong_kind(*this, "one of its names");
  return static_cast<int>(it - names.begin());
}

Dim2 Param::default_pair() const {
  if (kind != Kind::Pair || !default_value.is_array() || default_value.size() != 2)
    wrong_kind(*this, "a pair");
  return {default_value[0].get<int64_t>(), default_value[1].get<int64_t>()};
}

int Param::index_of(const json& v) const {
  for (size_t i = 0; i < names.size(); ++i)
    if (v == names[i]) return static_cast<int>(i);
  return 0;
}

// --- Schema
// -------------------------------------------------------------------------------------------------

Schema::Schema(std::string lab, std::vector<Param> params)
    : m_lab(std::move(lab)), m_params(std::move(params)) {
  for (const Param& p : m_params)
    if (auto err = check_value(p, p.default_value))
      throw std::logic_error("lab " + m_lab + ", parameter " + p.name + ": bad default: " + *err);
}

const Param* Schema::find(std::string_view name) const {
  for (const Param& p : m_params)
    if (p.name == name) return &p;
  return nullptr;
}

const Param& Schema::at(std::string_view name) const {
  if (const Param* p = find(name)) return *p;
  throw std::logic_error("lab " + m_lab + " has no parameter " + std::string(name));
}

json Schema::defaults() const {
  json j = json::object();
  for (const Param& p : m_params)
    if (p.saved) j[p.name] = p.default_value;
  return j;
}

std::string Schema::names_text() const {
  std::vector<std::string> names;
  for (const Param& p : m_params)
    names.push_back(p.name);
  return join(names);
}

}  // namespace bs::params
