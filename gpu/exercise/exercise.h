// exercise.h: an exercise of a course pack, as data. A pack is a folder of exercise folders; each holds
// exercise.json (the contract: kernel name and arguments, buffer sizes as expressions of the problem's
// parameters, how inputs are generated from a seed, the launch, the tolerance, visible and hidden tests,
// limits, hints, par numbers), statement.md, starter.cu and reference.cu. docs/EXERCISES.md describes every
// field. Loading checks everything a test run will need (names, expressions, files), so a malformed exercise
// is refused up front with its file and field named ("map/exercise.json: args[1].size: unknown name 'm'"),
// and the rest of the pack loads. Plain C++ (no CUDA, no ImGui).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpu/exercise/int_expr.h"

namespace bs::exercise {

inline constexpr const char* k_contract_file = "exercise.json";
inline constexpr int k_format_version = 1;

enum class ElemType { Float, Int, Uint, Int64, Uint64, Double };  // 4 bytes, then 8 bytes each
const char* c_type(ElemType t);  // "float", "int", "unsigned int", "long long", "unsigned long long", "double"
uint32_t elem_bytes(ElemType t);  // 4 or 8
bool is_floating(ElemType t);     // float, double
enum class Dir { In, Out, InOut };

// How a buffer's elements are made before a run (from the test's seed, so every run is the same).
struct Fill {
  enum class Kind { Uniform, Index, Constant, Poison } kind = Kind::Poison;
  double lo = 0, hi = 1;         // uniform: floats in [lo, hi), integers in [lo, hi]
  double scale = 1, offset = 0;  // index: element i holds offset + scale * (i % modulo)
  int64_t modulo = 0;            // index: 0 = no wrap
  double value = 0;              // constant
};

struct Arg {
  std::string name;
  bool buffer = true;
  ElemType type = ElemType::Float;
  // Buffers:
  Dir dir = Dir::In;
  std::string size;  // elements, an expression of the parameters
  std::string cols;  // optional: the row length (messages say "row r, column c")
  Fill fill;         // inputs and in/out buffers; outputs are poisoned (NaN, 0xCDCDCDCD)
  bool every_element_written = true;  // outputs: an element no thread wrote is a diagnostic
  // Scalars: an expression of the parameters, or (float) a number.
  std::string value;
  std::optional<double> float_value;
};

struct TestCase {
  std::string name;  // "n=1000"
  Bindings params;
  bool hidden = false;
};

struct Tolerance {
  double abs = 0, rel = 0;  // float outputs: |actual - expected| <= abs + rel * |expected|
};

struct Par {  // per thread (the busiest thread of the first visible test), and per block
  std::string global_reads, global_writes, shared_bytes;  // expressions; empty: not scored
};

struct Exercise {
  std::string dir;    // the folder
  std::string id;     // the folder's name: what `exercise show NAME` takes
  std::string title;  // "One thread per element"
  int order = 0;      // the pack's progression
  std::string topic;  // one line: what it teaches
  std::string kernel;
  std::vector<std::string> params;
  std::vector<Arg> args;
  uint32_t block[3] = {1, 1, 1};
  std::string grid[3] = {"1", "1", "1"};
  std::string dynamic_shared = "0";
  bool student_block = false;  // the student may choose the block (--block); the grid follows the expressions
  Tolerance tolerance;
  std::vector<TestCase> tests;
  uint64_t seed = 1;
  uint64_t budget = uint64_t{1} << 22;  // instructions per thread in the simulator
  double timeout_s = 20;                // per submission when grading
  uint64_t memory_mb = 2048;
  std::vector<std::string> hints;
  Par par;
  // "reference": {"cpu": "NAME"}: the tests compare with a named CPU reference (cpu_reference.h) instead of
  // running reference.cu (which stays the solution shown on request). Empty: reference.cu is the reference.
  std::string cpu_reference;
  std::string statement, starter, reference;  // the files' text

  // extern "C" __global__ void name(const float* a, float* out, int n)
  std::string signature() const;
  // void (*)(const float*, float*, int)
  std::string pointer_type() const;
  // "const float*, float*, int": the pointer type's parameters, every integer scalar as "int" (what a named CPU
  // reference is matched against).
  std::string shape() const;
  // The bindings of a test: its parameters and block_x, block_y, block_z.
  Bindings bindings(const TestCase& t, const uint32_t block[3]) const;
  const Arg* find_arg(std::string_view name) const;
};

struct LoadResult {
  std::optional<Exercise> exercise;
  std::string error;  // "DIR/exercise.json: tests.hidden[2].n: ..."
};
LoadResult load_exercise(const std::string& dir);
// Parses the contract text (tests, tools): `where` names it in messages. Does not read the other files.
LoadResult parse_contract(const std::string& json_text, const std::string& where);

struct Pack {
  std::string dir;
  std::vector<Exercise> exercises;  // sorted by order, then id
  std::vector<std::string> errors;  // one per refused exercise folder
  const Exercise* find(std::string_view id) const;
};
// Every sub-folder of `dir` that holds exercise.json. A folder that is not there is one error.
Pack load_pack(const std::string& dir);

}  // namespace bs::exercise
