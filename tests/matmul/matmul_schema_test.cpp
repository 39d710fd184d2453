// matmul_schema_test.cpp: the matmul lab's parameter schema (ui/matmul/matmul_schema.h): its defaults pass
// their own checks and match the panel's and the kernels' constants, and a session's bad value gets the same
// message the session reader gave before the schema.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "app/labs.h"
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
  EXPECT_EQ(check_lab_state("matmul", json{{"kstep", 1}}),
            "labs.matmul.kstep: unknown setting (known: size, m, n, k, variant, colormap, overlay, k_step, "
            "animate_k, anatomy_overlay)");
  // Valid members, a problem too large to run: the lab's own rule names the lab.
  const auto big = check_lab_state("matmul", json{{"size", 60000}});
  ASSERT_TRUE(big.has_value());
  EXPECT_EQ(big->rfind("labs.matmul: ", 0), 0u) << *big;
  // The shorthand is read, never written.
  EXPECT_FALSE(ui::matmul_schema().at("size").written);
}

}  // namespace
}  // namespace bs
