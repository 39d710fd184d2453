// text.h: small text helpers shared by the exporters (sweeps, records, saved plots) and every table or
// read-out: write a whole file safely and read one within limits (errors a user can act on), quote a CSV
// field, format a fixed number.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace bs {

// --- Files: every file blockscope writes goes through write_file_atomic, every file a user names to be read
// through read_file_limited. --------------------------------------------------------------------------------

// Writes `data` to `path` so that nothing is ever lost or half-written: into "<path>.tmp-<pid>-<n>" in the
// same folder, every write, fsync and close checked, then renamed over `path`. A full disk, a failed write or
// an interrupted export leaves the old file as it was (and no temporary file). An existing symbolic link at
// `path` is replaced by the file, never written through; a target that exists and is not a regular file or a
// link (a device such as /dev/full, a folder, a pipe) is refused. False with `error` = "cannot write PATH:
// reason".
bool write_file_atomic(const std::string& path, std::string_view data, std::string* error);
// The checks write_file_atomic makes before writing, without creating anything: a path is given, the target
// is not a folder or a special file, its folder exists and is writable. Exporters call it before long
// rendering.
bool check_write_target(const std::string& path, std::string* error);
// write_file_atomic for text.
bool write_text_file(const std::string& path, const std::string& text, std::string* error);

// Input files (sessions, records) are small; anything bigger is refused before it is read.
constexpr std::size_t k_max_input_file_bytes = std::size_t{16} << 20;
// Reads the whole of `path` into `out`, reading at most max_bytes + 1 bytes: refuses a file larger than
// `max_bytes`, and anything that is not a regular file (a folder, /dev/zero, a pipe: such reads never end or
// block) without reading from it. False with `error` = "PATH: reason".
bool read_file_limited(const std::string& path, std::size_t max_bytes, std::string* out, std::string* error);

// The deepest nesting of [ and { in JSON text, counted outside strings, stopping as soon as it exceeds
// `stop_above` (so a file of a million '[' costs one pass and no recursion). Recursive JSON parsers use one
// stack frame per level: check this before parsing untrusted text.
int json_nesting_depth(std::string_view text, int stop_above);

// A CSV field (RFC 4180): as is, or in quotes with quotes doubled when it holds a comma, quote or line break.
std::string csv_field(const std::string& s);

// Text for XML/SVG content and attributes: & < > " ' as entities, control characters XML forbids dropped.
std::string xml_escape(std::string_view s);

// v with `decimals` digits after the point ("%.*f").
std::string fmt_fixed(double v, int decimals);

// A count with a decimal SI suffix, for read-outs: "999", "12.3k", "4.50M", "1.20G"; `gap` goes between the
// number and the suffix ("12.3 k").
std::string compact_count(double v, std::string_view gap = "");

// "1 lane", "31 lanes": a count with its noun, singular only for exactly one (noun + "s" otherwise).
std::string count_of(int64_t n, std::string_view noun);

// A number as people type it for sizes and counts: plain ("256", "0.5", "1e6"), a power of two ("2^20"), or
// with a binary suffix ("64K", "16M", "1G"); surrounding blanks ignored. nullopt when it is none of these.
std::optional<double> numeric_value(std::string_view text);
// The whole of `s` as a double; nullopt otherwise.
std::optional<double> parse_double(std::string_view s);
// 10, 20, 30 for a K, M, G suffix (either case); 0 otherwise.
int suffix_shift(char c);
// The shortest text that reads back as the same double ("0.2", "1e-06").
std::string shortest_number(double v);

}  // namespace bs

namespace bs {

// `s` made safe to echo in a one-line message: control bytes (C0, DEL, and C1 as UTF-8) and bytes that are
// not valid UTF-8 become \xNN escapes, so a value holding ESC or a line break cannot drive the terminal or
// split the line; longer than `max_bytes` (counted in the output) it is cut at a character boundary and ends
// "...".
std::string printable(std::string_view s, size_t max_bytes = 120);

}  // namespace bs
