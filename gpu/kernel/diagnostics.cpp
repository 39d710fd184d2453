// diagnostics.cpp: see diagnostics.h. NVRTC 13 writes each message as
//   FILE(LINE): error: MESSAGE            (also "warning #177-D:", "remark #...:", "catastrophic error:")
//     <the source line, indented by 2>
//     <spaces>^                             (the column, in the echoed line)
// and lines without a location: "nvrtc: error: unrecognized option ...", "ptxas error : ...", notes.
#include "gpu/kernel/diagnostics.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <regex>

#include "gpu/kernel/contracts.h"

namespace bs::kernel {

namespace {

std::vector<std::string_view> split_lines(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t end = s.find('\n', start);
    if (end == std::string_view::npos) {
      if (start < s.size()) out.push_back(s.substr(start));
      break;
    }
    std::string_view line = s.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    start = end + 1;
  }
  return out;
}

std::string byte_size(unsigned long long bytes) {
  char buf[64];
  if (bytes >= (1ull << 20) && bytes % (1ull << 20) == 0)
    std::snprintf(buf, sizeof buf, "%llu MiB (%llu bytes)", bytes >> 20, bytes);
  else if (bytes >= 1024 && bytes % 1024 == 0)
    std::snprintf(buf, sizeof buf, "%llu KiB (%llu bytes)", bytes >> 10, bytes);
  else
    std::snprintf(buf, sizeof buf, "%llu bytes", bytes);
  return buf;
}

// ptxas's "Entry function 'K' uses too much shared data (0x10000000 bytes, 0xc000 max)" (also local data and
// parameter space) is the user's kernel asking for more than a block can have: said in the user's terms, at the
// kernel's line (NVRTC gives no line), so the editor marks it.
bool explain_ptxas_limit(const std::string& message, std::string_view source, Diagnostic* d) {
  static const std::regex too_much(
      R"(Entry function '([A-Za-z_][A-Za-z0-9_$]*)' uses too much (shared data|local data|parameter space) \((0x[0-9a-fA-F]+) bytes, (0x[0-9a-fA-F]+) max\))");
  std::smatch m;
  if (!std::regex_search(message, m, too_much)) return false;
  const unsigned long long used = std::strtoull(m[3].str().c_str(), nullptr, 16);
  const unsigned long long max = std::strtoull(m[4].str().c_str(), nullptr, 16);
  const std::string kernel = m[1].str(), space = m[2].str();
  d->origin = Origin::User;
  d->line = std::max(1, find_kernel_line(source, kernel));
  if (space == "shared data")
    d->message = kernel + " declares " + byte_size(used) + " of static __shared__ memory; a block can have at most " +
                 byte_size(max) + " of static shared memory: make the __shared__ arrays smaller, or use extern " +
                 "__shared__ (dynamic) memory, sized at launch up to the device's limit";
  else if (space == "local data")
    d->message = kernel + " needs " + byte_size(used) + " of local memory per thread (its local arrays); at most " +
                 byte_size(max) + " is allowed: make the per-thread arrays smaller or move them to global memory";
  else
    d->message = kernel + "'s parameters take " + byte_size(used) + "; at most " + byte_size(max) +
                 " is allowed: pass large data through a pointer";
  return true;
}

Severity severity_of(const std::string& word) {
  if (word.find("warning") != std::string::npos) return Severity::Warning;
  if (word.find("remark") != std::string::npos) return Severity::Remark;
  return Severity::Error;
}

std::string_view base_name(std::string_view path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::vector<Diagnostic> parse_nvrtc_log(std::string_view log, std::string_view user_file,
                                        std::string_view source) {
  static const std::regex located(
      R"(^(.+)\((\d+)\): (catastrophic error|fatal error|error|warning|remark)(?: #([0-9A-Za-z-]+))?: (.*)$)");
  static const std::regex unlocated(R"(^(nvrtc|ptxas|nvlink)\s*:?\s*(fatal|error|warning)\s*:\s*(.*)$)");
  // EDG's messages about the end of the text ("At end of source: error: expected a \"}\""): the user's last line.
  static const std::regex at_end(R"(^At end of source: (catastrophic error|fatal error|error|warning|remark)(?: #([0-9A-Za-z-]+))?: (.*)$)");
  const std::vector<std::string_view> lines = split_lines(log);
  const std::vector<std::string_view> src = split_lines(source);
  std::vector<Diagnostic> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string line(lines[i]);
    std::smatch m;
    if (std::regex_match(line, m, located)) {
      Diagnostic d;
      const std::string file = m[1].str();
      const std::string_view base = base_name(file);
      const int at = std::stoi(m[2].str().substr(0, 9));
      d.severity = severity_of(m[3].str());
      d.code = m[4].str();
      d.message = m[5].str();
      if (base == user_file) {
        d.origin = Origin::User;
        d.line = at;
      } else if (base == k_prelude_name) {
        d.origin = Origin::Prelude;
        d.origin_line = at;
      } else if (base == k_contract_file || base == k_name_map_file) {
        d.origin = Origin::Contract;
        d.origin_line = at;
      } else {
        d.origin = Origin::Included;  // another file: an #include, or a #line's name; no line of the user's
        std::string where = file;     // (appended piecewise: GCC 12 warns falsely on a + chain here)
        where.append("(").append(m[2].str()).append("): ");
        d.message.insert(0, where);
      }
      // The echoed source line and the caret line under it, when present.
      if (i + 2 < lines.size() && lines[i + 2].find('^') != std::string_view::npos &&
          lines[i + 2].find_first_not_of(" \t^") == std::string_view::npos) {
        const size_t caret = lines[i + 2].find('^');
        if (d.origin == Origin::User && caret >= 2) d.column = static_cast<int>(caret - 2) + 1;
        i += 2;
      }
      if (d.origin == Origin::User && d.line >= 1 && static_cast<size_t>(d.line) <= src.size()) {
        const std::string_view text = src[static_cast<size_t>(d.line) - 1];
        if (d.column > static_cast<int>(text.size()) + 1) d.column = 0;
        d.context_first = std::max(1, d.line - 1);
        for (int l = d.context_first; l <= d.line + 1 && static_cast<size_t>(l) <= src.size(); ++l)
          d.context.emplace_back(src[static_cast<size_t>(l) - 1]);
      } else if (d.origin == Origin::User && d.line > static_cast<int>(src.size())) {
        d.line = std::max(1, static_cast<int>(src.size()));  // e.g. "expected a }" past the last line
        d.column = 0;
      }
      out.push_back(std::move(d));
    } else if (std::regex_match(line, m, at_end)) {
      Diagnostic d;
      d.severity = severity_of(m[1].str());
      d.code = m[2].str();
      d.message = m[3].str() + " (at the end of the file)";
      d.line = std::max(1, static_cast<int>(src.size()));
      out.push_back(std::move(d));
    } else if (std::regex_match(line, m, unlocated)) {
      const std::string kind = m[2].str();
      Diagnostic d;
      d.origin = Origin::Compiler;
      d.severity = kind == "warning" ? Severity::Warning : Severity::Error;
      d.message = m[1].str();
      d.message.append(": ").append(m[3].str());
      if (m[1].str() == "ptxas") explain_ptxas_limit(m[3].str(), source, &d);
      out.push_back(std::move(d));
    }
    // Everything else is noise for the user: "Remark: The warnings can be suppressed ...", "N errors
    // detected in the compilation of ...", "ptxas info : ..." (read by resources.h), blank lines.
  }
  return out;
}

int count_of_severity(const std::vector<Diagnostic>& d, Severity s) {
  return static_cast<int>(
      std::count_if(d.begin(), d.end(), [s](const Diagnostic& x) { return x.severity == s; }));
}

std::string format_diagnostic(const Diagnostic& d, std::string_view file) {
  std::string out(file);
  if (d.line > 0) {
    out.append(":").append(std::to_string(d.line));
    if (d.column > 0) out.append(":").append(std::to_string(d.column));
  }
  out += ": ";
  out += k_severity_names.name_of(d.severity);
  out += ": ";
  if (d.origin == Origin::Prelude)
    out.append("in blockscope's prelude (line ").append(std::to_string(d.origin_line)).append("): ");
  out += d.message;
  if (!d.code.empty()) out.append(" [#").append(d.code).append("]");
  return out;
}

}  // namespace bs::kernel
