// util.cpp: see util.h.
#include "app/sweep/util.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

#include "core/error.h"

namespace bs::sweep::util {

using nlohmann::json;

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return std::string(s);
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  return out;
}

// Shortest text that reads back to the same double.
std::string num(double v) {
  return shortest_number(v);
}

std::string fmt(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

// 1048576 -> "1M" when `suffix`, else "1048576".
std::string format_int(double v, bool suffix) {
  const auto n = static_cast<long long>(v);
  if (suffix)
    for (auto [shift, s] : {std::pair{30, "G"}, std::pair{20, "M"}, std::pair{10, "K"}})
      if (n >= (1LL << shift) && n % (1LL << shift) == 0) return std::to_string(n >> shift) + s;
  return std::to_string(n);
}

[[noreturn]] void invalid(const std::string& msg) {
  throw InvalidRequest(msg);
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (const auto& x : v)
    s += (s.empty() ? "" : sep) + x;
  return s;
}

std::vector<std::string> strings(const json& j, const char* what) {
  if (!j.is_array()) invalid(std::string(what) + ": expected an array of strings");
  std::vector<std::string> v;
  for (const auto& x : j) {
    if (x.is_string())
      v.push_back(x.get<std::string>());
    else if (x.is_number_integer())
      v.push_back(std::to_string(x.get<long long>()));
    else
      invalid(std::string(what) + ": expected an array of strings");
  }
  return v;
}

std::string value_text(const json& x, const std::string& what) {
  if (x.is_string()) return x.get<std::string>();
  if (x.is_number_integer()) return std::to_string(x.get<long long>());
  if (x.is_number()) return num(x.get<double>());
  invalid(what + ": expected a string or a number");
}

}  // namespace bs::sweep::util
