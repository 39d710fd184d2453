// exercise_fuzz_test.cpp: hostile contracts and expressions. Random mutations of a good exercise.json and
// random expression text never crash or hang the loader: each either loads or is refused with a message that
// names the file (and, past the JSON syntax, a field). Deterministic (fixed seeds), a few seconds at most.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "gpu/exercise/exercise.h"
#include "gpu/exercise/int_expr.h"

namespace bs::exercise {
namespace {

const char* k_contract = R"J({
  "format": 1, "title": "t", "kernel": "k", "params": ["n", "m"],
  "args": [
    {"name": "a", "kind": "buffer", "type": "float", "dir": "in", "size": "n * m", "cols": "m",
     "fill": {"kind": "uniform", "lo": -1, "hi": 1}},
    {"name": "h", "kind": "buffer", "type": "uint", "dir": "inout", "size": "64",
     "fill": {"kind": "index", "scale": 3, "offset": 1, "modulo": 5}},
    {"name": "out", "kind": "buffer", "type": "float", "dir": "out", "size": "ceil_div(n, 2) + max(m, 1)"},
    {"name": "r", "kind": "scalar", "type": "float", "value": 0.5},
    {"name": "n", "kind": "scalar", "type": "int", "value": "n - 0"}],
  "launch": {"block": [32, 8], "grid": ["ceil_div(m, block_x)", "ceil_div(n, block_y)"], "dynamic_shared": "block_x * 4",
             "student_block": true},
  "tolerance": {"abs": 1e-5, "rel": 1e-6},
  "tests": {"visible": [{"n": 7, "m": 9}], "hidden": [{"n": 1, "m": 1}]},
  "limits": {"budget": 5000, "timeout_s": 3, "memory_mb": 512},
  "hints": ["a", "b"],
  "par": {"global_reads": "2 * m", "global_writes": "1", "shared_bytes": "block_x * 4"}
})J";

TEST(ExerciseFuzz, MutatedContractsLoadOrNameTheFile) {
  ASSERT_TRUE(parse_contract(k_contract, "f/exercise.json").exercise) << parse_contract(k_contract, "f").error;
  std::mt19937 rng(27);
  const std::string alphabet = "{}[]\":,0123456789-+*/%()abcnmx_ .eE\\\n\t";
  int loaded = 0, refused = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string s = k_contract;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < edits; ++k) {
      const size_t at = rng() % s.size();
      switch (rng() % 3) {
        case 0: s[at] = alphabet[rng() % alphabet.size()]; break;
        case 1: s.erase(at, 1 + rng() % 8); break;
        default: s.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
      }
    }
    const LoadResult r = parse_contract(s, "f/exercise.json");
    if (r.exercise) {
      ++loaded;
      // What loads is usable: every test's expressions evaluate or say why, without throwing.
      for (const TestCase& t : r.exercise->tests) {
        const Bindings b = r.exercise->bindings(t, r.exercise->block);
        for (const Arg& a : r.exercise->args) (void)eval_int_expr(a.buffer ? a.size : a.value, b);
      }
    } else {
      ++refused;
      EXPECT_EQ(r.error.rfind("f/exercise.json: ", 0), 0u) << r.error;
    }
  }
  EXPECT_GT(refused, 1000);
  EXPECT_GT(loaded, 10);  // many mutations land in strings and numbers and stay valid
}

TEST(ExerciseFuzz, RandomExpressionsNeverCrash) {
  std::mt19937 rng(7);
  const std::string alphabet = "0123456789nm+-*/%() ,_ceil_divminmax9";
  const Bindings b{{"n", 1000}, {"m", -3}, {"block_x", 256}};
  int ok = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string s;
    const size_t len = 1 + rng() % 40;
    for (size_t k = 0; k < len; ++k) s += alphabet[rng() % alphabet.size()];
    const ExprResult r = eval_int_expr(s, b);
    if (r.value) ++ok;
    else EXPECT_FALSE(r.error.empty()) << s;
  }
  EXPECT_GT(ok, 100);
  // Deep nesting and long chains are bounded, not a stack overflow.
  EXPECT_FALSE(eval_int_expr(std::string(200, '(') + "1" + std::string(200, ')'), b).value);
  EXPECT_FALSE(eval_int_expr(std::string(255, '-') + "1", b).value);
  std::string chain = "1";
  for (int i = 0; i < 200; ++i) chain += "+1";
  EXPECT_FALSE(eval_int_expr(chain, b).value);  // over 256 characters
}

}  // namespace
}  // namespace bs::exercise
