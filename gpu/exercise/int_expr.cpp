// int_expr.cpp: see int_expr.h. A recursive-descent reader that evaluates as it reads:
//   expr := term (('+' | '-') term)*      term := unary (('*' | '/' | '%') unary)*
//   unary := '-' unary | primary          primary := number | name | name '(' expr (',' expr)* ')' | '(' expr ')'
#include "gpu/exercise/int_expr.h"

#include <cctype>
#include <stdexcept>

namespace bs::exercise {

namespace {

constexpr size_t k_max_length = 256;
constexpr int k_max_depth = 32;

struct ExprError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Reader {
 public:
  Reader(std::string_view s, const Bindings& names) : m_s(s), m_names(names) {}

  int64_t whole() {
    const int64_t v = expr();
    skip();
    if (m_i < m_s.size()) fail("unexpected '" + std::string(1, m_s[m_i]) + "'");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw ExprError(why + " at character " + std::to_string(m_i + 1));
  }
  void skip() {
    while (m_i < m_s.size() && (m_s[m_i] == ' ' || m_s[m_i] == '\t')) ++m_i;
  }
  bool eat(char c) {
    skip();
    if (m_i < m_s.size() && m_s[m_i] == c) {
      ++m_i;
      return true;
    }
    return false;
  }
  struct Depth {
    explicit Depth(Reader& r) : r(r) {
      if (++r.m_depth > k_max_depth) r.fail("nested deeper than " + std::to_string(k_max_depth));
    }
    ~Depth() { --r.m_depth; }
    Reader& r;
  };

  int64_t expr() {
    Depth d(*this);
    int64_t v = term();
    for (;;) {
      if (eat('+')) {
        const int64_t w = term();
        if (__builtin_add_overflow(v, w, &v)) fail("overflow in +");
      } else if (eat('-')) {
        const int64_t w = term();
        if (__builtin_sub_overflow(v, w, &v)) fail("overflow in -");
      } else {
        return v;
      }
    }
  }
  int64_t term() {
    int64_t v = unary();
    for (;;) {
      if (eat('*')) {
        const int64_t w = unary();
        if (__builtin_mul_overflow(v, w, &v)) fail("overflow in *");
      } else if (m_i < m_s.size() && (m_s[m_i] == '/' || m_s[m_i] == '%')) {  // eat('*') skipped the blanks
        const bool mod = m_s[m_i++] == '%';
        const int64_t w = unary();
        v = divide(v, w, mod);
      } else {
        return v;
      }
    }
  }
  int64_t divide(int64_t a, int64_t b, bool mod) const {
    if (b == 0) fail(mod ? "remainder by zero" : "division by zero");
    if (a == INT64_MIN && b == -1) fail("overflow in division");
    return mod ? a % b : a / b;
  }
  int64_t unary() {
    Depth d(*this);
    if (eat('-')) {
      const int64_t v = unary();
      if (v == INT64_MIN) fail("overflow in unary -");
      return -v;
    }
    return primary();
  }
  int64_t primary() {
    skip();
    if (m_i >= m_s.size()) fail("expression ends early");
    const char c = m_s[m_i];
    if (c == '(') {
      ++m_i;
      const int64_t v = expr();
      if (!eat(')')) fail("missing ')'");
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      int64_t v = 0;
      while (m_i < m_s.size() && std::isdigit(static_cast<unsigned char>(m_s[m_i]))) {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, m_s[m_i] - '0', &v))
          fail("number too large");
        ++m_i;
      }
      return v;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const size_t start = m_i;
      while (m_i < m_s.size() && (std::isalnum(static_cast<unsigned char>(m_s[m_i])) || m_s[m_i] == '_')) ++m_i;
      const std::string name(m_s.substr(start, m_i - start));
      if (eat('(')) return call(name);
      const auto it = m_names.find(name);
      if (it == m_names.end()) {
        std::string known;
        for (const auto& [k, v] : m_names) known += (known.empty() ? "" : ", ") + k;
        m_i = start;
        fail("unknown name '" + name + "' (known: " + (known.empty() ? "none" : known) + ")");
      }
      return it->second;
    }
    fail("unexpected '" + std::string(1, c) + "'");
  }
  int64_t call(const std::string& name) {
    if (name != "ceil_div" && name != "min" && name != "max")
      fail("unknown function '" + name + "' (known: ceil_div, min, max)");
    const int64_t a = expr();
    if (!eat(',')) fail(name + " takes two arguments");
    const int64_t b = expr();
    if (!eat(')')) fail("missing ')' after the arguments of " + name);
    if (name == "min") return a < b ? a : b;
    if (name == "max") return a > b ? a : b;
    if (b <= 0) fail("ceil_div by " + std::to_string(b) + " (the divisor must be positive)");
    if (a < 0) fail("ceil_div of a negative number");
    return a / b + (a % b != 0);
  }

  std::string_view m_s;
  const Bindings& m_names;
  size_t m_i = 0;
  int m_depth = 0;
};

}  // namespace

ExprResult eval_int_expr(std::string_view text, const Bindings& names) {
  ExprResult r;
  if (text.size() > k_max_length) {
    r.error = "longer than " + std::to_string(k_max_length) + " characters";
    return r;
  }
  try {
    r.value = Reader(text, names).whole();
  } catch (const ExprError& e) {
    r.error = e.what();
  }
  return r;
}

std::optional<std::string> check_int_expr(std::string_view text, const Bindings& known) {
  // Every name bound to 1: only syntax and names can fail (a division by a name minus 1 is a run-time matter).
  Bindings ones;
  for (const auto& [k, v] : known) ones[k] = 1;
  ExprResult r = eval_int_expr(text, ones);
  if (r.value) return std::nullopt;
  if (r.error.find("by zero") != std::string::npos || r.error.find("overflow") != std::string::npos ||
      r.error.find("ceil_div") == 0)
    return std::nullopt;
  return r.error;
}

}  // namespace bs::exercise
