// param_binding_test.cpp: a lab's state bound to its schema (core/param_binding.h): each conversion both ways,
// members left out keep their values, and a binding used with another struct is a programming error.
#include "core/param_binding.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace bs::params {
namespace {

enum class Shape { Square, Round, Star };

struct State {
  int count = 0;
  Shape shape = Shape::Square;
  int colormap = 0;  // a Choice kept as an index (an ImGui combo's)
  Dim2 block;
  int tile[2] = {0, 0};
  char n_text[8] = "";
  bool on = false;
  float rate = 0;
  int64_t nx = 0, ny = 0;  // one pair kept as two members
  int unbound = 7;
};

Schema make_schema() {
  return Schema("test", {
                            {.name = "count", .kind = Kind::Int, .default_value = 3, .lo = 1, .hi = 9,
                             .bind = bind(&State::count)},
                            {.name = "shape", .kind = Kind::Choice, .default_value = "round",
                             .names = {"square", "round", "star"}, .bind = bind(&State::shape)},
                            {.name = "colormap", .kind = Kind::Choice, .default_value = "viridis",
                             .names = {"inferno", "viridis"}, .bind = bind(&State::colormap)},
                            {.name = "block", .kind = Kind::Pair, .default_value = {32, 8}, .lo = 1,
                             .hi = 1024, .bind = bind(&State::block)},
                            {.name = "tile", .kind = Kind::Pair, .default_value = {4, 2}, .lo = 1, .hi = 64,
                             .bind = bind(&State::tile)},
                            {.name = "n", .kind = Kind::Count, .default_value = "16M",
                             .bind = bind(&State::n_text)},
                            {.name = "on", .kind = Kind::Bool, .default_value = true, .bind = bind(&State::on)},
                            {.name = "rate", .kind = Kind::Number, .default_value = 0.2, .lo = 0, .hi = 1,
                             .bind = bind(&State::rate)},
                            {.name = "size", .kind = Kind::Pair, .default_value = {640, 480}, .lo = 1,
                             .hi = 4096,
                             .bind = bind_with<State>(
                                 [](const State& s) { return nlohmann::json::array({s.nx, s.ny}); },
                                 [](State& s, const nlohmann::json& v) {
                                   s.nx = v[0].get<int64_t>();
                                   s.ny = v[1].get<int64_t>();
                                 })},
                            {.name = "steps", .kind = Kind::Int, .default_value = 5, .lo = 1, .hi = 9,
                             .saved = false, .bind = bind(&State::count)},
                            {.name = "mine", .kind = Kind::Int, .default_value = 1, .lo = 1, .hi = 9},
                        });
}

TEST(ParamBinding, TheDefaultsLoadAndSaveBackUnchanged) {
  const Schema schema = make_schema();
  State s;
  load_bound(schema, s, schema.defaults());
  EXPECT_EQ(s.count, 3);
  EXPECT_EQ(s.shape, Shape::Round);
  EXPECT_EQ(s.colormap, 1);
  EXPECT_EQ(s.block, (Dim2{32, 8}));
  EXPECT_EQ(s.tile[0], 4);
  EXPECT_EQ(s.tile[1], 2);
  EXPECT_STREQ(s.n_text, "16M");
  EXPECT_TRUE(s.on);
  EXPECT_FLOAT_EQ(s.rate, 0.2f);
  EXPECT_EQ(s.nx, 640);
  EXPECT_EQ(s.ny, 480);
  EXPECT_EQ(s.unbound, 7);
  nlohmann::json expected = schema.defaults();
  expected.erase("mine");  // not bound: the lab writes it itself
  EXPECT_EQ(save_bound(schema, s), expected) << "a float saves as typed: 0.2, not 0.20000000298023224";
  EXPECT_EQ(unbound_names(schema), "mine");
  // A parameter that is not saved (a bench setting) is still read when given, and never written.
  load_bound(schema, s, {{"steps", 7}});
  EXPECT_EQ(s.count, 7);
  EXPECT_FALSE(save_bound(schema, s).contains("steps"));
}

TEST(ParamBinding, MembersLeftOutKeepTheirValues) {
  const Schema schema = make_schema();
  State s;
  s.count = 2;
  s.shape = Shape::Star;
  load_bound(schema, s, {{"block", {16, 16}}, {"colormap", "inferno"}, {"n", 1000}});
  EXPECT_EQ(s.count, 2);
  EXPECT_EQ(s.shape, Shape::Star);
  EXPECT_EQ(s.block, (Dim2{16, 16}));
  EXPECT_EQ(s.colormap, 0);
  EXPECT_STREQ(s.n_text, "1000");
  const nlohmann::json saved = save_bound(schema, s);
  EXPECT_EQ(saved["shape"], "star");
  EXPECT_EQ(saved["colormap"], "inferno");
  EXPECT_EQ(saved["n"], "1000");
}

TEST(ParamBinding, AnotherStructIsAProgrammingError) {
  const Schema schema = make_schema();
  struct Other {
    int count = 0;
  } o;
  EXPECT_THROW((void)save_bound(schema, o), std::logic_error);
  EXPECT_THROW(load_bound(schema, o, {{"count", 4}}), std::logic_error);
}

}  // namespace
}  // namespace bs::params
