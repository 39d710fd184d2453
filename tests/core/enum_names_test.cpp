// enum_names_test.cpp: every enum <-> name table round-trips, refuses unknown names, and keeps the exact
// names that session files, sweep definitions and CLI flags already use (changing one would break saved
// files). Tables read by StateReader::choice, which stores an index, must list their values in the enum's
// order.
#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <string>

#include "app/bench.h"
#include "app/render_path.h"
#include "app/sweep/sweep.h"
#include "core/enum_names.h"
#include "gpu/anatomy/overlay.h"
#include "gpu/heat/heat.h"
#include "gpu/montecarlo/montecarlo.h"
#include "gpu/vector/vector.h"
#include "ui/presenter.h"

namespace bs {
namespace {

// Each value's name parses back to the value; names are distinct and non-empty; the table holds each value
// once; text that names no value (empty, a case change, a near miss, a name with spaces) gives nullopt.
template <class Table>
void expect_round_trip(const Table& t, const std::string& expected_list) {
  SCOPED_TRACE(expected_list);
  EXPECT_EQ(t.list(), expected_list);
  EXPECT_EQ(t.names().size(), t.size());
  std::set<std::string_view> names;
  std::set<int> values;
  for (const auto v : t.values()) {
    const std::string_view n = t.name_of(v);
    EXPECT_FALSE(n.empty());
    EXPECT_NE(n, "?");
    EXPECT_EQ(std::string(t.c_name(v)), std::string(n));  // null-terminated for printf and ImGui
    ASSERT_TRUE(t.parse(n).has_value()) << n;
    EXPECT_EQ(*t.parse(n), v) << n;
    names.insert(n);
    values.insert(static_cast<int>(v));
  }
  EXPECT_EQ(names.size(), t.size()) << "a name is listed twice";
  EXPECT_EQ(values.size(), t.size()) << "a value is listed twice";
  EXPECT_FALSE(t.parse("").has_value());
  EXPECT_FALSE(t.parse("no-such-name").has_value());
  const std::string first(t.names()[0]);
  EXPECT_FALSE(t.parse(first + " ").has_value());
  EXPECT_FALSE(t.parse(" " + first).has_value());
  std::string upper = first;
  for (char& c : upper)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper != first) {
    EXPECT_FALSE(t.parse(upper).has_value()) << upper;
  }
}

// Sessions store the index StateReader::choice finds and cast it to the enum: table order = enum order.
template <class Table>
void expect_enum_order(const Table& t) {
  for (size_t i = 0; i < t.size(); ++i)
    EXPECT_EQ(static_cast<size_t>(t.values()[i]), i) << t.names()[i];
}

enum class Colour { Red, Green, Blue };
constexpr auto k_colour_names = enum_names<Colour>({{Colour::Red, "red"}, {Colour::Green, "green"}});

}  // namespace

TEST(EnumNames, TheFacilityItself) {
  static_assert(k_colour_names.size() == 2);
  static_assert(k_colour_names.parse("green") == Colour::Green);  // usable at compile time
  static_assert(!k_colour_names.parse("blue").has_value());
  EXPECT_EQ(k_colour_names.name_of(Colour::Red), "red");
  EXPECT_EQ(k_colour_names.name_of(Colour::Blue), "?");  // a value the table does not name
  EXPECT_EQ(k_colour_names.list(), "red | green");
  EXPECT_EQ(k_colour_names.list(", "), "red, green");
  EXPECT_EQ(k_colour_names.list(" or "), "red or green");
  constexpr auto k_three = enum_names<Colour>({{Colour::Red, "r"}, {Colour::Green, "g"}, {Colour::Blue, "b"}});
  EXPECT_EQ(k_three.list(", ", " or "), "r, g or b");
  const auto by_name = k_three.by_name();  // for CLI11
  ASSERT_EQ(by_name.size(), 3u);
  EXPECT_EQ(by_name.at("b"), Colour::Blue);
  expect_round_trip(k_colour_names, "red | green");
}

