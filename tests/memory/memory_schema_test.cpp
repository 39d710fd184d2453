// memory_schema_test.cpp: the memory lab's schema (ui/memory/memory_schema.h) against memory::Params: its
// defaults are the kernels' defaults and pass their own checks, a state round-trips through
// memory_params_from / memory_state_of, and values outside the kernels' ranges are refused by name.
#include <gtest/gtest.h>

#include "gpu/memory/memory.h"
#include "ui/memory/memory_schema.h"

namespace bs::ui {
namespace {

using nlohmann::json;

// Grid sizes in one order everywhere: x first (cols, then rows), as the heat lab's nx, ny and CUDA's dims. A
// non-square size keeps its meaning through the session state, and every read-out writes it x first.
TEST(MemorySchema, SizeIsXFirst) {
  json state = memory_schema().defaults();
  state["size"] = {300, 200};
  const memory::Params p = memory_params_from(state);
  EXPECT_EQ(p.cols, 300);
  EXPECT_EQ(p.rows, 200);
  EXPECT_EQ(memory_state_of(p)["size"], json::array({300, 200}));
  EXPECT_EQ(memory::shape_text(p.rows, p.cols), "300 x 200");
  EXPECT_NE(memory_schema().at("size").help.find("cols x rows"), std::string::npos);
  memory::Params big = p;
  big.cols = 16385;
  const std::string msg = memory::validate(big).value_or("");
  EXPECT_NE(msg.find("size 16385 x 200"), std::string::npos) << msg;
}

TEST(MemorySchema, DefaultsAreTheKernelsDefaults) {
  const params::Schema& s = memory_schema();
  EXPECT_EQ(s.lab(), "memory");
  EXPECT_EQ(params::check_state(s, s.defaults(), "labs.memory"), std::nullopt);
  const memory::Params d;
  const memory::Params p = memory_params_from(s.defaults());
  EXPECT_EQ(p.kernel, d.kernel);
  EXPECT_EQ(p.variant(), d.variant());
  EXPECT_EQ(p.rows, d.rows);
  EXPECT_EQ(p.cols, d.cols);
  EXPECT_EQ(p.n, d.n);
  EXPECT_EQ(p.stride, d.stride);
  EXPECT_EQ(p.bank_stride, d.bank_stride);
  EXPECT_EQ(p.block, d.block);
  EXPECT_EQ(p.threads, d.threads);
  EXPECT_FALSE(memory::validate(p));
  // The bench's sizes: 8192 x 8192 and 64M.
  EXPECT_EQ(s.at("size").bench_default, json::array({8192, 8192}));
  EXPECT_EQ(s.at("n").bench_default, "64M");
  EXPECT_FALSE(s.at("device").saved);
}

TEST(MemorySchema, StateRoundTrip) {
  memory::Params p;
  p.kernel = memory::Kernel::Banks;
  p.transpose = memory::Variant::Naive;
  p.stride_pattern = memory::Variant::Random;
  p.banks = memory::Variant::BanksPadded;
  p.aos = memory::Variant::Soa;
  p.rows = 100;
  p.cols = 37;
  p.n = int64_t{3} << 20;
  p.stride = 7;
  p.bank_stride = 16;
  p.block = {32, 4};
  p.threads = 96;
  const json state = memory_state_of(p);
  EXPECT_EQ(params::check_state(memory_schema(), state, "labs.memory"), std::nullopt);
  EXPECT_EQ(state["n"], "3M");
  EXPECT_EQ(state["banks_variant"], "padded");
  const memory::Params q = memory_params_from(state);
  EXPECT_EQ(memory_state_of(q), state);
  EXPECT_EQ(q.variant(), memory::Variant::BanksPadded);
}

TEST(MemorySchema, RefusesOutOfRange) {
  const params::Schema& s = memory_schema();
  const auto bad = [&](const char* name, const json& v) {
    return params::check_state(s, json{{name, v}}, "labs.memory").value_or("");
  };
  EXPECT_NE(bad("stride", 65).find("labs.memory.stride"), std::string::npos);
  EXPECT_NE(bad("bank_stride", 33).find("bank_stride"), std::string::npos);
  EXPECT_NE(bad("size", json::array({16385, 4})).find("size"), std::string::npos);
  EXPECT_NE(bad("block", json::array({64, 32})).find("1024"), std::string::npos);
  EXPECT_NE(bad("kernel", "reduce").find("transpose"), std::string::npos);
  EXPECT_NE(bad("transpose_variant", "plain").find("tiled-padded"), std::string::npos);
  EXPECT_EQ(bad("n", "64M"), "");
}

}  // namespace
}  // namespace bs::ui
