// int_expr.h: the small integer expressions an exercise's contract uses for buffer sizes, grids, scalars and
// par numbers ("n", "ceil_div(n, block_x)", "rows * cols + 1"). Safe by construction: 64-bit signed
// integers only, + - * / % and parentheses, unary minus, the functions ceil_div, min and max, names bound by
// the caller; overflow, division by zero, unknown names, text over 256 characters or nesting deeper than 32
// are errors with a message, never a crash or undefined behaviour. Plain C++.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace bs::exercise {

using Bindings = std::map<std::string, int64_t, std::less<>>;

struct ExprResult {
  std::optional<int64_t> value;
  std::string error;  // when !value: "unknown name 'm' (known: n, block_x)", "division by zero", ...
};

ExprResult eval_int_expr(std::string_view text, const Bindings& names);

// Only checks the syntax and that every name is one of `known` (a contract is checked before any test runs).
std::optional<std::string> check_int_expr(std::string_view text, const Bindings& known);

}  // namespace bs::exercise
