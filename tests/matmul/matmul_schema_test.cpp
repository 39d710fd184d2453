// matmul_schema_test.cpp: the matmul lab's parameter schema (ui/matmul/matmul_schema.h): its defaults pass
// their own checks and match the panel's and the kernels' constants, and a session's bad value gets the same
// message the session reader gave before the schema.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>

#include "app/labs.h"
#include "run_util.h"
#include "app/sweep/target.h"
#include "app/matmul/matmul_sweep_target.h"
#include "gpu/common/device_info.h"
#include "gpu/matmul/matmul.h"
#include "ui/matmul/matmul_lab_panel.h"
#include "ui/matmul/matmul_schema.h"

namespace bs {
namespace {

using nlohmann::json;

TEST(MatmulSchema, EveryDefaultPassesItsOwnCheck) {
  for (const params::Param& p : ui::matmul_schema().params()) {
    EXPECT_EQ(params::check_value(p, p.default_value), std::nullopt) << p.name;
    if (!p.bench_default.is_null()) {
      EXPECT_EQ(params::check_value(p, p.bench_default), std::nullopt) << p.name;
    }
  }
  EXPECT_EQ(check_lab_state("matmul", ui::matmul_schema().defaults()), std::nullopt);
}

TEST(MatmulSchema, ThePanelStartsAtTheSchemasDefaults) {
  const ui::MatmulPanelModel m;
  EXPECT_EQ(m.mnk[0], matmul::k_default_m);
  EXPECT_EQ(m.mnk[1], matmul::k_default_n);
  EXPECT_EQ(m.mnk[2], matmul::k_default_k);
  EXPECT_EQ(std::string(matmul::gpu_variants()[static_cast<size_t>(m.variant)].name), "smem_tile32");
  EXPECT_EQ(m.colormap, ui::matmul_schema().at("colormap").default_choice());
  EXPECT_TRUE(m.overlay);
  EXPECT_EQ(ui::matmul_schema().at("size").bench_default, matmul::k_bench_dim);
}

TEST(MatmulSchema, BadValuesGetTheSessionReadersMessages) {
  EXPECT_EQ(check_lab_state("matmul", json{{"m", 0}}), "labs.matmul.m: 0 is outside 1..65536");
  EXPECT_EQ(check_lab_state("matmul", json{{"size", "big"}}),
            "labs.matmul.size: expected a whole number, got \"big\"");
  EXPECT_EQ(check_lab_state("matmul", json{{"overlay", 1}}),
            "labs.matmul.overlay: expected true or false, got 1");
  EXPECT_EQ(check_lab_state("matmul", json{{"variant", "fast"}})
                .value_or("")
                .rfind("labs.matmul.variant: 'fast' is not one of naive_uncoalesced, ", 0),
            0u);
  EXPECT_EQ(
      check_lab_state("matmul", json{{"kstep", 1}}),
      "labs.matmul.kstep: unknown setting (known: size, m, n, k, variant, user_block, colormap, overlay, "
      "k_step, animate_k, anatomy_overlay)");
  EXPECT_EQ(
      check_lab_state("matmul", json{{"user_block", {64, 32}}}).value_or("").find("labs.matmul.user_block"),
      0u);
  // Valid members, a problem too large to run: the lab's own rule names the lab.
  const auto big = check_lab_state("matmul", json{{"size", 60000}});
  ASSERT_TRUE(big.has_value());
  EXPECT_EQ(big->rfind("labs.matmul: ", 0), 0u) << *big;
  // The shorthand is read, never written.
  EXPECT_FALSE(ui::matmul_schema().at("size").written);
}

TEST(MatmulSchema, TheSweepStartsFromTheSchema) {
  const sweep::Target& t = sweep::matmul_sweep_target();
  EXPECT_EQ(sweep::param_names(t), "size, m, n, k, variant");
  const sweep::Values v = sweep::default_values(t, {});
  EXPECT_EQ(v.at("size"), std::to_string(matmul::k_sweep_dim));
  // m, n and k follow size, and variant runs a representative set, unless the sweep names them.
  EXPECT_EQ(v.at("m"), "");
  EXPECT_EQ(v.at("variant"), "");
  EXPECT_EQ(std::string(sweep::find_param(t, "size")->sweep_example),
            ui::matmul_schema().at("size").sweep_example);
}

TEST(MatmulSchema, BenchFlagsComeFromTheSchema) {
  const test::RunResult help = test::run_blockscope("bench matmul --help");
  EXPECT_EQ(help.exit_code, 0) << help.output;
  EXPECT_NE(help.output.find("rows of A and C (default 4096)"), std::string::npos) << help.output;
  const test::RunResult bad = test::run_blockscope("bench matmul --m 0 --device cpu");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("--m: '0': outside 1..65536"), std::string::npos) << bad.output;
  const test::RunResult big = test::run_blockscope("bench matmul --size 8193 --device cpu");
  EXPECT_EQ(big.exit_code, 2) << big.output;
  EXPECT_NE(big.output.find("--size: "), std::string::npos) << big.output;
}

TEST(MatmulSuite, NeedsAGpuAndSaysSo) {
  // The suite compares GPU kernels: without a device it stops at once with the reason (on the GPU machine the
  // suite itself runs in the bench, not in a unit test).
  if (bs::query_device().available) GTEST_SKIP() << "this machine has a GPU: the suite would run";
  const test::RunResult r = test::run_blockscope("bench matmul --suite");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--suite needs a GPU"), std::string::npos) << r.output;
  const test::RunResult scan = test::run_blockscope("bench matmul --scan");
  EXPECT_EQ(scan.exit_code, 2) << scan.output;
  EXPECT_NE(scan.output.find("--scan runs with --suite"), std::string::npos) << scan.output;
  // The BF16 suite too; --scan and --variant belong to the FP32 suite and the single-shape table.
  const test::RunResult tc = test::run_blockscope("bench matmul --tensor-cores --suite");
  EXPECT_EQ(tc.exit_code, 1) << tc.output;
  EXPECT_NE(tc.output.find("--tensor-cores --suite needs a GPU"), std::string::npos) << tc.output;
  for (const char* extra : {" --scan", " --variant ws_tma_store", " --range 2", " --wide"}) {
    const test::RunResult bad = test::run_blockscope(std::string("bench matmul --tensor-cores --suite") + extra);
    EXPECT_EQ(bad.exit_code, 2) << extra << ": " << bad.output;
    EXPECT_NE(bad.output.find("not with --scan, --variant, --range or --wide"), std::string::npos) << bad.output;
  }
  // --shapes names shapes of the FP32 suite, and only those.
  const test::RunResult alone = test::run_blockscope("bench matmul --shapes 1001x999x2003");
  EXPECT_EQ(alone.exit_code, 2) << alone.output;
  EXPECT_NE(alone.output.find("--shapes picks shapes of the FP32 --suite"), std::string::npos) << alone.output;
  const test::RunResult other = test::run_blockscope("bench matmul --suite --shapes 1001x999x2003,3x3x3");
  EXPECT_EQ(other.exit_code, 2) << other.output;
  EXPECT_NE(other.output.find("'3x3x3' is not a suite shape"), std::string::npos) << other.output;
  const test::RunResult prec = test::run_blockscope("bench matmul --precision --suite");
  EXPECT_EQ(prec.exit_code, 2) << prec.output;
  EXPECT_NE(prec.output.find("--precision does not run with --suite"), std::string::npos) << prec.output;
}

}  // namespace
}  // namespace bs
