// param_flags.h: command-line flags made from a lab's parameter schema (core/params.h): --name for each
// parameter named (underscores as dashes), help and default from the schema, values read with
// params::from_text after CLI11 has parsed, so the app's flags, the bench's and a session check one value
// the same way and name it the same way.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/params.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace bs::cli {

class ParamFlags {
 public:
  // Which default a flag shows and stands for when it is not given.
  enum class Defaults { App, Bench };
  ParamFlags(CLI::App& app, const params::Schema& schema, const std::vector<std::string>& names,
             const std::string& help_prefix = "", Defaults defaults = Defaults::App);

  // After CLI11 parsed: every value given, checked against the schema. nullopt when all are valid, else the
  // first message ("--block: '0x4': ...").
  std::optional<std::string> read();
  // The value of parameter `name` (after read()): as given, or its default.
  const nlohmann::json& value(const std::string& name) const;
  bool given(const std::string& name) const;
  // The text given for `name` before any check ("" when not given): for flags whose range another mode
  // widens (bench heat --gpus takes sizes beyond one GPU's lab limit).
  std::string text(const std::string& name) const;
  // "--cells-per-thread" for "cells_per_thread".
  static std::string flag_of(const std::string& name);

 private:
  struct Flag {
    const params::Param* param = nullptr;
    std::string text;
    CLI::Option* option = nullptr;
    nlohmann::json value;
  };
  Defaults m_defaults;
  std::map<std::string, std::unique_ptr<Flag>> m_flags;
};

}  // namespace bs::cli
