// exercise_load_test.cpp: contracts as data: a good contract's fields, each kind of malformed contract refused
// with the file and the field named, and a pack where one bad folder does not stop the others from loading.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "gpu/exercise/exercise.h"

namespace bs::exercise {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json good() {
  return json::parse(R"J({
    "format": 1, "title": "t", "order": 3, "kernel": "scale", "params": ["n"],
    "args": [
      {"name": "a", "kind": "buffer", "type": "float", "dir": "in", "size": "n",
       "fill": {"kind": "uniform", "lo": -1, "hi": 1}},
      {"name": "out", "kind": "buffer", "type": "float", "dir": "out", "size": "n"},
      {"name": "k", "kind": "scalar", "type": "float", "value": 2.5},
      {"name": "n", "kind": "scalar", "type": "int", "value": "n"}
    ],
    "launch": {"block": [128], "grid": ["ceil_div(n, block_x)"]},
    "tolerance": {"rel": 1e-6},
    "tests": {"visible": [{"n": 1000}], "hidden": [{"n": 1}, {"n": 300001}]},
    "hints": ["one", "two"],
    "par": {"global_reads": "1", "global_writes": "1"}
  })J");
}

std::string error_of(const json& j) {
  const LoadResult r = parse_contract(j.dump(), "x/exercise.json");
  EXPECT_FALSE(r.exercise.has_value());
  return r.error;
}

TEST(ExerciseLoad, GoodContract) {
  const LoadResult r = parse_contract(good().dump(), "x/exercise.json");
  ASSERT_TRUE(r.exercise) << r.error;
  const Exercise& e = *r.exercise;
  EXPECT_EQ(e.kernel, "scale");
  EXPECT_EQ(e.order, 3);
  EXPECT_EQ(e.signature(), "extern \"C\" __global__ void scale(const float* a, float* out, float k, int n)");
  EXPECT_EQ(e.pointer_type(), "void (*)(const float*, float*, float, int)");
  ASSERT_EQ(e.tests.size(), 3u);
  EXPECT_EQ(e.tests[0].name, "n=1000");
  EXPECT_FALSE(e.tests[0].hidden);
  EXPECT_TRUE(e.tests[2].hidden);
  EXPECT_EQ(e.block[0], 128u);
  EXPECT_EQ(e.grid[0], "ceil_div(n, block_x)");
  EXPECT_EQ(e.grid[1], "1");
  EXPECT_DOUBLE_EQ(e.tolerance.rel, 1e-6);
  EXPECT_EQ(e.hints.size(), 2u);
  EXPECT_TRUE(e.args[1].every_element_written);
}

