// source_file.cpp: see source_file.h.
#include "gpu/kernel/source_file.h"

#include <cstdio>

#include "core/text.h"

namespace bs::kernel {

namespace {

// The length of the well-formed UTF-8 sequence at s[i] (Unicode's table 3-7: no overlong forms, no
// surrogates, nothing above U+10FFFF), 0 when it is not one.
size_t utf8_length(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
  const unsigned b0 = byte(0);
  const auto cont = [&](size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) {
    const unsigned b = byte(k);
    return i + k < s.size() && b >= lo && b <= hi;
  };
  if (b0 < 0x80) return 1;
  if (b0 >= 0xC2 && b0 <= 0xDF) return cont(1) ? 2 : 0;
  if (b0 == 0xE0) return cont(1, 0xA0) && cont(2) ? 3 : 0;
  if ((b0 >= 0xE1 && b0 <= 0xEC) || b0 == 0xEE || b0 == 0xEF) return cont(1) && cont(2) ? 3 : 0;
  if (b0 == 0xED) return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;
  if (b0 == 0xF0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (b0 >= 0xF1 && b0 <= 0xF3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (b0 == 0xF4) return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

std::string hex_byte(unsigned char b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", b);
  return buf;
}

}  // namespace

std::string SourceProblem::text() const {
  return line > 0 ? std::to_string(line) + ":" + std::to_string(column) + ": " + message : message;
}

std::string_view strip_bom(std::string_view text) {
  return text.substr(0, 3) == "\xEF\xBB\xBF" ? text.substr(3) : text;
}

std::optional<SourceProblem> check_source_text(std::string_view text) {
  if (text.size() > k_max_source_bytes)
    return SourceProblem{0, 0,
                         "the source is " + std::to_string(text.size()) + " bytes, over the limit of 1 MiB (" +
                             std::to_string(k_max_source_bytes) + " bytes; a kernel source is a few KiB)"};
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const int column = static_cast<int>(i - line_start) + 1;
    if (c == '\0') return SourceProblem{line, column, "a NUL byte: this is not a text file"};
    const size_t n = utf8_length(text, i);
    if (n == 0)
      return SourceProblem{line, column,
                           "byte " + hex_byte(c) +
                               " is not UTF-8 (NVRTC would stop reading the file here); save the file as UTF-8"};
    if (c == '\n') {
      ++line;
      line_start = i + 1;
    }
    i += n;
  }
  return std::nullopt;
}

bool read_kernel_source(const std::string& path, std::string* out, std::string* error) {
  std::string text, err;
  if (!read_file_limited(path, k_max_source_bytes, &text, &err)) {
    *error = err;
    return false;
  }
  if (auto p = check_source_text(text)) {
    *error = path + ":" + p->text();
    return false;
  }
  *out = std::string(strip_bom(text));
  return true;
}

}  // namespace bs::kernel
