// enum_names.h: one table per enum that names its values for files, sessions and the command line. The name
// of a value, the parse of a name and the list of names (for messages, combo boxes and session choices) all
// read the same table, so a name is written once. Pure C++ (no CUDA, no ImGui): gpu/ host headers use it too.
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace bs {

template <class E, std::size_t N>
class EnumNames {
 public:
  // Entries in the order sessions and combo boxes list them (usually the enum's own order).
  constexpr explicit EnumNames(const std::pair<E, std::string_view> (&entries)[N]) {
    for (std::size_t i = 0; i < N; ++i) {
      m_values[i] = entries[i].first;
      m_names[i] = entries[i].second;
    }
  }

  // The name of `e`; "?" for a value outside the table (a cast from a bad integer). Names are string
  // literals, so data() is null-terminated.
  constexpr std::string_view name_of(E e) const {
    for (std::size_t i = 0; i < N; ++i)
      if (m_values[i] == e) return m_names[i];
    return "?";
  }
  constexpr const char* c_name(E e) const { return name_of(e).data(); }

  // The value named `name` (exact, case-sensitive, as files store it); nullopt for any other text.
  constexpr std::optional<E> parse(std::string_view name) const {
    for (std::size_t i = 0; i < N; ++i)
      if (m_names[i] == name) return m_values[i];
    return std::nullopt;
  }

  // The names in table order, e.g. for StateReader::choice (which stores the index) or a combo box.
  constexpr std::span<const std::string_view> names() const { return m_names; }
  constexpr std::span<const E> values() const { return m_values; }
  static constexpr std::size_t size() { return N; }

  // "call | put | asian": the allowed names for a message or a help line; list(", ", " or ") gives
  // "call, put or asian".
  std::string list(std::string_view sep = " | ") const { return list(sep, sep); }
  std::string list(std::string_view sep, std::string_view last_sep) const {
    std::string out;
    for (std::size_t i = 0; i < N; ++i) {
      if (i) out += i + 1 == N ? last_sep : sep;
      out += m_names[i];
    }
    return out;
  }

  // name -> value, e.g. for CLI11's CheckedTransformer.
  std::map<std::string, E> by_name() const {
    std::map<std::string, E> out;
    for (std::size_t i = 0; i < N; ++i)
      out.emplace(std::string(m_names[i]), m_values[i]);
    return out;
  }

 private:
  std::array<E, N> m_values{};
  std::array<std::string_view, N> m_names{};
};

// Deduces the size: constexpr auto k_names = enum_names<Op>({{Op::Add, "add"}, {Op::Formula, "formula"}});
template <class E, std::size_t N>
constexpr EnumNames<E, N> enum_names(const std::pair<E, std::string_view> (&entries)[N]) {
  return EnumNames<E, N>(entries);
}

}  // namespace bs
