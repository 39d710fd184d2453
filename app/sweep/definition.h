// definition.h: what a sweep is, before it runs: the lab, one or two swept parameters with their values,
// fixed parameters, warm-up runs, repetitions and the device. Parsing (--param, --fixed, JSON), numeric
// values, validation against the lab's target and the points in run order. Pure C++ (no CUDA, no ImGui).
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "app/sweep/device.h"
#include "app/sweep/target.h"

#include "core/text.h"

namespace bs::sweep {

struct Param {
  std::string name;                 // "block.x"
  std::vector<std::string> values;  // as typed: "32", "16M", "float4"
  friend bool operator==(const Param&, const Param&) = default;
};

struct Definition {
  std::string lab = "heat";
  std::vector<Param> params;                 // one or two
  std::map<std::string, std::string> fixed;  // other parameters held at a value
  int warmup = 2;
  int repetitions = 10;
  Device device = Device::All;
  friend bool operator==(const Definition&, const Definition&) = default;
};

// The shared JSON form:
// {"lab":"heat","params":[{"name":"block.x","values":["32","64"]}],"fixed":{"size":"2048"},
// "warmup":2,"repetitions":10,"device":"all"}. Reading throws bs::InvalidRequest naming the bad field.
nlohmann::json to_json(const Definition& d);
Definition definition_from_json(const nlohmann::json& j);

// "block.x=32,64,128" -> {block.x, [32, 64, 128]}. Also ranges that double: "size=2^10..2^14" or
// "size=1024..16384" -> 1024, 2048, 4096, 8192, 16384 (with K/M/G suffixes kept: "size=1K..8K" -> 1K, 2K, 4K,
// 8K). Throws bs::InvalidRequest with a message naming the text.
Param parse_param(std::string_view text);
// "size=2048" -> {"size", "2048"} (one value only).
std::pair<std::string, std::string> parse_fixed(std::string_view text);

// A value read as a number: plain numbers, 2^k, and binary suffixes K, M, G (1K = 1024) (core/text.h).
using ::bs::numeric_value;

// Checks the definition against the lab's parameters and validators without running anything: the lab
// exists, every name is one of the lab's (else the message lists them), every value of every point is valid
// (the message names the parameter and the value), warm-up 0..k_max_warmup, repetitions 1..k_max_repetitions,
// at most k_max_points points. Throws bs::InvalidRequest.
constexpr size_t k_max_points = 4096;
constexpr int k_max_warmup = 100;
constexpr int k_max_repetitions = 1000;
void validate(const Definition& d);
// validate() against a given target (a test's stand-in, or one already looked up). d.lab is not looked up.
void validate_with(const Target& t, const Definition& d);
// The points in run order: the first parameter varies slowest. Each point holds one value per parameter.
std::vector<std::vector<std::string>> points_of(const Definition& d);

}  // namespace bs::sweep
