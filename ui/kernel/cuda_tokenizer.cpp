// cuda_tokenizer.cpp: the kernel editor's CUDA C++ tokenizer (see cuda_tokenizer.h).
#include "ui/kernel/cuda_tokenizer.h"

#include <algorithm>
#include <iterator>
#include <cctype>

namespace bs::ui {

namespace {

constexpr std::string_view k_keywords[] = {
    "alignas",  "alignof",   "auto",          "break",     "case",     "catch",    "class",
    "const",    "constexpr", "continue",      "default",   "delete",   "do",       "else",
    "enum",     "explicit",  "extern",        "false",     "for",      "friend",   "goto",
    "if",       "inline",    "mutable",       "namespace", "new",      "noexcept", "nullptr",
    "operator", "private",   "protected",     "public",    "register", "restrict", "return",
    "sizeof",   "static",    "static_assert", "struct",    "switch",   "template", "this",
    "throw",    "true",      "try",           "typedef",   "typename", "union",    "using",
    "virtual",  "volatile",  "while"};

constexpr std::string_view k_types[] = {"bool",     "char",    "double",   "float",   "int",      "long",
                                        "short",    "signed",  "unsigned", "void",    "size_t",   "int8_t",
                                        "int16_t",  "int32_t", "int64_t",  "uint8_t", "uint16_t", "uint32_t",
                                        "uint64_t", "half",    "float2",   "float3",  "float4",   "int2",
                                        "int3",     "int4",    "double2",  "uint3",   "dim3",     "__half"};

constexpr std::string_view k_cuda_keywords[] = {"__global__",       "__device__",
                                                "__host__",         "__shared__",
                                                "__constant__",     "__managed__",
                                                "__restrict__",     "__forceinline__",
                                                "__noinline__",     "__launch_bounds__",
                                                "__syncthreads",    "__syncwarp",
                                                "__threadfence",    "__ldg",
                                                "__shfl_sync",      "__shfl_down_sync",
                                                "__shfl_up_sync",   "__shfl_xor_sync",
                                                "__ballot_sync",    "__any_sync",
                                                "__all_sync",       "__fdividef",
                                                "__expf",           "__sinf",
                                                "__cosf",           "__fmaf_rn",
                                                "atomicAdd",        "atomicSub",
                                                "atomicMax",        "atomicMin",
                                                "atomicCAS",        "atomicExch",
                                                "__syncthreads_or", "__syncthreads_count"};

constexpr std::string_view k_cuda_builtins[] = {"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"};

template <size_t N>
bool contains(const std::string_view (&set)[N], std::string_view w) {
  return std::find(std::begin(set), std::end(set), w) != std::end(set);
}

bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

TokenKind word_kind(std::string_view w) {
  if (contains(k_cuda_builtins, w)) return TokenKind::CudaBuiltin;
  if (contains(k_cuda_keywords, w)) return TokenKind::CudaKeyword;
  if (contains(k_types, w)) return TokenKind::Type;
  if (contains(k_keywords, w)) return TokenKind::Keyword;
  return TokenKind::Text;
}

// The end of a number starting at i (digits, hex, exponent with sign, suffixes, digit separators).
size_t number_end(std::string_view s, size_t i) {
  size_t j = i;
  const bool hex = s.size() > i + 1 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X');
  if (hex) j += 2;
  while (j < s.size()) {
    const char c = s[j];
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '\'') {
      // An exponent's sign belongs to the number: 1e-3, 2.5E+7 (not in hex, where e is a digit).
      if (!hex && (c == 'e' || c == 'E') && j + 1 < s.size() && (s[j + 1] == '+' || s[j + 1] == '-'))
        j += 2;
      else
        ++j;
    } else {
      break;
    }
  }
  return j;
}

// The end of a quoted literal starting at i (quote q), honouring backslash escapes; the line's end if open.
size_t quoted_end(std::string_view s, size_t i, char q) {
  size_t j = i + 1;
  while (j < s.size()) {
    if (s[j] == '\\') {
      j += 2;
      continue;
    }
    if (s[j] == q) return j + 1;
    ++j;
  }
  return s.size();
}

}  // namespace

std::vector<Token> tokenize_line(std::string_view line, LineState& state) {
  std::vector<Token> out;
  const size_t n = line.size();
  size_t i = 0;
  auto add = [&](size_t b, size_t e, TokenKind k) {
    if (e > b) out.push_back({static_cast<int>(b), static_cast<int>(e), k});
  };
  // A directive continued from the previous line: the whole line is part of it (comments inside still
  // colour as comments only when they start the line; keep it simple: the line is the directive).
  if (state.in_directive && !state.in_block_comment) {
    add(0, n, TokenKind::Preprocessor);
    state.in_directive = n > 0 && line[n - 1] == '\\';
    return out;
  }
  while (i < n) {
    if (state.in_block_comment) {
      const size_t close = line.find("*/", i);
      const size_t e = close == std::string_view::npos ? n : close + 2;
      add(i, e, TokenKind::Comment);
      state.in_block_comment = close == std::string_view::npos;
      i = e;
      continue;
    }
    const char c = line[i];
    if (c == ' ' || c == '\t') {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && line[i + 1] == '/') {
      add(i, n, TokenKind::Comment);
      break;
    }
    if (c == '/' && i + 1 < n && line[i + 1] == '*') {
      const size_t close = line.find("*/", i + 2);
      const size_t e = close == std::string_view::npos ? n : close + 2;
      add(i, e, TokenKind::Comment);
      state.in_block_comment = close == std::string_view::npos;
      i = e;
      continue;
    }
    if (c == '#') {
      // A directive: only when '#' is the first non-blank character of the line.
      const bool first = line.find_first_not_of(" \t") == i;
      if (first) {
        // The directive runs to a trailing comment or the line's end.
        size_t e = n;
        for (size_t j = i + 1; j + 1 < n; ++j) {
          if (line[j] == '"') {
            j = quoted_end(line, j, '"') - 1;
            continue;
          }
          if (line[j] == '/' && (line[j + 1] == '/' || line[j + 1] == '*')) {
            e = j;
            break;
          }
        }
        while (e > i && (line[e - 1] == ' ' || line[e - 1] == '\t'))
          --e;
        add(i, e, TokenKind::Preprocessor);
        if (e == n) {
          state.in_directive = n > 0 && line[n - 1] == '\\';
          break;
        }
        i = e;
        continue;
      }
      ++i;
      continue;
    }
    if (c == '"') {
      const size_t e = quoted_end(line, i, '"');
      add(i, e, TokenKind::String);
      i = e;
      continue;
    }
    if (c == '\'') {
      const size_t e = quoted_end(line, i, '\'');
      add(i, e, TokenKind::Char);
      i = e;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(line[i + 1])))) {
      const size_t e = number_end(line, i);
      add(i, e, TokenKind::Number);
      i = e;
      continue;
    }
    if (ident_start(c)) {
      size_t e = i + 1;
      while (e < n && ident_char(line[e]))
        ++e;
      const TokenKind k = word_kind(line.substr(i, e - i));
      if (k != TokenKind::Text) add(i, e, k);
      i = e;
      continue;
    }
    ++i;
  }
  return out;
}

std::vector<std::vector<Token>> tokenize(std::string_view text) {
  std::vector<std::vector<Token>> lines;
  LineState state;
  size_t start = 0;
  while (true) {
    const size_t nl = text.find('\n', start);
    const std::string_view line =
        text.substr(start, nl == std::string_view::npos ? text.size() - start : nl - start);
    lines.push_back(tokenize_line(line, state));
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return lines;
}

}  // namespace bs::ui
