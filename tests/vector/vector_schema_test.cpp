// vector_schema_test.cpp: the vector lab's parameter schema (ui/vector/vector_schema.h): its defaults pass
// their own checks and are the kernels' own, element counts keep their text ("16M"), and a session's bad
// value gets the same message the session reader gave before the schema.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>

#include "app/labs.h"
#include "run_util.h"
#include "app/vector/vector_sweep_target.h"
#include "app/sweep/target.h"
#include "gpu/vector/vector.h"
#include "ui/vector/vector_lab_panel.h"
#include "ui/vector/vector_schema.h"

namespace bs {
namespace {

using nlohmann::json;

TEST(VectorSchema, EveryDefaultPassesItsOwnCheck) {
  for (const params::Param& p : ui::vector_schema().params()) {
    EXPECT_EQ(params::check_value(p, p.default_value), std::nullopt) << p.name;
    if (!p.bench_default.is_null()) {
      EXPECT_EQ(params::check_value(p, p.bench_default), std::nullopt) << p.name;
    }
  }
  EXPECT_EQ(check_lab_state("vector", ui::vector_schema().defaults()), std::nullopt);
}

TEST(VectorSchema, ThePanelStartsAtTheKernelsDefaults) {
  const ui::VectorPanelModel m;
  const vector::Params p;
  EXPECT_EQ(*vector::parse_count(m.n_text, "n").value, p.n);
  EXPECT_EQ(std::string(m.n_text), "16M");
  EXPECT_EQ(m.op, static_cast<int>(p.op));
  EXPECT_EQ(m.indexing, static_cast<int>(p.indexing));
  EXPECT_EQ(m.width, static_cast<int>(p.width));
  EXPECT_EQ(m.block, p.block);
  EXPECT_EQ(m.streams, p.streams);
  EXPECT_TRUE(m.pinned);  // the one default the lab sets apart from the kernels' (the measured fast copies)
  EXPECT_EQ(std::string(m.sweep_max_text), vector::k_default_sweep_max);
  EXPECT_EQ(m.strip_count, vector::k_default_strip_count);
  EXPECT_EQ(m.strip_grid, vector::k_default_strip_grid);
}

TEST(VectorSchema, CountsAreNumbersOrTextWithASuffix) {
  const params::Param& n = ui::vector_schema().at("n");
  EXPECT_EQ(params::check_value(n, json(1000)), std::nullopt);
  EXPECT_EQ(params::check_value(n, json("256M")), std::nullopt);
  EXPECT_EQ(params::check_value(n, json(" 4k ")), std::nullopt);
  EXPECT_EQ(params::check_value(n, json("1.5M")),
            "n: '1.5M' is not an element count (a whole number, optionally with K, M or G: 1000, 64K, 256M)");
  EXPECT_EQ(params::check_value(n, json("99999999999999999999G")),
            "n: '99999999999999999999G' is far too large");
  EXPECT_EQ(params::check_value(n, json(1.5)), "expected an element count like 16777216 or \"16M\", got 1.5");
  // From the command line the text is kept as written, and read back the same way.
  const params::TextValue t = params::from_text(n, "64M", "--n");
  ASSERT_TRUE(t.value.has_value()) << t.error;
  EXPECT_EQ(*t.value, json("64M"));
  EXPECT_EQ(params::to_text(n, *t.value), "64M");
  EXPECT_NE(params::from_text(n, "1T", "--n").error.find("--n: '1T'"), std::string::npos);
}

TEST(VectorSchema, BadValuesGetTheSessionReadersMessages) {
  EXPECT_EQ(
      check_lab_state("vector", json{{"n", "lots"}}),
      "labs.vector.n: n: 'lots' is not an element count (a whole number, optionally with K, M or G: 1000, "
      "64K, 256M)");
  EXPECT_EQ(check_lab_state("vector", json{{"n", true}}),
            "labs.vector.n: expected an element count like 16777216 or \"16M\", got true");
  EXPECT_EQ(check_lab_state("vector", json{{"n", "00000000000000000000000000000001K"}}),
            "labs.vector.n: too long");
  EXPECT_EQ(check_lab_state("vector", json{{"n", 0}}).value_or("").rfind("labs.vector: ", 0), 0u);
  EXPECT_EQ(check_lab_state("vector", json{{"sweep_max", "1G"}}),
            "labs.vector.sweep_max: 1G is outside 1..512M");
  EXPECT_EQ(check_lab_state("vector", json{{"streams", 17}}), "labs.vector.streams: 17 is outside 1..16");
  EXPECT_EQ(check_lab_state("vector", json{{"strip_count", 10}}),
            "labs.vector.strip_count: 10 is outside 64..8192");
  EXPECT_EQ(check_lab_state("vector", json{{"width", "double"}}),
            "labs.vector.width: 'double' is not one of float, float4");
  EXPECT_EQ(check_lab_state("vector", json{{"chunks", 2}}),
            "labs.vector.chunks: unknown setting (known: n, op, kernel, indexing, width, block, pinned, "
            "streams, "
            "sweep_max, "
            "strip_count, strip_grid, strip_grid_like_gpu, grid_stride_by_block)");
}

TEST(VectorSchema, TheSweepStartsFromTheSchema) {
  const sweep::Target& t = sweep::vector_sweep_target();
  EXPECT_EQ(sweep::param_names(t), "size, op, kernel, indexing, width, block.x, pinned, streams");
  const sweep::Values v = sweep::default_values(t, {});
  EXPECT_EQ(v.at("size"), "16M");
  EXPECT_EQ(v.at("indexing"), "one-per-element");
  EXPECT_EQ(v.at("pinned"), "true");
  EXPECT_EQ(v.at("streams"), "1");
  EXPECT_NO_THROW(t.validate(v));
  // The sweep's own spelling of a switch still reads.
  sweep::Values pageable = v;
  pageable["pinned"] = "0";
  EXPECT_NO_THROW(t.validate(pageable));
  pageable["pinned"] = "2";
  EXPECT_THROW(t.validate(pageable), std::exception);
}

TEST(VectorSchema, BenchFlagsComeFromTheSchema) {
  const test::RunResult help = test::run_blockscope("bench vector --help");
  EXPECT_EQ(help.exit_code, 0) << help.output;
  EXPECT_NE(help.output.find("256M = 268435456) (default 64M)"), std::string::npos) << help.output;
  const test::RunResult bad = test::run_blockscope("bench vector --n 1K --device cpu --streams 17");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("--streams: '17': outside 1..16"), std::string::npos) << bad.output;
  const test::RunResult count = test::run_blockscope("bench vector --n 1.5M --device cpu");
  EXPECT_EQ(count.exit_code, 2) << count.output;
  EXPECT_NE(count.output.find("is not an element count"), std::string::npos) << count.output;
}

}  // namespace
}  // namespace bs
