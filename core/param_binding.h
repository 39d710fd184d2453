// param_binding.h: a lab's state bound to its schema. A parameter's `bind` (core/params.h) says where its value
// lives in the lab's state struct; save_bound and load_bound then read and write every bound parameter, so
// a lab's save_state/load_state (and with them sessions, their checks and undo, which snapshot save_state)
// follow the schema: a parameter added with a binding is saved, loaded, checked and undone with no other code.
//
//   {.name = "block", .kind = Kind::Pair, ..., .bind = params::bind(&HeatPanelModel::block)}
//
// Conversions by the member's type and the parameter's kind: a Choice over an int or enum member stores the
// name (names[index]); a Pair over Dim2, int[2] or int64_t[2] stores [x, y]; a char[N] text field stores its
// text (Count "16M" as written); bool, whole numbers, floating point and std::string store the value. Members
// that are not one place use bind_pair(&S::nx, &S::ny) (a pair as two members) or bind_with(get, set).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <typeindex>

#include "core/launch.h"
#include "core/params.h"

namespace bs::params {

// A float as typed: 0.2, not 0.20000000298023224 (the shortest text that reads back as the same float).
double float_as_typed(float v);

struct StateBinding {
  std::type_index state;  // the struct the binding reads (a mismatch is a programming error)
  std::function<nlohmann::json(const Param&, const void*)> get;
  std::function<void(const Param&, void*, const nlohmann::json&)> set;
};

namespace detail {

template <class T>
nlohmann::json to_json(const Param& p, const T& v) {
  if constexpr (std::is_same_v<T, float>) {
    return float_as_typed(v);
  } else if constexpr (std::is_same_v<T, Dim2>) {
    return nlohmann::json::array({v.x, v.y});
  } else if constexpr (std::is_array_v<T> && std::is_same_v<std::remove_extent_t<T>, char>) {
    return std::string(v);
  } else if constexpr (std::is_array_v<T>) {
    static_assert(std::extent_v<T> == 2, "array members bind to pairs");
    if constexpr (std::is_same_v<std::remove_extent_t<T>, float>)
      return nlohmann::json::array({float_as_typed(v[0]), float_as_typed(v[1])});
    else
      return nlohmann::json::array({v[0], v[1]});
  } else if constexpr (std::is_enum_v<T> || (std::is_integral_v<T> && !std::is_same_v<T, bool>)) {
    if (p.kind == Kind::Choice) {
      const auto i = static_cast<size_t>(v);
      return i < p.names.size() ? nlohmann::json(p.names[i]) : p.default_value;
    }
    if constexpr (std::is_enum_v<T>)
      return static_cast<std::underlying_type_t<T>>(v);
    else
      return v;
  } else {
    return v;
  }
}

template <class T>
void from_json(const Param& p, T& out, const nlohmann::json& v) {
  if constexpr (std::is_same_v<T, Dim2>) {
    out = {v[0].get<int64_t>(), v[1].get<int64_t>()};
  } else if constexpr (std::is_array_v<T> && std::is_same_v<std::remove_extent_t<T>, char>) {
    // A value longer than the field is cut (the lab's own rule refuses it first where that matters).
    const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
    std::snprintf(out, sizeof out, "%s", text.c_str());
  } else if constexpr (std::is_array_v<T>) {
    using E = std::remove_extent_t<T>;
    out[0] = v[0].get<E>();
    out[1] = v[1].get<E>();
  } else if constexpr (std::is_enum_v<T> || (std::is_integral_v<T> && !std::is_same_v<T, bool>)) {
    if (p.kind == Kind::Choice)
      out = static_cast<T>(p.index_of(v));
    else if constexpr (std::is_enum_v<T>)
      out = static_cast<T>(v.get<std::underlying_type_t<T>>());
    else
      out = v.get<T>();
  } else {
    out = v.get<T>();
  }
}

}  // namespace detail

// The parameter's value is `member` of the state struct S.
template <class S, class T>
std::shared_ptr<const StateBinding> bind(T S::*member) {
  return std::make_shared<const StateBinding>(StateBinding{
      typeid(S),
      [member](const Param& p, const void* s) { return detail::to_json(p, static_cast<const S*>(s)->*member); },
      [member](const Param& p, void* s, const nlohmann::json& v) {
        detail::from_json(p, static_cast<S*>(s)->*member, v);
      }});
}

// The parameter's value is `member` of S's `part` (a struct of the gpu/ layer the panel model holds).
template <class S, class P, class T>
std::shared_ptr<const StateBinding> bind(P S::*part, T P::*member) {
  return std::make_shared<const StateBinding>(StateBinding{
      typeid(S),
      [part, member](const Param& p, const void* s) {
        return detail::to_json(p, static_cast<const S*>(s)->*part.*member);
      },
      [part, member](const Param& p, void* s, const nlohmann::json& v) {
        detail::from_json(p, static_cast<S*>(s)->*part.*member, v);
      }});
}

// The parameter's value as `get` computes it from S and `set` writes it (a checked value).
template <class S>
std::shared_ptr<const StateBinding> bind_with(std::function<nlohmann::json(const S&)> get,
                                              std::function<void(S&, const nlohmann::json&)> set) {
  return std::make_shared<const StateBinding>(StateBinding{
      typeid(S), [get](const Param&, const void* s) { return get(*static_cast<const S*>(s)); },
      [set](const Param&, void* s, const nlohmann::json& v) { set(*static_cast<S*>(s), v); }});
}

// A Pair kept as two members (nx and ny).
template <class S, class T>
std::shared_ptr<const StateBinding> bind_pair(T S::*x, T S::*y) {
  return bind_with<S>([x, y](const S& s) { return nlohmann::json::array({s.*x, s.*y}); },
                      [x, y](S& s, const nlohmann::json& v) {
                        s.*x = v[0].get<T>();
                        s.*y = v[1].get<T>();
                      });
}

// Type-erased forms of the templates below.
nlohmann::json save_bound(const Schema& schema, std::type_index type, const void* state);
void load_bound(const Schema& schema, std::type_index type, void* state, const nlohmann::json& checked);

// Every bound parameter the schema saves (saved and written), as a session stores it.
template <class S>
nlohmann::json save_bound(const Schema& schema, const S& state) {
  return save_bound(schema, typeid(S), &state);
}
// Writes every bound parameter present in `checked` (a state params::check_state passed) into `state`;
// members left out keep their values.
template <class S>
void load_bound(const Schema& schema, S& state, const nlohmann::json& checked) {
  load_bound(schema, typeid(S), &state, checked);
}

// The saved parameters without a binding ("" when every one has one): for the tests that hold a lab to its
// schema.
std::string unbound_names(const Schema& schema);

}  // namespace bs::params
