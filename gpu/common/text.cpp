// text.cpp: see text.h.
#include "gpu/common/text.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace bs {

bool write_text_file(const std::string& path, const std::string& text, std::string* error) {
  std::ofstream f(path, std::ios::binary);
  if (!f) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  f << text;
  f.close();
  if (!f) {
    *error = "cannot write " + path;
    return false;
  }
  return true;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s)
    q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (unsigned char ch : s) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 forbids most control characters even as references: drop them.
        if (ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') break;
        out += static_cast<char>(ch);
    }
  }
  return out;
}

std::string fmt_fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace bs

// --- printable(): values echoed in messages (see text.h) -------------------------------------------------
namespace bs {

namespace {
// Length of the valid UTF-8 sequence starting at s[i] (2..4), or 0 when there is none (overlong, surrogate,
// beyond U+10FFFF, truncated) or when it encodes a C1 control (U+0080..U+009F).
size_t utf8_sequence(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  size_t len = 0;
  unsigned cp = 0;
  if (c >= 0xc2 && c <= 0xdf) {
    len = 2;
    cp = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    len = 3;
    cp = c & 0x0f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3f);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff))) return 0;
  if (cp >= 0xd800 && cp <= 0xdfff) return 0;
  if (cp >= 0x80 && cp <= 0x9f) return 0;
  return len;
}
}  // namespace

std::string printable(std::string_view s, size_t max_bytes) {
  static const char* const hex = "0123456789abcdef";
  std::string out;
  out.reserve((s.size() < max_bytes ? s.size() : max_bytes) + 3);
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    std::string piece;
    if (c >= 0x20 && c < 0x7f) {
      piece.assign(1, static_cast<char>(c));
      i += 1;
    } else if (const size_t len = c >= 0x80 ? utf8_sequence(s, i) : 0; len > 0) {
      piece.assign(s.substr(i, len));
      i += len;
    } else {
      piece = {'\\', 'x', hex[c >> 4], hex[c & 0xf]};
      i += 1;
    }
    if (out.size() + piece.size() > max_bytes) {
      out += "...";
      break;
    }
    out += piece;
  }
  return out;
}

}  // namespace bs
