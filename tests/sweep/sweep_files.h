// sweep_files.h: the sweep tests' output folders and JSON reader (one place for the CLI and figure tests).
#pragma once

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace bs::test {

// BS_TEST_OUT/<group>/<name>, emptied.
inline std::filesystem::path fresh_out_dir(const std::string& group, const std::string& name) {
  const std::filesystem::path p = std::filesystem::path(BS_TEST_OUT) / group / name;
  std::filesystem::remove_all(p);
  return p;
}

inline nlohmann::json read_json(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return nlohmann::json::parse(ss.str());
}

}  // namespace bs::test
