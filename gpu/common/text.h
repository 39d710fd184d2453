// text.h: small text helpers shared by the exporters (sweeps, records, saved plots) and every table or
// read-out: write a whole file with an error a user can act on, quote a CSV field, format a fixed number.
#pragma once

#include <string>
#include <string_view>

namespace bs {

// Writes `text` to `path` (replacing it). False with `error` = "cannot write PATH: reason" on failure.
bool write_text_file(const std::string& path, const std::string& text, std::string* error);

// A CSV field (RFC 4180): as is, or in quotes with quotes doubled when it holds a comma, quote or line break.
std::string csv_field(const std::string& s);

// Text for XML/SVG content and attributes: & < > " ' as entities, control characters XML forbids dropped.
std::string xml_escape(std::string_view s);

// v with `decimals` digits after the point ("%.*f").
std::string fmt_fixed(double v, int decimals);

}  // namespace bs

namespace bs {

// `s` made safe to echo in a one-line message: control bytes (C0, DEL, and C1 as UTF-8) and bytes that are
// not valid UTF-8 become \xNN escapes, so a value holding ESC or a line break cannot drive the terminal or
// split the line; longer than `max_bytes` (counted in the output) it is cut at a character boundary and ends
// "...".
std::string printable(std::string_view s, size_t max_bytes = 120);

}  // namespace bs
