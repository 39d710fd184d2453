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

std::string fmt_fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace bs
