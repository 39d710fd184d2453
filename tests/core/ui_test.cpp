// ui_test.cpp: colormap parsing and the plot's tick arithmetic (no GL needed).
#include <gtest/gtest.h>

#include "ui/colormap.h"
#include "assets/embedded.h"
#include "ui/plot.h"

namespace bs {

TEST(Colormap, BuiltinsParseAndSpanDarkToLight) {
  const auto& maps = builtin_colormaps();
  ASSERT_GE(maps.size(), 5u);
  EXPECT_EQ(maps[0].name, "inferno");
  const auto lum = [](uint32_t c) {
    return (c & 0xFF) * 0.3 + ((c >> 8) & 0xFF) * 0.59 + ((c >> 16) & 0xFF) * 0.11;
  };
  EXPECT_LT(lum(maps[0].rgba[0]), 10);
  EXPECT_GT(lum(maps[0].rgba[255]), 200);
  for (const auto& m : maps)
    EXPECT_EQ(m.rgba[128] >> 24, 0xFFu) << m.name;
}

TEST(Colormap, MalformedInputIsRefused) {
  std::string err;
  EXPECT_FALSE(parse_colormap("bad", "0 1 2\n", &err));
  EXPECT_NE(err.find("bad:1"), std::string::npos) << err;
  EXPECT_FALSE(parse_colormap("one", "0 0 0 0\n", &err));
  EXPECT_FALSE(parse_colormap("range", "0 0 0 0\n2 1 1 1\n", &err));
  auto ok = parse_colormap("bw", "# comment\n0 0 0 0\n1 1 1 1\n", &err);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->rgba[0] & 0xFFFFFFu, 0u);
  EXPECT_EQ(ok->rgba[255] & 0xFFFFFFu, 0xFFFFFFu);
}

TEST(Embedded, ShadersAreCompiledIn) {
  EXPECT_NE(embedded::find("field.frag.glsl").find("#version 330"), std::string_view::npos);
  EXPECT_TRUE(embedded::find("no-such-file").empty());
}

TEST(Plot, NiceTicks) {
  const auto t = ui::nice_ticks(0, 1, 5, false);
  ASSERT_FALSE(t.empty());
  EXPECT_DOUBLE_EQ(t.front(), 0);
  EXPECT_NEAR(t.back(), 1.0, 1e-12);
  const auto l = ui::nice_ticks(3, 20000, 5, true);
  EXPECT_EQ(l, (std::vector<double>{10, 100, 1000, 10000}));
  EXPECT_EQ(ui::format_tick(1500000), "1.5M");
  EXPECT_EQ(ui::format_tick(0), "0");
}

}  // namespace bs
