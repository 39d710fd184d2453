// diagnostics.h: NVRTC's program log as a list of messages on the user's lines, for the editor's markers and
// the CLI. Messages about the user's file keep their line (and column, read from NVRTC's caret line);
// messages about blockscope's prelude or the appended contract check are labelled as such (never shown as a
// line of the user's file); NVRTC's notes ("Remark: The warnings can be suppressed ...", "N errors detected",
// ptxas info) are dropped.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/enum_names.h"

namespace bs::kernel {

enum class Severity { Error, Warning, Remark };
inline constexpr auto k_severity_names = enum_names<Severity>(
    {{Severity::Error, "error"}, {Severity::Warning, "warning"}, {Severity::Remark, "remark"}});

// Where a message points.
enum class Origin {
  User,      // the user's file: line (and column) are the user's
  Prelude,   // blockscope's prelude (a bug in blockscope, or a name the user's code clashes with)
  Contract,  // the appended signature check (the compiler turns these into one message on the kernel's line)
  Included,  // another source file: an #include of the user's, or a name a #line directive gave; the message
             // starts "FILE(LINE): " (a problem of the source, never of the options)
  Compiler,  // NVRTC or ptxas itself, no line (e.g. an unknown option)
};

struct Diagnostic {
  Origin origin = Origin::User;
  Severity severity = Severity::Error;
  int line = 0;         // 1-based line of the user's file; 0 = not on a line of it
  int column = 0;       // 1-based; 0 = unknown
  std::string code;     // NVRTC's number, e.g. "177-D"; may be empty
  std::string message;  // e.g. identifier "x" is undefined
  int origin_line = 0;  // the line in the prelude or check (Prelude, Contract)
  // The user's lines around `line` (line - 1 .. line + 1 where they exist), the first being context_first.
  int context_first = 0;
  std::vector<std::string> context;
};

// Parses `log` for a program whose user file NVRTC knew as `user_file`; `source` is that file's text (for
// the context lines and to check columns).
std::vector<Diagnostic> parse_nvrtc_log(std::string_view log, std::string_view user_file,
                                        std::string_view source);

int count_of_severity(const std::vector<Diagnostic>& d, Severity s);
// "FILE:LINE:COL: error: message" (":COL" only when known; "FILE: error: ..." without a line), the way
// compilers print it; `file` is the user's name for the file.
std::string format_diagnostic(const Diagnostic& d, std::string_view file);

}  // namespace bs::kernel
