// util.h: text and JSON helpers shared by the sweep's definition, run, export and figure files (not part of
// the sweep's interface: callers use definition.h, run.h, export.h, figure.h).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/text.h"

namespace bs::sweep::util {

// `s` without leading blanks and tabs, and trailing blanks, tabs and carriage returns.
std::string trim(std::string_view s);
// `s` cut at every `sep`, each piece trimmed.
std::vector<std::string> split(std::string_view s, char sep);
// "a, b, c"
std::string join(const std::vector<std::string>& v, const std::string& sep = ", ");

// Shortest text that reads back to the same double ("nan" for NaN).
std::string num(double v);
// `v` with `digits` significant digits ("%.*g").
std::string fmt(double v, int digits = 4);
using ::bs::parse_double;  // core/text.h
using ::bs::suffix_shift;
// 1048576 -> "1M" when `suffix`, else "1048576".
std::string format_int(double v, bool suffix);

// Throws bs::InvalidRequest(msg).
[[noreturn]] void invalid(const std::string& msg);

// A JSON array of strings (whole numbers are taken as their text); else invalid("<what>: ...").
std::vector<std::string> strings(const nlohmann::json& j, const char* what);
// A JSON string or number as text; else invalid("<what>: ...").
std::string value_text(const nlohmann::json& x, const std::string& what);

}  // namespace bs::sweep::util