TEST(ExerciseLoad, ErrorsNameTheFileAndTheField) {
  EXPECT_EQ(parse_contract("{ nope", "x/exercise.json").error.rfind("x/exercise.json: not valid JSON", 0), 0u);
  json j = good();
  j["args"][0]["size"] = "m * 2";
  EXPECT_NE(error_of(j).find("x/exercise.json: args[0].size: 'm * 2': unknown name 'm' (known: n)"),
            std::string::npos);
  j = good();
  j["args"][0]["sise"] = "n";
  EXPECT_NE(error_of(j).find("args[0].sise: unknown field"), std::string::npos);
  j = good();
  j["args"][0]["fill"] = {{"kind", "constant"}, {"value", 0}};
  EXPECT_NE(error_of(j).find("args[0].fill.value: an input of zeros hides bugs"), std::string::npos);
  j = good();
  j["args"][0]["fill"] = {{"kind", "uniform"}, {"lo", 1}, {"hi", 1}};
  EXPECT_NE(error_of(j).find("args[0].fill.hi: must be greater than lo"), std::string::npos);
  j = good();
  j["args"][1]["fill"] = {{"kind", "uniform"}, {"lo", 1}, {"hi", 2}};
  EXPECT_NE(error_of(j).find("args[1].fill: an output is poisoned"), std::string::npos);
  j = good();
  j["args"][0]["type"] = "float64";  // (double is a type since 8-byte types; float64 is not)
  EXPECT_NE(error_of(j).find("args[0].type: 'float64' is not a type here"), std::string::npos);
  j = good();
  j["args"][3]["name"] = "a";
  EXPECT_NE(error_of(j).find("args[3].name: 'a' is used twice"), std::string::npos);
  j = good();
  j["args"][3]["value"] = 3;
  EXPECT_NE(error_of(j).find("args[3].value: must be an integer expression"), std::string::npos);
  j = good();
  j["args"].erase(1);
  EXPECT_NE(error_of(j).find("args: no output buffer"), std::string::npos);
  j = good();
  j["launch"]["block"] = {64, 32};
  EXPECT_NE(error_of(j).find("launch.block: more than 1024 threads"), std::string::npos);
  j = good();
  j["launch"]["grid"] = {"ceil_div(n, block_w)"};
  EXPECT_NE(error_of(j).find("launch.grid[0]: 'ceil_div(n, block_w)': unknown name 'block_w'"), std::string::npos);
  j = good();
  j["tests"]["hidden"][1] = {{"n", 0}};
  EXPECT_NE(error_of(j).find("tests.hidden[1].n: 0 is outside 1.."), std::string::npos);
  j = good();
  j["tests"]["hidden"][1] = {{"m", 3}};
  EXPECT_NE(error_of(j).find("tests.hidden[1].n: missing (required)"), std::string::npos);
  j = good();
  j.erase("kernel");
  EXPECT_NE(error_of(j).find("x/exercise.json: kernel: missing (required)"), std::string::npos);
  j = good();
  j["kernel"] = "bad name";
  EXPECT_NE(error_of(j).find("kernel: 'bad name' is not a C identifier"), std::string::npos);
  j = good();
  j["format"] = 2;
  EXPECT_NE(error_of(j).find("format: 2 is not a format this blockscope reads"), std::string::npos);
  j = good();
  j["par"]["global_reads"] = "k";
  EXPECT_NE(error_of(j).find("par.global_reads: 'k': unknown name 'k'"), std::string::npos);
  j = good();
  j["tolerance"]["rel"] = -1;
  EXPECT_NE(error_of(j).find("tolerance: abs must be >= 0"), std::string::npos);
  j = good();
  j["params"] = {"block_x"};
  EXPECT_NE(error_of(j).find("params[0]: 'block_x'"), std::string::npos);
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

void write_exercise(const fs::path& dir, const std::string& contract) {
  write(dir / "exercise.json", contract);
  write(dir / "statement.md", "# s\n");
  write(dir / "starter.cu", "// s\n");
  write(dir / "reference.cu", "// r\n");
}

TEST(ExerciseLoad, OneBadExerciseDoesNotStopThePack) {
  const fs::path root = fs::temp_directory_path() / ("bs_pack_" + std::to_string(::getpid()));
  fs::remove_all(root);
  json second = good();
  second["order"] = 1;
  write_exercise(root / "b_second", second.dump());
  write_exercise(root / "c_third", good().dump());
  json bad = good();
  bad["launch"]["grid"] = {"n / "};
  write_exercise(root / "a_bad", bad.dump());
  write_exercise(root / "d_nostarter", good().dump());
  fs::remove(root / "d_nostarter" / "starter.cu");
  fs::create_directories(root / "not_an_exercise");
  const Pack p = load_pack(root.string());
  ASSERT_EQ(p.exercises.size(), 2u);
  EXPECT_EQ(p.exercises[0].id, "b_second");  // by order, then by name
  EXPECT_EQ(p.exercises[1].id, "c_third");
  ASSERT_EQ(p.errors.size(), 2u);
  EXPECT_NE(p.errors[0].find("a_bad/exercise.json: launch.grid[0]: 'n / ': expression ends early"), std::string::npos)
      << p.errors[0];
  EXPECT_NE(p.errors[1].find("d_nostarter/starter.cu: missing"), std::string::npos) << p.errors[1];
  EXPECT_TRUE(p.find("c_third"));
  EXPECT_FALSE(p.find("a_bad"));
  const Pack none = load_pack((root / "absent").string());
  ASSERT_EQ(none.errors.size(), 1u);
  EXPECT_NE(none.errors[0].find("not a folder"), std::string::npos);
  fs::remove_all(root);
}

}  // namespace
}  // namespace bs::exercise
