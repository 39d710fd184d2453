// builtin_source.cpp: see builtin_source.h.
#include "gpu/kernel/builtin_source.h"

#include <set>
#include <sstream>
#include <stdexcept>

#include "assets/embedded.h"

namespace bs::kernel {

namespace {

// What <cstdint> gives the kernels (NVRTC's targets: long long is 64 bits, as on the host).
constexpr const char* k_int_types =
    "typedef signed char int8_t;\ntypedef short int16_t;\ntypedef int int32_t;\ntypedef long long int64_t;\n"
    "typedef unsigned char uint8_t;\ntypedef unsigned short uint16_t;\ntypedef unsigned int uint32_t;\n"
    "typedef unsigned long long uint64_t;\n";

void inline_file(std::string_view name, std::set<std::string, std::less<>>& seen, std::string& out) {
  if (!seen.insert(std::string(name)).second) return;  // #pragma once
  const std::string_view text = embedded::find(name);
  if (text.empty()) throw std::runtime_error("built-in kernel source: " + std::string(name) + " is not embedded");
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    const size_t h = line.find_first_not_of(" \t");
    if (h != std::string::npos && line.compare(h, 12, "#pragma once") == 0) continue;
    if (h != std::string::npos && line.compare(h, 8, "#include") == 0) {
      const size_t q = line.find('"');
      if (q != std::string::npos) {
        const std::string path = line.substr(q + 1, line.find('"', q + 1) - q - 1);
        inline_file(path.substr(path.find_last_of('/') + 1), seen, out);  // embedded by file name
      } else if (line.find("<cstdint>") != std::string::npos) {
        if (seen.insert("<cstdint>").second) out += k_int_types;
      } else {
        throw std::runtime_error("built-in kernel source: " + std::string(name) + " includes what NVRTC cannot: " +
                                 line);
      }
      continue;
    }
    out += line + "\n";
  }
}

}  // namespace

std::string builtin_nvrtc_source(std::string_view name, std::string_view extra) {
  std::set<std::string, std::less<>> seen;
  std::string out;
  inline_file(name, seen, out);
  return out + std::string(extra);
}

}  // namespace bs::kernel