TEST(EnumNames, HeatSessionNames) {
  expect_round_trip(heat::k_pattern_names, "hot-spots | gaussian | noise");
  expect_round_trip(heat::k_boundary_names, "fixed | insulated");
  expect_enum_order(heat::k_pattern_names);
  expect_enum_order(heat::k_boundary_names);
}

TEST(EnumNames, MonteCarloNames) {
  expect_round_trip(montecarlo::k_option_names, "call | put | asian");
  expect_round_trip(montecarlo::k_generator_names, "philox | xorwow");
  expect_round_trip(montecarlo::k_layout_names, "grid-stride | one-per-thread");
  expect_enum_order(montecarlo::k_option_names);
  expect_enum_order(montecarlo::k_generator_names);
  expect_enum_order(montecarlo::k_layout_names);
  // The named functions read the same tables.
  for (const auto o : montecarlo::k_option_names.values())
    EXPECT_EQ(montecarlo::parse_option(montecarlo::option_label(o)), o);
  for (const auto g : montecarlo::k_generator_names.values())
    EXPECT_EQ(montecarlo::parse_generator(montecarlo::k_generator_names.name_of(g)), g);
  EXPECT_FALSE(montecarlo::parse_option("Call").has_value());
  EXPECT_FALSE(montecarlo::parse_generator("Philox4_32_10").has_value());  // a label, not a name
}

TEST(EnumNames, VectorNames) {
  expect_round_trip(vector::k_op_names, "add | formula");
  expect_round_trip(vector::k_indexing_names, "one-per-element | grid-stride");
  expect_round_trip(vector::k_load_width_names, "float | float4");
  expect_enum_order(vector::k_op_names);
  expect_enum_order(vector::k_indexing_names);
  expect_enum_order(vector::k_load_width_names);
  for (const auto op : vector::k_op_names.values())
    EXPECT_EQ(vector::parse_op(vector::to_string(op)), op);
  EXPECT_STREQ(vector::to_string(vector::LoadWidth::Float4), "float4");
  EXPECT_FALSE(vector::parse_op("sum").has_value());
}

TEST(EnumNames, OverlayModeNames) {
  expect_round_trip(anatomy::k_overlay_mode_names, "off | blockidx | threadidx | warp | sm | time");
  expect_enum_order(anatomy::k_overlay_mode_names);  // the O key cycles in this order
  for (int i = 0; i < anatomy::k_overlay_mode_count; ++i) {
    const auto m = static_cast<anatomy::OverlayMode>(i);
    EXPECT_EQ(anatomy::parse_overlay_mode(anatomy::overlay_mode_name(m)), m);
  }
  EXPECT_FALSE(anatomy::parse_overlay_mode("blockIdx").has_value());  // the label, not the CLI name
  EXPECT_EQ(anatomy::k_overlay_mode_names.list(", ", " or "), "off, blockidx, threadidx, warp, sm or time");
}

TEST(EnumNames, AppNames) {
  expect_round_trip(k_path_request_names, "auto | interop | host | cpu");
  for (const auto r : k_path_request_names.values())
    EXPECT_EQ(parse_path_request(cli_name(r)), r);
  EXPECT_FALSE(parse_path_request("gpu").has_value());
  expect_round_trip(sweep::k_device_names, "auto | gpu | cpu | all");
  for (const auto d : sweep::k_device_names.values())
    EXPECT_EQ(sweep::parse_device(sweep::to_string(d)), d);
  expect_round_trip(sweep::k_metric_names, "time | throughput | roofline");
  expect_round_trip(cli::k_bench_device_names, "gpu | cpu | all");
  expect_round_trip(ui::k_theme_names, "dark | light");
  expect_enum_order(ui::k_theme_names);
  EXPECT_STREQ(ui::to_string(ui::Theme::Light), "light");
}

}  // namespace bs
