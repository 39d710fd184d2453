// json_file.cpp: see json_file.h.
#include "app/json_file.h"

#include "core/text.h"

namespace bs {

JsonRead parse_json_text(std::string_view text, std::string_view source) {
  JsonRead r;
  const std::string src(source);
  if (json_nesting_depth(text, k_max_json_depth) > k_max_json_depth) {
    r.error = src + ": nested more than " + std::to_string(k_max_json_depth) +
              " levels deep ([ and {), which no blockscope file is; refusing to parse it";
    return r;
  }
  try {
    r.value = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {
    r.error = src + ": not valid JSON (" + e.what() + ")";
  }
  return r;
}

JsonRead read_json_file(const std::string& path) {
  std::string text, error;
  if (!read_file_limited(path, k_max_input_file_bytes, &text, &error)) {
    JsonRead r;
    r.error = error;
    return r;
  }
  return parse_json_text(text, path);
}

}  // namespace bs
