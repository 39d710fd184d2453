// json_file.h: the one way blockscope reads a JSON file (sessions, presets, records for replay). The file is
// read within a size limit (no devices, pipes or folders), its nesting depth is checked BEFORE the recursive
// parser sees it (100,000 nested '[' would overflow the stack), and every failure is one message naming the
// file.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace bs {

// blockscope's own files nest about six levels deep; 64 leaves room for hand-written ones.
constexpr int k_max_json_depth = 64;

struct JsonRead {
  std::optional<nlohmann::json> value;
  std::string error;  // when !value: "SOURCE: what is wrong"
};

// Parses `text` (from `source`, for messages): nesting deeper than k_max_json_depth is refused unparsed.
JsonRead parse_json_text(std::string_view text, std::string_view source);
// Reads `path` (at most k_max_input_file_bytes, regular files only) and parses it.
JsonRead read_json_file(const std::string& path);

}  // namespace bs
