// montecarlo_schema_test.cpp: the Monte Carlo lab's parameter schema (ui/montecarlo/montecarlo_schema.h): its
// defaults pass their own checks and are the kernels' own, and a session's bad value gets the same message
// the session reader gave before the schema.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "app/labs.h"
#include "run_util.h"
#include "app/sweep/target.h"
#include "app/montecarlo/montecarlo_sweep_target.h"
#include "gpu/montecarlo/montecarlo.h"
#include "ui/montecarlo/montecarlo_lab_panel.h"
#include "ui/montecarlo/montecarlo_schema.h"

namespace bs {
namespace {

using nlohmann::json;

TEST(MonteCarloSchema, EveryDefaultPassesItsOwnCheck) {
  for (const params::Param& p : ui::montecarlo_schema().params()) {
    EXPECT_EQ(params::check_value(p, p.default_value), std::nullopt) << p.name;
    if (!p.bench_default.is_null()) {
      EXPECT_EQ(params::check_value(p, p.bench_default), std::nullopt) << p.name;
    }
  }
  EXPECT_EQ(check_lab_state("montecarlo", ui::montecarlo_schema().defaults()), std::nullopt);
}

TEST(MonteCarloSchema, ThePanelStartsAtTheKernelsDefaults) {
  const ui::mc::PanelModel m;
  const montecarlo::Params p;
  const montecarlo::Launch l;
  EXPECT_EQ(m.params.paths, p.paths);
  EXPECT_EQ(m.params.steps, p.steps);
  EXPECT_EQ(m.params.s0, p.s0);
  EXPECT_EQ(m.params.strike, p.strike);
  EXPECT_EQ(m.params.rate, p.rate);
  EXPECT_EQ(m.params.sigma, p.sigma);
  EXPECT_EQ(m.params.maturity, p.maturity);
  EXPECT_EQ(m.params.seed, p.seed);
  EXPECT_EQ(m.params.option, p.option);
  EXPECT_EQ(m.params.generator, p.generator);
  EXPECT_EQ(m.block, l.block);
  EXPECT_EQ(m.waves, l.waves);
  EXPECT_EQ(m.layout, static_cast<int>(l.layout));
  EXPECT_EQ(m.sample_paths, montecarlo::k_default_sample_paths);
  EXPECT_EQ(m.bins, montecarlo::k_default_histogram_bins);
}

TEST(MonteCarloSchema, BadValuesGetTheSessionReadersMessages) {
  EXPECT_EQ(check_lab_state("montecarlo", json{{"paths", 0}}),
            "labs.montecarlo.paths: 0 is outside 1..16777216");
  EXPECT_EQ(check_lab_state("montecarlo", json{{"sigma", -1}}),
            "labs.montecarlo.sigma: -1 is outside 0..100");
  EXPECT_EQ(check_lab_state("montecarlo", json{{"seed", 18446744073709551615ULL}}),
            "labs.montecarlo.seed: 18446744073709551615 is outside 0..9223372036854775807");
  EXPECT_EQ(check_lab_state("montecarlo", json{{"layout", "tiled"}}),
            "labs.montecarlo.layout: 'tiled' is not one of grid-stride, one-per-thread");
  EXPECT_EQ(check_lab_state("montecarlo", json{{"antithetic", "yes"}}),
            "labs.montecarlo.antithetic: expected true or false, got \"yes\"");
  EXPECT_EQ(
      check_lab_state("montecarlo", json{{"block_x", 1}}),
      "labs.montecarlo.block_x: unknown setting (known: paths, steps, s0, strike, rate, sigma, maturity, "
      "option, generator, seed, antithetic, sample_paths, bins, block, layout, waves, paused)");
  // Each member valid, together beyond the model's limits: the lab's own rule names the member.
  const auto wild = check_lab_state("montecarlo", json{{"sigma", 50}, {"maturity", 100}});
  ASSERT_TRUE(wild.has_value());
  EXPECT_EQ(wild->rfind("labs.montecarlo.", 0), 0u) << *wild;
}

TEST(MonteCarloSchema, TheSweepStartsFromTheSchema) {
  const sweep::Target& t = sweep::montecarlo_sweep_target();
  EXPECT_EQ(sweep::param_names(t), "paths, steps, generator, block.x, layout");
  const sweep::Values v = sweep::default_values(t, {});
  EXPECT_EQ(v.at("paths"), std::to_string(montecarlo::Params{}.paths));
  EXPECT_EQ(v.at("steps"), std::to_string(montecarlo::Params{}.steps));
  EXPECT_EQ(v.at("block.x"), "256");
  std::vector<std::string> gpu_only = t.gpu_only_params();
  std::sort(gpu_only.begin(), gpu_only.end());
  EXPECT_EQ(gpu_only, (std::vector<std::string>{"block.x", "generator", "layout"}));
}

TEST(MonteCarloSchema, BenchFlagsComeFromTheSchema) {
  const test::RunResult help = test::run_blockscope("bench montecarlo --help");
  EXPECT_EQ(help.exit_code, 0) << help.output;
  EXPECT_NE(help.output.find("histogram (0: none) (default 256)"), std::string::npos) << help.output;
  EXPECT_NE(help.output.find("simulated paths, 1..16777216 (16M) (default 1000000)"), std::string::npos)
      << help.output;
  const test::RunResult waves = test::run_blockscope("bench montecarlo --paths 1000 --device cpu --waves 65");
  EXPECT_EQ(waves.exit_code, 2) << waves.output;
  EXPECT_NE(waves.output.find("--waves: '65': outside 1..64"), std::string::npos) << waves.output;
  // --rng is the schema's generator under the bench's own name.
  const test::RunResult rng = test::run_blockscope("bench montecarlo --paths 1000 --device cpu --rng mt");
  EXPECT_EQ(rng.exit_code, 2) << rng.output;
  EXPECT_NE(rng.output.find("--rng: 'mt': 'mt' is not one of philox, xorwow"), std::string::npos)
      << rng.output;
}

}  // namespace
}  // namespace bs
