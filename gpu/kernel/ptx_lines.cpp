// ptx_lines.cpp: see ptx_lines.h. NVRTC 13 writes the .file table at the end of the PTX, so it is read first.
// A ".loc F L C" applies to the instructions after it, until the next .loc or the end of the function.
#include "gpu/kernel/ptx_lines.h"

#include <map>
#include <regex>
#include <string>

namespace bs::kernel {

namespace {

bool ends_with_file(const std::string& path, std::string_view name) {
  if (path.size() < name.size() || path.compare(path.size() - name.size(), name.size(), name) != 0)
    return false;
  return path.size() == name.size() || path[path.size() - name.size() - 1] == '/';
}

}  // namespace

PtxLineMap map_ptx_lines(std::string_view ptx, std::string_view user_file) {
  std::vector<std::string> lines;
  for (size_t start = 0; start < ptx.size();) {
    size_t end = ptx.find('\n', start);
    if (end == std::string_view::npos) end = ptx.size();
    lines.emplace_back(ptx.substr(start, end - start));
    start = end + 1;
  }
  static const std::regex file_re(R"re(^\s*\.file\s+(\d+)\s+"([^"]*)")re");
  static const std::regex loc_re(R"(^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+))");
  static const std::regex inlined_re(R"(inlined_at\s+(\d+)\s+(\d+)\s+(\d+))");
  std::map<int, bool> is_user;
  for (const std::string& l : lines) {
    std::smatch m;
    if (std::regex_search(l, m, file_re))
      is_user[std::stoi(m[1].str())] = ends_with_file(m[2].str(), user_file);
  }
  PtxLineMap out;
  out.source_line.assign(lines.size(), 0);
  int current = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    std::smatch m;
    if (std::regex_search(l, m, loc_re)) {
      const int file = std::stoi(m[1].str());
      int line = std::stoi(m[2].str());
      if (!is_user[file]) {
        // Code from another file (the prelude) counts for the user's line it was inlined at, if any.
        std::smatch in;
        line = std::regex_search(l, in, inlined_re) && is_user[std::stoi(in[1].str())]
                   ? std::stoi(in[2].str())
                   : 0;
      }
      current = line;
      if (line > 0) out.has_line_info = true;
      out.source_line[i] = current;
      continue;
    }
    const size_t first = l.find_first_not_of(" \t");
    if (first != std::string::npos && l[first] == '}') {
      out.source_line[i] = current;
      current = 0;  // a function ends: the next one starts without a location
      continue;
    }
    // Blank lines and labels belong to the block they sit in; directives outside functions have no line.
    out.source_line[i] = current;
  }
  for (size_t i = 0; i < out.source_line.size(); ++i) {
    const int line_no = static_cast<int>(i) + 1;
    if (!out.blocks.empty() && out.blocks.back().source_line == out.source_line[i])
      out.blocks.back().last_ptx_line = line_no;
    else
      out.blocks.push_back({line_no, line_no, out.source_line[i]});
  }
  return out;
}

}  // namespace bs::kernel
